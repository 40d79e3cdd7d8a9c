import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BLEND_S, BLEND_T, blendPaths, blendPoses, overridePose } from '../../src/clip/blendPoses.ts'
import { JOINT_STRIDE } from '../../src/math/poseLayout.ts'
import { expectQuatClose, refSlerp, unitQuatArb } from '../helpers/quat.ts'

// The reference side uses Math.* freely: it is the independent oracle, not the deterministic path.

function joint(t: readonly number[], q: readonly number[], s: readonly number[]): number[] {
  return [...t, ...q, ...s]
}

/** q turned by `angle` radians (the rotation angle, 2θ) about a fixed axis: a pair at a chosen distance. */
function turned(q: readonly number[], angle: number): number[] {
  const h = angle / 2
  const d = [Math.sin(h) * 0.6, Math.sin(h) * 0.8, 0, Math.cos(h)]
  const [x1, y1, z1, w1] = d as [number, number, number, number]
  const [x2, y2, z2, w2] = q as [number, number, number, number]
  return [
    w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
    w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
    w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
  ]
}

describe('blendPoses', () => {
  it('lerps translation and scale and slerps rotation (series and arc paths) to 1e-6 of a Math.* slerp', () => {
    fc.assert(
      fc.property(
        unitQuatArb(),
        // Uniform (fc.double favours extremes): angles across the nlerp, series and arc ranges.
        fc.integer({ min: 0, max: 1_000_000 }).map((i) => (i / 1_000_000) * 3.1),
        fc.integer({ min: 0, max: 1_000_000 }).map((i) => i / 1_000_000),
        fc.boolean(),
        (q, angle, w, flip) => {
          const b0 = turned(q, angle).map((v) => (flip ? -v : v))
          const a = Float32Array.from(joint([1, 2, 3], q, [1, 1, 1]))
          const b = Float32Array.from(joint([3, -2, 5], b0, [2, 0.5, 1]))
          const out = new Float32Array(JOINT_STRIDE)
          blendPoses(out, 0, a, 0, b, 0, 1, w)
          for (const [k, lo, hi] of [
            [0, 1, 3],
            [1, 2, -2],
            [2, 3, 5],
            [7, 1, 2],
            [8, 1, 0.5],
            [9, 1, 1],
          ] as const) {
            expect(out[k]).toBeCloseTo(lo + (hi - lo) * w, 5)
          }
          const expected = refSlerp(Array.from(a.subarray(3, 7)), Array.from(b.subarray(3, 7)), w)
          expectQuatClose(Array.from(out.subarray(3, 7)), expected, 1.2e-7)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('overridePose (layers) gives blendPoses’ rotation to within one float32 ulp, the rest bit for bit', () => {
    let differing = 0
    fc.assert(
      fc.property(
        unitQuatArb(),
        fc.integer({ min: 0, max: 1_000_000 }).map((i) => (i / 1_000_000) * 3.1),
        fc.integer({ min: 1, max: 999_999 }).map((i) => i / 1_000_000),
        fc.boolean(),
        (q, angle, w, flip) => {
          const a = Float32Array.from(joint([1, 2, 3], q, [1, 1, 1]))
          const b = Float32Array.from(
            joint(
              [3, -2, 5],
              turned(q, angle).map((v) => (flip ? -v : v)),
              [2, 0.5, 1],
            ),
          )
          const plain = new Float32Array(JOINT_STRIDE)
          const near = new Float32Array(JOINT_STRIDE)
          blendPoses(plain, 0, a, 0, b, 0, 1, w)
          near.set(a)
          overridePose(near, 0, b, 0, 1, w)
          for (const k of [0, 1, 2, 7, 8, 9]) expect(near[k]).toBe(plain[k])
          for (let k = 3; k < 7; k++) {
            const ulp = 2 ** (Math.floor(Math.log2(Math.max(Math.abs(plain[k]!), 2 ** -126))) - 23)
            expect(Math.abs(near[k]! - plain[k]!)).toBeLessThanOrEqual(ulp)
            if (near[k] !== plain[k]) differing++
          }
        },
      ),
      { numRuns: 2000 },
    )
    // Both are the normalized rotation to double rounding: float32 values that differ are rare.
    expect(differing).toBeLessThan(80)
  })

  it('copies the ends bit for bit at weights 0 and 1, and aliasing out with a or b works', () => {
    const a = Float32Array.from(joint([1, 2, 3], [0, 0, 0.6, 0.8], [1, 1, 1]))
    const b = Float32Array.from(joint([4, 5, 6], [0.6, 0, 0, 0.8], [2, 2, 2]))
    const out = new Float32Array(JOINT_STRIDE)
    blendPoses(out, 0, a, 0, b, 0, 1, 0)
    expect(out).toEqual(a)
    blendPoses(out, 0, a, 0, b, 0, 1, 1)
    expect(out).toEqual(b)
    const copy = a.slice()
    blendPoses(copy, 0, copy, 0, b, 0, 1, 0.5)
    const fresh = new Float32Array(JOINT_STRIDE)
    blendPoses(fresh, 0, a, 0, b, 0, 1, 0.5)
    expect(copy).toEqual(fresh)
  })
})

describe('blendPaths', () => {
  it('marks driven paths and paths that differ (or are not finite, or −0); a masked blend has the full blend’s bits', () => {
    // Values drawn from a small set so that equal paths are common; −0, NaN and ∞ included.
    const value = fc.constantFrom(0, -0, 1, 0.5, -2, Number.NaN, Number.POSITIVE_INFINITY)
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(value, { minLength: 6, maxLength: 6 }), fc.boolean(), fc.boolean()), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: -1, max: 59 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 999 }).map((i) => i / 1000),
        (joints, bound, w) => {
          const n = joints.length
          const a = new Float32Array(n * JOINT_STRIDE)
          const b = new Float32Array(n * JOINT_STRIDE)
          joints.forEach(([v, sameT, sameS], j) => {
            const o = j * JOINT_STRIDE
            a.set([v[0]!, v[1]!, v[2]!, 0, 0, 0.6, 0.8, v[3]!, v[4]!, v[5]!], o)
            b.set([v[3]!, v[4]!, v[5]!, 0.6, 0, 0, 0.8, v[0]!, v[1]!, v[2]!], o)
            if (sameT) b.set(a.subarray(o, o + 3), o)
            if (sameS) b.set(a.subarray(o + 7, o + 10), o + 7)
          })
          const binding = Int32Array.from(bound)
          const paths = blendPaths(new Uint8Array(n), a, 0, b, 0, n, binding, undefined)
          for (let j = 0; j < n; j++) {
            for (const [bit, at] of [
              [BLEND_T, 0],
              [BLEND_S, 7],
            ] as const) {
              const o = j * JOINT_STRIDE + at
              const same = [0, 1, 2].every(
                (k) => Object.is(a[o + k], b[o + k]) && Number.isFinite(a[o + k]) && !Object.is(a[o + k], -0),
              )
              const driven = bound.includes(j * JOINT_STRIDE + at)
              expect(paths[j]! & bit, `joint ${j} bit ${bit}`).toBe(same && !driven ? 0 : bit)
            }
          }
          // out starts as a (a fade's ANIM starts as its FROM): masked and full blends agree bit for bit.
          const full = blendPoses(a.slice(), 0, a, 0, b, 0, n, w)
          const masked = blendPoses(a.slice(), 0, a, 0, b, 0, n, w, paths)
          for (let i = 0; i < full.length; i++) expect(Object.is(masked[i], full[i]), `float ${i}`).toBe(true)
        },
      ),
      { numRuns: 500 },
    )
  })
})
