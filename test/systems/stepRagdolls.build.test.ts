/**
 * stepRagdolls: what is built, and where: a user-supplied description, a character
 * placed in the same frame, mirrored and extreme scales, thin capsules and the largest ragdoll, with bounded
 * work.
 * Setup and the independent side: test/helpers/stepRagdolls.ts.
 */
import { createWorld } from 'bitecs'
import { Body as CannonBody } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { RAGDOLL_FALLING } from '../../components/Ragdoll.ts'
import { JOINT_STRIDE, POSE_ANIM, POSE_PHYS, poseOffset } from '../../components/Pose.ts'
import { HUMANOID_RAGDOLL } from '../helpers/humanoid.ts'
import { MAX_BODY_SHAPES, MAX_CAPSULE_SPHERES } from '../../src/physics/shapes.ts'
import { chainAsset, chainDescription } from '../helpers/chainRig.ts'
import { MAX_RAGDOLL_BODIES } from '../../src/physics/description.ts'
import { problems } from '../helpers/ecs.ts'
import { countCalls } from '../helpers/countCalls.ts'
import { fox, loadFox, humanoid, newPlugin, addWalker, run, ragdollOf } from '../helpers/stepRagdolls.ts'

beforeAll(loadFox)

describe('stepRagdolls: a user-supplied description', () => {
  it('builds exactly the described bodies, and joints without a body keep their animated local transform', () => {
    const p = newPlugin()
    const a = addWalker(p, humanoid)
    const b = addWalker(p, humanoid, [3, 0, 0])
    run(p, 10)
    p.ragdoll(a, { description: HUMANOID_RAGDOLL })
    p.ragdoll(b)
    run(p, 90)
    const { rt, r } = ragdollOf(p, a)
    expect(r.bodies).toHaveLength(HUMANOID_RAGDOLL.bodies.length)
    const byName = new Map(rt.bodies.map((s, i) => [humanoid.nodes[s.node]!.name, r.bodies[i]!]))
    for (const spec of HUMANOID_RAGDOLL.bodies) {
      const body = byName.get(String(spec.joint))!
      expect(body.mass, String(spec.joint)).toBe(spec.mass)
      expect(body.shapes[0]!.type, String(spec.joint)).toBe(spec.shape === 'box' ? 4 : 1)
    }
    expect(r.bodies.reduce((s, x) => s + x.mass, 0)).toBeCloseTo(68, 9)
    // spine, neck, hands and toes have no body: their PHYS local is their ANIM local, bit for bit.
    const { Pose } = p.stores
    const n = Pose.count[a]!
    const anim = poseOffset(Pose.base[a]!, n, POSE_ANIM)
    const phys = poseOffset(Pose.base[a]!, n, POSE_PHYS)
    const data = contextOf(p).pool.data
    const asset0 = contextOf(p).assets[Pose.asset[a]!]!
    for (const name of ['spine', 'neck', 'hand.L', 'toe.R', 'headTip']) {
      const j = asset0.nodeJoint[humanoid.nodes.findIndex((x) => x.name === name)]!
      expect(r.jointBody[j]).toBe(-1)
      expect(Array.from(data.subarray(phys + j * JOINT_STRIDE, phys + (j + 1) * JOINT_STRIDE)), name).toEqual(
        Array.from(data.subarray(anim + j * JOINT_STRIDE, anim + (j + 1) * JOINT_STRIDE)),
      )
    }
    expect(ragdollOf(p, b).r.bodies.length).not.toBe(r.bodies.length)
  })
})

describe('stepRagdolls: a character placed or moved in the same frame', () => {
  it('spawns at the root transform the game set this frame, not at the last settled one', () => {
    const p = newPlugin()
    const c = p.addCharacter(fox)
    const S = p.stores.SceneNode
    // Added, scaled to metres and moved 3 m, then knocked over before any step has settled its world matrix.
    S.scale.fill(0.01, c * 3, c * 3 + 3)
    S.translation.set([3, 0, -2], c * 3)
    S.dirty[c] = 1
    p.ragdoll(c)
    p.step()
    const { r } = ragdollOf(p, c)
    // Every body sits within the Fox's ~1 m extent around (3, 0.4, -2), at the metre scale.
    for (const b of r.bodies) {
      expect(Math.abs(b.position.x - 3)).toBeLessThan(1)
      expect(Math.abs(b.position.z + 2)).toBeLessThan(1)
      expect(b.position.y).toBeGreaterThan(-0.1)
      expect(b.position.y).toBeLessThan(1)
    }
    run(p, 120)
    expect(problems(p)).toEqual([])
    expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_FALLING)
  })
})

