/**
 * A ramp over fixed steps (a cross-fade's blend, a layer's weight): after `steps` steps of `dt` seconds of a
 * `duration`-second ramp, `steps·dt / duration` — a product, not a running sum, so a 0.5 s fade at 60 Hz ends after
 * exactly 30 steps and k steps always give the same value.
 */

/**
 * A ramp whose fraction is within this of 1 ends: `k·dt/duration` for a duration of exactly k steps can round to
 * 1 − 1 ulp (1.85 s at 60 Hz does), which would show one extra step at 0.9999999999999999.
 */
export const FADE_END_TOLERANCE = 1e-9

/**
 * The fraction of a ramp done after `steps` steps: steps·dt / duration in (0, 1), or exactly 1 once the ramp has
 * ended — within FADE_END_TOLERANCE of 1, or outside (0, 1) for any reason (a duration of 0, negative, NaN or
 * Infinity that only a direct store write can make ends at once rather than never, or at ∞).
 */
export function rampFraction(steps: number, dt: number, duration: number): number {
  const t = (steps * dt) / duration
  return t > 0 && t < 1 - FADE_END_TOLERANCE ? t : 1
}

/**
 * Whether a ramp of `durations[at]` seconds at `clock.dt` a step has ended after `steps[s]` steps: rampFraction is 1.
 * Floats through memory (a float argument of a call V8 does not inline is boxed), for the step.
 */
export function rampEnded(
  clock: { readonly dt: number },
  steps: Float64Array,
  s: number,
  durations: Float64Array,
  at: number,
): boolean {
  // rampFraction(…) === 1, written out: its float result is boxed where V8 does not inline it.
  const t = (steps[s]! * clock.dt) / durations[at]!
  return !(t > 0 && t < 1 - FADE_END_TOLERANCE)
}

/**
 * One step of ramp `l`: `steps[l]` counts it — by `clock.timeScale`, 1 for a step of animation time at the normal
 * rate, so whole steps stay exact integers — and `out[o]` gets the fraction done (rampFraction, of the ramp's
 * `durations[l]` seconds at `clock.dt` a step). Returns whether the ramp has ended (the fraction is then exactly
 * 1). Through memory, not a returned float (src/engine/v8.ts).
 */
export function stepRamp(
  clock: { readonly dt: number; readonly timeScale: number },
  steps: Float64Array,
  durations: Float64Array,
  l: number,
  out: Float64Array,
  o: number,
): boolean {
  const k = steps[l]! + clock.timeScale
  steps[l] = k
  // rampFraction written out (the same bits): its result, returned from a call V8 did not always inline, was
  // boxed, an allocation per ramp a step (seen in the IK allocation test's sampling profile).
  const r = (k * clock.dt) / durations[l]!
  const t = r > 0 && r < 1 - FADE_END_TOLERANCE ? r : 1
  out[o] = t
  return t === 1
}
