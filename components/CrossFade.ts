/**
 * CrossFade: a blend from the pose a character had (the fading-out clip, still advancing, or a frozen pose) to the
 * clip now in its Sampler. One value per entity id (SoA).
 *
 * Each fixed step advanceCrossFades counts one more step and sets `blend = steps·dt/duration` (a product, not a
 * running sum, so a 0.5 s fade at 60 Hz ends after exactly 30 steps); sampleClips samples the outgoing clip into the
 * FROM layer and the incoming one into TO and writes lerp/slerp(FROM, TO, blend) into ANIM. At blend 1 the fade
 * ends and the Sampler's clip plays alone.
 */
export interface CrossFadeStore {
  /** Outgoing clip id, or -1 when fading from a frozen pose (a fade started mid-fade starts from its blend). */
  fromClip: Int32Array
  /** Outgoing clip's play phase, seconds (same convention as Sampler.time). */
  fromTime: Float64Array
  /** Outgoing clip's playback rate (same convention as Sampler.speed). */
  fromSpeed: Float64Array
  /** Outgoing clip's loop mode: 0 once, 1 repeat, 2 ping-pong (same convention as Sampler.loop). */
  fromLoop: Uint8Array
  /** Outgoing clip's rotation mode (ROTATION_SLERP | ROTATION_SQUAD of Sampler.ts). */
  fromRotation: Uint8Array
  /** The outgoing clip's 'finished' flag (same convention as Sampler.finished). */
  fromFinished: Uint8Array
  /** Blend factor 0 → 1 (0 = all outgoing, 1 = all incoming). */
  blend: Float64Array
  /** Fixed steps since the fade began (blend = steps·dt/duration). */
  steps: Uint32Array
  /** Seconds, > 0 (a zero-length fade is a cut and never activates). */
  duration: Float64Array
  /** 1 while fading. */
  active: Uint8Array
}

export function createCrossFadeStore(capacity: number): CrossFadeStore {
  return {
    fromClip: new Int32Array(capacity).fill(-1),
    fromTime: new Float64Array(capacity),
    fromSpeed: new Float64Array(capacity),
    fromLoop: new Uint8Array(capacity),
    fromRotation: new Uint8Array(capacity),
    fromFinished: new Uint8Array(capacity),
    blend: new Float64Array(capacity),
    steps: new Uint32Array(capacity),
    duration: new Float64Array(capacity),
    active: new Uint8Array(capacity),
  }
}
