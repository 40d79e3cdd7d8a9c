import fc from 'fast-check'
import { quat as glQuat } from 'gl-matrix'
import { Quaternion } from 'three'
import { describe, expect, it } from 'vitest'
import {
  conjugateQuat,
  expQuat,
  logQuat,
  multiplyQuat,
  normalizeQuat,
  slerpQuat,
  slerpQuatNoFlip,
  SLERP_NLERP_COS,
} from '../../src/math/quat.ts'
import {
  expectQuatClose,
  expectUnitQuat,
  quatAt,
  quatFromAxisAngle,
  quatDot,
  quatHalfAngle,
  refMultiply,
  refSlerp,
  unitQuatArb,
} from '../helpers/quat.ts'

const SENTINEL = 7.25
const f64 = (q: readonly number[]) => Float64Array.from(q)
const neg = (q: readonly number[]) => q.map((x) => -x)
/** A Float32Array of `length` sentinels with q written at `offset`. */
function padded(q: readonly number[], offset: number, length = offset + 8): Float32Array {
  const a = new Float32Array(length).fill(SENTINEL)
  a.set(q, offset)
  return a
}
function expectSentinelsOutside(a: Float32Array, from: number, to: number): void {
  for (let i = 0; i < a.length; i++) if (i < from || i >= to) expect(a[i], `float ${i}`).toBe(SENTINEL)
}
const tArb = fc.double({ min: 0, max: 1, noNaN: true })

describe('normalizeQuat', () => {
  it('scales to unit length in place at an offset, leaving neighbours alone', () => {
    const a = padded([0, 0, 0, 2], 3)
    normalizeQuat(a, 3)
    expect(quatAt(a, 3)).toEqual([0, 0, 0, 1])
    expectSentinelsOutside(a, 3, 7)

    const b = f64([1, 2, 3, 4])
    normalizeQuat(b, 0)
    const len = Math.sqrt(30)
    for (let j = 0; j < 4; j++) expect(b[j]).toBeCloseTo((j + 1) / len, 15)
  })

  it('turns a zero quaternion into identity instead of NaN', () => {
    const a = f64([0, 0, 0, 0])
    normalizeQuat(a, 0)
    expect(Array.from(a)).toEqual([0, 0, 0, 1])
  })
})

