/**
 * The layer kernels against their reference functions: addDeltaPose's partial rotation is blendJointLayers'
 * slerp from identity times the pose's rotation to float32 rounding (it is written out inline to avoid boxing,
 * and normalized once), its scale power is Math.pow to
 * 1e-13 relative, and a weight of 1 applies the delta exactly.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addDeltaPose, blendWeightedPoses, toDeltaPose } from '../../src/clip/layerBlend.ts'
import { blendJointLayers } from '../../src/clip/blendLayers.ts'
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

describe('addDeltaPose', () => {
  it('rotates by blendJointLayers(identity, delta, w) and multiplies, to float32 rounding', () => {
    fc.assert(
      fc.property(unit, unit, fc.double({ min: 0.001, max: 0.999, noNaN: true }), (base, d, w) => {
        const out = joint([1, 2, 3], base, [1, 1, 1])
        const delta = joint([0, 0, 0], d, [1, 1, 1])
        addDeltaPose(out, 0, delta, 0, Int32Array.of(0, 1), 1, Float64Array.of(w))
        const identity = joint([0, 0, 0], Float32Array.of(0, 0, 0, 1), [1, 1, 1])
        const partial = new Float32Array(10)
        blendJointLayers(partial, 0, identity, 0, delta, 0, 1, Float64Array.of(w), 0)
        const expected = joint([1, 2, 3], base, [1, 1, 1])
        multiplyQuat(expected, 3, expected, 3, partial, 3)
        normalizeQuat(expected, 3)
        for (let k = 3; k < 7; k++) expect(Math.abs(out[k]! - expected[k]!)).toBeLessThan(2.5e-7)
      }),
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
          addDeltaPose(out, 0, delta, 0, Int32Array.of(0, 1), 1, Float64Array.of(w))
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
        addDeltaPose(out, 0, delta, 0, Int32Array.of(0, 1), 1, Float64Array.of(1))
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
})
