import { World } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import type { ResolvedBody } from '../../src/physics/description.ts'
import { forwardKinematics, WORLD_STRIDE } from '../../src/physics/kinematics.ts'
import { spawnRagdoll } from '../../src/physics/ragdoll.ts'
import { MAX_BODY_SHAPES } from '../../src/physics/shapes.ts'

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
    const started = performance.now()
    const r = spawnRagdoll(new World(), {
      bodies: [body],
      nodeJoint,
      jointCount: n,
      world,
      previous: null,
      dt: 1 / 60,
      parents,
    })
    const ms = performance.now() - started
    expect(r.bodies[0]!.shapes.length).toBe(MAX_BODY_SHAPES)
    // The nearest-ancestor walk per joint took n²/2 steps (2·10^8 here).
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
