import { AnimationError, showValue } from '../errors.ts'

/**
 * Fixed-step driver: turns variable frame times into a whole number of fixed simulation steps
 * (the usual accumulator loop). It reads no clock; the caller passes each frame's elapsed seconds.
 *
 * The simulation's clock is `steps` (an integer); time in seconds is `steps * dt` when needed, never a sum of
 * floats. Between calls the accumulator holds less than one step, so its rounding cannot build up.
 */
export interface FixedStepper {
  /** Seconds per step (> 0). */
  readonly dt: number
  /** At most this many steps run per `advance`; backlog beyond it is dropped (no spiral after a stall). */
  readonly maxStepsPerFrame: number
  /** Steps run since creation: the simulation clock. */
  readonly steps: number
  /** Leftover time as a fraction of a step, in [0, 1): how far display is between the last step and the next. */
  readonly alpha: number
  /**
   * Whole steps that were due but dropped because a frame's backlog exceeded `maxStepsPerFrame`, since
   * creation; `droppedLastFrame` counts those of the last `advance` only. A test that needs every step runs
   * `plugin.step()` itself instead of advancing a stepper by large frame times.
   */
  readonly dropped: number
  /** Whole steps dropped by the last `advance` (0 when it ran every step that was due). */
  readonly droppedLastFrame: number
  /**
   * Adds `frameSeconds` (finite, >= 0) and calls `step(dt)` once per whole step due, at most
   * `maxStepsPerFrame` times. Returns the number of steps run. Throws AnimationError 'argument' for a bad
   * frame time, before running anything.
   */
  advance(frameSeconds: number, step: (dt: number) => void): number
}

/** Options of createFixedStepper. */
export interface FixedStepperOptions {
  /** Seconds per step, finite and > 0. Default 1/60. */
  dt?: number
  /** Integer >= 1. Default 5. */
  maxStepsPerFrame?: number
}

/**
 * Frames that add up to a whole number of steps in exact arithmetic (twelve 1/144 s frames make five 1/60 s
 * steps) can fall an ulp short in floating point, which would delay the step by a display frame. Leftovers
 * within this fraction of a step count as a whole step (the step runs at most ~1e-9 dt early).
 */
const STEP_TOLERANCE = 1e-9

/**
 * A fixed stepper at step 0 with nothing accumulated. Pass the plugin's `dt` so the stepper's steps are the
 * plugin's. Throws AnimationError 'argument' when `dt` is not finite and > 0 or `maxStepsPerFrame` is not an
 * integer ≥ 1.
 */
export function createFixedStepper(options: FixedStepperOptions = {}): FixedStepper {
  if (typeof options !== 'object' || options === null) {
    throw new AnimationError(
      'argument',
      `createFixedStepper: options ${showValue(options)} must be an object`,
    )
  }
  const { dt = 1 / 60, maxStepsPerFrame = 5 } = options
  if (!(typeof dt === 'number' && Number.isFinite(dt) && dt > 0)) {
    throw new AnimationError(
      'argument',
      `createFixedStepper: dt ${showValue(dt)} s must be a finite number > 0`,
    )
  }
  if (!(Number.isInteger(maxStepsPerFrame) && maxStepsPerFrame >= 1)) {
    throw new AnimationError(
      'argument',
      `createFixedStepper: maxStepsPerFrame ${showValue(maxStepsPerFrame)} must be an integer >= 1`,
    )
  }
  const due = dt * (1 - STEP_TOLERANCE)
  let accumulator = 0
  let steps = 0
  let dropped = 0
  let droppedLastFrame = 0

  return {
    dt,
    maxStepsPerFrame,
    get steps() {
      return steps
    },
    get alpha() {
      return accumulator / dt
    },
    get dropped() {
      return dropped
    },
    get droppedLastFrame() {
      return droppedLastFrame
    },
    advance(frameSeconds: number, step: (dt: number) => void): number {
      if (!(typeof frameSeconds === 'number' && Number.isFinite(frameSeconds) && frameSeconds >= 0)) {
        throw new AnimationError(
          'argument',
          `FixedStepper.advance: frame time ${showValue(frameSeconds)} s must be a finite number >= 0`,
        )
      }
      droppedLastFrame = 0
      accumulator += frameSeconds
      let ran = 0
      while (accumulator >= due && ran < maxStepsPerFrame) {
        step(dt)
        steps++
        ran++
        accumulator = Math.max(0, accumulator - dt)
      }
      if (accumulator >= due) {
        // Stalled: keep only the fraction of a step, drop the whole steps beyond the budget.
        const whole = Math.floor(accumulator / dt)
        accumulator -= whole * dt
        if (!(accumulator >= 0 && accumulator < due)) accumulator = 0
        droppedLastFrame = whole
        dropped += whole
      }
      return ran
    },
  }
}
