import { Vec3, World } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import { resolveRagdollDescription } from '../../src/physics/description.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { forwardKinematics, WORLD_STRIDE } from '../../src/physics/kinematics.ts'
import { despawnRagdoll, spawnRagdoll, type RagdollInstance } from '../../src/physics/ragdoll.ts'
import { ragdollExploded, readRagdollPose } from '../../src/physics/readback.ts'
import { RagdollBroadphase } from '../../src/physics/broadphase.ts'
import { HUMANOID_NODES, makeHumanoidAsset } from '../helpers/humanoid.ts'
import { quatDistance, quatFromAxisAngle } from '../helpers/quat.ts'

const asset = makeHumanoidAsset()
const n = HUMANOID_NODES.length
// The helper's node order is already parents first, so joint j = node j.
const parents = Int32Array.from(HUMANOID_NODES.map((x) => x.parent))
const nodeJoint = Int32Array.from(HUMANOID_NODES.map((_, i) => i))
const view = { source: 'h', nodes: asset.nodes, skinJoints: asset.skeletons[0]!.joints }
const bodies = resolveRagdollDescription(view, generateRagdollDescription(view))

/** A bent pose: rest with a few joints turned, under a turned, scaled root. */
function scene() {
  const pose = new Float32Array(n * 10)
  HUMANOID_NODES.forEach((x, j) => pose.set([...x.t, ...x.r, 1, 1, 1], j * 10))
  pose.set(quatFromAxisAngle([1, 0, 0], 0.4), 7 * 10 + 3)
  pose.set(quatFromAxisAngle([0, 0, 1], -0.3), 14 * 10 + 3)
  const root = Float64Array.from([0.5, 0, -1, ...quatFromAxisAngle([0, 1, 0], 0.7), 1.2])
  const world = forwardKinematics(new Float64Array(n * WORLD_STRIDE), pose, 0, parents, n, root, 0)
  return { pose, root, world }
}

function spawn(physics: World): { r: RagdollInstance; pose: Float32Array; root: Float64Array } {
  const { pose, root, world } = scene()
  const r = spawnRagdoll(physics, { bodies, nodeJoint, jointCount: n, world, previous: null, dt: 1 / 60 })
  return { r, pose, root }
}

describe('spawnRagdoll / readRagdollPose', () => {
  it('reads back the pose it was spawned from (PHYS = ANIM at the hand-off)', () => {
    const physics = new World()
    const { r, pose, root } = spawn(physics)
    const phys = new Float32Array(n * 10).fill(NaN)
    readRagdollPose(r, phys, 0, pose, 0, parents, n, root, 0, new Float64Array(n * WORLD_STRIDE))
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < 3; k++)
        expect(Math.abs(phys[j * 10 + k]! - pose[j * 10 + k]!), `joint ${j} t${k}`).toBeLessThan(1e-6)
      expect(quatDistance(phys, pose, j * 10 + 3, j * 10 + 3), `joint ${j} rotation`).toBeLessThan(1e-6)
      for (let k = 7; k < 10; k++) expect(phys[j * 10 + k]).toBe(pose[j * 10 + k])
    }
    // Bodies at rest (no previous pose), unrotated, each scaled by the root's 1.2.
    for (const b of r.bodies) {
      expect(b.velocity.toArray()).toEqual([0, 0, 0])
      expect(b.quaternion.toArray()).toEqual([0, 0, 0, 1])
    }
    const pelvis = r.bodies[0]!.shapes[0] as unknown as { radius: number }
    expect(pelvis.radius).toBeCloseTo(bodies[0]!.radius * 1.2, 12)
  })

  it('links each body to its parent body at its joint, linked pairs not colliding, and despawns cleanly', () => {
    const physics = new World()
    const { r } = spawn(physics)
    expect(r.constraints).toHaveLength(bodies.length - 1)
    let c = 0
    bodies.forEach((spec, i) => {
      if (spec.parentBody < 0) return
      const joint = r.constraints[c++]!
      expect(joint.bodyA).toBe(r.bodies[spec.parentBody])
      expect(joint.bodyB).toBe(r.bodies[i])
      expect(joint.collideConnected).toBe(false)
      expect((r.bodies[i] as unknown as { ragdollParent: unknown }).ragdollParent).toBe(joint.bodyA)
      // Both pivots sit on the child joint's origin in world.
      const a = joint.bodyA.pointToWorldFrame(joint.pivotA)
      const b = joint.bodyB.pointToWorldFrame(joint.pivotB)
      expect(a.distanceTo(b)).toBeLessThan(1e-12)
    })
    expect(physics.bodies).toHaveLength(bodies.length)
    // With a RagdollBroadphase the broadphase drops linked pairs, so the joints need not.
    const sap = new World()
    sap.broadphase = new RagdollBroadphase(sap)
    expect(spawn(sap).r.constraints.every((j) => j.collideConnected)).toBe(true)
    despawnRagdoll(physics, r)
    expect(physics.bodies).toHaveLength(0)
    expect(physics.constraints).toHaveLength(0)
  })
})

describe('ragdollExploded', () => {
  const physics = new World()
  const { r } = spawn(physics)
  const body = r.bodies[3]!

  it('is false at rest and up to the limits, true just past them', () => {
    expect(ragdollExploded(r, 10, 20)).toBe(false)
    body.velocity.set(6, 8, 0)
    expect(ragdollExploded(r, 10, 20)).toBe(false)
    body.velocity.set(6, 8.001, 0)
    expect(ragdollExploded(r, 10, 20)).toBe(true)
    body.velocity.set(0, 0, 0)
    body.angularVelocity.set(0, 0, 20)
    expect(ragdollExploded(r, 10, 20)).toBe(false)
    body.angularVelocity.set(0, 0, -20.001)
    expect(ragdollExploded(r, 10, 20)).toBe(true)
    body.angularVelocity.set(0, 0, 0)
  })

  it('is true for any non-finite position, orientation or velocity', () => {
    const poke: ((v: number) => void)[] = [
      (v) => (body.position.y = v),
      (v) => (body.quaternion.w = v),
      (v) => (body.velocity.x = v),
      (v) => (body.angularVelocity.z = v),
    ]
    for (const set of poke) {
      for (const bad of [NaN, Infinity]) {
        const saved = [
          body.position.clone(),
          body.quaternion.clone(),
          body.velocity.clone(),
          body.angularVelocity.clone(),
        ]
        set(bad)
        expect(ragdollExploded(r, 10, 20)).toBe(true)
        body.position.copy(saved[0] as Vec3)
        body.quaternion.copy(saved[1] as never)
        body.velocity.copy(saved[2] as Vec3)
        body.angularVelocity.copy(saved[3] as Vec3)
        expect(ragdollExploded(r, 10, 20)).toBe(false)
      }
    }
  })
})
