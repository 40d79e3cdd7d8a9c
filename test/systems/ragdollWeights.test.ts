/**
 * Per-joint physics weights (setRagdollWeight, systems/ragdollWeights.ts, blendPoses): each joint ramps to its
 * own weight at the character's rate, blendPoses blends each joint by its weight, ragdoll_weight reports the
 * largest, getting up ramps all to 0. On the Fox (two characters: one with per-joint weights, one without).
 *
 * The independent side: three.js's Quaternion.slerpQuaternions and plain lerps of the ANIM and PHYS pose layers
 * give the expected output locals, compared with the scene graph's.
 */
import { createWorld } from 'bitecs'
import { Quaternion } from 'three'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { POSE_ANIM, POSE_PHYS, poseOffset } from '../../components/Pose.ts'
import { RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { restoreAndStep } from '../helpers/ragdollLimits.ts'

let fox: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

function scene() {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const [a, b] = [0, 1].map((i) => {
    const c = p.addCharacter(fox)
    p.setTransform(c, { position: [3 * i, 0, 0], scale: [0.01, 0.01, 0.01] })
    p.play(c, 'Walk')
    return c
  }) as [number, number]
  for (let s = 0; s < 10; s++) p.step()
  p.ragdoll(a)
  p.ragdoll(b)
  return { p, a, b }
}

/** Joint indices at or under the node named `name`. */
function under(p: AnimationPlugin, c: number, name: string): Set<number> {
  const asset = contextOf(p).assets[p.stores.Pose.asset[c]!]!
  const root = asset.nodeJoint[fox.nodes.findIndex((n) => n.name === name)]!
  const out = new Set<number>()
  for (let j = 0; j < asset.jointNodes.length; j++)
    for (let a = j; a >= 0; a = asset.jointParents[a]!) if (a === root) out.add(j)
  return out
}

/** Largest difference between the scene graph's locals and ANIM/PHYS blended by `weightOf(j)` with three.js. */
function blendError(p: AnimationPlugin, c: number, weightOf: (j: number) => number): number {
  const { Pose, SceneNode } = p.stores
  const n = Pose.count[c]!
  const base = Pose.base[c]!
  const data = contextOf(p).pool.data
  const anim = poseOffset(base, n, POSE_ANIM)
  const phys = poseOffset(base, n, POSE_PHYS)
  const joints = p.joints(c)
  let worst = 0
  for (let j = 0; j < n; j++) {
    const w = weightOf(j)
    const a = data.subarray(anim + j * 10, anim + j * 10 + 10)
    const b = data.subarray(phys + j * 10, phys + j * 10 + 10)
    const q = new Quaternion().slerpQuaternions(
      new Quaternion(a[3], a[4], a[5], a[6]),
      new Quaternion(b[3], b[4], b[5], b[6]),
      w,
    )
    const e = joints[j]!
    const r = SceneNode.rotation.subarray(e * 4, e * 4 + 4)
    const sign = q.x * r[0]! + q.y * r[1]! + q.z * r[2]! + q.w * r[3]! < 0 ? -1 : 1
    const expected = [q.x, q.y, q.z, q.w].map((x) => x * sign)
    for (let k = 0; k < 4; k++) worst = Math.max(worst, Math.abs(expected[k]! - r[k]!))
    for (let k = 0; k < 3; k++) {
      const t = a[k]! + (b[k]! - a[k]!) * w
      worst = Math.max(worst, Math.abs(t - SceneNode.translation[e * 3 + k]!) / (Math.abs(t) + 1))
    }
  }
  return worst
}

describe('per-joint ragdoll weights', () => {
  it('blends each joint by its own weight, ramped at the rate; ragdoll_weight is the largest', () => {
    const { p, a, b } = scene()
    const neck = under(p, a, 'b_Neck_04')
    const leg = under(p, a, 'b_LeftLeg01_015')
    p.setRagdollWeight(a, { weight: 0.3, joints: 'b_Neck_04' })
    p.setRagdollWeight(a, { weight: 0, joints: ['b_LeftLeg01_015'] })
    const rt = contextOf(p).ragdolls[a]!
    const weights = rt.jointWeights!.weights
    for (let s = 1; s <= 20; s++) {
      p.step()
      // Both characters ramp together at rate 5 (1/12 a step); the neck stops at 0.3 and the leg at 0.
      const ramp = Math.min(1, s / 12)
      for (let j = 0; j < weights.length; j++) {
        const expected = leg.has(j) ? 0 : neck.has(j) ? Math.min(0.3, ramp) : ramp
        expect(weights[j], `joint ${j} at step ${s}`).toBeCloseTo(expected, 12)
      }
      expect(p.stores.Ragdoll.weight[a]).toBeCloseTo(ramp, 12)
      expect(p.stores.Ragdoll.weight[b]).toBeCloseTo(ramp, 12)
      expect(blendError(p, a, (j) => weights[j]!)).toBeLessThan(2e-6)
      expect(blendError(p, b, () => p.stores.Ragdoll.weight[b]!)).toBeLessThan(2e-6)
    }
    // Lowered while falling, the neck ramps down at the rate too; at 1 everywhere the pose is the ragdoll's.
    p.setRagdollWeight(a, { weight: 0.1 })
    p.step()
    expect(weights[[...neck][0]!]).toBeCloseTo(0.3 - 1 / 12, 12)
    expect(weights[0]).toBeCloseTo(1 - 1 / 12, 12)
    p.setRagdollWeight(a, { weight: 1 })
    for (let s = 0; s < 12; s++) p.step()
    expect(blendError(p, a, () => 1)).toBeLessThan(1e-7)
  })

  it('gets up by ramping every joint to 0, then the bodies leave; snapshots carry the weights', () => {
    const { p, a, b } = scene()
    p.setRagdollWeight(a, { weight: 0.5, joints: 'b_Spine01_02' })
    for (let s = 0; s < 8; s++) p.step()
    const run = restoreAndStep(p, [fox], 45, (q, k) => {
      if (k !== 10) return
      q.getUp(a, { rate: 2 })
      q.getUp(b, { rate: 2 })
    })
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    // Getting up at rate 2 from 1 (the hips) takes 30 steps: both are back by step 45.
    for (const c of [a, b]) expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_OFF)
    expect(p.physics.bodies.length).toBe(1)
  })

  it('rejects a bad weight, an unknown joint and a character not ragdolling, changing nothing', () => {
    const { p, a } = scene()
    const idle = p.addCharacter(fox)
    p.step()
    const hash = p.hash()
    for (const [c, o] of [
      [a, { weight: 1.5 }],
      [a, { weight: -0.1 }],
      [a, { weight: NaN }],
      [a, { weight: 0.5, joints: 'nope' }],
      [a, { weight: 0.5, joints: [0, {}] }],
      [idle, { weight: 0.5 }],
    ] as const) {
      expect(() => p.setRagdollWeight(c, o as never), JSON.stringify(o)).toThrow(AnimationError)
    }
    expect(p.hash()).toBe(hash)
    expect(contextOf(p).ragdolls[a]!.jointWeights).toBeNull()
  })
})
