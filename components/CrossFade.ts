import { createSamplerStore, resetTrack, type SamplerStore } from './Sampler.ts'

/**
 * CrossFade: the fade inside each layer, from what the layer showed (the track it leaves, still advancing, or a
 * frozen pose) to what it shows now (its Sampler row, or a blend space). Indexed by layer slot, as Sampler is:
 * `CrossFade.active[eid]` is a character's layer-0 cross-fade.
 *
 * Each fixed step counts one more step (the time scale's share of one: StepState.timeScale) and sets
 * `blend = steps·dt/duration` (a product, not a running sum, so a 0.5 s fade at 60 Hz ends after exactly 30 steps;
 * src/clip/ramp.ts); the layer's pose is lerp/slerp(FROM, TO,
 * blend). At blend 1 the fade ends and the layer's own track plays alone.
 */
export interface CrossFadeStore {
  /** The track faded out of (its clip -1 when fading from a frozen pose), a row per layer slot. */
  from: SamplerStore
  /** Blend factor 0 → 1 (0 = all outgoing, 1 = all incoming). */
  blend: Float64Array
  /** Fixed steps since the fade began, each the time scale's share of one (blend = steps·dt/duration). */
  steps: Float64Array
  /** Seconds, > 0 (a zero-length fade is a cut and never activates). */
  duration: Float64Array
  /** 1 while fading. */
  active: Uint8Array
}

export function createCrossFadeStore(rows: number): CrossFadeStore {
  return {
    from: createSamplerStore(rows),
    blend: new Float64Array(rows),
    steps: new Float64Array(rows),
    duration: new Float64Array(rows),
    active: new Uint8Array(rows),
  }
}

/** Layer slot `l` with no fade under way. */
export function resetFade(c: CrossFadeStore, l: number): void {
  resetTrack(c.from, l)
  c.blend[l] = 0
  c.steps[l] = 0
  c.duration[l] = 0
  c.active[l] = 0
}
