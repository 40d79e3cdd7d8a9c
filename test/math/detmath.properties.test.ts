/**
 * src/math/detmath.ts: identities, monotony, symmetry, quadrants and scaling; the
 * determinism guard on its own source; the arc functions of the per-frame kernels (slerp angles).
 * Tests use Math.* freely: they are the independent side of the comparison, not the deterministic path.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  detAcos,
  detAcosArc,
  detAsin,
  detAtan,
  detAtan2,
  detCos,
  detExp,
  detLog,
  detSin,
  detSinArc,
} from '../../src/math/detmath.ts'
import { ulpDistance } from '../helpers/ulp.ts'
import { stepped, maxUlps, inputs } from '../helpers/detmath.ts'

describe('properties', () => {
  const opts = { seed: 20_240_601, numRuns: 2000 }
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true })
  const angle = fc.double({ min: -1e4, max: 1e4, noNaN: true })

  it('sin² + cos² = 1 within 4.5e-16', () => {
    fc.assert(
      fc.property(angle, (x) => {
        const s = detSin(x)
        const c = detCos(x)
        return Math.abs(s * s + c * c - 1) <= 4.5e-16
      }),
      opts,
    )
  })

  it('exp(log x) = x within the error that log’s rounding allows, (|ln x| + 2)·2.3e-16 relative', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-300, max: 1e300, noNaN: true }), (x) => {
        const l = detLog(x)
        return Math.abs(detExp(l) - x) <= (Math.abs(l) + 2) * 2.3e-16 * x
      }),
      opts,
    )
  })

  it('acos(cos a) = a on [0, π], within the conditioning 1/sin a of acos (capped by its √ε at the ends)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: Math.PI, noNaN: true }), (a) => {
        const tolerance = 4.5e-16 + Math.min(2.3e-16 / Math.sin(a), 3e-8)
        return Math.abs(detAcos(detCos(a)) - a) <= tolerance
      }),
      opts,
    )
  })

  it('atan and exp are monotone on sorted inputs', () => {
    const sorted = (arb: fc.Arbitrary<number>) =>
      fc.array(arb, { minLength: 2, maxLength: 60 }).map((a) => a.sort((p, q) => p - q))
    fc.assert(
      fc.property(sorted(finite), (xs) => xs.every((x, i) => i === 0 || detAtan(xs[i - 1]!) <= detAtan(x))),
      opts,
    )
    fc.assert(
      fc.property(sorted(fc.double({ min: -750, max: 720, noNaN: true })), (xs) =>
        xs.every((x, i) => i === 0 || detExp(xs[i - 1]!) <= detExp(x)),
      ),
      opts,
    )
  })

  it('monotone across the reduction boundaries, on 600 adjacent doubles around each', () => {
    const ln2 = Math.LN2
    const expEdges = Array.from({ length: 60 }, (_, i) => (i - 30 + 0.5) * ln2) // where k = round(x/ln2) changes
    const atanEdges = [2 ** -2.5, 2 ** -1.5, 2 ** -0.5, 1, 2 ** 0.5, 2 ** 1.5, 2 ** 2.5, 2 ** -27, 2 ** 60]
    const logEdges = [Math.SQRT1_2, Math.SQRT2, 1, 0.5, 2, 2 ** -1022]
    for (const [f, edges] of [
      [detExp, expEdges],
      [detAtan, atanEdges],
      [detLog, logEdges],
    ] as const) {
      for (const edge of edges) {
        let prev = f(stepped(edge, -300))
        for (let n = -299; n <= 300; n++) {
          const v = f(stepped(edge, n))
          expect(v >= prev, `${f.name} at ${stepped(edge, n)}`).toBe(true)
          prev = v
        }
      }
    }
  })

  it('odd and even symmetry hold exactly', () => {
    fc.assert(
      fc.property(finite, (x) => {
        return (
          Object.is(detSin(-x), -detSin(x)) &&
          Object.is(detCos(-x), detCos(x)) &&
          Object.is(detAtan(-x), -detAtan(x)) &&
          Object.is(detAsin(-x), -detAsin(x)) &&
          Object.is(detAtan2(-x, 1), -detAtan2(x, 1))
        )
      }),
      opts,
    )
  })

  it('atan2 lands in the quadrant of (x, y)', () => {
    const nonzero = finite.filter((v) => v !== 0)
    fc.assert(
      fc.property(nonzero, nonzero, (y, x) => {
        const a = detAtan2(y, x)
        // y/x below the smallest subnormal gives a zero, which still carries the sign of y.
        const signOk = a === 0 ? Object.is(a, y < 0 ? -0 : 0) : Math.sign(a) === Math.sign(y)
        const half = x > 0 ? Math.abs(a) <= Math.PI / 2 : Math.abs(a) >= Math.PI / 2
        return signOk && half && Math.abs(a) <= Math.PI
      }),
      opts,
    )
  })

  it('atan2 is exactly invariant under scaling both arguments by a power of two', () => {
    const moderate = fc.double({ min: 1e-50, max: 1e50, noNaN: true })
    fc.assert(
      fc.property(
        moderate,
        moderate,
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: -500, max: 500 }),
        (y, x, sy, sx, j) => {
          const yy = sy ? -y : y
          const xx = sx ? -x : x
          return Object.is(detAtan2(yy * 2 ** j, xx * 2 ** j), detAtan2(yy, xx))
        },
      ),
      opts,
    )
    // Magnitudes beyond 1e270 and below 1e-270 take the internal rescaling path; it must not change the bits.
    const unitish = fc.double({ min: 0.01, max: 1, noNaN: true })
    fc.assert(
      fc.property(unitish, unitish, (y, x) => {
        const want = detAtan2(y, -x)
        return (
          Object.is(detAtan2(y * 2 ** 1000, -x * 2 ** 1000), want) &&
          Object.is(detAtan2(y * 2 ** -1000, -x * 2 ** -1000), want)
        )
      }),
      opts,
    )
  })
})

describe('determinism guard', () => {
  // Only these Math members are the same in every engine (IEEE 754 exact operations or exact rounding).
  const ALLOWED = new Set(['abs', 'floor', 'trunc', 'sqrt', 'fround', 'min', 'max'])

  /** Every way `code` (comments stripped) reaches a non-exact Math function or the ** operator (a pow). */
  function forbiddenUses(source: string): string[] {
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
    const found: string[] = []
    for (const m of code.matchAll(/\bMath\s*\.\s*([A-Za-z0-9_$]+)/g))
      if (!ALLOWED.has(m[1]!)) found.push(m[0])
    for (const m of code.matchAll(/\bMath\s*\[|=\s*Math\b(?!\s*\.)|\*\*/g)) found.push(m[0])
    return found
  }

  it('src/math/detmath.ts calls no transcendental from Math, nor pow through **', () => {
    const source = readFileSync(new URL('../../src/math/detmath.ts', import.meta.url), 'utf8')
    expect(source.length).toBeGreaterThan(1000)
    expect(forbiddenUses(source)).toEqual([])
  })

  it('the guard catches each way a transcendental could come back', () => {
    for (const line of [
      'const s = Math.sin(x)',
      'return Math.atan2 (y, x)',
      'const f = Math.exp; f(x)',
      'const l = Math.log1p(x)',
      "const c = Math['cos'](x)",
      'const { hypot } = Math',
      'const p = x ** 0.5',
      'const q = Math.pow(2, k)',
    ]) {
      expect(forbiddenUses(line), line).not.toEqual([])
    }
    expect(forbiddenUses('// Math.sin in a comment\nconst r = Math.sqrt(Math.abs(x))')).toEqual([])
  })
})

