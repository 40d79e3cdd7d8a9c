/**
 * The layer kernels against their reference functions: addDeltaPose's partial rotation is blendPoses'
 * slerp from identity times the pose's rotation to float32 rounding (it is written out inline to avoid boxing,
 * and normalized once), its scale power is Math.pow to
 * 1e-13 relative, and a weight of 1 applies the delta exactly.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addDeltaPose, blendPointPaths, blendWeightedPoses, toDeltaPose } from '../../src/clip/layerBlend.ts'
import { BLEND_S, BLEND_T, blendPoses } from '../../src/clip/blendPoses.ts'
import { slerpSeriesCoefficients } from '../../src/math/slerpSeries.ts'
import { multiplyQuat, normalizeQuat } from '../../src/math/quat.ts'

const unit = fc
  .tuple(
    fc.float({ min: -1, max: 1, noNaN: true }),
    fc.float({ min: -1, max: 1, noNaN: true }),
    fc.float({ min: -1, max: 1, noNaN: true }),
    fc.float({ min: -1, max: 1, noNaN: true }),
  )
  .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 0.01)
  .map((q) => normalizeQuat(Float32Array.from(q), 0) as Float32Array)

function joint(t: readonly number[], q: Float32Array, s: readonly number[]): Float32Array {
  return Float32Array.from([...t, ...q, ...s])
}

/**
 * addDeltaPose's rotation taken step by step: d^w from the half-angle series in double, divided by the factor
 * 2 cos(θ/2) the series leaves out; the product with the pose's rotation in double; then normalized by
 * 1/√(1 + e)'s series near unit (e = |q|² − 1 within 2⁻¹⁰), or stored and normalizeQuat'd otherwise.
 */
function stepwiseRotation(out: Float32Array, o: number, delta: Float32Array, d: number, w: number): void {
  const q = new Float64Array(4)
  if (w >= 1) q.set(delta.subarray(d, d + 4))
  else {
    const c = slerpSeriesCoefficients(new Float64Array(20), w, 2)
    const sg = delta[d + 3]! < 0 ? -1 : 1
    const b = [0, 1, 2, 3].map((k) => delta[d + k]! * sg)
    const cosHalf = Math.sqrt((1 + b[3]!) * 0.5)
    const y = cosHalf - 1
    const [y2, y4] = [y * y, y * y * (y * y)]
    const k = 0.5 / cosHalf
    const series = (i: number) =>
      (c[i]! +
        c[i + 1]! * y +
        (c[i + 2]! + c[i + 3]! * y) * y2 +
        (c[i + 4]! + c[i + 5]! * y + (c[i + 6]! + c[i + 7]! * y) * y2) * y4 +
        (c[i + 8]! + c[i + 9]! * y) * (y4 * y4)) *
      k
    const [s0, s1] = [series(0), series(10)]
    q.set([s1 * b[0]!, s1 * b[1]!, s1 * b[2]!, s0 + s1 * b[3]!])
  }
  const p = new Float64Array(4)
  multiplyQuat(p, 0, Float64Array.from(out.subarray(o, o + 4)), 0, q, 0)
  const e = p[0]! * p[0]! + p[1]! * p[1]! + p[2]! * p[2]! + p[3]! * p[3]! - 1
  if (Math.abs(e) < 2 ** -10) {
    const inv = 1 + e * (-0.5 + e * (0.375 - e * 0.3125))
    for (let i = 0; i < 4; i++) out[o + i] = p[i]! * inv
  } else {
    out.set(p, o)
    normalizeQuat(out, o)
  }
}

