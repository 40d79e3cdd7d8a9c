/**
 * The fast world matrix of a joint (src/engine/composeWorld.ts, the pose stages' memo) against the clean forms
 * it writes out in one function (src/math/transform.ts composeMatrix, then multiplyAffine with the parent):
 * every element bit for bit, on any float32 locals (NaN, ±∞, −0) under any affine parent, and with the parent
 * in the same array as the result.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { composeWorld } from '../../src/engine/composeWorld.ts'
import { composeMatrix, multiplyAffine } from '../../src/math/transform.ts'

/**
 * Mostly ordinary numbers that binary cannot hold exactly (millionths: the order of the sums shows in the last
 * bits, where fast-check's doubles are mostly small integers), some special or extreme.
 */
const value = fc.oneof(
  { arbitrary: fc.integer({ min: -4e6, max: 4e6 }).map((i) => i / 1e6), weight: 6 },
  {
    arbitrary: fc.constantFrom(0, -0, 1, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    weight: 1,
  },
  { arbitrary: fc.float({ noNaN: true }), weight: 1 },
)

/** The clean forms: local ← T·R·S of pose[at..], out[oo..] ← parent · local. */
function clean(pose: Float32Array, at: number, parent: Float64Array): Float64Array {
  const out = new Float64Array(16)
  composeMatrix(out, 0, pose, at, pose, at + 3, pose, at + 7)
  multiplyAffine(out, 0, parent, 0, out, 0)
  return out
}

/** Each element as its bits (NaN and −0 compared exactly). */
const bits = (a: Float64Array): string[] => Array.from(a, (x) => (Object.is(x, -0) ? '-0' : String(x)))

describe('composeWorld gives composeMatrix then multiplyAffine’s bits', () => {
  it('property: any float32 local pose, any affine parent (last row 0 0 0 1)', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 10, maxLength: 10 }),
        fc.array(value, { minLength: 12, maxLength: 12 }),
        fc.nat(6),
        (locals, parent12, at) => {
          const pose = new Float32Array(20)
          pose.set(locals, at)
          const parent = new Float64Array(16)
          for (let c = 0; c < 4; c++) for (let r = 0; r < 3; r++) parent[4 * c + r] = parent12[3 * c + r]!
          parent[15] = 1
          const fast = new Float64Array(40).fill(7)
          composeWorld(fast, 8, pose, at, parent, 0)
          expect(bits(fast.subarray(8, 24))).toEqual(bits(clean(pose, at, parent)))
          // Untouched around it; and the parent may be the result's own array.
          expect(Array.from(fast.subarray(0, 8))).toEqual(Array(8).fill(7))
          expect(Array.from(fast.subarray(24))).toEqual(Array(16).fill(7))
          const shared = new Float64Array(32)
          shared.set(parent, 16)
          composeWorld(shared, 0, pose, at, shared, 16)
          expect(bits(shared.subarray(0, 16))).toEqual(bits(clean(pose, at, parent)))
        },
      ),
      { numRuns: 500 },
    )
  })
})
