import type { Clip, RawChannel } from '../clip/clip.ts'
import { conjugateQuat, multiplyQuat, normalizeQuat } from '../math/quat.ts'
import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { COPY, NONE, targetNode, type RetargetPlan } from './plan.ts'
import { computeWorld, createWorldPose, placeJoint, samplePose, toLocalPoint } from './pose.ts'

/**
 * The general path of the retarget baking (plan.ts): the source pose sampled at every key time of the clip,
 * the target placed joint by joint in the plan's order and the rule solved there.
 */

/** The general path's result: per target joint, its rotations (4) and translations (3) at every key time. */
export interface Solved {
  readonly times: Float64Array
  readonly interpolation: 'LINEAR' | 'STEP'
  readonly rotations: Float64Array
  readonly translations: Float64Array
}

export function solvedChannel(
  plan: RetargetPlan,
  solved: Solved,
  j: number,
  path: 'rotation' | 'translation',
): RawChannel {
  const { node, nodeName } = targetNode(plan, j)
  const k = solved.times.length
  const width = path === 'rotation' ? 4 : 3
  const all = path === 'rotation' ? solved.rotations : solved.translations
  const n = all.length / (width * k)
  const values = new Float64Array(width * k)
  for (let i = 0; i < k; i++)
    values.set(all.subarray((i * n + j) * width, (i * n + j + 1) * width), i * width)
  return { node, nodeName, path, interpolation: solved.interpolation, times: solved.times, values }
}

/** The rule solved at every key time of the clip, for the joints the general path makes (see the header). */
export function solveAtKeys(plan: RetargetPlan, clip: Clip, rotKind: Uint8Array, trKind: Uint8Array): Solved {
  const { source, target, map, order, pin, pinOffset, sourceRest: sRest, targetRest: tRest } = plan
  const sRig = source.rig
  const tRig = target.rig
  const n = tRig.jointNodes.length
  const keyed = new Set<number>()
  let step = true
  for (const c of clip.channels) {
    if (c.path === 'weights' || !(c.node < sRig.nodeJoint.length && sRig.nodeJoint[c.node]! >= 0)) continue
    for (const t of c.times) keyed.add(t)
    step &&= c.interpolation === 'STEP'
  }
  const times = Float64Array.from(keyed).sort()
  const rotations = new Float64Array(4 * n * times.length)
  const translations = new Float64Array(3 * n * times.length)
  const sLocal = new Float32Array(sRig.rest.length)
  const tLocal = new Float64Array(tRig.rest.length)
  const sWorld = createWorldPose(sRig.jointNodes.length)
  const tWorld = createWorldPose(n)
  const cursors = new Uint32Array(clip.channels.length)
  const w = new Float64Array(8)
  times.forEach((time, i) => {
    computeWorld(sWorld, sRig, samplePose(sLocal, sRig, clip, time, cursors))
    tLocal.set(tRig.rest)
    for (const j of order) {
      const s = map[j]!
      const p = tRig.jointParents[j]!
      const lo = j * JOINT_STRIDE
      if (s >= 0 && rotKind[j] !== NONE) {
        // local = parentWorld(t)⁻¹ · sourceWorld(t) · sourceRestWorld⁻¹ · targetRestWorld
        conjugateQuat(w, 0, sRest.rot, 4 * s)
        multiplyQuat(w, 4, sWorld.rot, 4 * s, w, 0)
        multiplyQuat(w, 4, w, 4, tRest.rot, 4 * j)
        if (p >= 0) {
          conjugateQuat(w, 0, tWorld.rot, 4 * p)
          multiplyQuat(w, 4, w, 0, w, 4)
        }
        normalizeQuat(w, 4)
        const r = 4 * (i * n + j)
        // Keys of one channel in one hemisphere, as an exporter writes them.
        const flip =
          i > 0 &&
          w[4]! * rotations[r - 4 * n]! +
            w[5]! * rotations[r - 4 * n + 1]! +
            w[6]! * rotations[r - 4 * n + 2]! +
            w[7]! * rotations[r - 4 * n + 3]! <
            0
            ? -1
            : 1
        for (let k = 0; k < 4; k++) tLocal[lo + 3 + k] = rotations[r + k] = flip * w[4 + k]!
      }
      if (s >= 0 && trKind[j] !== NONE) {
        let x: number, y: number, z: number
        if (pin[j]! >= 0) {
          const m = tWorld.mat
          const k = 16 * pin[j]!
          const [ox, oy, oz] = [pinOffset[3 * j]!, pinOffset[3 * j + 1]!, pinOffset[3 * j + 2]!]
          x = m[k]! * ox + m[k + 4]! * oy + m[k + 8]! * oz + m[k + 12]!
          y = m[k + 1]! * ox + m[k + 5]! * oy + m[k + 9]! * oz + m[k + 13]!
          z = m[k + 2]! * ox + m[k + 6]! * oy + m[k + 10]! * oz + m[k + 14]!
        } else if (trKind[j] === COPY) {
          ;[x, y, z] = [
            sLocal[s * JOINT_STRIDE]!,
            sLocal[s * JOINT_STRIDE + 1]!,
            sLocal[s * JOINT_STRIDE + 2]!,
          ]
        } else {
          const a = 16 * s + 12
          x = tRest.mat[16 * j + 12]! + plan.scale * (sWorld.mat[a]! - sRest.mat[a]!)
          y = tRest.mat[16 * j + 13]! + plan.scale * (sWorld.mat[a + 1]! - sRest.mat[a + 1]!)
          z = tRest.mat[16 * j + 14]! + plan.scale * (sWorld.mat[a + 2]! - sRest.mat[a + 2]!)
        }
        if (trKind[j] === COPY) tLocal.set([x, y, z], lo)
        else toLocalPoint(tLocal, lo, tWorld.mat, p < 0 ? -1 : 16 * p, x, y, z)
        translations.set(tLocal.subarray(lo, lo + 3), 3 * (i * n + j))
      }
      placeJoint(tWorld, tRig.jointParents, j, tLocal, lo)
    }
  })
  return { times, interpolation: step ? 'STEP' : 'LINEAR', rotations, translations }
}
