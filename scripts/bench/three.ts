/**
 * three.js's side of the benchmark, as a three.js game would animate the same crowd: per character an Object3D
 * hierarchy of the asset's nodes and one AnimationMixer; a step is `mixer.update(dt)` for every character, then
 * `scene.updateMatrixWorld()`.
 *
 * Clips are built from the project's own Clip data (the same Float32Array times and values, shared, not copied),
 * so both sides sample identical keys; track names are `n<glTF node index>.<property>`, objects are named to
 * match. LINEAR uses three's own interpolants (LinearInterpolant; QuaternionLinearInterpolant = slerpFlat).
 * CUBICSPLINE: three's InterpolateSmooth is Catmull-Rom, not glTF's Hermite, and GLTFLoader's glTF interpolant is
 * not exported, so `GltfHermiteInterpolant` (threeClips.ts) re-implements it term for term as GLTFLoader does
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
  AdditiveAnimationBlendMode,
  AnimationClip,
  AnimationMixer,
  LoopOnce,
  Object3D,
  Quaternion,
} from 'three'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import type { CrowdPlan, LodPlan } from './crowd.ts'
import { additiveClip, filterClip, toThreeClip } from './threeClips.ts'

export interface ThreeCrowd {
  readonly scene: Object3D
  readonly mixers: AnimationMixer[]
  /** Runs `steps` steps: every mixer, then the scene's world matrices. */
  run(steps: number): void
  /** Writes the world matrix of character c's glTF node at out[o..o+16). */
  worldMatrix(c: number, node: number, out: Float64Array, o: number): void
}

/** One character's Object3D hierarchy of the asset's nodes under `root` (scene roots only), by glTF node index. */
export function buildCharacter(asset: AnimationAsset, root: Object3D): Object3D[] {
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
  return nodes
}

/**
 * The character's size: the largest distance of a node from the scene origin in the rest pose (world matrices
 * by three). The Fox: 70.2; the 64-joint rig: 2.56.
 */
export function restSize(asset: AnimationAsset): number {
  const root = new Object3D()
  const nodes = buildCharacter(asset, root)
  root.updateMatrixWorld()
  let size = 0
  for (const o of nodes) {
    const e = o.matrixWorld.elements
    size = Math.max(size, Math.hypot(e[12]!, e[13]!, e[14]!))
  }
  return size
}

/**
 * three.js's side of each crowd kind, per character:
 *   playing/moving/idle: clip A (and the cross-fade to B), see the header;
 *   layered: four actions, as a three.js game (and test/entry/layers.oracle.test.ts) expresses a masked override
 *     and an additive layer: clip A's tracks outside the mask at weight 1, clip A's tracks inside the mask at
 *     1 − w, clip B's tracks inside the mask at w (the mixer normalizes by accumulated weight, so inside the mask
 *     that is slerp(A, B, w)), and clip C made additive (additiveClip) at its weight. The mixer applies additive
 *     actions after the weighted ones, so the project's crowd puts the override on layer 1, the additive on 2;
 *   blend-space: one action per point at the point's weight (the plan's, computed independently of the
 *     project). three has no phase sync; while the weights hold still (they do here) sync is a time scale:
 *     point p runs at durationₚ / cycle from phase · durationₚ, which gives each clip the time the project's
 *     synchronized phase does. Its mixer blends the two live points by slerp, the project by the normalized
 *     weighted sum (nlerp): see options.ts (BLEND_TOLERANCE) for the tolerance and the nlerp reference (createBlendReference).
 */
