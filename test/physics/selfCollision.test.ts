import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResolvedBody } from '../../src/physics/description.ts'
import { REST_CONTACT_MARGIN, restOverlaps } from '../../src/physics/selfCollision.ts'

/**
 * restOverlaps: the pairs of a ragdoll that never collide (overlapping at rest), found by sweep and prune, and a
 * pair whose rest distance overflows counted as overlapping.
 */

/** n root joints (parents −1) with the given rest translations and uniform scales, one body each. */
function scene(places: readonly (readonly [number, number, number])[], scales: readonly number[]) {
  const n = places.length
  const rest = new Float32Array(n * 10)
  places.forEach((t, j) =>
    rest.set([t[0], t[1], t[2], 0, 0, 0, 1, scales[j]!, scales[j]!, scales[j]!], j * 10),
  )
  const parents = new Int32Array(n).fill(-1)
  const nodeJoint = Int32Array.from(places.map((_, j) => j))
  return { rest, parents, nodeJoint }
}

function body(node: number, radius: number, length: number, axis: [number, number, number]): ResolvedBody {
  return {
    node,
    shape: 'capsule',
    radius,
    length,
    axis,
    mass: 1,
    coneAngle: 0.5,
    twistAngle: 0.3,
    parentBody: -1,
  }
}

const pairs = (bits: readonly Uint32Array[]): string[] => {
  const out: string[] = []
  bits.forEach((row, i) => {
    for (let j = 0; j < bits.length; j++) if ((row[j >> 5]! >>> (j & 31)) & 1) out.push(`${i}-${j}`)
  })
  return out
}

/** Every pair measured (the quadratic reference): closest points of the two segments, squared, < reach². */
function bruteForce(bodies: readonly ResolvedBody[], places: number[][], scales: number[], margin: number) {
  const seg = bodies.map((b) => {
    const s = scales[b.node]!
    const r = b.radius * s
    const length = b.length * s
    const from = r < 0.5 * length ? r : 0.5 * length
    const p = places[b.node]!
    const at = (t: number) => p.map((x, k) => x + b.axis[k]! * t)
    return { a: at(from), b: at(length - from), r }
  })
  const out: string[] = []
  for (let i = 0; i < seg.length; i++)
    for (let j = 0; j < seg.length; j++) {
      if (i === j) continue
      const reach = margin * (seg[i]!.r + seg[j]!.r)
      if (segmentDistance(seg[i]!, seg[j]!) < reach) out.push(`${i}-${j}`)
    }
  return out
}

/**
 * Distance between two segments: the distance from a point of x to segment y is convex along x, so a ternary
 * search over x finds its minimum (to ~1e-15 of x's length).
 */
function segmentDistance(x: { a: number[]; b: number[] }, y: { a: number[]; b: number[] }): number {
  const d = y.b.map((v, k) => v - y.a[k]!)
  const dd = d.reduce((s, v) => s + v * v, 0)
  const at = (u: number): number => {
    const p = x.a.map((v, k) => v + (x.b[k]! - v) * u)
    const t = dd > 0 ? Math.min(1, Math.max(0, p.reduce((s, v, k) => s + (v - y.a[k]!) * d[k]!, 0) / dd)) : 0
    return Math.hypot(...p.map((v, k) => v - (y.a[k]! + d[k]! * t)))
  }
  let lo = 0
  let hi = 1
  for (let i = 0; i < 200; i++) {
    const m1 = lo + (hi - lo) / 3
    const m2 = hi - (hi - lo) / 3
    if (at(m1) < at(m2)) hi = m2
    else lo = m1
  }
  return Math.min(at(0), at(1), at((lo + hi) / 2))
}

