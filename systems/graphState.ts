/**
 * Animation state machines, the step's half: a graph compiled for one asset (GraphPlan: numbers in typed arrays,
 * shared by every character of that asset that runs it) and a character's run of it (GraphRun: its parameters,
 * pending triggers and, per graph layer, where it is). systems/evaluateGraphs.ts advances runs; plugin/graphs.ts
 * makes them (setGraph), and plugin/graphPlayback.ts turns a state entered into the layer calls that play it.
 *
 * A graph layer drives the plugin layer `index` (graph layers in index order from 0). Each state is a clip, a
 * blend space bound to parameters, or empty (layers other than 0 only). A transition goes from a state (or from
 * any, FROM_ANY) to a state when its conditions hold and its exit time is reached; while it runs, the layer is
 * in its `current` state and heading to its `next` one.
 */
import type { BlendSpaceState } from './layerState.ts'

/** Parameter types (GraphPlan.paramType), in the order of PARAMETER_TYPES. */
export const PARAM_FLOAT = 0
export const PARAM_INT = 1
export const PARAM_BOOL = 2
export const PARAM_TRIGGER = 3
export const PARAMETER_TYPES = ['float', 'int', 'bool', 'trigger'] as const

/** Condition operators (GraphLayerPlan.condOp): value op operand; OP_SET is a trigger that is pending. */
export const OP_GT = 0
export const OP_LT = 1
export const OP_GE = 2
export const OP_LE = 3
export const OP_EQ = 4
export const OP_NE = 5
export const OP_SET = 6
export const CONDITION_OPERATORS = ['>', '<', '>=', '<=', '==', '!='] as const

/** What a running transition lets interrupt it (PlayCanvas's interruptionSource), in INTERRUPTIONS' order. */
export const INTERRUPT_NONE = 0
export const INTERRUPT_CURRENT = 1
export const INTERRUPT_NEXT = 2
export const INTERRUPT_BOTH = 3
export const INTERRUPTIONS = ['none', 'current', 'next', 'both'] as const

/** State kinds (GraphLayerPlan.kind). */
export const STATE_EMPTY = 0
export const STATE_CLIP = 1
export const STATE_BLEND_SPACE = 2

/** A transition's `from` for 'any'. */
export const FROM_ANY = -1

/** One graph layer compiled: its states, transitions and conditions as parallel arrays. */
export interface GraphLayerPlan {
  readonly name: string
  /** The plugin layer it drives. */
  readonly index: number
  readonly entry: number
  /** Per state (s): its name, kind, clip (-1 for none), clip duration (seconds), start time and rate. */
  readonly stateNames: readonly string[]
  readonly kind: Uint8Array
  readonly clip: Int32Array
  readonly duration: Float64Array
  readonly start: Float64Array
  readonly speed: Float64Array
  /** 1 for a 'once' clip, whose time stops at its end. */
  readonly once: Uint8Array
  /** A blend space's parameters (x; y, -1 in 1D), -1 for other states. */
  readonly paramX: Int32Array
  readonly paramY: Int32Array
  /**
   * Per transition (t), in list order: from (a state, or FROM_ANY), to, duration (seconds), exit time (normalized
   * time of the state it leaves, NaN for none), interruption, whether 'any' may enter the state the layer is in
   * or heading to, and its conditions: condCount[t] of them from condFirst[t].
   */
  readonly from: Int32Array
  readonly to: Int32Array
  readonly fade: Float64Array
  readonly exitTime: Float64Array
  readonly interruption: Uint8Array
  readonly toSelf: Uint8Array
  readonly condFirst: Int32Array
  readonly condCount: Int32Array
  /** Per condition: parameter, operator (OP_*) and operand (a bool as 0 or 1). */
  readonly condParam: Int32Array
  readonly condOp: Uint8Array
  readonly condValue: Float64Array
}

/** A graph compiled for one asset (plugin/graphCompile.ts extends it with what playing a state needs). */
export interface GraphPlan {
  /** The checked graph as canonical JSON: its identity (cache key, hash, snapshots). */
  readonly text: string
  readonly asset: number
  /** Per parameter: name, PARAM_* type, default (a bool as 0 or 1). */
  readonly paramNames: readonly string[]
  readonly paramType: Uint8Array
  readonly paramDefault: Float64Array
  readonly layers: readonly GraphLayerPlan[]
}

/**
 * A character's run of a graph. `params` are the parameters' values (a bool as 0 or 1), `triggers` 1 where one
 * is pending. Per graph layer g, `i` from g·RUN_INTS and `f` from g·RUN_FLOATS (layout below). `blendSpaces[g][s]`
 * is the character's blend space of state s (made when the graph was set, restarted each time it is entered),
 * null for other states; derived, neither hashed nor stored.
 */
