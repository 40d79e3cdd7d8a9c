/**
 * The types of drei-shaped animation actions (./actions.ts makes them) and the mixer they answer to.
 *
 * @module
 */
import { EventDispatcher, type AnimationActionLoopStyles } from 'three'
import type { AnimationPlugin } from '../../entry/index.ts'

/** What the actions drive: the plugin and the clock of its fixed steps. */
export interface ActionHost {
  readonly plugin: AnimationPlugin
  /** Steps run so far (the fixed stepper's `steps`). */
  readonly steps: number
}

/**
 * One clip of a character, controlled as three's AnimationAction is (the calls drei users make). Calls return
 * the action, to chain: `actions.Walk.reset().fadeIn(0.5).play()`.
 */
export interface AnimationAction {
  /** The clip's name. */
  readonly name: string
  /** three's `enabled`: false turns the action off (weight 0) until reset() or enabled = true. */
  enabled: boolean
  /** Weight before fades, in [0, 1] (setEffectiveWeight). */
  weight: number
  /** Playback rate (setEffectiveTimeScale); negative plays backwards. */
  timeScale: number
  /** Holds the time where it is. */
  paused: boolean
  /** LoopRepeat, LoopOnce or LoopPingPong (setLoop). */
  loop: AnimationActionLoopStyles
  /** three's repetitions; only Infinity is mapped. */
  repetitions: number
  /** A LoopOnce clip that finishes holds its last pose (true) or turns off (false, three's default). */
  clampWhenFinished: boolean
  /** The clip's local time, seconds (set: jumps there). */
  time: number
  /** Starts the action (a no-op while it is running). */
  play(): this
  /** Stops it at once and resets its time, weight ramp and state. */
  stop(): this
  /** Time 0, enabled, not paused, no fade. */
  reset(): this
  /** Whether it plays now: started, enabled, not paused, weight above 0 or fading. */
  isRunning(): boolean
  /** Whether play() was called and stop() was not since. */
  isScheduled(): boolean
  /** Ramps its weight factor from 0 to 1 over `seconds`. */
  fadeIn(seconds: number): this
  /** Ramps its weight factor from 1 to 0 over `seconds`; it turns off at the end. */
  fadeOut(seconds: number): this
  /** Fades `previous` out and this in over `seconds` (warp is not mapped). */
  crossFadeFrom(previous: AnimationAction, seconds: number, warp?: boolean): this
  /** Fades this out and `next` in over `seconds` (warp is not mapped). */
  crossFadeTo(next: AnimationAction, seconds: number, warp?: boolean): this
  /** Drops a fade: the weight is `weight` again (three's). */
  stopFading(): this
  /** Sets `weight` (and enables the action, as three does). */
  setEffectiveWeight(weight: number): this
  /** Its weight now: weight × fade, 0 when disabled. */
  getEffectiveWeight(): number
  /** Sets `timeScale`. */
  setEffectiveTimeScale(timeScale: number): this
  /** `timeScale`, 0 while paused. */
  getEffectiveTimeScale(): number
  /** Sets `loop` and `repetitions`. */
  setLoop(mode: AnimationActionLoopStyles, repetitions: number): this
}

/** The set of actions of one character (createAnimationActions). */
export interface AnimationActions {
  /** Clip name → action. */
  readonly actions: Readonly<Record<string, AnimationAction>>
  /**
   * The mixer-like side: 'finished' ({ action, direction }) and 'loop' ({ action, loopDelta }) events, as three's
   * mixer dispatches them, and stopAllAction().
   */
  readonly mixer: ActionMixer
  /** The character the actions drive, or null before attach(). */
  readonly character: number | null
  /** Drives `character` from now on (the actions' state so far is applied). */
  attach(character: number): void
  /** Stops driving it (its layers are left as they are: the caller removes the character). */
  detach(): void
  /** Call before each fixed step: re-plans the layers at the step a fade ends. */
  beforeStep(): void
  /** Call after each fixed step with the index of the step's first event in `plugin.events`. */
  afterStep(firstEvent: number): void
}

/** The events three's mixer dispatches, for the calls drei users make on `mixer`. */
export interface ActionMixerEvents {
  /** A LoopOnce action reached its end. */
  finished: {
    /** The action. */
    action: AnimationAction
    /** 1 played forwards, -1 backwards. */
    direction: number
  }
  /** A repeating action wrapped. */
  loop: {
    /** The action. */
    action: AnimationAction
    /** 1 wrapped forwards, -1 backwards. */
    loopDelta: number
  }
}

/** three's AnimationMixer as far as actions need it: events, and stopAllAction. */
export class ActionMixer extends EventDispatcher<ActionMixerEvents> {
  constructor(private readonly all: () => readonly AnimationAction[]) {
    super()
  }
  /** Stops every action. */
  stopAllAction(): this {
    for (const action of this.all()) action.stop()
    return this
  }
}