describe('addDeltaPose', () => {
  it('rotates by blendPoses(identity, delta, w) and multiplies, to float32 rounding', () => {
    fc.assert(
      fc.property(unit, unit, fc.double({ min: 0.001, max: 0.999, noNaN: true }), (base, d, w) => {
        const out = joint([1, 2, 3], base, [1, 1, 1])
        const delta = joint([0, 0, 0], d, [1, 1, 1])
        addDeltaPose(out, 0, delta, 0, 1, w)
        const identity = joint([0, 0, 0], Float32Array.of(0, 0, 0, 1), [1, 1, 1])
        const partial = new Float32Array(10)
        blendPoses(partial, 0, identity, 0, delta, 0, 1, w)
        const expected = joint([1, 2, 3], base, [1, 1, 1])
        multiplyQuat(expected, 3, expected, 3, partial, 3)
        normalizeQuat(expected, 3)
        for (let k = 3; k < 7; k++) expect(Math.abs(out[k]! - expected[k]!)).toBeLessThan(2.5e-7)
      }),
    )
  })

  it('gives the bits of the series, the product and its normalization in turn, by the weight', () => {
    const weights = fc.constantFrom(0, 0.25, 0.5, 0.7, 1, 1.5)
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 4, maxLength: 4 }),
        fc.array(unit, { minLength: 4, maxLength: 4 }),
        weights,
        weights,
        (bases, ds, w0, w1) => {
          const out = new Float32Array(40)
          const delta = new Float32Array(40)
          for (let j = 0; j < 4; j++) {
            out.set(joint([j, 1, 2], bases[j]!, [1, 1, 1]), 10 * j)
            delta.set(joint([0.5, -j, 0], ds[j]!, [1, 1, 1]), 10 * j)
          }
          const expected = out.slice()
          // Joints 0–1 at w0, joint 3 at w1 (joint 2 left alone).
          addDeltaPose(out, 0, delta, 0, 2, w0)
          addDeltaPose(out, 30, delta, 30, 1, w1)
          for (const [j, w] of [
            [0, w0],
            [1, w0],
            [3, w1],
          ] as const) {
            if (!(w > 0)) continue
            for (let k = 0; k < 3; k++) {
              const e = 10 * j + k
              expected[e] = w >= 1 ? expected[e]! + delta[e]! : expected[e]! + w * delta[e]!
            }
            stepwiseRotation(expected, 10 * j + 3, delta, 10 * j + 3, w)
          }
          expect(out).toEqual(expected)
        },
      ),
    )
  })

  it('scales by ratio^w (Math.pow to 1e-13 relative before float32 rounding)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        (ratio, w) => {
          const out = new Float32Array(10)
          out.set([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
          const delta = new Float32Array(10)
          delta.set([0, 0, 0, 0, 0, 0, 1, ratio, 1, 1])
          addDeltaPose(out, 0, delta, 0, 1, w)
          const expected = Math.pow(delta[7]!, w)
          expect(Math.abs(out[7]! - Math.fround(expected)) / expected).toBeLessThan(1.2e-7)
          expect(out[8]).toBe(1)
        },
      ),
    )
  })

  it('at weight 1 applies the delta exactly, and toDeltaPose undoes it', () => {
    fc.assert(
      fc.property(unit, unit, (base, d) => {
        const ref = joint([0.5, -1, 2], base, [2, 0.5, 1])
        const pose = joint([1, 1, 1], d, [4, 0.25, 1])
        const delta = pose.slice()
        toDeltaPose(delta, 0, ref, 0, 1)
        const out = ref.slice()
        addDeltaPose(out, 0, delta, 0, 1, 1)
        for (let k = 0; k < 10; k++) expect(out[k]).toBeCloseTo(k >= 3 && k < 7 ? out[k]! : pose[k]!, 6)
        // Rotation: ref·(ref⁻¹·pose) = pose up to the quaternion's sign.
        const dot = out[3]! * pose[3]! + out[4]! * pose[4]! + out[5]! * pose[5]! + out[6]! * pose[6]!
        expect(Math.abs(dot)).toBeCloseTo(1, 6)
      }),
    )
  })
})

