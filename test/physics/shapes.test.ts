import { Body, Sphere, Vec3, World } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import type { ResolvedBody } from '../../src/physics/description.ts'
import { forwardKinematics, WORLD_STRIDE } from '../../src/physics/kinematics.ts'
import { spawnRagdoll } from '../../src/physics/ragdoll.ts'
import { INNER_SPHERE_GROUP, MAX_BODY_SHAPES } from '../../src/physics/shapes.ts'
import { createPhysicsWorld } from '../../src/physics/world.ts'
import { cpuMs } from '../helpers/cpuTime.ts'

/** A capsule body on joint 0 along +y. */
function capsule(radius: number, length: number): ResolvedBody {
  const limits = { mass: 1, coneAngle: 0.5, twistAngle: 0.3, parentBody: -1 }
  return { node: 0, shape: 'capsule', radius, length, axis: [0, 1, 0], ...limits }
}

describe('ragdoll body shapes', () => {
  it(`a body has at most ${MAX_BODY_SHAPES} shapes, riding spheres included, and a 20,000-joint chain builds fast`, () => {
    // Joint 0 carries a long thin capsule (length/radius 1000); joints 1..n−1 are a chain off its end, each
    // one riding on body 0 and lying outside it: each would get a riding sphere.
    const n = 20_000
    const parents = Int32Array.from({ length: n }, (_, j) => j - 1)
    const pose = new Float32Array(n * 10)
    for (let j = 0; j < n; j++) pose.set([0, j === 1 ? 10 : 0.5, 0, 0, 0, 0, 1, 1, 1, 1], j * 10)
    const root = Float64Array.from([0, 1, 0, 0, 0, 0, 1, 1])
    const world = forwardKinematics(new Float64Array(n * WORLD_STRIDE), pose, 0, parents, n, root, 0)
    const body = capsule(0.01, 10)
    const nodeJoint = Int32Array.from({ length: n }, (_, j) => j)
    const { ms, value: r } = cpuMs(() =>
      spawnRagdoll(new World(), {
        bodies: [body],
        nodeJoint,
        jointCount: n,
        world,
        previous: null,
        dt: 1 / 60,
        parents,
      }),
    )
    expect(r.bodies[0]!.shapes.length).toBe(MAX_BODY_SHAPES)
    // The nearest-ancestor walk per joint took n²/2 steps (2·10^8 here); CPU time, not the wall clock.
    expect(ms).toBeLessThan(500)
  })

  it('no riding sphere for a joint beyond RAGDOLL_MAX_EXTENT or not finite: the inertia stays finite', () => {
    // A chain scaled 1.5 a node puts joints 1,750 nodes down at ∞: a sphere there made the body's AABB, and so
    // its inertia, NaN (and its own snapshot was refused on restore).
    const parents = Int32Array.from([-1, 0, 0, 0])
    const world = new Float64Array(4 * WORLD_STRIDE)
    const place = (j: number, y: number) => world.set([0, y, 0, 0, 0, 0, 1, 1], j * WORLD_STRIDE)
    place(0, 1)
    place(1, 1e300)
    place(2, Infinity)
    place(3, 3) // a near one still rides
    const body = capsule(0.1, 0.2)
    const r = spawnRagdoll(new World(), {
      bodies: [body],
      nodeJoint: Int32Array.from([0, 1, 2, 3]),
      jointCount: 4,
      world,
      previous: null,
      dt: 1 / 60,
      parents,
    })
    const b = r.bodies[0]!
    expect(b.shapes).toHaveLength(2)
    expect(b.shapeOffsets[1]!.y).toBeCloseTo(1.9, 12)
    expect([b.inertia.x, b.inertia.y, b.inertia.z].every(Number.isFinite)).toBe(true)
  })
})

describe('a capsule against the plugin ground', () => {
  it('touches the ground with its end spheres only; other bodies still hit its inner spheres', () => {
    const physics = createPhysicsWorld({})
    // Lying along x on the ground: 2 m long, radius 0.2: 8 spheres (the most), 6 of them inner.
    const parents = Int32Array.of(-1)
    const pose = Float32Array.of(0, 0, 0, 0, 0, -Math.SQRT1_2, Math.SQRT1_2, 1, 1, 1)
    const root = Float64Array.from([0, 0.19, 0, 0, 0, 0, 1, 1])
    const world = forwardKinematics(new Float64Array(WORLD_STRIDE), pose, 0, parents, 1, root, 0)
    const r = spawnRagdoll(physics, {
      bodies: [capsule(0.2, 2)],
      nodeJoint: Int32Array.of(0),
      jointCount: 1,
      world,
      previous: null,
      dt: 1 / 60,
      parents,
    })
    const body = r.bodies[0]!
    const inner = body.shapes.filter((s) => s.collisionFilterGroup === INNER_SPHERE_GROUP)
    expect(body.shapes.length).toBe(8)
    expect(inner.length).toBe(6)
    // A sphere dropped on the capsule's middle lands on it, not through it.
    const at = body.position
    const ball = new Body({ mass: 1, position: new Vec3(at.x, 0.6, at.z), shape: new Sphere(0.1) })
    physics.addBody(ball)
    physics.step(1 / 60)
    const touching = (b: Body) => physics.contacts.filter((c) => c.bi === b || c.bj === b)
    expect(
      touching(body).filter((c) => c.bi === physics.bodies[0] || c.bj === physics.bodies[0]).length,
    ).toBe(2)
    for (let i = 0; i < 60; i++) physics.step(1 / 60)
    expect(ball.position.y).toBeGreaterThan(0.45)
    expect(touching(ball).some((c) => c.bi === body || c.bj === body)).toBe(true)
  })
})
