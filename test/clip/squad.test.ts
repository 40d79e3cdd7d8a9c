import fc from 'fast-check'
import { quat as glQuat } from 'gl-matrix'
import { describe, expect, it } from 'vitest'
import { buildClip, type Channel } from '../../src/clip/clip.ts'
import { sampleChannel } from '../../src/clip/sample.ts'
import { buildRotationCaches } from '../../src/clip/rotationCache.ts'
import {
  expectQuatClose,
  expectUnitQuat,
  quatAt,
  quatDot,
  quatFromAxisAngle,
  refMultiply,
  unitQuatArb,
} from '../helpers/quat.ts'

type Q = [number, number, number, number]
const gl = (q: readonly number[]) => q as unknown as glQuat

function rotationChannel(times: number[], keys: readonly Q[]): Channel {
  return buildClip({ name: 'S', channels: [{ node: 0, path: 'rotation', times, values: keys.flat() }] })
    .channels[0]!
}
function sampleAt(ch: Channel, t: number, mode: 'slerp' | 'squad'): Q {
  const out = new Float32Array(4)
  sampleChannel(out, 0, ch, t, new Uint32Array(1), 0, mode)
  return quatAt(out)
}
/** 2·log(a⁻¹·b) as a 3-vector with the sign of a⁻¹·b folded to w ≥ 0: the rotation vector from a to b (body frame). */
function rotationVector(a: readonly number[], b: readonly number[]): number[] {
  const rel = refMultiply([-a[0]!, -a[1]!, -a[2]!, a[3]!], b)
  const s = rel[3] < 0 ? -1 : 1
  const vlen = Math.hypot(rel[0], rel[1], rel[2])
  if (vlen === 0) return [0, 0, 0]
  const angle = 2 * Math.atan2(vlen, s * rel[3])
  return [0, 1, 2].map((j) => ((s * rel[j]!) / vlen) * angle)
}
/**
 * Angular velocity (rad/s, body frame of the key) just before and just after time tk, by second-order one-sided
 * differences of r(s) = rotation vector from q(tk) to q(tk + s): (−4r(−h) + r(−2h))/2h and (4r(h) − r(2h))/2h.
 */
function velocityJump(ch: Channel, tk: number, mode: 'slerp' | 'squad', h = 2e-3): number {
  const q0 = sampleAt(ch, tk, mode)
  const r = (s: number) => rotationVector(q0, sampleAt(ch, tk + s, mode))
  const [rm1, rm2, rp1, rp2] = [r(-h), r(-2 * h), r(h), r(2 * h)]
  let d2 = 0
  for (let j = 0; j < 3; j++) {
    const before = (-4 * rm1[j]! + rm2[j]!) / (2 * h)
    const after = (4 * rp1[j]! - rp2[j]!) / (2 * h)
    d2 += (after - before) ** 2
  }
  return Math.sqrt(d2)
}

/** Keys whose consecutive relative rotations are at most `maxStep` radians (so no segment is near 180°). */
function keysArb(count: number, maxStep: number): fc.Arbitrary<Q[]> {
  const step = fc.tuple(
    fc.tuple(
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.double({ min: -1, max: 1, noNaN: true }),
    ),
    fc.double({ min: 0.05, max: maxStep, noNaN: true }),
    fc.boolean(),
  )
  return fc
    .tuple(unitQuatArb(), fc.array(step, { minLength: count - 1, maxLength: count - 1 }))
    .filter(([, steps]) => steps.every(([axis]) => Math.hypot(...axis) > 0.1))
    .map(([first, steps]) => {
      const keys: Q[] = [first]
      for (const [axis, angle, flip] of steps) {
        const next = refMultiply(keys[keys.length - 1]!, quatFromAxisAngle(axis, angle))
        keys.push(flip ? (next.map((x) => -x) as Q) : next) // random hemispheres, same rotations
      }
      return keys
    })
}

const EVEN = [0, 0.5, 1, 1.5, 2]
const UNEVEN = [0, 0.3, 1, 1.2, 2]