describe('arc functions for the per-frame kernels (slerp angles)', () => {
  it('detSinArc is within 2 ulps of Math.sin on [0, π], and exact at 0', () => {
    const xs = inputs(71, (rnd, i) => (i < 100 ? (i / 99) * Math.PI : rnd() * Math.PI))
    const worst = maxUlps(xs, detSinArc, Math.sin)
    expect(worst.ulps, JSON.stringify(worst)).toBeLessThanOrEqual(2)
    expect(detSinArc(0)).toBe(0)
    // Tiny angles keep full relative accuracy (slerp of nearly equal keys).
    for (const x of [1e-300, 1e-12, 3e-8, 1e-4])
      expect(ulpDistance(detSinArc(x), Math.sin(x))).toBeLessThanOrEqual(1)
    // Near π the reflection keeps the result accurate in absolute terms.
    expect(Math.abs(detSinArc(Math.PI) - Math.sin(Math.PI))).toBeLessThan(1e-30)
  })

  it('detAcosArc is within 4 ulps of Math.acos on [-1, 1], clamps outside, and is exact at the ends', () => {
    const xs = inputs(72, (rnd, i) => (i < 200 ? 1 - 2 ** -(i / 4) : rnd() * 2 - 1))
    const worst = maxUlps(xs, detAcosArc, Math.acos)
    expect(worst.ulps, JSON.stringify(worst)).toBeLessThanOrEqual(4)
    expect(detAcosArc(1)).toBe(0)
    expect(detAcosArc(1 + 1e-9)).toBe(0)
    expect(detAcosArc(-1)).toBe(Math.PI)
    expect(detAcosArc(-1 - 1e-9)).toBe(Math.PI)
    expect(ulpDistance(detAcosArc(0), Math.PI / 2)).toBeLessThanOrEqual(1)
  })

  it('property: detAcosArc is monotone decreasing and detSinArc(detAcosArc(c)) = √(1 − c²)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        (a, b) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a]
          expect(detAcosArc(lo)).toBeGreaterThanOrEqual(detAcosArc(hi))
          expect(Math.abs(detSinArc(detAcosArc(a)) - Math.sqrt(1 - a * a))).toBeLessThan(1e-15)
        },
      ),
    )
  })
})
