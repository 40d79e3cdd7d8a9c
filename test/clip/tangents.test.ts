import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildClip } from '../../src/clip/clip.ts'
import { sampleChannel } from '../../src/clip/sample.ts'
import { bezierToHermite, catmullRomTangents, toCubicSplineValues } from '../../src/clip/tangents.ts'
import { AnimationError } from '../../src/errors.ts'

function expectArgumentError(fn: () => unknown, message: string): void {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(AnimationError)
    expect((e as AnimationError).kind).toBe('argument')
    expect((e as Error).message).toBe(message)
    return
  }
  expect.fail(`no AnimationError; expected "${message}"`)
}

describe('catmullRomTangents', () => {
  it('gives the exact derivative 2t of p(t) = t² at interior keys with uneven spacing', () => {
    const times = [0, 0.3, 1, 1.2, 2.5]
    const m = catmullRomTangents(
      times,
      times.map((t) => t * t),
      1,
    )
    for (let k = 1; k < 4; k++) expect(m[k], `key ${k}`).toBeCloseTo(2 * times[k]!, 6)
    // Ends: the slope of their one segment.
    expect(m[0]).toBeCloseTo(0.3, 6)
    expect(m[4]).toBeCloseTo((2.5 * 2.5 - 1.2 * 1.2) / 1.3, 6)
  })

  it('property: exact for any quadratic at interior keys, per component, for any increasing times', () => {
    const times = fc
      .uniqueArray(fc.integer({ min: 0, max: 400 }), { minLength: 3, maxLength: 10 })
      .map((ts) => ts.sort((a, b) => a - b).map((t) => t / 64)) // exact binary fractions
    const coeffs = fc.tuple(
      fc.integer({ min: -8, max: 8 }),
      fc.integer({ min: -8, max: 8 }),
      fc.integer({ min: -8, max: 8 }),
    )
    fc.assert(
      fc.property(times, coeffs, coeffs, (ts, [a0, b0, c0], [a1, b1, c1]) => {
        const values = ts.flatMap((t) => [a0 * t * t + b0 * t + c0, a1 * t * t + b1 * t + c1])
        const m = catmullRomTangents(ts, values, 2)
        for (let k = 1; k + 1 < ts.length; k++) {
          const t = ts[k]!
          expect(m[2 * k]).toBeCloseTo(2 * a0 * t + b0, 3)
          expect(m[2 * k + 1]).toBeCloseTo(2 * a1 * t + b1, 3)
        }
      }),
    )
  })

  it('is exact everywhere, ends included, for a straight line', () => {
    const m = catmullRomTangents([0, 0.5, 2, 2.25], [1, 2.5, 7, 7.75], 1)
    expect(Array.from(m)).toEqual([3, 3, 3, 3])
  })

  it('gives a single key a zero tangent and no keys no tangents', () => {
    expect(Array.from(catmullRomTangents([1], [4, 5, 6], 3))).toEqual([0, 0, 0])
    expect(catmullRomTangents([], [], 3)).toHaveLength(0)
  })

  it('feeds a CUBICSPLINE channel that reproduces a quadratic closely between keys', () => {
    const times = [0, 0.3, 1, 1.2, 2.5]
    const values = times.map((t) => t * t)
    const m = catmullRomTangents(times, values, 1)
    const ch = buildClip({
      name: 'Q',
      channels: [
        {
          node: 0,
          path: 'weights',
          interpolation: 'CUBICSPLINE',
          times,
          values: toCubicSplineValues(values, m, m, 1),
        },
      ],
    }).channels[0]!
    const out = new Float32Array(1)
    // Interior segments have exact end tangents, so the Hermite cubic is the parabola itself.
    for (const t of [0.4, 0.75, 1.1]) {
      sampleChannel(out, 0, ch, t, new Uint32Array(1), 0)
      expect(out[0]).toBeCloseTo(t * t, 5)
    }
  })

  it('rejects bad arguments with AnimationError', () => {
    expectArgumentError(
      () => catmullRomTangents([0, 1], [0, 1], 0),
      'catmullRomTangents: component count 0 is invalid',
    )
    expectArgumentError(
      () => catmullRomTangents([0, 1], [0, 1], 1.5),
      'catmullRomTangents: component count 1.5 is invalid',
    )
    expectArgumentError(
      () => catmullRomTangents([0, 1, 2], [0, 1, 2, 3, 4], 2),
      'catmullRomTangents: 5 floats are not 3 keys × 2 components',
    )
    expectArgumentError(
      () => catmullRomTangents([0, 1, 1], [0, 1, 2], 1),
      'catmullRomTangents: key 2 time 1 is not after key 1 time 1',
    )
    // Out of order but with every two-apart pair increasing: the central difference never noticed this one.
    expectArgumentError(
      () => catmullRomTangents([0, 2, 1, 3], [0, 1, 2, 3], 1),
      'catmullRomTangents: key 2 time 1 is not after key 1 time 2',
    )
    expectArgumentError(
      () => catmullRomTangents([0, NaN, 2], [0, 1, 2], 1),
      'catmullRomTangents: key 1 time NaN is not after key 0 time 0',
    )
  })
})