describe('squad control points', () => {
  it('are hemisphere-aligned keys plus time-weighted Shoemake controls, matching gl-matrix ln/exp/multiply', () => {
    // s_i = q_i·exp(−(h₁·A + h₀·B) / 2(h₀ + h₁)), A = log(q_i⁻¹q_{i−1}), B = log(q_i⁻¹q_{i+1}); even spacing
    // gives Shoemake's exp(−(A + B)/4).
    fc.assert(
      fc.property(keysArb(5, 2), fc.boolean(), (keys, even) => {
        const times = even ? EVEN : UNEVEN
        const ch = rotationChannel(times, keys)
        const n = keys.length
        const data = buildRotationCaches(ch.values, n, ch.times).squad
        const aligned: Q[] = []
        for (let k = 0; k < n; k++) {
          const v = quatAt(ch.values, 4 * k)
          const sign = k > 0 && quatDot(aligned[k - 1]!, v) < 0 ? -1 : 1
          aligned.push(v.map((x) => sign * x) as Q)
          expect(quatAt(data, 4 * k)).toEqual(aligned[k]!.map(Math.fround))
        }
        for (let k = 0; k < n; k++) {
          let expected: number[] = aligned[k]!
          if (k > 0 && k < n - 1) {
            const inv = glQuat.invert([0, 0, 0, 0] as unknown as glQuat, gl(aligned[k]!))
            const lp = glQuat.ln(glQuat.create(), glQuat.multiply(glQuat.create(), inv, gl(aligned[k - 1]!)))
            const ln = glQuat.ln(glQuat.create(), glQuat.multiply(glQuat.create(), inv, gl(aligned[k + 1]!)))
            const h0 = Math.fround(times[k]!) - Math.fround(times[k - 1]!)
            const h1 = Math.fround(times[k + 1]!) - Math.fround(times[k]!)
            const e = [0, 1, 2].map((j) =>
              even ? -(lp[j]! + ln[j]!) / 4 : -(h1 * lp[j]! + h0 * ln[j]!) / (2 * (h0 + h1)),
            )
            const ex = glQuat.exp(glQuat.create(), gl([...e, 0]))
            expected = refMultiply(aligned[k]!, Array.from(ex as Float32Array))
          }
          // gl-matrix's create() is float32, so compare at float32 precision.
          expectQuatClose(quatAt(data, 4 * n + 4 * k), expected, 2e-6)
        }
      }),
      { numRuns: 100 },
    )
  })

  it('equal the keys when the keys turn at constant angular velocity about one axis', () => {
    const keys = [0, 1, 2, 3].map((k) => quatFromAxisAngle([1, 2, 3], 0.2 + 0.5 * k))
    const ch = rotationChannel([0, 1, 2, 3], keys)
    const { squad } = buildRotationCaches(ch.values, 4, ch.times)
    for (let k = 0; k < 4; k++) expectQuatClose(quatAt(squad, 16 + 4 * k), keys[k]!, 2e-7)
    // So squad is slerp there.
    for (const t of [0.3, 1.5, 2.8]) expectQuatClose(sampleAt(ch, t, 'squad'), sampleAt(ch, t, 'slerp'), 2e-7)
  })
})