export function createThreeCrowd(plan: CrowdPlan, schedule: LodSchedule | null = null): ThreeCrowd {
  const { asset, dt, layered, blend, lod } = plan
  if ((lod === null) !== (schedule === null))
    throw new Error('createThreeCrowd: a lod crowd needs its schedule')
  const clipA = toThreeClip(asset.clips[plan.clipA]!)
  const clipB = toThreeClip(asset.clips[plan.clipB]!)
  const layerClips =
    layered === null
      ? null
      : {
          outside: filterClip(clipA, layered.inMask, false),
          inside: filterClip(clipA, layered.inMask, true),
          override: filterClip(clipB, layered.inMask, true),
          additive: additiveClip(toThreeClip(asset.clips[layered.additiveClip]!)),
        }
  const blendClips = blend === null ? null : blend.clips.map((c) => toThreeClip(asset.clips[c]!))
  const scene = new Object3D()
  const mixers: AnimationMixer[] = []
  const objects: Object3D[][] = []
  const roots: Object3D[] = []
  for (let i = 0; i < plan.roles.length; i++) {
    const root = new Object3D()
    objects.push(buildCharacter(asset, root))
    scene.add(root)
    roots.push(root)
    if (lod !== null) root.position.set(lod.positions[2 * i]!, 0, lod.positions[2 * i + 1]!)

    const mixer = new AnimationMixer(root)
    mixers.push(mixer)
    if (blend !== null && blendClips !== null) {
      const m = blendClips.length
      for (let p = 0; p < m; p++) {
        const action = mixer.clipAction(blendClips[p]!)
        const duration = blendClips[p]!.duration
        action.setEffectiveWeight(blend.weights[i * m + p]!)
        action.setEffectiveTimeScale(duration / blend.cycle[i]!)
        action.play()
        action.time = blend.phase[i]! * duration
      }
      mixer.update(dt)
      continue
    }
    if (layered !== null && layerClips !== null) {
      const w = layered.overrideWeight
      const start = (clip: AnimationClip, weight: number, time: number) => {
        const action = mixer.clipAction(clip)
        if (clip.blendMode === AdditiveAnimationBlendMode) action.blendMode = AdditiveAnimationBlendMode
        action.setEffectiveWeight(weight)
        action.play()
        action.time = time
      }
      start(layerClips.outside, 1, plan.phaseA[i]!)
      start(layerClips.inside, 1 - w, plan.phaseA[i]!)
      start(layerClips.override, w, layered.phaseOverride[i]!)
      start(layerClips.additive, layered.additiveWeight, layered.phaseAdditive[i]!)
      mixer.update(dt)
      continue
    }
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
  const run =
    lod === null || schedule === null
      ? (steps: number): void => {
          for (let s = 0; s < steps; s++) {
            for (let i = 0; i < mixers.length; i++) mixers[i]!.update(dt)
            scene.updateMatrixWorld()
          }
        }
      : lodRun(lod, schedule, mixers, roots, dt)
  return {
    scene,
    mixers,
    run,
    worldMatrix(c: number, node: number, out: Float64Array, o: number): void {
      const e = objects[c]![node]!.matrixWorld.elements
      for (let k = 0; k < 16; k++) out[o + k] = e[k]!
    },
  }
}

/**
 * The steps the project samples each lod character on (systems/scheduleLod.ts): its phase (lodPhases) and the
 * project's step counter when the timed steps begin.
 */
export interface LodSchedule {
  readonly phase: Uint8Array
  readonly step: number
}

/**
 * three's side of the lod crowd: the same schedule, as a three.js game updates far characters less often.
 * Each character's mixer is updated on the project's sampled steps only, by the time since its last update,
 * and only its own hierarchy's world matrices are recomputed then; in between it holds, as the project's does.
 * The same work on both sides (full rate here would compare a scheduled crowd with an unscheduled one).
 */
function lodRun(
  lod: LodPlan,
  schedule: LodSchedule,
  mixers: readonly AnimationMixer[],
  roots: readonly Object3D[],
  dt: number,
): (steps: number) => void {
  const pending = new Float64Array(mixers.length)
  let step = schedule.step
  return (steps) => {
    for (let s = 0; s < steps; s++, step++) {
      for (let i = 0; i < mixers.length; i++) {
        pending[i] = pending[i]! + dt
        if (((step + schedule.phase[i]!) & (lod.rate[i]! - 1)) !== 0) continue
        mixers[i]!.update(pending[i]!)
        pending[i] = 0
        roots[i]!.updateMatrixWorld()
      }
    }
  }
}

/**
 * The blend-space crowd's reference, computed apart from both timed sides: for each of the first `count`
 * characters, each point's clip sampled by three.js on its own (one mixer per point, weight 1, the same time
 * scale and start as createThreeCrowd), then mixed here in double the way the issue defines a blend space:
 * translation and scale Σ wₚ·vₚ, rotation Σ wₚ·sₚ·qₚ normalized (sₚ = ±1 into the first live point's
 * hemisphere), and world matrices by three's updateMatrixWorld. The project must match it to the bench's
 * tolerance (it differs from three's slerp by more, see BLEND_TOLERANCE in options.ts). Setup and checks only, not timed.
 */
export function createBlendReference(plan: CrowdPlan, count: number): ThreeCrowd {
  const { asset, dt, blend } = plan
  if (blend === null) throw new Error('createBlendReference: not a blend-space plan')
  const clips = blend.clips.map((c) => toThreeClip(asset.clips[c]!))
  const m = clips.length
  const scene = new Object3D()
  const mixers: AnimationMixer[] = []
  const points: Object3D[][][] = []
  const objects: Object3D[][] = []
  for (let i = 0; i < count; i++) {
    const root = new Object3D()
    objects.push(buildCharacter(asset, root))
    scene.add(root)
    const own: Object3D[][] = []
    for (let p = 0; p < m; p++) {
      const pointRoot = new Object3D()
      own.push(buildCharacter(asset, pointRoot))
      const mixer = new AnimationMixer(pointRoot)
      const action = mixer.clipAction(clips[p]!)
      action.setEffectiveTimeScale(clips[p]!.duration / blend.cycle[i]!)
      action.play()
      action.time = blend.phase[i]! * clips[p]!.duration
      mixers.push(mixer)
    }
    points.push(own)
  }
  const mix = (): void => {
    for (let i = 0; i < count; i++) {
      for (let node = 0; node < asset.nodes.length; node++) {
        const target = objects[i]![node]!
        let first: Quaternion | null = null
        let t = [0, 0, 0]
        let s = [0, 0, 0]
        let q = [0, 0, 0, 0]
        for (let p = 0; p < m; p++) {
          const w = blend.weights[i * m + p]!
          if (!(w > 0)) continue
          const o = points[i]![p]![node]!
          first ??= o.quaternion
          const sign = first.dot(o.quaternion) < 0 ? -w : w
          t = [t[0]! + w * o.position.x, t[1]! + w * o.position.y, t[2]! + w * o.position.z]
          s = [s[0]! + w * o.scale.x, s[1]! + w * o.scale.y, s[2]! + w * o.scale.z]
          const r = o.quaternion
          q = [q[0]! + sign * r.x, q[1]! + sign * r.y, q[2]! + sign * r.z, q[3]! + sign * r.w]
        }
        target.position.fromArray(t)
        target.scale.fromArray(s)
        target.quaternion.fromArray(q).normalize()
      }
    }
    scene.updateMatrixWorld()
  }
  for (const mixer of mixers) mixer.update(dt)
  mix()
  return {
    scene,
    mixers,
    run(steps: number): void {
      for (let k = 0; k < steps; k++) {
        for (const mixer of mixers) mixer.update(dt)
        mix()
      }
    },
    worldMatrix(c: number, node: number, out: Float64Array, o: number): void {
      const e = objects[c]![node]!.matrixWorld.elements
      for (let k = 0; k < 16; k++) out[o + k] = e[k]!
    },
  }
}
