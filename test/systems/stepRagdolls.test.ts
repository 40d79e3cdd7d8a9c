/**
 * The ragdoll hand-off end to end, through the plugin: bodies at the animated pose with the animation's
 * velocity, no pop, a fall that ends at rest within the joint limits, the weight ramp and get-up, determinism,
 * no leaks, bad input, explosions, a user-supplied description. Two characters (or a ragdoll and a pure-animation
 * twin) per world throughout.
 *
 * The independent side: joint world matrices come from the scene graph of a twin character that never
 * ragdolls (and the scene graph is itself checked against three.js in propagateTransforms.test.ts); poses are
 * decomposed with three.js; finite differences, angles and the swing-twist split are written here with Math.*.
 */
import { createWorld, addEntity } from 'bitecs'
import { Body as CannonBody, type Body, type ConeTwistConstraint } from 'cannon-es'
import { Matrix4, Quaternion, Vector3 } from 'three'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createHasher } from '../../src/sim/hasher.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { RAGDOLL_FALLING, RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { JOINT_STRIDE, LAYER_ANIM, LAYER_PHYS, layerOffset } from '../../components/Pose.ts'
import { HUMANOID_RAGDOLL, makeHumanoidAsset } from '../helpers/humanoid.ts'
import { quatDistance } from '../helpers/quat.ts'
import { contextOf } from '../../entry/plugin.ts'
import { MAX_BODY_SHAPES, MAX_CAPSULE_SPHERES } from '../../src/physics/shapes.ts'
import { chainAsset, chainDescription } from '../helpers/chainRig.ts'
import { MAX_RAGDOLL_BODIES } from '../../src/physics/description.ts'
import { problems } from '../helpers/ecs.ts'
import { countCalls } from '../helpers/countCalls.ts'

const DT = 1 / 60
let fox: AnimationAsset
const humanoid = makeHumanoidAsset()

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

function newPlugin(options: Parameters<typeof createAnimationPlugin>[1] = {}): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 4096, ...options })
}

/** A character of `asset` at `at`, walking; the Fox is in centimetres, so its root is scaled to metres. */
function addWalker(
  p: AnimationPlugin,
  asset: AnimationAsset,
  at: [number, number, number] = [0, 0, 0],
): number {
  const c = p.addCharacter(asset)
  const S = p.stores.SceneNode
  if (asset === fox) S.scale.fill(0.01, c * 3, c * 3 + 3)
  S.translation.set(at, c * 3)
  S.dirty[c] = 1
  p.play(c, 'Walk')
  return c
}

function run(p: AnimationPlugin, steps: number, each?: (s: number) => void): void {
  for (let s = 0; s < steps; s++) {
    p.step()
    each?.(s)
  }
}

/** The joint's world matrix (three.js, from the scene graph). */
function worldMatrix(p: AnimationPlugin, jointEntity: number, world = p.stores.SceneNode.world): Matrix4 {
  return new Matrix4().fromArray(Array.from(world.subarray(jointEntity * 16, jointEntity * 16 + 16)))
}

function decompose(m: Matrix4): { p: Vector3; q: Quaternion; s: number } {
  const p = new Vector3()
  const q = new Quaternion()
  const s = new Vector3()
  m.decompose(p, q, s)
  return { p, q, s: s.x }
}

/** Bone centre of a resolved body in world: joint origin + (rotation · scale)(axis · length / 2). */
function boneCentre(m: Matrix4, axis: readonly number[], length: number): Vector3 {
  const half = new Vector3(axis[0], axis[1], axis[2]).multiplyScalar(length / 2)
  return half.applyMatrix4(m)
}

/** World angular velocity (rad/s) turning rotation a into b over dt, short arc. */
function angularVelocityOf(a: Quaternion, b: Quaternion, dt: number): Vector3 {
  const d = b.clone().multiply(a.clone().invert())
  if (d.w < 0) d.set(-d.x, -d.y, -d.z, -d.w)
  const s = Math.hypot(d.x, d.y, d.z)
  if (s === 0) return new Vector3()
  const angle = 2 * Math.atan2(s, d.w)
  return new Vector3(d.x, d.y, d.z).multiplyScalar(angle / s / dt)
}