describe('blendWeightedPoses', () => {
  it('is the weighted sum, the same for any order of the points after the first, and copies a lone point', () => {
    fc.assert(
      fc.property(
        unit,
        unit,
        unit,
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (a, b, c, x, y) => {
          const data = new Float32Array(40)
          data.set(joint([1, 0, 0], a, [1, 1, 1]), 10)
          data.set(joint([0, 1, 0], b, [2, 2, 2]), 20)
          data.set(joint([0, 0, 1], c, [3, 3, 3]), 30)
          const sum = 1 + x + y
          const weights = Float64Array.of(1 / sum, x / sum, y / sum)
          blendWeightedPoses(data, 0, data, Int32Array.of(10, 20, 30), weights, 3, 1)
          const first = Array.from(data.subarray(0, 10))
          blendWeightedPoses(
            data,
            0,
            data,
            Int32Array.of(10, 30, 20),
            Float64Array.of(1 / sum, y / sum, x / sum),
            3,
            1,
          )
          const swapped = Array.from(data.subarray(0, 10))
          swapped.forEach((v, k) => expect(v).toBeCloseTo(first[k]!, 6))
          expect(first[0]).toBeCloseTo(1 / sum, 6)
          expect(first[7]).toBeCloseTo((1 + 2 * x + 3 * y) / sum, 5)
          blendWeightedPoses(data, 0, data, Int32Array.of(10, 20, 30), Float64Array.of(0, 1, 0), 3, 1)
          expect(Array.from(data.subarray(0, 10))).toEqual(Array.from(data.subarray(20, 30)))
        },
      ),
    )
  })

  it('with two points of nonzero weight is the weighted sum, sign-fixed, stored and normalized, bit for bit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(unit, unit), { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.integer({ min: 0, max: 2 }),
        (pairs, x, zero) => {
          const n = pairs.length
          const data = new Float32Array(40 * n)
          const offsets = Int32Array.of(10 * n, 20 * n, 30 * n)
          pairs.forEach(([a, b], j) => {
            const points = [a, b]
            for (let p = 0, q = 0; p < 3; p++) {
              // The point of weight 0 holds something else (it must not count).
              const rot = p === zero ? Float32Array.of(0, 1, 0, 0) : points[q++]!
              data.set(joint([p + j, -p, 0.5 * j], rot, [1 + p, 1, 2 - j]), offsets[p]! + 10 * j)
            }
          })
          const weights = new Float64Array(3)
          const live = [0, 1, 2].filter((p) => p !== zero)
          weights[live[0]!] = 1 - x
          weights[live[1]!] = x
          blendWeightedPoses(data, 0, data, offsets, weights, 3, n)
          for (let j = 0; j < n; j++) {
            const expected = new Float32Array(10)
            const pa = offsets[live[0]!]! + 10 * j
            const pb = offsets[live[1]!]! + 10 * j
            let dot = 0
            for (let k = 3; k < 7; k++) dot += data[pa + k]! * data[pb + k]!
            for (let k = 0; k < 10; k++) {
              const sb = k >= 3 && k < 7 && dot < 0 ? -x : x
              expected[k] = 0 + (1 - x) * data[pa + k]! + sb * data[pb + k]!
            }
            normalizeQuat(expected, 3)
            expect(Array.from(data.subarray(10 * j, 10 * j + 10))).toEqual(Array.from(expected))
          }
        },
      ),
    )
  })

  it('blendPointPaths marks driven translations and scales, and rest values that are −0 or not finite', () => {
    const rest = new Float32Array(40)
    for (let j = 0; j < 4; j++) rest.set(joint([j, 1, 2], Float32Array.of(0, 0, 0, 1), [1, 1, 1]), 10 * j)
    rest[10 * 2 + 1] = -0 // joint 2's translation y
    rest[10 * 3 + 8] = NaN // joint 3's scale y
    // Point A drives joint 0's translation and joint 1's rotation; point B joint 1's scale (and unbound -1).
    const paths = blendPointPaths(new Uint8Array(4), [Int32Array.of(0, 13), Int32Array.of(-1, 17)], rest, 4)
    expect(Array.from(paths)).toEqual([BLEND_T, BLEND_S, BLEND_T, BLEND_S])
  })

  it('with paths gives the bits it gives without, where no clip drives the paths it skips', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(unit, unit, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.array(fc.float({ noNaN: true, noDefaultInfinity: true }), { minLength: 6, maxLength: 6 }),
        (joints, x, restValues) => {
          const n = joints.length
          const rest = new Float32Array(10 * n)
          const data = new Float32Array(30 * n)
          const offsets = Int32Array.of(10 * n, 20 * n)
          const a: number[] = []
          const b: number[] = []
          joints.forEach(([qa, qb, driven], j) => {
            const t = [restValues[0]!, restValues[1]! + j, restValues[2]!]
            const sc = [restValues[3]!, restValues[4]!, restValues[5]! - j]
            rest.set(joint(t, Float32Array.of(0, 0, 0, 1), sc), 10 * j)
            // Both points hold the rest pose, then their clips write rotations and, where driven, T (bit 1) / S.
            data.set(joint(t, qa, sc), offsets[0]! + 10 * j)
            data.set(joint(t, qb, sc), offsets[1]! + 10 * j)
            a.push(10 * j + 3)
            b.push(10 * j + 3)
            if ((driven & 1) !== 0) {
              data[offsets[1]! + 10 * j] = t[0]! + 1.5
              b.push(10 * j)
            }
            if ((driven & 2) !== 0) {
              data[offsets[0]! + 10 * j + 8] = sc[1]! * 0.5 + 0.25
              a.push(10 * j + 7)
            }
          })
          const paths = blendPointPaths(new Uint8Array(n), [Int32Array.from(a), Int32Array.from(b)], rest, n)
          const weights = Float64Array.of(1 - x, x)
          const plain = data.slice()
          blendWeightedPoses(plain, 0, plain, offsets, weights, 2, n)
          blendWeightedPoses(data, 0, data, offsets, weights, 2, n, paths)
          expect(data).toEqual(plain)
        },
      ),
      { numRuns: 500 },
    )
  })
})
