/**
 * Sampling one channel (src/clip/sample.ts): the sampled values: every interpolation and shape at and around its
 * key times and ends, properties over random channels against the references, and STEP, LINEAR (lerp and
 * slerp) and CUBICSPLINE case by case.
 * Setup and references: test/helpers/clipSample.ts.
 */
import fc from 'fast-check'
import { Quaternion } from 'three'
import { describe, expect, it } from 'vitest'
import { sampleChannel } from '../../src/clip/sample.ts'
import { buildRotationCaches, NLERP_SEGMENT } from '../../src/clip/rotationCache.ts'
import {
  expectQuatClose,
  expectUnitQuat,
  quatFromAxisAngle,
  quatHalfAngle,
  refMultiply,
  refSlerp,
} from '../helpers/quat.ts'
import {
  TIMES,
  N,
  INTERPOLATIONS,
  SHAPES,
  keyValue,
  rawChannel,
  channelOf,
  stored,
  sample,
  scanSegment,
  next32,
  prev32,
  bezierReference,
  normalized,
  expectClose,
} from '../helpers/clipSample.ts'

describe.each(INTERPOLATIONS)('%s boundaries', (interpolation) => {
  describe.each(SHAPES.map((s) => [`${s.path}(${s.c})`, s] as const))('%s', (_, shape) => {
    const ch = channelOf(rawChannel(shape, interpolation))

    it('holds the first key before it (and for NaN / −∞ times), bit for bit', () => {
      for (const t of [TIMES[0]!, 0.1, 0, -0, -5, -Infinity, NaN])
        expect(sample(ch, t), `t = ${t}`).toEqual(stored(ch, 0))
    })

    it('holds the last key after it, bit for bit', () => {
      for (const t of [TIMES[N - 1]!, next32(TIMES[N - 1]!), 3.5, 1e9, Infinity]) {
        expect(sample(ch, t), `t = ${t}`).toEqual(stored(ch, N - 1))
      }
    })

    it('returns each key exactly on its time, bit for bit, with any cursor', () => {
      for (let k = 0; k < N; k++) {
        for (const hint of [0, 1, 2, 7]) {
          expect(sample(ch, TIMES[k]!, Uint32Array.of(hint)), `key ${k} hint ${hint}`).toEqual(stored(ch, k))
        }
        if (shape.path !== 'rotation') {
          expect(stored(ch, k)).toEqual(keyValue(shape, k).map(Math.fround)) // the key as given
        }
      }
    })

    it('writes exactly its components at a non-zero offset, leaving neighbours alone', () => {
      const out = new Float32Array(ch.components + 9).fill(-7.5)
      for (const t of [0, TIMES[1]!, 0.8, 2, 9]) {
        sampleChannel(out, 4, ch, t, new Uint32Array(3), 2)
        expect(Array.from(out.subarray(4, 4 + ch.components))).toEqual(sample(ch, t))
        for (let i = 0; i < out.length; i++) if (i < 4 || i >= 4 + ch.components) expect(out[i]).toBe(-7.5)
      }
    })

    it('gives a single-key channel that key at any time', () => {
      const one = channelOf(rawChannel(shape, interpolation, [0.5]))
      for (const t of [-1, 0, 0.5, 0.7, 100, NaN]) expect(sample(one, t), `t = ${t}`).toEqual(stored(one, 0))
    })

    it('two keys: the keys at their times, the interpolation at the midpoint', () => {
      const two = channelOf(rawChannel(shape, interpolation, [0.5, 1.25]))
      expect(sample(two, 0.5)).toEqual(stored(two, 0))
      expect(sample(two, 1.25)).toEqual(stored(two, 1))
      const mid = sample(two, 0.875)
      const [a, b] = [stored(two, 0), stored(two, 1)]
      if (interpolation === 'STEP') expect(mid).toEqual(a)
      else if (interpolation === 'CUBICSPLINE') {
        const ref = bezierReference(two, 0, 0.5)
        expectClose(mid, shape.path === 'rotation' ? normalized(ref) : ref, 4e-6, 'midpoint')
      } else if (shape.path === 'rotation') expectQuatClose(mid, refSlerp(a, b, 0.5), 2e-7)
      else
        expectClose(
          mid,
          a.map((x, j) => (x + b[j]!) / 2),
          1e-6,
          'midpoint',
        )
    })
  })
})