function ragdollOf(p: AnimationPlugin, c: number) {
  const rt = contextOf(p).ragdolls[c]
  if (!rt?.instance) throw new Error(`character ${c} has no live ragdoll`)
  return { rt, r: rt.instance }
}

/** Cone angle between the constraint axes in world, and the twist of B relative to A about the axis (swing-twist). */
function jointAngles(c: ConeTwistConstraint): { cone: number; twist: number } {
  const qa = c.bodyA.quaternion
  const qb = c.bodyB.quaternion
  const a = qa.vmult(c.axisA).unit()
  const b = qb.vmult(c.axisB).unit()
  const cone = Math.acos(Math.min(1, Math.max(-1, a.dot(b))))
  const rel = qa.conjugate().mult(qb)
  const axis = c.axisA.unit()
  const along = rel.x * axis.x + rel.y * axis.y + rel.z * axis.z
  const twist = 2 * Math.atan2(Math.abs(along), Math.abs(rel.w))
  return { cone, twist }
}

/** Lowest point of any body (its spheres' bottoms; a box's lowest corner), world y. */
function lowestSurface(bodies: readonly Body[]): number {
  let lowest = Infinity
  for (const b of bodies) {
    b.shapes.forEach((shape, i) => {
      const centre = b.position.vadd(b.quaternion.vmult(b.shapeOffsets[i]!))
      if ('radius' in shape) lowest = Math.min(lowest, centre.y - (shape as { radius: number }).radius)
      else {
        const box = shape as unknown as {
          convexPolyhedronRepresentation: { vertices: { x: number; y: number; z: number }[] }
        }
        const q = b.quaternion.mult(b.shapeOrientations[i]!)
        for (const v of box.convexPolyhedronRepresentation.vertices)
          lowest = Math.min(lowest, centre.y + q.vmult(v as never).y)
      }
    })
  }
  return lowest
}

function hasNaN(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (Number.isNaN(a[i]!)) return true
  return false
}