describe('stepRagdolls: mirrored and extreme scales (issue 17 #4)', () => {
  it('a mirrored character (scale −1) ragdolls without a throw, its bodies sized by |scale|', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const c = plugin.addCharacter(humanoid)
    plugin.setTransform(c, { scale: [-1, 1, 1] })
    plugin.step()
    plugin.ragdoll(c)
    for (let i = 0; i < 60; i++) plugin.step()
    expect(plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
    expect(plugin.stores.Ragdoll.weight[c]).toBeGreaterThan(0)
  })

  // Issue 17: scale 1,000 took 764 ms to build, 10,000 hung, [1e4, 1, 1] 779 ms; a mirrored joint threw forever.
  for (const scale of [
    [1e3, 1e3, 1e3],
    [1e4, 1e4, 1e4],
    [1e4, 1, 1],
    [-1e4, 1, 1],
    [1e-4, 1e-4, 1e-4],
  ] as const) {
    it(`scale [${scale}]: built with bounded work or refused at ragdoll(); step() never throws`, () => {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
      const c = plugin.addCharacter(humanoid)
      plugin.setTransform(c, { scale: [...scale] })
      plugin.step()
      const hash = plugin.hash()
      try {
        plugin.ragdoll(c)
      } catch (error) {
        expect(error).toBeInstanceOf(AnimationError)
        expect(plugin.hash()).toBe(hash)
        return
      }
      const massUpdates = countCalls(CannonBody.prototype, 'updateMassProperties', () => plugin.step())
      const bodies = plugin.physics.bodies.slice(1)
      expect(bodies.length).toBeGreaterThan(0)
      expect(massUpdates).toBeLessThanOrEqual(3 * bodies.length)
      for (const body of bodies) expect(body.shapes.length).toBeLessThanOrEqual(MAX_BODY_SHAPES)
      for (let i = 0; i < 60; i++) plugin.step()
      expect(plugin.stores.SceneNode.world.every((x) => Number.isFinite(x))).toBe(true)
    })
  }

  it(`a thin capsule (length/radius 10^6) is built from at most ${MAX_CAPSULE_SPHERES} spheres, in one pass`, () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const c = plugin.addCharacter(humanoid)
    plugin.step()
    const thin = {
      bodies: HUMANOID_RAGDOLL.bodies.map((b) => ({ ...b, radius: b.length * 1e-6 })),
    }
    plugin.ragdoll(c, { description: thin })
    const massUpdates = countCalls(CannonBody.prototype, 'updateMassProperties', () => plugin.step())
    for (const body of plugin.physics.bodies)
      expect(body.shapes.length).toBeLessThanOrEqual(MAX_CAPSULE_SPHERES)
    // Once at construction and once after the shapes (riding spheres: once more), not once per sphere.
    expect(massUpdates).toBeLessThanOrEqual(3 * thin.bodies.length)
  })

  // Build time itself (≤ 5 ms of CPU per ragdoll) is measured by `npm run bench:ragdoll`; here, without a clock,
  // the work a build does: each body's mass properties computed once for its shapes (each addShape recomputing
  // them over all shapes so far made long capsules quadratic: scale 1,000 took 764 ms) and at most
  // MAX_BODY_SHAPES shapes per body.
  it(`builds a ragdoll of ${MAX_RAGDOLL_BODIES} bodies with bounded work and refuses one more at ragdoll()`, () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
    const c = plugin.addCharacter(chainAsset(MAX_RAGDOLL_BODIES))
    plugin.step()
    plugin.ragdoll(c, { description: chainDescription(MAX_RAGDOLL_BODIES) })
    const massUpdates = countCalls(CannonBody.prototype, 'updateMassProperties', () => plugin.step())
    expect(plugin.physics.bodies.length).toBe(MAX_RAGDOLL_BODIES + 1)
    const shapes = plugin.physics.bodies.slice(1).map((b) => b.shapes.length)
    expect(Math.max(...shapes)).toBeLessThanOrEqual(MAX_BODY_SHAPES)
    expect(Math.min(...shapes)).toBeGreaterThan(1)
    // Once at construction (cannon-es's Body), once after the capsule's spheres, once after the riding spheres
    // (the chain's last joint rides on the last body); per sphere, it would be 4–5 a body here.
    expect(massUpdates).toBeLessThanOrEqual(3 * MAX_RAGDOLL_BODIES)
    const other = createAnimationPlugin(createWorld(), { capacity: 256 })
    const d = other.addCharacter(chainAsset(MAX_RAGDOLL_BODIES + 1))
    other.step()
    const hash = other.hash()
    const description = chainDescription(MAX_RAGDOLL_BODIES + 1)
    expect(() => other.ragdoll(d, { description })).toThrow(/at most 64 bodies, this one 65/)
    expect(other.hash()).toBe(hash)
  })
})
