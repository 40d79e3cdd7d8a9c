/**
 * A clip's play phase: where a track is in its clip, in seconds, kept wrapped so precision never degrades in long
 * runs (a Sampler's `time`, a fade's outgoing track's, a blend-space point's):
 *   once       [0, duration]        clamped at both ends (a finished clip holds its last pose)
 *   repeat     [0, duration)        wraps
 *   ping-pong  [0, 2·duration)      wraps; clip-local time is the phase reflected back over the second half
 */
export const LOOP_ONCE = 0
export const LOOP_REPEAT = 1
export const LOOP_PINGPONG = 2
/**
 * How a clip's time runs past its ends: 'once' clamps at both ends (a finished clip holds its last pose),
 * 'repeat' wraps, 'pingpong' plays forwards then backwards. Stored in a track's `loop` as 0, 1, 2.
 */
export type LoopMode = 'once' | 'repeat' | 'pingpong'
export const LOOP_MODES: readonly LoopMode[] = ['once', 'repeat', 'pingpong']

/**
 * Advances a play phase by `delta` seconds (any sign) under a loop mode. Only + - * / and floor, so the result
 * is the same in every engine. A zero-duration clip stays at 0.
 */
export function advancePhase(phase: number, delta: number, duration: number, loop: number): number {
  if (!(duration > 0)) return 0
  let p = phase + delta
  if (loop === LOOP_ONCE) return p < 0 ? 0 : p > duration ? duration : p
  const period = loop === LOOP_PINGPONG ? 2 * duration : duration
  if (p >= period || p < 0) p -= Math.floor(p / period) * period
  // A negative p so small that p / period underflows to -0 is left as is by the line above.
  if (p < 0) p += period
  // Rounding in the subtraction (or the addition) can land exactly on the period; wrap that to 0.
  return p >= period ? 0 : p
}

/** Clip-local time (seconds, in [0, duration]) of a play phase. */
export function localTime(phase: number, duration: number, loop: number): number {
  if (loop === LOOP_PINGPONG && phase > duration) return 2 * duration - phase
  return phase
}