export interface GraphRun {
  readonly plan: GraphPlan
  readonly params: Float64Array
  readonly triggers: Uint8Array
  readonly i: Int32Array
  readonly f: Float64Array
  readonly blendSpaces: readonly (BlendSpaceState | null)[][]
}

/**
 * `i` per graph layer: the state it is in; the state it is heading to (-1 when no transition runs); the running
 * transition (-1 for none).
 */
export const RUN_CURRENT = 0
export const RUN_NEXT = 1
export const RUN_TRANSITION = 2
export const RUN_INTS = 3
/**
 * `f` per graph layer: time (seconds into the state's clip from its start time, not wrapped; a blend space's or an
 * empty state's seconds in the state) and normalized time (time / clip duration; a blend space's cycles; 1 for
 * an empty state) of the current state, then of the next; the steps the running transition has run (its
 * progress is rampFraction of them, as its fade's); the steps each of the two states has advanced (-1 until a
 * step shows its start: a state entered outside the step). Steps count in animation time, as the fades do
 * (stepRamp): each step adds the time scale, 1 at the normal rate.
 */
export const RUN_CURRENT_TIME = 0
export const RUN_CURRENT_NORMALIZED = 1
export const RUN_NEXT_TIME = 2
export const RUN_NEXT_NORMALIZED = 3
export const RUN_TRANSITION_STEPS = 4
export const RUN_CURRENT_STEPS = 5
export const RUN_NEXT_STEPS = 6
export const RUN_FLOATS = 7

/** A run of `plan` as setGraph starts it: parameters at their defaults, every layer in its entry state. */
export function createGraphRun(
  plan: GraphPlan,
  blendSpaces: readonly (BlendSpaceState | null)[][],
): GraphRun {
  const layers = plan.layers.length
  const run: GraphRun = {
    plan,
    params: plan.paramDefault.slice(),
    triggers: new Uint8Array(plan.paramNames.length),
    i: new Int32Array(layers * RUN_INTS),
    f: new Float64Array(layers * RUN_FLOATS),
    blendSpaces,
  }
  for (let g = 0; g < layers; g++) {
    const i = g * RUN_INTS
    run.i[i + RUN_CURRENT] = plan.layers[g]!.entry
    run.i[i + RUN_NEXT] = -1
    run.i[i + RUN_TRANSITION] = -1
    run.f[g * RUN_FLOATS + RUN_CURRENT_STEPS] = -1
    run.f[g * RUN_FLOATS + RUN_NEXT_STEPS] = -1
    startTimes(run, g, RUN_CURRENT_TIME, plan.layers[g]!.entry)
  }
  return run
}

/** The time and normalized time (at `at`: RUN_CURRENT_TIME or RUN_NEXT_TIME) of state s of layer g at its start. */
export function startTimes(run: GraphRun, g: number, at: number, s: number): void {
  const layer = run.plan.layers[g]!
  const o = g * RUN_FLOATS + at
  const kind = layer.kind[s]!
  const start = kind === STATE_CLIP ? layer.start[s]! : 0
  run.f[o] = start
  run.f[o + 1] = kind === STATE_EMPTY ? 1 : kind === STATE_CLIP ? normalized(start, layer.duration[s]!) : 0
}

/** A clip's normalized time: seconds / duration, 1 for a clip of no length. */
export function normalized(seconds: number, duration: number): number {
  return duration > 0 ? seconds / duration : 1
}

/**
 * Whether the pending triggers and parameters meet transition t's conditions (all of them; none always does).
 * Comparisons as written (a NaN never meets one); allocation-free.
 */
export function conditionsHold(run: GraphRun, layer: GraphLayerPlan, t: number): boolean {
  const first = layer.condFirst[t]!
  const end = first + layer.condCount[t]!
  for (let c = first; c < end; c++) {
    const p = layer.condParam[c]!
    const v = run.params[p]!
    const w = layer.condValue[c]!
    let holds: boolean
    switch (layer.condOp[c]) {
      case OP_GT:
        holds = v > w
        break
      case OP_LT:
        holds = v < w
        break
      case OP_GE:
        holds = v >= w
        break
      case OP_LE:
        holds = v <= w
        break
      case OP_EQ:
        holds = v === w
        break
      case OP_NE:
        holds = v !== w
        break
      default:
        holds = run.triggers[p] === 1
    }
    if (!holds) return false
  }
  return true
}
