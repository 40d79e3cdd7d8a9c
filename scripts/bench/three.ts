/**
 * three.js's side of the benchmark, as a three.js game would animate the same crowd: per character an Object3D
 * hierarchy of the asset's nodes and one AnimationMixer; a step is `mixer.update(dt)` for every character, then
 * `scene.updateMatrixWorld()`.
 *
 * Clips are built from the project's own Clip data (the same Float32Array times and values, shared, not copied),
 * so both sides sample identical keys; track names are `n<glTF node index>.<property>`, objects are named to
 * match. LINEAR uses three's own interpolants (LinearInterpolant; QuaternionLinearInterpolant = slerpFlat).
 * CUBICSPLINE: three's InterpolateSmooth is Catmull-Rom, not glTF's Hermite, and GLTFLoader's glTF interpolant is
 * not exported, so `GltfHermiteInterpolant` below re-implements it term for term as GLTFLoader does
 * (GLTFCubicSplineInterpolant, and for rotations GLTFCubicSplineQuaternionInterpolant: Hermite, then normalize)
 * and is installed through `track.createInterpolant` exactly as GLTFLoader installs its own.
 *
 * Alignment with the project (see ours.ts): three's action samples after advancing its time, the project's first
 * step after play() samples the start time. So each action starts one dt early (fading-in action) or at the
 * phase the project sampled in its first setup step (clip A), and one `update(dt)` here corresponds to the
 * project's two setup steps. Cross-fades use `crossFadeTo(B, fadeSeconds)`: weights 1 − m·dt/D and m·dt/D after
 * m updates, mixed by PropertyMixer as slerp/lerp by the normalized weight, like the project's blend.
 */
import {
  AnimationClip,
  AnimationMixer,
  Interpolant,
  LoopOnce,
  Object3D,
  QuaternionKeyframeTrack,
  VectorKeyframeTrack,
  type KeyframeTrack,
  type TypedArray,
} from 'three'
import type { Clip } from '../../src/clip/clip.ts'
import type { CrowdPlan } from './crowd.ts'

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

export interface ThreeCrowd {
  readonly scene: Object3D
  readonly mixers: AnimationMixer[]
  /** Runs `steps` steps: every mixer, then the scene's world matrices. */
  run(steps: number): void
  /** Writes the world matrix of character c's glTF node at out[o..o+16). */
  worldMatrix(c: number, node: number, out: Float64Array, o: number): void
}

export function createThreeCrowd(plan: CrowdPlan): ThreeCrowd {
  const { asset, dt } = plan
  const clipA = toThreeClip(asset.clips[plan.clipA]!)
  const clipB = toThreeClip(asset.clips[plan.clipB]!)
  const scene = new Object3D()
  const mixers: AnimationMixer[] = []
  const objects: Object3D[][] = []
  for (let i = 0; i < plan.roles.length; i++) {
    const root = new Object3D()
    const nodes = asset.nodes.map((n) => {
      const o = new Object3D()
      o.name = `n${n.index}`
      o.position.fromArray(n.translation)
      o.quaternion.fromArray(n.rotation)
      o.scale.fromArray(n.scale)
      return o
    })
    for (const n of asset.nodes) (n.parent < 0 ? root : nodes[n.parent]!).add(nodes[n.index]!)
    // Scene roots only: nodes outside the default scene stay detached, as they are not joints of the project.
    for (const n of asset.nodes)
      if (n.parent < 0 && !asset.roots.includes(n.index)) root.remove(nodes[n.index]!)
    scene.add(root)
    objects.push(nodes)

    const mixer = new AnimationMixer(root)
    mixers.push(mixer)
    const role = plan.roles[i]!
    const a = mixer.clipAction(clipA)
    a.play()
    if (role === 'finished') {
      a.setLoop(LoopOnce, 1)
      a.clampWhenFinished = true
      a.time = clipA.duration
    } else {
      a.time = plan.phaseA[i]!
      a.paused = role === 'paused'
    }
    if (role === 'fade') {
      const b = mixer.clipAction(clipB)
      b.play()
      b.time = plan.phaseB[i]! - dt
      a.crossFadeTo(b, plan.fadeSeconds, false)
    }
    mixer.update(dt)
  }
  scene.updateMatrixWorld()
  return {
    scene,
    mixers,
    run(steps: number): void {
      for (let s = 0; s < steps; s++) {
        for (let i = 0; i < mixers.length; i++) mixers[i]!.update(dt)
        scene.updateMatrixWorld()
      }
    },
    worldMatrix(c: number, node: number, out: Float64Array, o: number): void {
      const e = objects[c]![node]!.matrixWorld.elements
      for (let k = 0; k < 16; k++) out[o + k] = e[k]!
    },
  }
}