describe('squad sampling', () => {
  it('property: unit length, exactly the key on each key time, and continuous into each key', () => {
    fc.assert(
      fc.property(keysArb(5, 2.5), (keys) => {
        const ch = rotationChannel(EVEN, keys)
        for (let k = 0; k < 5; k++) {
          const tk = EVEN[k]!
          expect(sampleAt(ch, tk, 'squad')).toEqual(quatAt(ch.values, 4 * k))
          if (k > 0) expectQuatClose(sampleAt(ch, tk - 1e-6, 'squad'), quatAt(ch.values, 4 * k), 2e-5)
          if (k < 4) expectQuatClose(sampleAt(ch, tk + 1e-6, 'squad'), quatAt(ch.values, 4 * k), 2e-5)
        }
        for (let i = 1; i < 40; i++) expectUnitQuat(sampleAt(ch, i * 0.05, 'squad'), 3e-7)
      }),
      { numRuns: 100 },
    )
  })

  it('is the same rotation whichever hemisphere each key was given on', () => {
    fc.assert(
      fc.property(keysArb(5, 2), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }), (keys, flips) => {
        const a = rotationChannel(EVEN, keys)
        const b = rotationChannel(
          EVEN,
          keys.map((q, k) => (flips[k] ? (q.map((x) => -x) as Q) : q)),
        )
        for (let i = 1; i < 20; i++)
          expectQuatClose(sampleAt(a, i * 0.1, 'squad'), sampleAt(b, i * 0.1, 'squad'), 1e-6)
      }),
      { numRuns: 100 },
    )
  })

  it('with two keys is plain slerp', () => {
    const keys: Q[] = [quatFromAxisAngle([0, 1, 0], 0.1), quatFromAxisAngle([1, 0, 1], 1.9)]
    const ch = rotationChannel([0, 1.5], keys)
    for (const t of [0.1, 0.75, 1.3])
      expectQuatClose(sampleAt(ch, t, 'squad'), sampleAt(ch, t, 'slerp'), 3e-7)
  })

  it('property: angular velocity is continuous across interior keys, evenly or unevenly spaced, unlike slerp', () => {
    let worstSquad = 0
    let worstRatio = 0
    const spacing = fc.oneof(
      fc.constant(EVEN),
      fc.constant(UNEVEN),
      // Segment durations 0.25–1 s in any order (up to 4:1 between neighbours).
      fc
        .array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 })
        .map((d) => d.reduce((ts, x) => [...ts, ts[ts.length - 1]! + x / 4], [0])),
    )
    fc.assert(
      fc.property(keysArb(5, 2), spacing, (keys, times) => {
        const ch = rotationChannel(times, keys)
        for (const tk of times.slice(1, 4)) {
          const squad = velocityJump(ch, tk, 'squad')
          const slerp = velocityJump(ch, tk, 'slerp')
          worstSquad = Math.max(worstSquad, squad)
          if (slerp > 0.5) worstRatio = Math.max(worstRatio, squad / slerp)
          // Finite differences on float32 samples carry ~1e-3 rad/s of noise; a slerp corner is rad/s.
          expect(squad).toBeLessThan(0.01 + 0.01 * slerp)
        }
      }),
      { numRuns: 100 },
    )
    expect(worstSquad).toBeLessThan(0.05)
    expect(worstRatio).toBeLessThan(0.01)
  })

  it('a slerp corner is large, so the continuity check above can fail', () => {
    // 90° about x then 90° about y, 0.5 s each: slerp's angular velocity jumps from π·x̂ to π·ŷ rad/s.
    const q0 = quatFromAxisAngle([1, 0, 0], 0)
    const q1 = quatFromAxisAngle([1, 0, 0], Math.PI / 2)
    const q2 = refMultiply(q1, quatFromAxisAngle([0, 1, 0], Math.PI / 2))
    const ch = rotationChannel([0, 0.5, 1], [q0, q1, q2])
    expect(velocityJump(ch, 0.5, 'slerp')).toBeCloseTo(Math.PI * Math.SQRT2, 2)
    expect(velocityJump(ch, 0.5, 'squad')).toBeLessThan(0.01)
  })

  it('is ignored for STEP and CUBICSPLINE rotations and for other paths', () => {
    const keys = [
      quatFromAxisAngle([0, 1, 0], 0.1),
      quatFromAxisAngle([1, 0, 1], 1.9),
      quatFromAxisAngle([1, 1, 0], 0.4),
    ]
    const step = buildClip({
      name: 'S',
      channels: [
        { node: 0, path: 'rotation', interpolation: 'STEP', times: [0, 1, 2], values: keys.flat() },
        {
          node: 0,
          path: 'rotation',
          interpolation: 'CUBICSPLINE',
          times: [0, 1, 2],
          values: keys.flatMap((q) => [0.1, 0.2, 0.3, 0.4, ...q, -0.3, 0.2, 0.1, 0]),
        },
        { node: 0, path: 'translation', times: [0, 1, 2], values: [0, 1, 2, 3, 4, 5, 6, 7, 8] },
      ],
    })
    for (const ch of step.channels) {
      for (const t of [0.4, 1.3]) expect(sampleAt(ch, t, 'squad')).toEqual(sampleAt(ch, t, 'slerp'))
    }
  })
})