describe('slerpQuat', () => {
  const z10 = quatFromAxisAngle([0, 0, 1], (10 * Math.PI) / 180)
  const z50 = quatFromAxisAngle([0, 0, 1], (50 * Math.PI) / 180)

  it('returns the endpoints at t = 0 and t = 1', () => {
    const out = new Float64Array(4)
    slerpQuat(out, 0, f64(z10), 0, f64(z50), 0, 0)
    expectQuatClose(out, z10, 1e-15)
    slerpQuat(out, 0, f64(z10), 0, f64(z50), 0, 1)
    expectQuatClose(out, z50, 1e-15)
  })

  it('follows the rotation angle linearly about a fixed axis (10° → 50°, t = 0.25 is 20°)', () => {
    const out = new Float64Array(4)
    slerpQuat(out, 0, f64(z10), 0, f64(z50), 0, 0.25)
    expectQuatClose(out, quatFromAxisAngle([0, 0, 1], (20 * Math.PI) / 180), 1e-14)
  })

  it('takes the short arc when the keys lie on opposite hemispheres (b given as −b)', () => {
    const out = new Float64Array(4)
    slerpQuat(out, 0, f64(z10), 0, f64(neg(z50)), 0, 0.5)
    // Short arc: 30° about +z. The long way round would pass through 210°.
    expectQuatClose(out, quatFromAxisAngle([0, 0, 1], (30 * Math.PI) / 180), 1e-14)
    const viaPlus = new Float64Array(4)
    slerpQuat(viaPlus, 0, f64(z10), 0, f64(z50), 0, 0.5)
    expect(Array.from(out)).toEqual(Array.from(viaPlus))
  })

  it('interpolates a half-turn apart (dot = 0) without trouble', () => {
    const a = [0, 0, 0, 1]
    const b = [1, 0, 0, 0] // 180° about x
    const out = new Float64Array(4)
    slerpQuat(out, 0, f64(a), 0, f64(b), 0, 0.5)
    expectQuatClose(out, quatFromAxisAngle([1, 0, 0], Math.PI / 2), 1e-15)
  })

  it('falls back to normalized lerp for nearly equal keys: equal keys give the key, not NaN', () => {
    // With dot = 1 the slerp weights are sin(0)/sin(0) = NaN; the fallback must catch it.
    const q = quatFromAxisAngle([1, 2, 3], 0.7)
    const out = new Float64Array(4)
    slerpQuat(out, 0, f64(q), 0, f64(q), 0, 0.3)
    expectQuatClose(out, q, 1e-15)
    slerpQuat(out, 0, f64(q), 0, f64(neg(q)), 0, 0.3)
    expectQuatClose(out, q, 1e-15)
  })

  it('nlerp branch (dot > 0.9995) stays within 1e-5 rad of true slerp and is continuous at the threshold', () => {
    const a = quatFromAxisAngle([0.3, -1, 0.2], 0.4)
    const half = Math.acos(SLERP_NLERP_COS)
    const out = new Float64Array(4)
    let worst = 0
    for (const h of [half * 0.5, half * (1 - 1e-9), half * (1 + 1e-9)]) {
      const b = refMultiply(a, quatFromAxisAngle([1, 1, 0], 2 * h))
      for (let i = 1; i < 20; i++) {
        const t = i / 20
        slerpQuat(out, 0, f64(a), 0, f64(b), 0, t)
        expectUnitQuat(out, 1e-15)
        worst = Math.max(worst, quatHalfAngle(out, refSlerp(a, b, t)))
      }
    }
    expect(worst).toBeLessThan(1e-5)
    // Either side of the threshold the two formulas agree, so the switch does not jump.
    const bBelow = refMultiply(a, quatFromAxisAngle([1, 1, 0], 2 * half * (1 - 1e-9)))
    const bAbove = refMultiply(a, quatFromAxisAngle([1, 1, 0], 2 * half * (1 + 1e-9)))
    const below = new Float64Array(4)
    const above = new Float64Array(4)
    slerpQuat(below, 0, f64(a), 0, f64(bBelow), 0, 0.3)
    slerpQuat(above, 0, f64(a), 0, f64(bAbove), 0, 0.3)
    expect(quatHalfAngle(below, above)).toBeLessThan(2e-6)
  })

  it('extrapolates along the same great circle for t outside [0, 1]', () => {
    const out = new Float64Array(4)
    slerpQuat(out, 0, f64(z10), 0, f64(z50), 0, 1.5)
    expectQuatClose(out, quatFromAxisAngle([0, 0, 1], (70 * Math.PI) / 180), 1e-14)
    slerpQuat(out, 0, f64(z10), 0, f64(z50), 0, -0.5)
    expectQuatClose(out, quatFromAxisAngle([0, 0, 1], (-10 * Math.PI) / 180), 1e-14)
  })

  it('allows out to alias a or b, and writes only its 4 floats at a non-zero offset', () => {
    const expected = new Float64Array(4)
    slerpQuat(expected, 0, f64(z10), 0, f64(z50), 0, 0.4)

    const shared = new Float32Array(12).fill(SENTINEL)
    shared.set(z10, 2)
    shared.set(z50, 6)
    const sep = new Float32Array(4)
    slerpQuat(sep, 0, shared, 2, shared, 6, 0.4)
    slerpQuat(shared, 2, shared, 2, shared, 6, 0.4) // out === a
    expect(quatAt(shared, 2)).toEqual(quatAt(sep))
    expect(quatAt(shared, 6)).toEqual(quatAt(Float32Array.from(z50)))
    expectSentinelsOutside(shared, 2, 10)

    const b = padded(z50, 5)
    slerpQuat(b, 5, f64(z10), 0, b, 5, 0.4) // out === b
    expect(quatAt(b, 5)).toEqual(quatAt(sep))
    expectSentinelsOutside(b, 5, 9)
    expectQuatClose(sep, expected, 1e-7)
  })

  it('property: unit length, short arc, constant angular velocity', () => {
    const out = new Float64Array(4)
    fc.assert(
      fc.property(unitQuatArb(), unitQuatArb(), tArb, (a, b, t) => {
        slerpQuat(out, 0, f64(a), 0, f64(b), 0, t)
        expectUnitQuat(out, 1e-14)
        const arc = quatHalfAngle(a, b) // ≤ π/2: the short arc
        const fromA = quatHalfAngle(a, out)
        const toB = quatHalfAngle(out, b)
        expect(fromA).toBeLessThanOrEqual(arc + 1e-12)
        expect(toB).toBeLessThanOrEqual(arc + 1e-12)
        // Constant speed: the angle travelled is t·arc (nlerp below 0.0316 rad is off by < 1e-6 rad).
        expect(Math.abs(fromA - t * arc)).toBeLessThan(1e-6)
        expect(Math.abs(fromA + toB - arc)).toBeLessThan(1e-12)
      }),
      { numRuns: 2000 },
    )
  })

  it('differential: agrees with three.js Quaternion.slerpFlat and with the geometric a·(a⁻¹b)^t', () => {
    const out = new Float64Array(4)
    const three = new Float64Array(4)
    fc.assert(
      fc.property(unitQuatArb(), unitQuatArb(), tArb, (a, b, t) => {
        slerpQuat(out, 0, f64(a), 0, f64(b), 0, t)
        Quaternion.slerpFlat(three as unknown as number[], 0, [...a], 0, [...b], 0, t)
        expectQuatClose(out, three, 1e-12)
        // Both use nlerp above SLERP_NLERP_COS; the geometric reference does not.
        const nlerp = Math.abs(quatDot(a, b)) > SLERP_NLERP_COS
        expectQuatClose(out, refSlerp(a, b, t), nlerp ? 1e-6 : 1e-12)
      }),
      { numRuns: 2000 },
    )
  })

  it('differential: nearly equal keys agree with three.js (both nlerp) and gl-matrix', () => {
    const out = new Float64Array(4)
    const three = new Float64Array(4)
    const gl = [0, 0, 0, 1] as unknown as glQuat
    fc.assert(
      fc.property(
        unitQuatArb(),
        fc.double({ min: 0, max: 0.05, noNaN: true }),
        fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
        tArb,
        (a, angle, [ax, ay], t) => {
          const b = refMultiply(a, quatFromAxisAngle([ax, ay, 0.5], angle))
          slerpQuat(out, 0, f64(a), 0, f64(b), 0, t)
          Quaternion.slerpFlat(three as unknown as number[], 0, [...a], 0, [...b], 0, t)
          glQuat.slerp(gl, a as unknown as glQuat, b as unknown as glQuat, t)
          expectQuatClose(out, three, 1e-12)
          expectQuatClose(out, gl as unknown as number[], 1e-6)
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('slerpQuatNoFlip', () => {
  it('equals slerpQuat when the keys are on the same hemisphere', () => {
    const a = new Float64Array(4)
    const b = new Float64Array(4)
    fc.assert(
      fc.property(unitQuatArb(), unitQuatArb(), tArb, (p, q, t) => {
        const qq = quatDot(p, q) < 0 ? neg(q) : q
        slerpQuat(a, 0, f64(p), 0, f64(qq), 0, t)
        slerpQuatNoFlip(b, 0, f64(p), 0, f64(qq), 0, t)
        expect(Array.from(b)).toEqual(Array.from(a))
      }),
    )
  })

  it('takes the long way when dot < 0: 10° to −(50°) about z passes through 210° at t = 0.5', () => {
    const out = new Float64Array(4)
    const z10 = quatFromAxisAngle([0, 0, 1], (10 * Math.PI) / 180)
    const z50 = quatFromAxisAngle([0, 0, 1], (50 * Math.PI) / 180)
    slerpQuatNoFlip(out, 0, f64(z10), 0, f64(neg(z50)), 0, 0.5)
    expectQuatClose(out, quatFromAxisAngle([0, 0, 1], (210 * Math.PI) / 180), 1e-14)
  })

  it('property: constant speed along the long arc, including nearly antipodal keys (dot < −0.9995)', () => {
    // Sphere angle between raw 4-vectors (no sign folding), accurate everywhere.
    const rawAngle = (p: ArrayLike<number>, q: ArrayLike<number>) => {
      let d2 = 0
      let s2 = 0
      for (let j = 0; j < 4; j++) {
        d2 += (p[j]! - q[j]!) ** 2
        s2 += (p[j]! + q[j]!) ** 2
      }
      return 2 * Math.atan2(Math.sqrt(d2), Math.sqrt(s2))
    }
    const out = new Float64Array(4)
    fc.assert(
      fc.property(
        unitQuatArb(),
        fc.double({ min: 0.002, max: 0.2, noNaN: true }),
        fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
        tArb,
        (a, angle, [ax, ay], t) => {
          // b = −(a rotated slightly): dot(a, b) = −cos(angle/2) ∈ [−1, −0.995].
          const b = neg(refMultiply(a, quatFromAxisAngle([ax, ay, 0.5], angle)))
          slerpQuatNoFlip(out, 0, f64(a), 0, f64(b), 0, t)
          expectUnitQuat(out, 1e-12)
          const arc = rawAngle(a, b)
          expect(Math.abs(rawAngle(a, out) - t * arc)).toBeLessThan(1e-6)
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('multiplyQuat', () => {
  it('follows the Hamilton convention: i·j = k, j·i = −k', () => {
    const out = new Float64Array(4)
    const plain = () => Array.from(out, (x) => x + 0) // +0 folds −0
    multiplyQuat(out, 0, f64([1, 0, 0, 0]), 0, f64([0, 1, 0, 0]), 0)
    expect(plain()).toEqual([0, 0, 1, 0])
    multiplyQuat(out, 0, f64([0, 1, 0, 0]), 0, f64([1, 0, 0, 0]), 0)
    expect(plain()).toEqual([0, 0, -1, 0])
  })

  it('composes rotations about one axis by adding angles', () => {
    const out = new Float64Array(4)
    multiplyQuat(out, 0, f64(quatFromAxisAngle([1, 2, 2], 0.3)), 0, f64(quatFromAxisAngle([1, 2, 2], 0.9)), 0)
    expectQuatClose(out, quatFromAxisAngle([1, 2, 2], 1.2), 1e-15)
  })

  it('differential: matches gl-matrix quat.multiply, and aliasing out with either input changes no bit', () => {
    const gl = [0, 0, 0, 0] as unknown as glQuat
    fc.assert(
      fc.property(unitQuatArb(), unitQuatArb(), fc.integer({ min: 0, max: 5 }), (a, b, o) => {
        glQuat.multiply(gl, a as unknown as glQuat, b as unknown as glQuat)
        const out = new Float64Array(12).fill(SENTINEL)
        multiplyQuat(out, o, f64(a), 0, f64(b), 0)
        // gl-matrix sums the four terms in another order, so the last bit may differ.
        for (let j = 0; j < 4; j++) expect(out[o + j]).toBeCloseTo((gl as unknown as number[])[j]!, 15)
        for (let i = 0; i < 12; i++) if (i < o || i >= o + 4) expect(out[i]).toBe(SENTINEL)
        const expected = quatAt(out, o).map((x) => x + 0) // +0 folds −0

        const buf = new Float64Array(8)
        buf.set(a, 0)
        buf.set(b, 4)
        multiplyQuat(buf, 0, buf, 0, buf, 4) // out === a
        expect(quatAt(buf, 0).map((x) => x + 0)).toEqual(expected)
        buf.set(a, 0)
        multiplyQuat(buf, 4, buf, 0, buf, 4) // out === b
        expect(quatAt(buf, 4).map((x) => x + 0)).toEqual(expected)
        // Both operands the same slot: q·q.
        buf.set(a, 0)
        multiplyQuat(buf, 0, buf, 0, buf, 0)
        expect(quatAt(buf, 0)).toEqual(refMultiply(a, a))
      }),
    )
  })
})

describe('conjugateQuat', () => {
  it('inverts a unit quaternion, in place too', () => {
    const q = quatFromAxisAngle([3, -1, 2], 1.1)
    const buf = f64([SENTINEL, ...q, SENTINEL])
    conjugateQuat(buf, 1, buf, 1)
    expect(Array.from(buf)).toEqual([SENTINEL, -q[0], -q[1], -q[2], q[3], SENTINEL])
    const out = new Float64Array(4)
    multiplyQuat(out, 0, f64(q), 0, buf, 1)
    expectQuatClose(out, [0, 0, 0, 1], 1e-15)
  })
})

describe('logQuat and expQuat', () => {
  it('match the closed forms log([sin θ·n, cos θ]) = θ·n and exp(θ·n) = [sin θ·n, cos θ]', () => {
    const n = [2 / 7, -3 / 7, 6 / 7]
    for (const theta of [1e-9, 0.01, 0.5, 1.2, Math.PI / 2, 2.5, Math.PI - 1e-6]) {
      const q = f64([
        Math.sin(theta) * n[0]!,
        Math.sin(theta) * n[1]!,
        Math.sin(theta) * n[2]!,
        Math.cos(theta),
      ])
      const log = new Float64Array(4)
      logQuat(log, 0, q, 0)
      for (let j = 0; j < 3; j++) expect(log[j], `θ = ${theta}`).toBeCloseTo(theta * n[j]!, 13)
      expect(log[3]).toBe(0)
      const exp = new Float64Array(4)
      expQuat(exp, 0, f64([theta * n[0]!, theta * n[1]!, theta * n[2]!, 0]), 0)
      for (let j = 0; j < 4; j++) expect(exp[j], `θ = ${theta}`).toBeCloseTo(q[j]!, 14)
    }
  })

  it('handles the identity, tiny angles and a half-turn (w = 0) exactly enough', () => {
    const out = new Float64Array(4)
    logQuat(out, 0, f64([0, 0, 0, 1]), 0)
    expect(Array.from(out)).toEqual([0, 0, 0, 0])
    expQuat(out, 0, f64([0, 0, 0, 123]), 0) // w ignored
    expect(Array.from(out)).toEqual([0, 0, 0, 1])
    logQuat(out, 0, f64([1e-14, 0, 0, 1]), 0)
    expect(out[0]).toBe(1e-14)
    logQuat(out, 0, f64([0, 1, 0, 0]), 0)
    expect(out[1]).toBeCloseTo(Math.PI / 2, 15)
  })

  it('gives a log of length π for w = −1 and for w ≈ −1 with a tiny vector part, so exp(log q) = q', () => {
    const out = new Float64Array(4)
    logQuat(out, 0, f64([0, 0, 0, -1]), 0)
    expect(Math.hypot(out[0]!, out[1]!, out[2]!)).toBeCloseTo(Math.PI, 15)
    expQuat(out, 0, out, 0)
    expectQuatClose(out, [0, 0, 0, -1], 1e-15)
    expect(out[3]).toBeCloseTo(-1, 15) // the same sign, not merely the same rotation
    logQuat(out, 0, f64([0, 1e-14, 0, -1]), 0)
    expect(out[1]).toBeCloseTo(Math.PI, 12)
    expQuat(out, 0, out, 0)
    // sin near π has an absolute error of about ulp(π) = 4e-16, so the 1e-14 comes back to ~5%.
    expect(Array.from(out)).toEqual([0, expect.closeTo(1e-14, 15), 0, -1])
  })

  it('keeps the sign of w: log(−q) is a different vector than log(q)', () => {
    const q = quatFromAxisAngle([0, 0, 1], 0.6) // θ = 0.3
    const a = new Float64Array(4)
    const b = new Float64Array(4)
    logQuat(a, 0, f64(q), 0)
    logQuat(b, 0, f64(neg(q)), 0)
    expect(a[2]).toBeCloseTo(0.3, 15)
    expect(b[2]).toBeCloseTo(0.3 - Math.PI, 14) // −(π − 0.3) about +z
  })

  it('differential: agrees with gl-matrix quat.ln / quat.exp, and exp(log q) = q, with aliasing', () => {
    const gl = [0, 0, 0, 0] as unknown as glQuat
    fc.assert(
      fc.property(unitQuatArb(), (q) => {
        const log = new Float64Array(4)
        logQuat(log, 0, f64(q), 0)
        glQuat.ln(gl, q as unknown as glQuat)
        const glLog = gl as unknown as number[]
        // gl-matrix's ln is wrong when v·v underflows (|v| < 1e-154; it returns 0 for v·v = 0): skip those.
        if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] > 1e-290)
          for (let j = 0; j < 3; j++) expect(log[j]).toBeCloseTo(glLog[j]!, 12)
        expQuat(log, 0, log, 0) // in place
        for (let j = 0; j < 4; j++) expect(log[j]).toBeCloseTo(q[j]!, 12)
      }),
      { numRuns: 1000 },
    )
  })
})
