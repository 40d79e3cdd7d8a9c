import fc from 'fast-check'
import { mat4 } from 'gl-matrix'
import { describe, expect, it } from 'vitest'
import { composeMatrix, identityMatrix, multiplyAffine, multiplyMatrices } from '../../src/math/transform.ts'
import { unitQuatArb } from '../helpers/quat.ts'

const SENTINEL = -7.25
const f32 = (x: number) => Math.fround(x)
const coord = fc.double({ min: -100, max: 100, noNaN: true }).map(f32)
const scaleArb = fc.double({ min: -4, max: 4, noNaN: true }).map(f32)
const vec3Arb = fc.tuple(coord, coord, coord)
const matArb = fc.array(fc.double({ min: -10, max: 10, noNaN: true }).map(f32), {
  minLength: 16,
  maxLength: 16,
})
const offsetArb = fc.integer({ min: 0, max: 5 })

/** A Float32Array of sentinels with `values` written at `offset`, `pad` spare floats after. */
function padded(values: readonly number[], offset: number, pad = 3): Float32Array {
  const a = new Float32Array(offset + values.length + pad).fill(SENTINEL)
  a.set(values, offset)
  return a
}

function expectSentinelsOutside(a: Float32Array, from: number, to: number): void {
  for (let i = 0; i < a.length; i++) if (i < from || i >= to) expect(a[i], `float ${i}`).toBe(SENTINEL)
}

describe('identityMatrix', () => {
  it('writes the identity at the offset and nothing else', () => {
    const out = padded(new Array<number>(16).fill(9), 2)
    identityMatrix(out, 2)
    expect(Array.from(out.subarray(2, 18))).toEqual(Array.from(mat4.create()))
    expectSentinelsOutside(out, 2, 18)
  })
})

describe('composeMatrix', () => {
  it('gives T·R·S for a 90° turn about z, translation (1, 2, 3) and scale (2, 3, 4)', () => {
    const h = Math.SQRT1_2
    const out = new Float64Array(16)
    composeMatrix(
      out,
      0,
      Float64Array.of(1, 2, 3),
      0,
      Float64Array.of(0, 0, h, h),
      0,
      Float64Array.of(2, 3, 4),
      0,
    )
    // Columns: R·x·2 = (0, 2, 0), R·y·3 = (-3, 0, 0), z·4, translation.
    const expected = [0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1]
    for (let i = 0; i < 16; i++) expect(out[i], `element ${i}`).toBeCloseTo(expected[i]!, 14)
  })

  it('equals gl-matrix fromRotationTranslationScale bit for bit, at any offsets, touching nothing else', () => {
    fc.assert(
      fc.property(vec3Arb, unitQuatArb(), fc.tuple(scaleArb, scaleArb, scaleArb), offsetArb, (t, q, s, o) => {
        const q32 = Float32Array.from(q)
        const expected = mat4.fromRotationTranslationScale(new Float32Array(16), q32, t, s)
        const out = padded(new Array<number>(16).fill(SENTINEL), o)
        const tArr = padded(t, o + 1)
        const rArr = padded(Array.from(q32), o + 2)
        const sArr = padded(s, o)
        composeMatrix(out, o, tArr, o + 1, rArr, o + 2, sArr, o)
        expect(Array.from(out.subarray(o, o + 16))).toEqual(Array.from(expected))
        expectSentinelsOutside(out, o, o + 16)
      }),
    )
  })

  it('writes full double precision into a Float64Array', () => {
    const out = new Float64Array(16)
    const q = Float64Array.of(0.1, 0.2, 0.3, Math.sqrt(1 - 0.14))
    composeMatrix(out, 0, Float64Array.of(0.1, 0, 0), 0, q, 0, Float64Array.of(1, 1, 1), 0)
    // gl-matrix in Float64 storage (Array output) is the same arithmetic.
    const expected = mat4.fromRotationTranslationScale(
      new Array<number>(16) as unknown as mat4,
      q,
      [0.1, 0, 0],
      [1, 1, 1],
    )
    expect(Array.from(out)).toEqual(Array.from(expected))
  })

  it('may write over its own inputs', () => {
    // t, r, s and out share one array: out overwrites all of them.
    const q = [0.5, -0.5, 0.5, 0.5]
    const shared = Float32Array.of(4, 5, 6, ...q, 2, 2, 2, 0, 0, 0, 0, 0, 0)
    const expected = mat4.fromRotationTranslationScale(new Float32Array(16), q, [4, 5, 6], [2, 2, 2])
    composeMatrix(shared, 0, shared, 0, shared, 3, shared, 7)
    expect(Array.from(shared)).toEqual(Array.from(expected))
  })
})