describe('properties over random channels', () => {
  const f32 = (min: number, max: number) => fc.double({ min, max, noNaN: true }).map(Math.fround)
  const timesArb = (n: number) =>
    fc
      .uniqueArray(fc.integer({ min: 0, max: 4000 }), { minLength: n, maxLength: n })
      .map((ts) => ts.sort((x, y) => x - y).map((t) => t / 256))

  it('CUBICSPLINE (Hermite) hits every key exactly and matches the Bézier reference in between', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 6 })
          .chain((n) =>
            fc.tuple(
              timesArb(n),
              fc.array(f32(-100, 100), { minLength: 9 * n, maxLength: 9 * n }),
              fc.double({ min: 0, max: 1, noNaN: true }),
            ),
          ),
        ([times, values, f]) => {
          const ch = channelOf({ node: 0, path: 'translation', interpolation: 'CUBICSPLINE', times, values })
          for (let k = 0; k < times.length; k++) {
            expect(sample(ch, times[k]!)).toEqual(values.slice(9 * k + 3, 9 * k + 6))
          }
          const t = times[0]! + f * (times[times.length - 1]! - times[0]!)
          const k = scanSegment(ch.times, t)
          const u = (t - ch.times[k]!) / (ch.times[k + 1]! - ch.times[k]!)
          if (t > times[0]! && t < times[times.length - 1]!) {
            const ref = bezierReference(ch, k, u)
            const scale = Math.max(1, ...ref.map(Math.abs))
            expectClose(
              sample(ch, t),
              ref,
              2e-6 * scale * Math.max(1, ch.times[k + 1]! - ch.times[k]!),
              'between',
            )
          }
        },
      ),
      { numRuns: 500 },
    )
  })

  it('LINEAR rotation: unit length and equal to three.js slerpFlat of the stored keys, any keys and time', () => {
    const q = fc.tuple(f32(-1, 1), f32(-1, 1), f32(-1, 1), f32(-1, 1)).filter((v) => Math.hypot(...v) > 0.1)
    const three = new Float64Array(4)
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 6 })
          .chain((n) =>
            fc.tuple(
              timesArb(n),
              fc.array(q, { minLength: n, maxLength: n }),
              fc.double({ min: 0, max: 1, noNaN: true }),
            ),
          ),
        ([times, keys, f]) => {
          const ch = channelOf({ node: 0, path: 'rotation', times, values: keys.flat() })
          const t = times[0]! + f * (times[times.length - 1]! - times[0]!)
          const got = sample(ch, t)
          expectUnitQuat(got, 2e-7)
          if (!(t > times[0]! && t < times[times.length - 1]!)) return
          const k = scanSegment(ch.times, t)
          const u = (t - ch.times[k]!) / (ch.times[k + 1]! - ch.times[k]!)
          const keys64 = Array.from(ch.values)
          Quaternion.slerpFlat(three as unknown as number[], 0, keys64, 4 * k, keys64, 4 * k + 4, u)
          expectQuatClose(got, three, 1e-6)
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('STEP', () => {
  it.each(SHAPES.map((s) => [`${s.path}(${s.c})`, s] as const))(
    '%s holds the previous key inside a segment',
    (_, shape) => {
      const ch = channelOf(rawChannel(shape, 'STEP'))
      for (let k = 0; k + 1 < N; k++) {
        const t0 = TIMES[k]!
        const t1 = TIMES[k + 1]!
        for (const t of [next32(t0), (t0 + t1) / 2, prev32(t1)])
          expect(sample(ch, t), `t = ${t}`).toEqual(stored(ch, k))
      }
    },
  )
})

describe('LINEAR translation, scale, weights', () => {
  it.each(SHAPES.filter((s) => s.path !== 'rotation').map((s) => [`${s.path}(${s.c})`, s] as const))(
    '%s lerps inside each segment',
    (_, shape) => {
      const ch = channelOf(rawChannel(shape, 'LINEAR'))
      for (let k = 0; k + 1 < N; k++) {
        for (const u of [1e-6, 0.25, 0.5, 0.9, 1 - 1e-6]) {
          const t = TIMES[k]! + u * (TIMES[k + 1]! - TIMES[k]!)
          const uu = (t - TIMES[k]!) / (TIMES[k + 1]! - TIMES[k]!)
          const a = stored(ch, k)
          const b = stored(ch, k + 1)
          const expected = a.map((x, j) => (1 - uu) * x + uu * b[j]!)
          expectClose(sample(ch, t), expected, 1e-6, `segment ${k} u ${u}`)
        }
      }
    },
  )

  it('2 keys: the midpoint is the mean', () => {
    const ch = channelOf({ node: 0, path: 'translation', times: [1, 3], values: [0, 10, -4, 2, 20, 4] })
    expect(sample(ch, 2)).toEqual([1, 15, 0])
  })
})

describe('LINEAR rotation (slerp)', () => {
  const shape = SHAPES[1]
  const ch = channelOf(rawChannel(shape, 'LINEAR'))

  it('differential: equals three.js Quaternion.slerpFlat of the stored keys at every time', () => {
    const three = new Float64Array(4)
    const keys = Float64Array.from(ch.values)
    for (let i = 1; i < 400; i++) {
      const t = TIMES[0]! + (i / 400) * (TIMES[N - 1]! - TIMES[0]!)
      const k = scanSegment(ch.times, t)
      const u = (t - ch.times[k]!) / (ch.times[k + 1]! - ch.times[k]!)
      Quaternion.slerpFlat(
        three as unknown as number[],
        0,
        keys as unknown as number[],
        k * 4,
        keys as unknown as number[],
        k * 4 + 4,
        u,
      )
      const got = sample(ch, t)
      expectQuatClose(got, three, 1e-6)
      expectUnitQuat(got, 2e-7)
    }
  })

  it('takes the short arc between keys on opposite hemispheres', () => {
    // Key 1 is 40° from key 0 about x, but given negated: w < 0, dot(key0, key1) < 0.
    const a = quatFromAxisAngle([1, 0, 0], 0.3)
    const b = quatFromAxisAngle([1, 0, 0], 0.3 + (40 * Math.PI) / 180).map((x) => -x)
    const two = channelOf({ node: 0, path: 'rotation', times: [0, 2], values: [...a, ...b] })
    const mid = sample(two, 1)
    expectQuatClose(mid, quatFromAxisAngle([1, 0, 0], 0.3 + (20 * Math.PI) / 180), 1e-6)
    // The long way would be 160° of rotation away from both keys.
    expect(quatHalfAngle(mid, a) * 2).toBeCloseTo((20 * Math.PI) / 180, 5)
  })

  it('uses the nlerp fallback for nearly equal keys (dot > 0.9995) and stays on the slerp path', () => {
    const a = quatFromAxisAngle([0, 1, 1], 1)
    const b = refMultiply(a, quatFromAxisAngle([1, 0, 0], 0.01)) // dot = cos(0.005) ≈ 0.9999875
    const keys = [...a, ...b]
    const near = channelOf({ node: 0, path: 'rotation', times: [0, 0.5], values: keys })
    // The segment is flagged nlerp: NLERP_SEGMENT in the caches, −cos in the kernel's segments.
    expect(buildRotationCaches(near.values, 2, near.times).slerpCache[0]).toBe(NLERP_SEGMENT)
    expect(near.slerpSegments![0]).toBeLessThan(0)
    for (const u of [0.1, 0.37, 0.5, 0.93]) {
      const got = sample(near, u * 0.5)
      expectUnitQuat(got, 2e-7)
      expectQuatClose(
        got,
        refSlerp(Array.from(near.values.subarray(0, 4)), Array.from(near.values.subarray(4)), u),
        2e-7,
      )
    }
    // Identical keys: no 0/0.
    const same = channelOf({ node: 0, path: 'rotation', times: [0, 1], values: [...a, ...a] })
    expectQuatClose(sample(same, 0.4), stored(same, 0), 1e-7)
  })

  it('renormalizes: output is unit even when every key was given with length 3', () => {
    const raw = rawChannel(shape, 'LINEAR')
    const big = channelOf({ ...raw, values: Array.from(raw.values, (x) => 3 * x) })
    for (let i = 1; i < 50; i++) {
      const t = TIMES[0]! + (i / 50) * (TIMES[N - 1]! - TIMES[0]!)
      expectUnitQuat(sample(big, t), 2e-7)
      expectQuatClose(sample(big, t), sample(ch, t), 2e-7)
    }
  })
})

describe('CUBICSPLINE', () => {
  it.each(SHAPES.map((s) => [`${s.path}(${s.c})`, s] as const))(
    '%s: Hermite with tangents scaled by the segment duration; end tangents ignored',
    (_, shape) => {
      const ch = channelOf(rawChannel(shape, 'CUBICSPLINE'))
      for (let k = 0; k + 1 < N; k++) {
        for (const u of [1e-3, 0.2, 0.5, 0.77, 0.999]) {
          const t = TIMES[k]! + u * (TIMES[k + 1]! - TIMES[k]!)
          const uu = (t - ch.times[k]!) / (ch.times[k + 1]! - ch.times[k]!)
          let expected = bezierReference(ch, k, uu)
          const got = sample(ch, t)
          if (shape.path === 'rotation') {
            expected = normalized(expected)
            expectUnitQuat(got, 2e-7)
          }
          expectClose(got, expected, 4e-6, `segment ${k} u ${u}`)
        }
      }
    },
  )

  it('a sampler that did not scale by the duration would be caught (the reference is sensitive to it)', () => {
    const ch = channelOf(rawChannel(SHAPES[0], 'CUBICSPLINE'))
    // Segment 2 lasts 1.75 s. The same segment with unscaled tangents is a different curve by far more than 4e-6.
    const t = TIMES[2]! + 0.5 * 1.75
    const scaled = bezierReference(ch, 2, 0.5)
    const c = 3
    const v = ch.values
    const unscaled = [0, 1, 2].map(
      (j) =>
        0.5 * v[2 * 3 * c + c + j]! +
        0.125 * v[2 * 3 * c + 2 * c + j]! +
        0.5 * v[3 * 3 * c + c + j]! -
        0.125 * v[3 * 3 * c + j]!,
    )
    expect(Math.max(...scaled.map((x, j) => Math.abs(x - unscaled[j]!)))).toBeGreaterThan(0.1)
    expectClose(sample(ch, t), scaled, 4e-6, 'segment 2 midpoint')
  })

  it('zero tangents give the smoothstep midpoint (three.js GLTFLoader also gives 1.5 for 1 → 2)', () => {
    const ch = channelOf({
      node: 0,
      path: 'translation',
      interpolation: 'CUBICSPLINE',
      times: [0, 4],
      values: [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0],
    })
    expect(sample(ch, 2)).toEqual([1.5, 1.5, 1.5])
    expect(sample(ch, 1)).toEqual([1 + 0.15625, 1 + 0.15625, 1 + 0.15625]) // 3u² − 2u³ at u = ¼
  })
})