describe('bezierToHermite', () => {
  /** Cubic Bézier by its Bernstein form, in double. */
  function bezier(p: number[][], u: number): number[] {
    const w = [(1 - u) ** 3, 3 * (1 - u) ** 2 * u, 3 * (1 - u) * u * u, u ** 3]
    return p[0]!.map((_, j) => w.reduce((s, wi, i) => s + wi * p[i]![j]!, 0))
  }

  it('round trip: a two-segment Bézier path equals the CUBICSPLINE sample built from its tangents', () => {
    // Segment durations 0.75 s and 1.75 s: a sampler that forgot Δt would miss.
    const times = [0.5, 1.25, 3]
    const seg = [
      [
        [0, 1, -2],
        [1, 3, -2],
        [2.5, -1, 0],
        [3, 0, 1],
      ],
      [
        [3, 0, 1],
        [4, 2, 5],
        [6, 6, -3],
        [5, 1, 0],
      ],
    ]
    const c = 3
    const inT = new Float32Array(9).fill(1e6) // key 0's in-tangent is never used
    const outT = new Float32Array(9).fill(-1e6) // nor key 2's out-tangent
    for (let k = 0; k < 2; k++) {
      const o = new Float32Array(3)
      const i = new Float32Array(3)
      bezierToHermite(o, i, seg[k]!.flat(), c, times[k + 1]! - times[k]!)
      outT.set(o, k * 3)
      inT.set(i, (k + 1) * 3)
    }
    const keys = [seg[0]![0]!, seg[1]![0]!, seg[1]![3]!].flat()
    const ch = buildClip({
      name: 'B',
      channels: [
        {
          node: 0,
          path: 'translation',
          interpolation: 'CUBICSPLINE',
          times,
          values: toCubicSplineValues(keys, inT, outT, 3),
        },
      ],
    }).channels[0]!
    const out = new Float32Array(3)
    const cursors = new Uint32Array(1)
    for (let k = 0; k < 2; k++) {
      for (const u of [0, 0.1, 0.25, 0.5, 0.8, 0.99]) {
        const t = times[k]! + u * (times[k + 1]! - times[k]!)
        sampleChannel(out, 0, ch, t, cursors, 0)
        const expected = bezier(seg[k]!, u)
        for (let j = 0; j < 3; j++)
          expect(out[j], `segment ${k} u ${u} component ${j}`).toBeCloseTo(expected[j]!, 5)
      }
    }
  })

  it('writes 3(P1 − P0)/Δt and 3(P3 − P2)/Δt', () => {
    const o = new Float32Array(2)
    const i = new Float32Array(2)
    bezierToHermite(o, i, [0, 0, 1, 2, 4, 4, 5, 3], 2, 0.5)
    expect(Array.from(o)).toEqual([6, 12])
    expect(Array.from(i)).toEqual([6, -6])
  })

  it('rejects bad arguments with AnimationError', () => {
    const o = new Float32Array(3)
    const i = new Float32Array(3)
    const pts = new Array(12).fill(0)
    for (const dt of [0, -1, NaN, Infinity]) {
      expectArgumentError(
        () => bezierToHermite(o, i, pts, 3, dt),
        `bezierToHermite: segment duration ${dt} must be a positive number`,
      )
    }
    expectArgumentError(
      () => bezierToHermite(o, i, pts.slice(1), 3, 1),
      'bezierToHermite: needs 4 control points × 3 floats, got 11',
    )
    expectArgumentError(
      () => bezierToHermite(o, i, pts, 0, 1),
      'bezierToHermite: component count 0 is invalid',
    )
    expectArgumentError(
      () => bezierToHermite(new Float32Array(2), i, pts, 3, 1),
      'bezierToHermite: tangent outputs need 3 floats each, got 2 and 3',
    )
  })
})

describe('toCubicSplineValues', () => {
  it('interleaves | in-tangent | value | out-tangent | per key', () => {
    const out = toCubicSplineValues([1, 2, 3, 4], [10, 20, 30, 40], [100, 200, 300, 400], 2)
    expect(Array.from(out)).toEqual([10, 20, 1, 2, 100, 200, 30, 40, 3, 4, 300, 400])
  })

  it('rejects bad arguments with AnimationError', () => {
    expectArgumentError(
      () => toCubicSplineValues([1, 2, 3], [1, 2, 3], [1, 2, 3], 2),
      'toCubicSplineValues: 3 floats are not a whole number of 2-component keys',
    )
    expectArgumentError(
      () => toCubicSplineValues([1, 2], [1, 2], [1], 2),
      'toCubicSplineValues: 2 values need as many in- and out-tangent floats (got 2 and 1)',
    )
    expectArgumentError(
      () => toCubicSplineValues([1, 2], [1, 2], [1, 2], -1),
      'toCubicSplineValues: component count -1 is invalid',
    )
  })
})
