/**
 * Sampler: the track store. A track is one clip playing: which clip, where it is in it, how fast, how it loops.
 * Every player of a clip is a track — a layer's clip (its row in Sampler, at the layer's slot), the clip a fade
 * inside a layer leaves (the layer's row in CrossFade.from) and each point of a blend space (the blend space's
 * own TrackStore) — so one set of functions advances, reports and samples them all (systems/tracks.ts).
 *
 * Rows: Sampler and CrossFade are indexed by layer slot. A character's layer 0 is its own entity id, so for a game
 * `Sampler.clip[eid]` is the clip the character plays and `CrossFade.active[eid]` its cross-fade; its other layers
 * take slots from capacity on (systems/layerState.ts). Key cursors and channel bindings of the tracks live beside
 * the stores (StepState.cursors, .binding, .fromBinding, by slot).
 */
export { LOOP_MODES, LOOP_ONCE, LOOP_PINGPONG, LOOP_REPEAT, type LoopMode } from '../src/clip/phase.ts'

/** `reset` flag: the next sample starts from the rest pose (a new clip on layer 0, or a fade that ended). */
export const SAMPLER_RESET_REST = 1
/** `reset` flag: the next step shows the current time without advancing it (after play, crossFade, setTime). */
export const SAMPLER_HOLD = 2

export const ROTATION_SLERP = 0
export const ROTATION_SQUAD = 1

/** Tracks, structure of arrays: one element per row. */
export interface SamplerStore {
  /** Clip id in the plugin's registry, -1 for none. */
  clip: Int32Array
  /** Play phase, seconds (src/clip/phase.ts). */
  time: Float64Array
  /** Playback rate: 1 normal, 0 still, negative backwards. A blend-space layer's row holds the layer's rate. */
  speed: Float64Array
  /** LOOP_ONCE (0) | LOOP_REPEAT (1) | LOOP_PINGPONG (2): LoopMode's order. */
  loop: Uint8Array
  /** ROTATION_SLERP (0) | ROTATION_SQUAD (1), for LINEAR rotation channels. */
  rotation: Uint8Array
  /** Clip-local time of this step's phase (seconds), what the track is sampled at; written when it advances. */
  local: Float64Array
  /**
   * Clip-local time last sampled into a layer-0 pose; NaN forces a sample. A character whose layer 0 plays one
   * clip whose time did not move is not sampled again (systems/sampleTracks.ts).
   */
  lastTime: Float64Array
  /** SAMPLER_RESET_REST | SAMPLER_HOLD flags for the next step. */
  reset: Uint8Array
  /**
   * 1 once the clip's 'finished' event was reported (a 'once' clip at the end it plays towards), so it is
   * reported exactly once; play() and crossFade() clear it. Always 0 for a repeating clip.
   */
  finished: Uint8Array
}

/** A track store of `rows` rows, each without a clip. */
export function createSamplerStore(rows: number): SamplerStore {
  return {
    clip: new Int32Array(rows).fill(-1),
    time: new Float64Array(rows),
    speed: new Float64Array(rows).fill(1),
    loop: new Uint8Array(rows).fill(1),
    rotation: new Uint8Array(rows),
    local: new Float64Array(rows),
    lastTime: new Float64Array(rows).fill(NaN),
    reset: new Uint8Array(rows),
    finished: new Uint8Array(rows),
  }
}

/** Clears track `t`: no clip, time 0, rate 1, repeating, slerp, nothing reported (a slot made or freed). */
export function resetTrack(s: SamplerStore, t: number): void {
  s.clip[t] = -1
  s.time[t] = 0
  s.speed[t] = 1
  s.loop[t] = 1
  s.rotation[t] = 0
  s.local[t] = 0
  s.lastTime[t] = NaN
  s.reset[t] = 0
  s.finished[t] = 0
}

/** Copies track `from` of `a` to track `to` of `b` (a fade's outgoing track takes over the clip it leaves). */
export function copyTrack(b: SamplerStore, to: number, a: SamplerStore, from: number): void {
  b.clip[to] = a.clip[from]!
  b.time[to] = a.time[from]!
  b.speed[to] = a.speed[from]!
  b.loop[to] = a.loop[from]!
  b.rotation[to] = a.rotation[from]!
  b.local[to] = a.local[from]!
  b.lastTime[to] = a.lastTime[from]!
  b.reset[to] = a.reset[from]!
  b.finished[to] = a.finished[from]!
}