describe('stepRagdolls: activation', () => {
  for (const which of ['Fox', 'humanoid'] as const) {
    it(`${which}: bodies start at the animated pose with the animation's velocity, and nothing pops`, () => {
      const asset = which === 'Fox' ? fox : humanoid
      const p = newPlugin()
      const doll = addWalker(p, asset)
      const twin = addWalker(p, asset)
      run(p, 30)
      const before = Float32Array.from(p.stores.SceneNode.world)
      const added: { body: Body; p: number[]; q: number[]; v: number[]; w: number[] }[] = []
      p.physics.addEventListener('addBody', (e: { body: Body }) =>
        added.push({
          body: e.body,
          p: e.body.position.toArray(),
          q: e.body.quaternion.toArray(),
          v: e.body.velocity.toArray(),
          w: e.body.angularVelocity.toArray(),
        }),
      )
      p.ragdoll(doll)
      p.step()
      const { rt, r } = ragdollOf(p, doll)
      expect(added.map((a) => a.body)).toEqual(r.bodies)
      const twinJoints = p.joints(twin)
      const asset0 = contextOf(p).assets[p.stores.Pose.asset[doll]!]!
      let worstV = 0
      let worstW = 0
      rt.bodies.forEach((spec, b) => {
        const j = asset0.nodeJoint[spec.node]!
        const now = worldMatrix(p, twinJoints[j]!)
        const then = worldMatrix(p, twinJoints[j]!, before)
        const joint = decompose(now)
        const snap = added[b]!
        // Orientation convention: every body starts unrotated.
        expect(snap.q).toEqual([0, 0, 0, 1])
        // Body position = bone centre; body position + offset = the joint's animated world position.
        const centre = boneCentre(now, spec.axis, spec.length)
        expect(new Vector3(...snap.p).distanceTo(centre), `body ${b} centre`).toBeLessThan(1e-5)
        const d = r.jointOffset.subarray(b * 7, b * 7 + 7)
        const implied = new Vector3(snap.p[0]! + d[0]!, snap.p[1]! + d[1]!, snap.p[2]! + d[2]!)
        expect(implied.distanceTo(joint.p), `body ${b} joint position`).toBeLessThan(1e-5)
        expect(quatDistance(d, joint.q.toArray(), 3, 0), `body ${b} joint rotation`).toBeLessThan(1e-5)
        // Velocities: finite differences of the animation between the two steps.
        const v = centre
          .clone()
          .sub(boneCentre(then, spec.axis, spec.length))
          .divideScalar(DT)
        worstV = Math.max(worstV, new Vector3(...snap.v).distanceTo(v))
        const w = angularVelocityOf(decompose(then).q, joint.q, DT)
        worstW = Math.max(worstW, new Vector3(...snap.w).distanceTo(w))
      })
      // Float32 world matrices hold positions to ~1e-7 m: divided by dt that is ~1e-5 m/s.
      expect(worstV, 'linear velocity error, m/s').toBeLessThan(1e-4)
      expect(worstW, 'angular velocity error, rad/s').toBeLessThan(1e-3)
      // The animation really moved (else the velocity check is empty).
      expect(Math.max(...added.map((a) => Math.hypot(...a.v)))).toBeGreaterThan(0.2)

      // No pop: the pose shown in the activation step is the animation (bodies read back where they were
      // placed), and the next step leaves it by a few millimetres.
      const dollJoints = p.joints(doll)
      const pop = (): number => {
        let d = 0
        dollJoints.forEach((e, j) => {
          const a = decompose(worldMatrix(p, e)).p
          d = Math.max(d, a.distanceTo(decompose(worldMatrix(p, twinJoints[j]!)).p))
        })
        return d
      }
      const atActivation = pop()
      p.step()
      const firstBlend = pop()
      expect(atActivation, 'activation step: largest joint distance from the animated twin, m').toBeLessThan(
        1e-5,
      )
      // One step later the bodies have moved ballistically while the walk did not (its limbs accelerate): the
      // physics pose is a few cm off and shows at weight 2/12.
      expect(firstBlend, 'first blended step: largest joint distance from the twin, m').toBeLessThan(0.01)
      expect(firstBlend).toBeGreaterThan(atActivation)
    })
  }

  it('applies the hit given with ragdoll() to the body at that joint when the bodies appear', () => {
    const p = newPlugin()
    const a = addWalker(p, humanoid)
    const b = addWalker(p, humanoid, [3, 0, 0])
    run(p, 30)
    const placed = new Map<Body, number[]>()
    p.physics.addEventListener('addBody', (e: { body: Body }) =>
      placed.set(e.body, e.body.velocity.toArray()),
    )
    p.ragdoll(a, { impulse: { joint: 'chest', impulse: [14, 0, -7] } })
    p.ragdoll(b)
    p.step()
    const { rt, r } = ragdollOf(p, a)
    const chest = r.bodies[rt.bodies.findIndex((s) => humanoid.nodes[s.node]!.name === 'chest')]!
    // Not yet solved: the velocity is the animation's plus impulse / mass.
    const v = chest.velocity.toArray()
    const before = placed.get(chest)!
    expect(v[0]! - before[0]!).toBeCloseTo(14 / chest.mass, 12)
    expect(v[1]! - before[1]!).toBeCloseTo(0, 12)
    expect(v[2]! - before[2]!).toBeCloseTo(-7 / chest.mass, 12)
    for (const other of ragdollOf(p, b).r.bodies) expect(other.velocity.toArray()).toEqual(placed.get(other))
  })
})

