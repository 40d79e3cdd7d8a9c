/**
 * The fast pose blend (src/engine/blend.ts blendPosesAt) against its clean forms (src/clip/blendPoses.ts
 * blendPoses, overridePose), bit for bit: weights at, between and past 0 and 1, rotations equal, opposite, half
 * a turn apart, near and unrelated, with and without paths, out aliasing either pose.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blendPoses, overridePose } from '../../src/clip/blendPoses.ts'
import { slerpSeriesCoefficients } from '../../src/math/slerpSeries.ts'
import { blendPosesAt, seriesCoefficients } from '../../src/engine/blend.ts'
import { bits, posePairArb, weightArb } from '../helpers/poseArbs.ts'

describe('blendPosesAt is blendPoses with the weight read from an array', () => {
  it('property: the same bits, paths and aliasing included', () => {
    fc.assert(
      fc.property(
        posePairArb,
        weightArb,
        fc.option(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 6, maxLength: 6 })),
        fc.constantFrom('fresh', 'a', 'b'),
        ({ n, a, b }, w, pathBits, alias) => {
          const paths = pathBits === null ? null : Uint8Array.from(pathBits)
          const run = (blend: (out: Float32Array, a: Float32Array, b: Float32Array) => void) => {
            const pa = a.slice()
            const pb = b.slice()
            const out = alias === 'a' ? pa : alias === 'b' ? pb : new Float32Array(a.length).fill(3)
            blend(out, pa, pb)
            return bits(out)
          }
          const fast = run((out, pa, pb) =>
            blendPosesAt(out, 0, pa, 0, pb, 0, n, Float64Array.of(9, w), 1, paths),
          )
          const clean = run((out, pa, pb) => blendPoses(out, 0, pa, 0, pb, 0, n, w, paths))
          expect(fast).toEqual(clean)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('property: with nearUnit it is overridePose, the same bits', () => {
    fc.assert(
      fc.property(posePairArb, weightArb, ({ n, a, b }, w) => {
        const fast = a.slice()
        const clean = a.slice()
        blendPosesAt(fast, 0, fast, 0, b, 0, n, Float64Array.of(w), 0, null, true)
        overridePose(clean, 0, b, 0, n, w)
        expect(bits(fast)).toEqual(bits(clean))
      }),
      { numRuns: 3000 },
    )
  })

  it('seriesCoefficients is slerpSeriesCoefficients with the weight read from an array', () => {
    fc.assert(
      fc.property(weightArb, fc.constantFrom(1, 2), (w, scale) => {
        const fast = seriesCoefficients(new Float64Array(20), Float64Array.of(0, w), 1, scale)
        expect(fast).toEqual(slerpSeriesCoefficients(new Float64Array(20), w, scale))
      }),
    )
  })
})
