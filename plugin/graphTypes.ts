/**
 * A state machine graph as the game writes it (plain JSON, the types setGraph takes); plugin/graphCheck.ts checks
 * it and puts it in a canonical form.
 */
import type { LoopMode } from '../src/clip/phase.ts'
import type { RotationMode } from '../src/clip/clip.ts'
import type { LayerMode } from '../systems/layerState.ts'
import type { MaskEntry } from './layers.ts'

/**
 * A state machine: parameters the game sets, and layers of states and transitions, each driving the plugin layer
 * of its index (see setGraph). Plain JSON: save it, load it, diff it.
 */
export interface AnimationGraph {
  /** The parameters conditions and blend spaces read, by name. Default none. */
  parameters?: Readonly<Record<string, GraphParameter>>
  /** 1 to 8 layers; layer i drives plugin layer i. */
  layers: readonly GraphLayer[]
}

/** A parameter: 'float' and 'int' (numbers), 'bool', or 'trigger' (set by trigger(), used up by a transition). */
export interface GraphParameter {
  /** 'float' or 'int' (numbers; an int's are integers), 'bool', or 'trigger'. */
  type: 'float' | 'int' | 'bool' | 'trigger'
  /** Its value until set: a finite number (an integer for 'int') or a boolean. Default 0 or false; none for a
   * trigger. */
  default?: number | boolean
}

/** A graph layer: the plugin layer it drives is configured as setLayer takes mode, mask and weight. */
export interface GraphLayer {
  /** Unique in the graph: getState and the events name the layer by it. */
  name: string
  /** The state the layer starts in. */
  entry: string
  /** Its states by name ('any' is reserved). Layer 0's play a clip or a blend space; other layers' may be
   * empty. */
  states: Readonly<Record<string, GraphState>>
  /** Tried in list order each step; the first that may go, goes. Default none. */
  transitions?: readonly GraphTransition[]
  /** As setLayer: 'override' (default) or 'additive' (not layer 0). */
  mode?: LayerMode
  /** As setLayer: joints with their subtrees, or null for the whole body (default). */
  mask?: readonly MaskEntry[] | null
  /** As setLayer: in [0, 1], default 1; a layer that showed nothing fades in to it. */
  weight?: number
}

/** A state: a clip with play options, a blend space, or empty (`{}`: the layer shows nothing). */
export type GraphState = GraphClipState | GraphBlendSpaceState | Record<string, never>

/** A state that plays a clip (name or asset clip index) with play's options. */
export interface GraphClipState {
  /** The clip: a name, or an index among the asset's clips. */
  clip: string | number
  /** Playback rate, finite (as play's). Default 1. */
  speed?: number
  /** 'once', 'repeat' or 'pingpong' (as play's). Default 'repeat'. */
  loop?: LoopMode
  /** Start time, seconds into the clip (as play's). Default 0. */
  time?: number
  /** How LINEAR rotations are sampled: 'slerp' or 'squad' (as play's). Default 'slerp'. */
  rotation?: RotationMode
}

/** A state that plays a blend space whose parameter is a graph parameter (two for 2D points). */
export interface GraphBlendSpaceState {
  /** The blend space, as playBlendSpace takes it, with its parameter a graph parameter. */
  blendSpace: {
    /** 1 to 16 points as playBlendSpace's. */
    points: readonly {
      /** The point's clip: a name, or an index among the asset's clips. */
      clip: string | number
      /** Where it sits: a number (1D) or [x, y] (2D). */
      at: number | readonly [number, number]
    }[]
    /** A 'float' or 'int' parameter, or [x, y] two of them for 2D points. */
    parameter: string | readonly [string, string]
    /** Phase-locked clips (as playBlendSpace's). Default true. */
    sync?: boolean
    /** Playback rate, finite. Default 1. */
    speed?: number
  }
}

/** A transition (see setGraph for when one goes). */
export interface GraphTransition {
  /** A state, or 'any' (every state but, unless canTransitionToSelf, the one the layer is in or heading to). */
  from: string
  /** The state it goes to. */
  to: string
  /** Conditions that must all hold: [trigger] or [bool] (is true), or [parameter, operator, value]. */
  when?: readonly GraphCondition[]
  /** Seconds the cross-fade lasts, finite, ≥ 0. Default 0: a cut. */
  duration?: number
  /** The normalized time (≥ 0) the state it leaves must have reached. Default none. */
  exitTime?: number
  /** What may interrupt it once it runs (PlayCanvas's interruptionSource). Default 'none'. */
  interruption?: 'none' | 'current' | 'next' | 'both'
  /** A transition from 'any' may go to the state the layer is in or heading to. Default false. */
  canTransitionToSelf?: boolean
}

/** A condition of a transition. */
export type GraphCondition =
  readonly [string] | readonly [string, '>' | '<' | '>=' | '<=' | '==' | '!=', number | boolean]