describe('stepRagdolls: the fall', () => {
  interface FallCase {
    name: string
    asset: () => AnimationAsset
    description?: () => typeof HUMANOID_RAGDOLL
    cone: number
    twist: number
    settled: number
    /** Largest body displacement allowed over the last second, m. */
    still: number
  }
  // Tolerances beyond each limit, in radians: cannon-es's solver (10 Gauss-Seidel iterations, no warm start)
  // holds ConeTwistConstraint limits softly, so impacts overshoot for a few steps ("cone", "twist"); once lying
  // still ("settled", the last 5 s) the limits hold closely. Measured (cone / twist / settled): Fox 0.13 /
  // 0.15 / 0.07, generated humanoid 0.52 / 0.31 / 0.001, user-supplied humanoid 0.19 / 0.28 / 0.003.
  const cases: FallCase[] = [
    // Lying, the Fox's joint and ground projection (src/physics/ragdoll.ts) leave it creeping ~1 cm/s (1.04 cm
    // measured; 0.6 cm without the projection, whose joints stood 6 cm apart).
    { name: 'Fox', asset: () => fox, cone: 0.25, twist: 0.25, settled: 0.1, still: 0.015 },
    // Its left leg ends up pointing up, held by a soft hip limit that lets it creep ~3 cm/s (with 20 solver
    // iterations ~4 mm/s; with sleeping allowed it stops after ~12 s).
    { name: 'generated humanoid', asset: () => humanoid, cone: 0.7, twist: 0.45, settled: 0.05, still: 0.05 },
    {
      name: 'humanoid with a user-supplied description',
      asset: () => humanoid,
      description: () => HUMANOID_RAGDOLL,
      cone: 0.3,
      twist: 0.4,
      settled: 0.05,
      still: 0.012,
    },
  ]
  for (const c of cases) {
    it(`${c.name}: falls, stays above the ground and within its limits, no NaN, and lies still (10 s)`, () => {
      const p = newPlugin()
      const asset = c.asset()
      const doll = addWalker(p, asset)
      const other = addWalker(p, asset, [4, 0, 0])
      run(p, 30)
      p.ragdoll(doll, c.description ? { description: c.description() } : {})
      p.ragdoll(other, c.description ? { description: c.description() } : {})
      p.step()
      const { r } = ragdollOf(p, doll)
      let cone = 0
      let twist = 0
      let settled = 0
      let lowest = Infinity
      let lowestLate = Infinity
      const positions: number[][] = []
      run(p, 600, (s) => {
        expect(hasNaN(p.stores.SceneNode.world), `NaN in the scene graph at step ${s}`).toBe(false)
        for (const k of r.constraints) {
          const a = jointAngles(k)
          cone = Math.max(cone, a.cone - k.angle)
          twist = Math.max(twist, a.twist - k.twistAngle)
          if (s >= 300) settled = Math.max(settled, a.cone - k.angle, a.twist - k.twistAngle)
        }
        const low = lowestSurface(r.bodies)
        lowest = Math.min(lowest, low)
        if (s >= 300) lowestLate = Math.min(lowestLate, low)
        if (s === 540 || s === 599) positions.push(r.bodies.flatMap((b) => b.position.toArray()))
      })
      expect(problems(p)).toEqual([])
      expect(cone, 'largest cone excess, rad').toBeLessThan(c.cone)
      expect(twist, 'largest twist excess, rad').toBeLessThan(c.twist)
      expect(settled, 'largest excess over the last 5 s, rad').toBeLessThan(c.settled)
      // cannon-es has no continuous collision: a body falling at v sinks up to v·dt (~7 cm at 4 m/s) into the
      // ground for a step or two (measured 2.8 / 7.6 / 5 cm); lying still, within 1 cm (0.4 / 0.1 / 0.3 cm).
      expect(lowest, 'deepest penetration, m').toBeGreaterThan(-0.1)
      expect(lowestLate, 'deepest penetration over the last 5 s, m').toBeGreaterThan(-0.01)
      // At rest: over the last second no body moved more than `still` (it fell at metres per second), and the
      // whole ragdoll lies low.
      const [a, b] = positions as [number[], number[]]
      let moved = 0
      for (let i = 0; i < a.length; i += 3)
        moved = Math.max(moved, Math.hypot(a[i]! - b[i]!, a[i + 1]! - b[i + 1]!, a[i + 2]! - b[i + 2]!))
      expect(moved, 'largest body displacement over the last second, m').toBeLessThan(c.still)
      expect(Math.max(...r.bodies.map((x) => x.position.y))).toBeLessThan(asset === fox ? 0.3 : 0.4)
    })
  }
})

