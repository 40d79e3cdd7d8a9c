/**
 * The fast layer kernels (src/engine/layerBlend.ts) against their clean forms (src/clip/layerBlend.ts), bit for
 * bit: addDeltaPoseRuns against addDeltaPose run by run, blendWeightedPoses (two points in a loop of their own)
 * against the general one.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addDeltaPose, blendWeightedPoses as cleanBlendWeighted } from '../../src/clip/layerBlend.ts'
import { JOINT_STRIDE } from '../../src/math/poseLayout.ts'
import { addDeltaPoseRuns, blendWeightedPoses } from '../../src/engine/layerBlend.ts'
import { bits, posePairArb, weightArb } from '../helpers/poseArbs.ts'

describe('addDeltaPoseRuns is addDeltaPose run by run', () => {
  it('property: the same bits; deltas of every kind of rotation, scale ratios of 1, 0, negative and large', () => {
    fc.assert(
      fc.property(
        posePairArb,
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }), weightArb), {
          maxLength: 4,
        }),
        fc.array(fc.constantFrom(1, 0, -2, 1e4, 1e-4, 0.5, 3), { minLength: 18, maxLength: 18 }),
        ({ n, a, b: delta }, gapsLengthsWeights, ratios) => {
          for (let j = 0; j < n; j++)
            for (let k = 0; k < 3; k++) delta[j * JOINT_STRIDE + 7 + k] = ratios[(j * 3 + k) % 18]!
          // Runs in joint order from gaps and lengths, within the n joints.
          const runs: number[] = []
          const weights: number[] = []
          let at = 0
          for (const [gap, length, w] of gapsLengthsWeights) {
            const first = at + gap
            const count = Math.min(length, n - first)
            if (count <= 0) break
            runs.push(first, count)
            weights.push(w)
            at = first + count
          }
          const fast = a.slice()
          const clean = a.slice()
          addDeltaPoseRuns(
            fast,
            0,
            delta,
            0,
            Int32Array.from(runs),
            weights.length,
            Float64Array.from(weights),
          )
          for (let r = 0; r < weights.length; r++) {
            const o = runs[2 * r]! * JOINT_STRIDE
            addDeltaPose(clean, o, delta, o, runs[2 * r + 1]!, weights[r]!)
          }
          expect(bits(fast)).toEqual(bits(clean))
        },
      ),
      { numRuns: 3000 },
    )
  })
})

describe('blendWeightedPoses', () => {
  it('property: the fast form gives the clean one’s bits, for 1–4 points of any weights and any paths', () => {
    fc.assert(
      fc.property(
        posePairArb,
        posePairArb,
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.boolean(),
        fc.option(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 6, maxLength: 6 })),
        (p, q, raw, normalize, pathBits) => {
          const n = Math.min(p.n, q.n)
          const len = n * JOINT_STRIDE
          const sources = [p.a, p.b, q.a, q.b]
          const m = raw.length
          const data = new Float32Array((m + 1) * len)
          for (let i = 0; i < m; i++) data.set(sources[i]!.subarray(0, len), (i + 1) * len)
          const total = raw.reduce((s, w) => s + w, 0)
          const weights = Float64Array.from(raw, (w) => (normalize && total > 0 ? w / total : w))
          const offsets = Int32Array.from(raw, (_, i) => (i + 1) * len)
          const paths = pathBits === null ? null : Uint8Array.from(pathBits)
          const fast = data.slice()
          const clean = data.slice()
          blendWeightedPoses(fast, 0, fast, offsets, weights, m, n, paths)
          cleanBlendWeighted(clean, 0, clean, offsets, weights, m, n, paths)
          expect(bits(fast)).toEqual(bits(clean))
        },
      ),
      { numRuns: 3000 },
    )
  })
})
