/**
 * Sampler: what clip a character plays and where it is in it. One value per entity id (SoA).
 *
 * `time` is the play phase in seconds, kept wrapped so precision never degrades in long runs:
 *   once       [0, duration]        clamped at both ends (a finished clip holds its last pose)
 *   repeat     [0, duration)        wraps
 *   ping-pong  [0, 2·duration)      wraps; clip-local time is the phase reflected back over the second half
 * Key cursors live beside the store in the plugin context (`ctx.cursors[eid]`): one slot per channel, of which the
 * first channel of each time track holds that track's cursor (channels sharing key times share one search).
 */
export const LOOP_ONCE = 0
export const LOOP_REPEAT = 1
export const LOOP_PINGPONG = 2
/**
 * How a clip's time runs past its ends: 'once' clamps at both ends (a finished clip holds its last pose),
 * 'repeat' wraps, 'pingpong' plays forwards then backwards. Stored in Sampler.loop as 0, 1, 2.
 */
export type LoopMode = 'once' | 'repeat' | 'pingpong'
export const LOOP_MODES: readonly LoopMode[] = ['once', 'repeat', 'pingpong']

export const SAMPLER_RESET_REST = 1
export const SAMPLER_HOLD = 2

export const ROTATION_SLERP = 0
export const ROTATION_SQUAD = 1

/**
 * Sampler store: per character, the clip it plays, its play phase, rate, loop and rotation mode. One value per
 * entity id (SoA). Written by play() and crossFade() and advanced by sampleClips; games read it.
 */
export interface SamplerStore {
  /** Clip id in the plugin's registry, -1 for none. */
  clip: Int32Array
  /** Play phase, seconds (see above). */
  time: Float64Array
  /** Playback rate: 1 normal, 0 still, negative backwards. */
  speed: Float64Array
  /** 1 while paused (pause/resume): time holds, for the clip and the one it fades from; speed is kept. */
  paused: Uint8Array
  /** LOOP_ONCE (0) | LOOP_REPEAT (1) | LOOP_PINGPONG (2): LoopMode's order. */
  loop: Uint8Array
  /** ROTATION_SLERP (0) | ROTATION_SQUAD (1), for LINEAR rotation channels. */
  rotation: Uint8Array
  /** Clip-local time sampled last step; NaN forces a sample. A character whose time did not move is skipped. */
  lastTime: Float64Array
  /**
   * Flags for the next sample: SAMPLER_RESET_REST = reset the ANIM layer to the rest pose first (a new clip, or
   * a fade that ended); SAMPLER_HOLD = sample the current time without advancing it (the step right after
   * play/crossFade shows the clip's start time).
   */
  reset: Uint8Array
  /**
   * 1 once the clip's 'finished' event was reported (a 'once' clip at the end it plays towards), so it is
   * reported exactly once; play() and crossFade() clear it. Always 0 for a repeating clip.
   */
  finished: Uint8Array
}

export function createSamplerStore(capacity: number): SamplerStore {
  const clip = new Int32Array(capacity).fill(-1)
  return {
    clip,
    time: new Float64Array(capacity),
    speed: new Float64Array(capacity),
    paused: new Uint8Array(capacity),
    loop: new Uint8Array(capacity),
    rotation: new Uint8Array(capacity),
    lastTime: new Float64Array(capacity),
    reset: new Uint8Array(capacity),
    finished: new Uint8Array(capacity),
  }
}

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