describe('stepRagdolls: ragdoll_weight', () => {
  /** The ramp by its definition: +rate·dt per step from 0, held at 1 (the test's own arithmetic). */
  function ramp(rate: number, steps: number, from = 0, sign = 1): number[] {
    const out: number[] = []
    let w = from
    for (let k = 0; k < steps; k++) {
      w = w + sign * rate * DT
      w = w > 1 ? 1 : w
      out.push(w)
    }
    return out
  }

  it('ramps 0 → 1 at the default rate 5 (12 steps) and at a custom rate 2 (30 steps), two characters at once', () => {
    const p = newPlugin()
    const a = addWalker(p, humanoid)
    const b = addWalker(p, humanoid, [3, 0, 0])
    const W = p.stores.Ragdoll.weight
    run(p, 10)
    p.ragdoll(a)
    const wa: number[] = []
    const wb: number[] = []
    run(p, 40, (s) => {
      if (s === 4) p.ragdoll(b, { rate: 2 })
      wa.push(W[a]!)
      wb.push(W[b]!)
    })
    expect(wa).toEqual(ramp(5, 40))
    expect(wb).toEqual([0, 0, 0, 0, 0, ...ramp(2, 35)])
    expect(wa[0]).toBeCloseTo(1 / 12, 15)
    expect(wa[10]).toBeLessThan(1)
    expect(wa.indexOf(1)).toBeLessThanOrEqual(12)
    expect(wb.indexOf(1) - 5).toBeGreaterThanOrEqual(29)
    expect(wb.indexOf(1) - 5).toBeLessThanOrEqual(30)
    expect(Math.max(...wa, ...wb)).toBe(1)
    expect(p.stores.Ragdoll.rate[b]).toBe(2)
  })

  it('ramps back to 0 on getUp (current rate, or its own), and the bodies leave the world at 0', () => {
    const p = newPlugin()
    const a = addWalker(p, humanoid)
    const b = addWalker(p, humanoid, [3, 0, 0])
    const W = p.stores.Ragdoll.weight
    const A = p.stores.Ragdoll.active
    run(p, 10)
    p.ragdoll(a)
    p.ragdoll(b)
    run(p, 60)
    const bodiesA = ragdollOf(p, a).r.bodies
    const constraintsA = ragdollOf(p, a).r.constraints
    const bodiesB = ragdollOf(p, b).r.bodies
    p.getUp(a, { clip: 'Idle' })
    p.getUp(b, { rate: 10 })
    expect(A[a]).toBe(RAGDOLL_GETTING_UP)
    const wa: number[] = []
    const wb: number[] = []
    const inWorld: boolean[] = []
    run(p, 15, () => {
      wa.push(W[a]!)
      wb.push(W[b]!)
      inWorld.push(p.physics.bodies.includes(bodiesA[0]!))
    })
    const down = (rate: number) => {
      const out: number[] = []
      let w = 1
      for (let k = 0; k < 15; k++) {
        w = w - rate * DT
        if (!(w > 0)) w = 0
        out.push(w)
        if (w === 0) while (out.length < 15) out.push(0)
        if (out.length === 15) break
      }
      return out
    }
    expect(wa).toEqual(down(5))
    expect(wb).toEqual(down(10))
    const zeroAt = wa.indexOf(0)
    expect(zeroAt).toBeGreaterThanOrEqual(11)
    expect(zeroAt).toBeLessThanOrEqual(12)
    // In the world up to the step before the weight reached 0, gone from that step on.
    expect(inWorld).toEqual(wa.map((w) => w > 0))
    expect(A[a]).toBe(RAGDOLL_OFF)
    expect(contextOf(p).ragdolls[a]!.instance).toBe(null)
    for (const x of [...bodiesA, ...bodiesB]) expect(p.physics.bodies).not.toContain(x)
    for (const c of constraintsA) expect(p.physics.constraints).not.toContain(c)
    expect(p.physics.bodies).toHaveLength(1)
    expect(p.physics.constraints).toHaveLength(0)
    // The get-up clip plays on: the pose is the animation again.
    const layer = layerOffset(p.stores.Pose.base[a]!, p.stores.Pose.count[a]!, LAYER_ANIM)
    const e = p.joints(a)[3]!
    const local = Array.from(p.stores.SceneNode.translation.subarray(e * 3, e * 3 + 3))
    expect(local).toEqual(
      Array.from(contextOf(p).pool.data.subarray(layer + 3 * JOINT_STRIDE, layer + 3 * JOINT_STRIDE + 3)),
    )
  })

  it('a hit given with ragdoll() while getting up applies at once (the bodies already exist)', () => {
    const p = newPlugin()
    const a = addWalker(p, humanoid)
    const b = addWalker(p, humanoid, [3, 0, 0])
    run(p, 10)
    p.ragdoll(a)
    p.ragdoll(b)
    run(p, 60)
    p.getUp(a)
    run(p, 2)
    const { rt, r } = ragdollOf(p, a)
    const chest = r.bodies[rt.bodies.findIndex((s) => humanoid.nodes[s.node]!.name === 'chest')]!
    const before = chest.velocity.x
    p.ragdoll(a, { impulse: { joint: 'chest', impulse: [20, 0, 0] } })
    expect(p.stores.Ragdoll.active[a]).toBe(RAGDOLL_FALLING)
    expect(chest.velocity.x - before).toBeCloseTo(20 / chest.mass, 12)
    expect(rt.impulses).toEqual([])
  })
})

