import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { conjugateQuat, multiplyQuat } from '../math/quat.ts'
import { buildClip, prepareSquad } from './clip.ts'
import type { Clip, RawChannel } from './clipTypes.ts'
import { toDeltaPose } from './layerBlend.ts'
import { expandCompactClip } from './compactClip.ts'

/**
 * An additive layer's clip made once as differences from its reference pose, per key (what three.js's
 * AnimationUtils.makeClipAdditive does), so a step samples the difference instead of taking it from a sampled
 * pose. Left-multiplying by r⁻¹ keeps angles, and subtracting or dividing by a constant is linear, so sampling
 * the differences (slerp, lerp, Hermite, squad) is the difference of the sampled pose up to rounding.
 */
export interface DeltaClip {
  /** The differences: the clip's channels in its order, on its time tracks (its bindings and cursors fit). */
  readonly clip: Clip
  /** n-joint pose: the rest pose's difference from the reference, for the paths no channel drives. */
  readonly base: Float32Array
}

/**
 * The clip's differences from the n-joint reference pose `reference[ro ..]` (toDeltaPose's: translation
 * p − r, rotation r⁻¹·p, scale p / r, 1 where r is 0): channel c, bound to the pose float `binding[c]` (joint·10
 * + path offset, -1 for none), gets its keys (and CUBICSPLINE tangents, which map linearly: r⁻¹·a, a / r)
 * made so; unbound and weight channels stay as they are (the pose never reads them). `rest` gives the base.
 * Null when a difference is not finite as a float32 (a scale reference near 0): the step then takes the
 * difference from the sampled pose, as without a delta clip. Setup code (allocates; never throws).
 */
export function makeDeltaClip(
  clip: Clip,
  binding: Int32Array,
  reference: Float32Array,
  ro: number,
  rest: Float32Array,
  n: number,
): DeltaClip | null {
  const base = rest.slice(0, n * JOINT_STRIDE)
  toDeltaPose(base, 0, reference, ro, n)
  // A compact clip's differences are taken from its decoded keys, into an exact clip on the same tracks.
  const channels: RawChannel[] = expandCompactClip(clip).channels.map((ch, c) => {
    const values = ch.values.slice()
    const offset = binding[c]!
    if (offset >= 0 && ch.path !== 'weights') {
      const r = ro + offset
      const cubic = ch.interpolation === 'CUBICSPLINE'
      const elements = values.length / ch.components
      for (let e = 0; e < elements; e++) {
        const o = e * ch.components
        const tangent = cubic && e % 3 !== 1
        if (ch.path === 'rotation') conjugateTimes(values, o, reference, r)
        else if (ch.path === 'translation') {
          if (!tangent) for (let k = 0; k < 3; k++) values[o + k] = values[o + k]! - reference[r + k]!
        } else {
          for (let k = 0; k < 3; k++) {
            const s = reference[r + k]!
            values[o + k] = s !== 0 ? values[o + k]! / s : tangent ? 0 : 1
          }
        }
      }
    }
    return {
      node: ch.node,
      nodeName: ch.nodeName,
      path: ch.path,
      interpolation: ch.interpolation,
      times: ch.times,
      values,
      components: ch.components,
    }
  })
  try {
    const delta = buildClip({ name: clip.name, channels })
    prepareSquad(delta)
    return { clip: delta, base }
  } catch {
    return null
  }
}

/** v[o..o+4) = r⁻¹·v with r = ref[r..r+4) a unit quaternion (toDeltaPose's product, not normalized here). */
function conjugateTimes(v: Float32Array, o: number, ref: Float32Array, r: number): void {
  multiplyQuat(v, o, conjugateQuat(inverse, 0, ref, r), 0, v, o)
}

const inverse = new Float64Array(4)
