/**
 * The project's clips as three.js AnimationClips for the benchmark and the oracle tests: the same key arrays,
 * glTF's CUBICSPLINE as GLTFLoader interpolates it, masks as filtered tracks, additive clips as
 * makeClipAdditive makes them.
 */
import {
  AnimationClip,
  AnimationUtils,
  Interpolant,
  Quaternion,
  QuaternionKeyframeTrack,
  VectorKeyframeTrack,
  type KeyframeTrack,
  type TypedArray,
} from 'three'
import type { Clip } from '../../src/clip/clip.ts'

/** glTF CUBICSPLINE (Hermite with [in-tangent, value, out-tangent] triplets), as GLTFLoader implements it. */
export class GltfHermiteInterpolant extends Interpolant {
  override copySampleValue_(index: number): TypedArray {
    const result = this.resultBuffer
    const values = this.sampleValues
    const size = this.valueSize
    const offset = index * size * 3 + size
    for (let i = 0; i !== size; i++) result[i] = values[offset + i]!
    return result
  }

  override interpolate_(i1: number, t0: number, t: number, t1: number): TypedArray {
    const result = this.resultBuffer
    const values = this.sampleValues
    const stride = this.valueSize
    const stride2 = stride * 2
    const stride3 = stride * 3
    const td = t1 - t0
    const p = (t - t0) / td
    const pp = p * p
    const ppp = pp * p
    const offset1 = i1 * stride3
    const offset0 = offset1 - stride3
    const s2 = -2 * ppp + 3 * pp
    const s3 = ppp - pp
    const s0 = 1 - s2
    const s1 = s3 - pp + p
    for (let i = 0; i !== stride; i++) {
      const p0 = values[offset0 + i + stride]!
      const m0 = values[offset0 + i + stride2]! * td
      const p1 = values[offset1 + i + stride]!
      const m1 = values[offset1 + i]! * td
      result[i] = s0 * p0 + s1 * m0 + s2 * p1 + s3 * m1
    }
    return result
  }
}

/** The Hermite interpolant for rotations: normalized afterwards (GLTFLoader does it through a Quaternion). */
export class GltfHermiteQuaternionInterpolant extends GltfHermiteInterpolant {
  override interpolate_(i1: number, t0: number, t: number, t1: number): TypedArray {
    const r = super.interpolate_(i1, t0, t, t1)
    const len = Math.sqrt(r[0]! * r[0]! + r[1]! * r[1]! + r[2]! * r[2]! + r[3]! * r[3]!)
    const inv = len === 0 ? 0 : 1 / len
    if (len === 0) {
      r[0] = 0
      r[1] = 0
      r[2] = 0
      r[3] = 1
    } else for (let i = 0; i < 4; i++) r[i] = r[i]! * inv
    return r
  }
}

const PROPERTY = { translation: 'position', rotation: 'quaternion', scale: 'scale' } as const

/** A three AnimationClip over the same key arrays as `clip`. Morph-weight channels are left out. */
export function toThreeClip(clip: Clip): AnimationClip {
  const tracks: KeyframeTrack[] = []
  for (const ch of clip.channels) {
    if (ch.path === 'weights') continue
    if (ch.interpolation === 'STEP')
      throw new Error(`toThreeClip: STEP channels are not used by the benchmark`)
    const name = `n${ch.node}.${PROPERTY[ch.path]}`
    const track =
      ch.path === 'rotation'
        ? new QuaternionKeyframeTrack(name, ch.times, ch.values)
        : new VectorKeyframeTrack(name, ch.times, ch.values)
    if (ch.interpolation === 'CUBICSPLINE') {
      const type = ch.path === 'rotation' ? GltfHermiteQuaternionInterpolant : GltfHermiteInterpolant
      const factory = function (this: KeyframeTrack, result?: TypedArray) {
        return new type(this.times, this.values, this.getValueSize() / 3, result)
      }
      ;(
        factory as { isInterpolantFactoryMethodGLTFCubicSpline?: boolean }
      ).isInterpolantFactoryMethodGLTFCubicSpline = true
      ;(track as unknown as { createInterpolant: typeof factory }).createInterpolant = factory
    }
    tracks.push(track)
  }
  return new AnimationClip(clip.name, -1, tracks)
}

/** The clip's tracks whose target node is (`inside`) or is not inside the mask (`inMask` by glTF node index). */
export function filterClip(clip: AnimationClip, inMask: readonly boolean[], inside: boolean): AnimationClip {
  const tracks = clip.tracks.filter((t) => inMask[Number(/^n(\d+)\./.exec(t.name)![1])] === inside)
  return new AnimationClip(`${clip.name}-${inside ? 'in' : 'out'}`, clip.duration, tracks)
}

/**
 * `AnimationUtils.makeClipAdditive` on a copy of the clip (reference: its first key, what the project's default
 * reference, the clip at time 0, is). For CUBICSPLINE rotations it also multiplies both tangents by the
 * reference's inverse, which makeClipAdditive leaves out (it changes only the values of a glTF cubic track):
 * r⁻¹·q is linear in q, so the Hermite curve of the mapped keys and tangents is r⁻¹ times the original's, and
 * normalized, r⁻¹ times the original rotation, as the project computes it. LINEAR tracks need nothing more.
 */
export function additiveClip(clip: AnimationClip): AnimationClip {
  const copy = AnimationUtils.makeClipAdditive(clip.clone())
  for (let t = 0; t < copy.tracks.length; t++) {
    const track = copy.tracks[t]!
    const factory = (
      track as unknown as { createInterpolant: { isInterpolantFactoryMethodGLTFCubicSpline?: boolean } }
    ).createInterpolant
    const cubic = factory.isInterpolantFactoryMethodGLTFCubicSpline === true
    if (!cubic || track.ValueTypeName !== 'quaternion') continue
    const original = clip.tracks[t]!.values
    const ref = new Quaternion().fromArray(original, 4).normalize().conjugate().toArray([])
    const values = track.values as unknown as number[]
    for (let j = 0; j < track.times.length; j++) {
      Quaternion.multiplyQuaternionsFlat(values, j * 12, ref, 0, values, j * 12)
      Quaternion.multiplyQuaternionsFlat(values, j * 12 + 8, ref, 0, values, j * 12 + 8)
    }
  }
  return copy
}