/** Hash of the plugin state and every cannon-es body's position, orientation and velocities (bits). */
function fullHash(p: AnimationPlugin): string {
  const h = createHasher()
  const state = new Float64Array(13)
  for (const b of p.physics.bodies) {
    state.set([
      ...b.position.toArray(),
      ...b.quaternion.toArray(),
      ...b.velocity.toArray(),
      ...b.angularVelocity.toArray(),
    ])
    h.update(state)
  }
  return `${p.hash()}:${h.digest()}`
}

describe('stepRagdolls: determinism', () => {
  function scenario(hitX: number): string {
    const p = newPlugin()
    const a = addWalker(p, fox)
    const b = addWalker(p, humanoid, [3, 0, 0])
    run(p, 600, (s) => {
      if (s === 99) p.ragdoll(a, { impulse: { joint: 'b_Spine02_03', impulse: [hitX, 0, 1] } })
      if (s === 249) p.ragdoll(b, { rate: 3 })
      if (s === 399) p.getUp(a, { clip: 'Survey' })
    })
    return fullHash(p)
  }

  it('gives the same hash over 600 steps in fresh worlds, with two characters going ragdoll at different steps', () => {
    const first = scenario(4)
    expect(scenario(4)).toBe(first)
    // The hash sees the physics: a hit 1e-9 N·s harder changes it.
    expect(scenario(4 + 1e-9)).not.toBe(first)
  })
})

describe('stepRagdolls: no leaks', () => {
  it('adding and removing 100 ragdolls (removeCharacter, and getUp to the end) leaves cannon-es as it was', () => {
    const p = newPlugin()
    const keep = addWalker(p, humanoid, [5, 0, 0])
    run(p, 5)
    p.ragdoll(keep)
    run(p, 2)
    const physics = p.physics
    const broadphase = physics.broadphase as unknown as { axisList: Body[] }
    const counts = () => ({
      bodies: physics.bodies.length,
      constraints: physics.constraints.length,
      byId: Object.keys((physics as unknown as { idToBodyMap: object }).idToBodyMap).length,
      sweep: broadphase.axisList.length,
      pose: contextOf(p).pool.used,
    })
    const start = counts()
    expect(start.bodies).toBeGreaterThan(1)
    for (let i = 0; i < 100; i++) {
      const c = addWalker(p, i % 10 === 0 ? fox : humanoid, [0, 0, 2 * (i % 3)])
      run(p, 3)
      p.ragdoll(c, { impulse: { joint: i % 10 === 0 ? 'b_Hip_01' : 'pelvis', impulse: [1, 0, 0] } })
      run(p, 3)
      expect(physics.bodies.length).toBeGreaterThan(start.bodies)
      if (i % 2 === 0) p.removeCharacter(c)
      else {
        p.getUp(c, { rate: 30 })
        for (let s = 0; s < 10 && p.stores.Ragdoll.active[c] !== RAGDOLL_OFF; s++) p.step()
        expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_OFF)
        p.removeCharacter(c)
      }
      expect(counts()).toEqual(start)
    }
    run(p, 2)
    expect(counts()).toEqual(start)
    for (const contact of physics.contacts) {
      expect(physics.bodies).toContain(contact.bi)
      expect(physics.bodies).toContain(contact.bj)
    }
    expect(p.stores.Ragdoll.active[keep]).toBe(RAGDOLL_FALLING)
  })
})