describe('restOverlaps', () => {
  it('finds the pairs every pair measured finds (sweep and prune drops only pairs too far apart)', () => {
    const unit = fc.constantFrom<[number, number, number]>([1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.8, 0])
    const spec = fc.record({
      place: fc.tuple(
        fc.integer({ min: -20, max: 20 }),
        fc.integer({ min: -20, max: 20 }),
        fc.integer({ min: -4, max: 4 }),
      ),
      radius: fc.integer({ min: 1, max: 8 }),
      length: fc.integer({ min: 0, max: 30 }),
      axis: unit,
    })
    fc.assert(
      fc.property(fc.array(spec, { minLength: 2, maxLength: 40 }), (specs) => {
        // Coordinates in quarters (exact in float32) and radii 0.001 off eighths, so no pair is a rounding
        // away from its reach.
        const places = specs.map((s) => s.place.map((x) => x / 4) as [number, number, number])
        const scales = specs.map(() => 1)
        const bodies = specs.map((s, i) => body(i, s.radius / 8 + 0.001, s.length / 8, s.axis))
        const { rest, parents, nodeJoint } = scene(places, scales)
        const found = pairs(restOverlaps(bodies, nodeJoint, rest, parents, REST_CONTACT_MARGIN))
        expect(found.sort()).toEqual(bruteForce(bodies, places, scales, REST_CONTACT_MARGIN).sort())
      }),
      { numRuns: 60, seed: 13 },
    )
  })

  it('bodies overlapping at rest never collide, even where their squared distance overflows', () => {
    // Two capsules overlapping along x at a scale of 1e160: every square is ∞ in doubles. Measured, the pair
    // was "not closer than the reach" (∞ < ∞ is false), so the two overlapping bodies collided and exploded.
    const places: [number, number, number][] = [
      [0, 0, 0],
      [1e160, 0, 0],
      [3e38, 0, 0],
    ]
    const scales = [1e160, 1e160, 1]
    const bodies = [body(0, 0.5, 2, [1, 0, 0]), body(1, 0.5, 2, [1, 0, 0]), body(2, 0.1, 0.5, [0, 1, 0])]
    const { rest, parents, nodeJoint } = scene(places, scales)
    const found = pairs(restOverlaps(bodies, nodeJoint, rest, parents, REST_CONTACT_MARGIN))
    expect(found).toContain('0-1')
    expect(found).toContain('1-0')
  })

  it('answers the same description, rig and margin once: later asks get the same masks', () => {
    const places: [number, number, number][] = [
      [0, 0, 0],
      [1, 0, 0],
    ]
    const bodies = [body(0, 0.5, 2, [1, 0, 0]), body(1, 0.5, 2, [1, 0, 0])]
    const { rest, parents, nodeJoint } = scene(places, [1, 1])
    const first = restOverlaps(bodies, nodeJoint, rest, parents, REST_CONTACT_MARGIN)
    expect(restOverlaps(bodies, nodeJoint, rest, parents, REST_CONTACT_MARGIN)).toBe(first)
    // Another margin, another rest pose or a copy of the description is asked again.
    expect(restOverlaps(bodies, nodeJoint, rest, parents, 2)).not.toBe(first)
    expect(restOverlaps(bodies, nodeJoint, rest.slice(), parents, REST_CONTACT_MARGIN)).not.toBe(first)
    expect(pairs(restOverlaps([...bodies], nodeJoint, rest, parents, REST_CONTACT_MARGIN))).toEqual(
      pairs(first),
    )
  })

  it('a body whose rest capsule is not finite never collides with its ragdoll', () => {
    const places: [number, number, number][] = [
      [0, 0, 0],
      [5, 0, 0],
      [10, 0, 0],
    ]
    // Float32 rest scale 1e39 is ∞: body 2's capsule is not finite.
    const bodies = [body(0, 0.1, 1, [1, 0, 0]), body(1, 0.1, 1, [1, 0, 0]), body(2, 0.1, 1, [1, 0, 0])]
    const { rest, parents, nodeJoint } = scene(places, [1, 1, 1e39])
    expect(pairs(restOverlaps(bodies, nodeJoint, rest, parents, REST_CONTACT_MARGIN)).sort()).toEqual(
      ['0-2', '1-2', '2-0', '2-1'].sort(),
    )
  })

  it("counts a body's riding spheres: a joint riding on one body inside another at rest marks the pair", () => {
    // Body 0 along x (4 spheres, 0.1..0.4); joint 1 rides on it at x = 1.5, outside it, so the hand-off gives
    // body 0 a sphere there; body 1 stands across that point. The capsules are 1.1 apart, the riding sphere inside
    // body 1: the pair overlaps at rest (in a bush of 1,555 nodes, such pairs made 1,500 contacts a step).
    const rest = new Float32Array(3 * 10)
    rest.set([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], 0)
    rest.set([1.5, 0, 0, 0, 0, 0, 1, 1, 1, 1], 10)
    rest.set([1.5, -0.5, 0, 0, 0, 0, 1, 1, 1, 1], 20)
    const parents = Int32Array.from([-1, 0, -1])
    const nodeJoint = Int32Array.from([0, 1, 2])
    const bodies = [body(0, 0.1, 0.5, [1, 0, 0]), body(2, 0.1, 1, [0, 1, 0])]
    expect(pairs(restOverlaps(bodies, nodeJoint, rest, parents, REST_CONTACT_MARGIN))).toEqual(['0-1', '1-0'])
    // Without the rider (joint 1 a root of its own), the two are apart.
    const alone = Int32Array.from([-1, -1, -1])
    expect(pairs(restOverlaps(bodies, nodeJoint, rest, alone, REST_CONTACT_MARGIN))).toEqual([])
  })
})
