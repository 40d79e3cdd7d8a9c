/**
 * sampleClip keeps a cursor per time track; LINEAR rotation: aligned keys and the folded sign.
 * Tests use Math.* freely: they are the independent side of the comparison, not the deterministic path.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildClip, type Channel } from '../../src/clip/clip.ts'
import { findSegment, sampleChannel, sampleClip } from '../../src/clip/sample.ts'
import { SHORT_ARC, shortArcSin } from '../../src/clip/arcKernels.ts'
import { mixedClip } from '../helpers/sampledClips.ts'
import { detAcos, detSin, detSinArc } from '../../src/math/detmath.ts'
import { slerpQuat, slerpQuatNoFlip } from '../../src/math/quat.ts'
import {
  expectQuatClose,
  quatAt,
  quatDot,
  quatFromAxisAngle,
  refMultiply,
  refSlerp,
  unitQuatArb,
} from '../helpers/quat.ts'
import { buildRotationCaches } from '../../src/clip/rotationCache.ts'

const f32 = (x: number) => Math.fround(x)

describe('sampleClip', () => {
  const clip = mixedClip()
  const n = clip.channels.length

  it('keeps one cursor per track at cursorStart + track, equal to findSegment; the others untouched', () => {
    const binding = Int32Array.from({ length: n }, (_, c) => c * 5)
    const cursors = new Uint32Array(2 * n)
    sampleClip(new Float32Array(n * 5), 0, clip, binding, 1.3, cursors, n)
    expect(Array.from(cursors.subarray(0, n)).every((x) => x === 0)).toBe(true)
    for (const [c, ch] of clip.channels.entries()) {
      if (ch.track !== c) expect(cursors[n + c]).toBe(0)
      else if (ch.times.length > 1) expect(cursors[n + c]).toBe(findSegment(ch.times, 1.3, 0))
    }
  })
})

describe('LINEAR rotation: aligned keys and the folded sign', () => {
  /**
   * The sampler before hemisphere alignment, written from its definition: slerp of the *given* keys k, k+1,
   * key k+1 negated when their dot is negative, with θ = acos|dot|, weights sin((1−u)θ)/sin θ and sin(uθ)/sin θ
   * (normalized lerp when |dot| > 0.9995), renormalized in double, stored as float32. The sine is detSinArc
   * for arcs longer than SHORT_ARC and shortArcSin for shorter ones, as the sampler promises.
   */
  /**
   * Slerp of the given keys k, k+1 (each normalized in double) with the per-segment short-arc flip, written
   * independently of the caches: what the kernel must give bit for bit. Slerp results are stored as they are
   * (unit in double); nlerp results are normalized here by a square root, which the kernel replaces by a series
   * exact to double rounding, so for those (`nlerp` true) the float32 results may differ by one unit in the last
   * place (see expectFlipSlerp).
   */
  function flipSlerp(ch: Channel, k: number, u: number): { q: number[]; nlerp: boolean } {
    const key = (i: number) => {
      const q = [0, 1, 2, 3].map((j) => ch.values[4 * i + j]!)
      const inv = 1 / Math.sqrt(q[0]! * q[0]! + q[1]! * q[1]! + q[2]! * q[2]! + q[3]! * q[3]!)
      return q.map((x) => x * inv)
    }
    const a = key(k)
    const b = key(k + 1)
    let cos = 0
    for (let j = 0; j < 4; j++) cos += a[j]! * b[j]!
    const sign = cos < 0 ? -1 : 1
    cos = Math.min(1, Math.abs(cos))
    if (cos > 0.9995) {
      const q = [0, 1, 2, 3].map((j) => (1 - u) * a[j]! + u * sign * b[j]!)
      const inv = 1 / Math.sqrt(q[0]! * q[0]! + q[1]! * q[1]! + q[2]! * q[2]! + q[3]! * q[3]!)
      return { q: q.map((x) => f32(x * inv)), nlerp: true }
    }
    const theta = detAcos(cos)
    const invSin = 1 / detSin(theta)
    const sin = theta > SHORT_ARC ? detSinArc : shortArcSin
    const s0 = sin((1 - u) * theta) * invSin
    const s1 = sin(u * theta) * invSin * sign
    return { q: [0, 1, 2, 3].map((j) => f32(s0 * a[j]! + s1 * b[j]!)), nlerp: false }
  }

  /** The kernel's result is flipSlerp's: bit for bit on slerp segments, within one float32 ulp on nlerp ones. */
  function expectFlipSlerp(out: Float32Array, ch: Channel, k: number, u: number): void {
    const { q, nlerp } = flipSlerp(ch, k, u)
    if (!nlerp) {
      expect(Array.from(out)).toEqual(q)
      return
    }
    const bits = new Int32Array(Float32Array.from([...out, ...q]).buffer)
    for (let j = 0; j < 4; j++)
      expect(Math.abs(bits[j]! - bits[4 + j]!), `component ${j}`).toBeLessThanOrEqual(1)
  }

  const unit = fc.double({ min: -1, max: 1, noNaN: true })
  const axisArb = fc.tuple(unit, unit, unit).filter((a) => Math.hypot(...a) >= 0.1)

  it('property: aligned keys are ±the given keys, neighbours within 90°, and slerp matches the flip form', () => {
    fc.assert(
      fc.property(
        unitQuatArb(),
        // Each next key: a turn about a random axis by 0–1.2 rad (nlerp, short and long arcs), maybe negated.
        fc.array(fc.tuple(axisArb, fc.double({ min: 0, max: 1.2, noNaN: true }), fc.boolean()), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (first, turns, u) => {
          const keys: number[][] = [first]
          let q: number[] = first
          for (const [axis, angle, negate] of turns) {
            q = refMultiply(q, quatFromAxisAngle(axis, angle))
            keys.push(negate ? q.map((x) => -x) : q)
          }
          const times = keys.map((_, k) => k * 0.5)
          const values = keys.flat()
          const ch = buildClip({ name: 'P', channels: [{ node: 0, path: 'rotation', times, values }] })
            .channels[0]!
          const al = buildRotationCaches(ch.values, ch.times.length, ch.times).aligned
          for (let k = 0; k < keys.length; k++) {
            const j0 = [0, 1, 2, 3].find((j) => ch.values[4 * k + j] !== 0)!
            const s = al[4 * k + j0]! / ch.values[4 * k + j0]!
            expect(Math.abs(s)).toBe(1)
            for (let j = 0; j < 4; j++) expect(al[4 * k + j] === s * ch.values[4 * k + j]!).toBe(true)
            if (k > 0) expect(quatDot(al, al, 4 * k - 4, 4 * k)).toBeGreaterThanOrEqual(0)
          }
          for (let k = 0; k + 1 < keys.length; k++) {
            for (const f of [u, 0.1, 0.37, 0.8]) {
              const out = new Float32Array(4)
              const t = times[k]! + f * 0.5
              if (t === times[k] || t >= times[k + 1]!) continue
              sampleChannel(out, 0, ch, t, new Uint32Array(1), 0)
              // The aligned keys with σ folded into the cached weight give exactly the flip form's bits.
              expectFlipSlerp(out, ch, k, (t - times[k]!) / 0.5)
            }
          }
        },
      ),
      { numRuns: 500 },
    )
  })

  it('a key exactly 90° from a negated predecessor: slerp keeps the given pair’s path (no flip at dot 0)', () => {
    const keys = [
      [0, 0, 0, 1],
      [0, 0, 0.6, -0.8],
      [0, 0, 0.8, 0.6],
    ]
    const ch = buildClip({
      name: 'O',
      channels: [{ node: 0, path: 'rotation', times: [0, 1, 2], values: keys.flat() }],
    }).channels[0]!
    expect(quatDot(ch.values, ch.values, 4, 8)).toBe(0)
    // squad's keys align each to the previous *aligned* key, so here they differ from slerp's: two arrays.
    const caches = buildRotationCaches(ch.values, ch.times.length, ch.times)
    expect(caches.aligned.buffer).not.toBe(caches.squad.buffer)
    for (const u of [0.1, 0.5, 0.9]) {
      const out = new Float32Array(4)
      sampleChannel(out, 0, ch, 1 + u, new Uint32Array(1), 0)
      expectFlipSlerp(out, ch, 1, u)
      expectQuatClose(out, refSlerp(quatAt(ch.values, 4), quatAt(ch.values, 8), u), 1e-6)
    }
  })

  it('squad equals its definition built from quat.ts slerps on the channel’s keys and controls', () => {
    const keys = [0, 1, 2, 3, 4].map((k) => quatFromAxisAngle([1, k, 2 - k], 0.5 + 0.9 * k))
    keys[2] = keys[2]!.map((x) => -x) as (typeof keys)[number]
    const times = [0, 0.3, 1, 1.2, 2]
    const ch = buildClip({ name: 'S', channels: [{ node: 0, path: 'rotation', times, values: keys.flat() }] })
      .channels[0]!
    const data = Float64Array.from(buildRotationCaches(ch.values, ch.times.length, ch.times).squad)
    const n = times.length
    for (let k = 0; k + 1 < n; k++) {
      for (const u of [0.13, 0.5, 0.87]) {
        const p = new Float64Array(4)
        const c = new Float64Array(4)
        const out = new Float64Array(4)
        slerpQuat(p, 0, data, 4 * k, data, 4 * k + 4, u)
        slerpQuatNoFlip(c, 0, data, 4 * n + 4 * k, data, 4 * n + 4 * k + 4, u)
        slerpQuatNoFlip(out, 0, p, 0, c, 0, 2 * u * (1 - u))
        const got = new Float32Array(4)
        sampleChannel(got, 0, ch, times[k]! + u * (times[k + 1]! - times[k]!), new Uint32Array(1), 0, 'squad')
        expectQuatClose(got, out, 1e-6)
      }
    }
  })
})