describe('stepRagdolls: bad input', () => {
  const bad = (over: Record<string, unknown>) => ({
    description: { bodies: [{ ...HUMANOID_RAGDOLL.bodies[0]!, ...over }] } as typeof HUMANOID_RAGDOLL,
  })
  const cases: [string, () => Parameters<AnimationPlugin['ragdoll']>[1], string][] = [
    [
      'a joint the skeleton lacks',
      () => bad({ joint: 'tail' }),
      'generated-humanoid: ragdoll body 0 ("tail"): the skeleton has no joint "tail"',
    ],
    [
      'mass 0',
      () => bad({ mass: 0 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): mass 0 must be a finite number > 0',
    ],
    [
      'a negative radius',
      () => bad({ radius: -0.1 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): radius -0.1 must be a finite number > 0',
    ],
    [
      'length 0',
      () => bad({ length: 0 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): length 0 must be a finite number > 0',
    ],
    [
      'a cone limit of 4 rad',
      () => bad({ coneAngle: 4 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): coneAngle 4 rad must be in (0, π]',
    ],
    [
      'a negative twist limit',
      () => bad({ twistAngle: -1 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): twistAngle -1 rad must be in [0, π]',
    ],
    ['rate 0', () => ({ rate: 0 }), 'ragdoll(CHAR): rate 0 per second must be a finite number > 0'],
    [
      'an infinite rate',
      () => ({ rate: Infinity }),
      'ragdoll(CHAR): rate Infinity per second must be a finite number > 0',
    ],
    [
      'a hit at a missing joint',
      () => ({ impulse: { joint: 'tail', impulse: [1, 0, 0] } }),
      'ragdoll(CHAR): generated-humanoid has no scene node "tail"',
    ],
    [
      'a NaN hit',
      () => ({ impulse: { joint: 'chest', impulse: [NaN, 0, 0] } }),
      'ragdoll(CHAR): impulse [null,0,0] must be three finite numbers',
    ],
  ]

  /** A plugin with two humanoids, one of them already ragdolling; and its twin that never sees a bad call. */
  function pair(): [AnimationPlugin, AnimationPlugin] {
    const make = () => {
      const p = newPlugin()
      addWalker(p, humanoid)
      const b = addWalker(p, humanoid, [3, 0, 0])
      run(p, 10)
      p.ragdoll(b)
      run(p, 5)
      return p
    }
    return [make(), make()]
  }

  it('rejects each bad ragdoll() with an AnimationError naming it, and a failed call changes nothing', () => {
    const [p, twin] = pair()
    const [a, b] = [1, p.joints(1).length + 2]
    expect(p.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    for (const target of [a, b]) {
      for (const [what, options, message] of cases) {
        const before = fullHash(p)
        let error: unknown
        try {
          p.ragdoll(target, options())
        } catch (e) {
          error = e
        }
        expect(error, what).toBeInstanceOf(AnimationError)
        expect((error as Error).message, what).toBe(message.replace('CHAR', String(target)))
        expect(fullHash(p), what).toBe(before)
      }
    }
    run(p, 30)
    run(twin, 30)
    expect(fullHash(p)).toBe(fullHash(twin))
  })

  it('rejects a ragdoll on an entity without a pose, and applyImpulse / getUp on a character not ragdolling', () => {
    const [p, twin] = pair()
    const joint = p.joints(1)[2]!
    const plain = addEntity(p.world)
    const removed = addWalker(p, humanoid, [6, 0, 0])
    p.removeCharacter(removed)
    const before = fullHash(p)
    for (const e of [joint, plain, removed, 0, -1, 1.5, 1e9]) {
      expect(() => p.ragdoll(e)).toThrow(
        new AnimationError('argument', `ragdoll: entity ${e} is not a character of this plugin`),
      )
    }
    expect(() => p.applyImpulse(1, 'chest', [1, 0, 0])).toThrow(
      new AnimationError('argument', 'applyImpulse(1): character 1 is not ragdolling (call ragdoll() first)'),
    )
    expect(() => p.getUp(1)).toThrow(
      new AnimationError('argument', 'getUp(1): character 1 is not ragdolling'),
    )
    expect(fullHash(p)).toBe(before)
    run(p, 20)
    run(twin, 20)
    expect(p.hash()).toBe(twin.hash())
  })
})

describe('stepRagdolls: explosions', () => {
  const blowUps: [string, (b: Body) => void][] = [
    ['a NaN velocity', (b) => b.velocity.set(NaN, 0, 0)],
    ['a NaN force', (b) => b.force.set(0, NaN, 0)],
    ['a huge velocity', (b) => b.velocity.set(0, 5e3, 0)],
    ['a huge spin', (b) => b.angularVelocity.set(0, 0, 1e4)],
  ]
  for (const [what, blowUp] of blowUps) {
    it(`catches ${what}: one event, the character back on its animated pose, never NaN in the scene graph`, () => {
      const p = newPlugin()
      const doll = addWalker(p, humanoid)
      const twin = addWalker(p, humanoid)
      const other = addWalker(p, humanoid, [4, 0, 0])
      run(p, 10)
      p.ragdoll(doll)
      p.ragdoll(other)
      run(p, 20)
      const { r } = ragdollOf(p, doll)
      blowUp(r.bodies[2]!)
      const atStep = contextOf(p).step
      p.step()
      // A non-finite state is caught before cannon-es steps (plugin.ts), a huge one after: either way, one event.
      expect(problems(p)).toEqual([
        {
          step: atStep,
          character: doll,
          entity: doll,
          kind: 'ragdoll-exploded',
          message: expect.stringMatching(new RegExp(`^character ${doll}: .*; back to animation$`)),
        },
      ])
      expect(p.stores.Ragdoll.active[doll]).toBe(RAGDOLL_OFF)
      expect(p.stores.Ragdoll.weight[doll]).toBe(0)
      for (const b of r.bodies) expect(p.physics.bodies).not.toContain(b)
      const S = p.stores.SceneNode
      const dj = p.joints(doll)
      const tj = p.joints(twin)
      run(p, 30, () => {
        expect(hasNaN(S.world)).toBe(false)
        dj.forEach((e, j) => {
          for (let k = 0; k < 16; k++) expect(S.world[e * 16 + k]).toBe(S.world[tj[j]! * 16 + k])
        })
      })
      expect(problems(p)).toHaveLength(1)
      expect(p.stores.Ragdoll.active[other]).toBe(RAGDOLL_FALLING)
      expect(ragdollOf(p, other).r.bodies.every((b) => p.physics.bodies.includes(b))).toBe(true)
      // The PHYS layer of the exploded ragdoll is never shown again: its weight stays 0.
      expect(p.stores.Ragdoll.weight[doll]).toBe(0)
    })
  }

  it('does not take a fast fall in a centimetre world for an explosion (limit = 20 s of free fall)', () => {
    const p = newPlugin({ physics: { gravity: [0, -982, 0] } })
    const c = p.addCharacter(fox)
    const d = p.addCharacter(fox)
    p.stores.SceneNode.translation[d * 3] = 300
    p.stores.SceneNode.translation[c * 3 + 1] = 150
    p.stores.SceneNode.dirty[c] = 1
    p.stores.SceneNode.dirty[d] = 1
    p.play(c, 'Run')
    p.play(d, 'Run')
    run(p, 20)
    p.ragdoll(c)
    p.ragdoll(d)
    let fastest = 0
    run(p, 120, () => {
      for (const b of ragdollOf(p, c).r.bodies) fastest = Math.max(fastest, b.velocity.length())
    })
    // Dropped from 1.5 m above the ground, bodies pass 5 m/s = 500 cm/s, far over the 200 units/s of a metre world.
    expect(fastest).toBeGreaterThan(500)
    expect(problems(p)).toEqual([])
    expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_FALLING)
  })
})

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
    const anim = layerOffset(Pose.base[a]!, n, LAYER_ANIM)
    const phys = layerOffset(Pose.base[a]!, n, LAYER_PHYS)
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