describe('multiplyMatrices', () => {
  it('equals gl-matrix multiply bit for bit, at any offsets, touching nothing else', () => {
    fc.assert(
      fc.property(matArb, matArb, offsetArb, offsetArb, (a, b, oa, ob) => {
        const expected = mat4.multiply(new Float32Array(16), Float32Array.from(a), Float32Array.from(b))
        const out = padded(new Array<number>(16).fill(SENTINEL), ob)
        multiplyMatrices(out, ob, padded(a, oa), oa, padded(b, ob + 1), ob + 1)
        expect(Array.from(out.subarray(ob, ob + 16))).toEqual(Array.from(expected))
        expectSentinelsOutside(out, ob, ob + 16)
      }),
    )
  })

  it('allows out to be a, b, or both (in one shared array)', () => {
    fc.assert(
      fc.property(matArb, matArb, (a, b) => {
        const A = Float32Array.from(a)
        const B = Float32Array.from(b)
        const ab = mat4.multiply(new Float32Array(16), A, B)
        const aa = mat4.multiply(new Float32Array(16), A, A)

        // Two matrices in one array, as in a store: [ pad | a | b ].
        const intoA = padded([...a, ...b], 1, 0)
        multiplyMatrices(intoA, 1, intoA, 1, intoA, 17)
        expect(Array.from(intoA.subarray(1, 17))).toEqual(Array.from(ab))
        expect(Array.from(intoA.subarray(17, 33))).toEqual(b)

        const intoB = padded([...a, ...b], 1, 0)
        multiplyMatrices(intoB, 17, intoB, 1, intoB, 17)
        expect(Array.from(intoB.subarray(17, 33))).toEqual(Array.from(ab))
        expect(Array.from(intoB.subarray(1, 17))).toEqual(a)

        const square = Float32Array.from(a)
        multiplyMatrices(square, 0, square, 0, square, 0)
        expect(Array.from(square)).toEqual(Array.from(aa))
      }),
    )
  })

  it('applies b first: (T·R) with R a 90° turn about z maps x to y, then translates', () => {
    const T = identityMatrix(new Float64Array(16), 0)
    T[12] = 10
    const R = Float64Array.of(0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
    const out = new Float64Array(16)
    multiplyMatrices(out, 0, T, 0, R, 0)
    // Point (1, 0, 0): R gives (0, 1, 0), T gives (10, 1, 0). Column 0 + column 3 = image of (1, 0, 0, 1).
    expect([out[0]! + out[12]!, out[1]! + out[13]!, out[2]! + out[14]!]).toEqual([10, 1, 0])
  })
})

describe('multiplyAffine', () => {
  /** An affine matrix: any 12 elements, the last row 0 0 0 1. */
  const affine = matArb.map((m) => m.map((v, i) => (i % 4 === 3 ? (i === 15 ? 1 : 0) : v)))

  it('equals gl-matrix multiply on affine matrices (its + 0·a₃ terms aside), leaving the last row alone', () => {
    fc.assert(
      fc.property(affine, affine, offsetArb, (a, b, o) => {
        const expected = mat4.multiply(new Float64Array(16), Float64Array.from(a), Float64Array.from(b))
        const out = new Float64Array(o + 16).fill(SENTINEL)
        multiplyAffine(out, o, Float64Array.from(a), 0, Float64Array.from(b), 0)
        for (let k = 0; k < 16; k++) {
          if (k % 4 === 3) expect(out[o + k]).toBe(SENTINEL)
          // ±0 aside: gl-matrix adds b's last-row 0 times a's translation, which turns a −0 sum into +0.
          else expect(out[o + k] === expected[k], `element ${k}`).toBe(true)
        }
      }),
    )
  })

  it('may write over b', () => {
    fc.assert(
      fc.property(affine, affine, (a, b) => {
        const fresh = multiplyAffine(
          new Float64Array(16),
          0,
          Float64Array.from(a),
          0,
          Float64Array.from(b),
          0,
        )
        const over = Float64Array.from(b)
        multiplyAffine(over, 0, Float64Array.from(a), 0, over, 0)
        expect(Array.from(over)).toEqual(Array.from(fresh).map((v, k) => (k % 4 === 3 ? b[k] : v)))
      }),
    )
  })
})
