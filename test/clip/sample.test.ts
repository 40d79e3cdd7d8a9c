import fc from 'fast-check'
import { Quaternion } from 'three'
import { describe, expect, it } from 'vitest'
import { buildClip, type Channel, type RawChannel } from '../../src/clip/clip.ts'
import { findSegment, sampleChannel } from '../../src/clip/sample.ts'
import { buildRotationCaches, NLERP_SEGMENT } from '../../src/clip/rotationCache.ts'
import {
  expectQuatClose,
  expectUnitQuat,
  quatFromAxisAngle,
  quatHalfAngle,
  refMultiply,
  refSlerp,
} from '../helpers/quat.ts'

// Key times exact in float32, unevenly spaced (segment durations 0.25, 0.75, 1.75: none is 1, so a Hermite that
// forgets to scale its tangents by the duration fails).
const TIMES = [0.25, 0.5, 1.25, 3]
const N = TIMES.length
const INTERPOLATIONS = ['STEP', 'LINEAR', 'CUBICSPLINE'] as const
const SHAPES = [
  { path: 'translation', c: 3 },
  { path: 'rotation', c: 4 },
  { path: 'scale', c: 3 },
  { path: 'weights', c: 2 },
  { path: 'weights', c: 5 },
] as const
type Interp = (typeof INTERPOLATIONS)[number]
type Shape = (typeof SHAPES)[number]

/** Key k's value: arbitrary but fixed numbers; rotations are unit, and key 2 is given negated (other hemisphere). */
function keyValue(shape: Shape, k: number): number[] {
  if (shape.path === 'rotation') {
    const q = quatFromAxisAngle([1, k - 1, 2], 0.4 + 0.7 * k)
    return k === 2 ? q.map((x) => -x) : q
  }
  return Array.from({ length: shape.c }, (_, j) => Math.sin(1.7 * k + 0.9 * j) * 3 + j)
}
/** Tangent of key k (units per second); index 0 for in, 1 for out. Moderate, distinct numbers. */
function tangent(shape: Shape, k: number, which: 0 | 1): number[] {
  return Array.from({ length: shape.c }, (_, j) => Math.cos(2.3 * k + 1.1 * j + which) * 2)
}
const HUGE = 1e30

function rawChannel(shape: Shape, interpolation: Interp, times = TIMES): RawChannel {
  const values: number[] = []
  for (let k = 0; k < times.length; k++) {
    if (interpolation !== 'CUBICSPLINE') {
      values.push(...keyValue(shape, k))
      continue
    }
    // The first in-tangent and the last out-tangent are never used: make them huge so any use shows.
    const a = k === 0 ? new Array(shape.c).fill(HUGE) : tangent(shape, k, 0)
    const b = k === times.length - 1 ? new Array(shape.c).fill(-HUGE) : tangent(shape, k, 1)
    values.push(...a, ...keyValue(shape, k), ...b)
  }
  return { node: 0, path: shape.path, interpolation, times, values }
}
function channelOf(raw: RawChannel): Channel {
  return buildClip({ name: 'T', channels: [raw] }).channels[0]!
}
/** The stored value of key k (after build: float32, rotations normalized). */
function stored(ch: Channel, k: number): number[] {
  const c = ch.components
  const from = ch.interpolation === 'CUBICSPLINE' ? k * 3 * c + c : k * c
  return Array.from(ch.values.subarray(from, from + c))
}
function sample(ch: Channel, t: number, cursors = new Uint32Array(1), mode?: 'slerp' | 'squad'): number[] {
  const out = new Float32Array(ch.components)
  sampleChannel(out, 0, ch, t, cursors, 0, mode)
  return Array.from(out)
}
/** Reference segment search: the last k ≤ n-2 with times[k] ≤ t (a plain linear scan). */
function scanSegment(times: ArrayLike<number>, t: number): number {
  let k = 0
  while (k + 2 < times.length && times[k + 1]! <= t) k++
  return k
}
const next32 = (x: number) => {
  const f = new Float32Array([x])
  const i = new Int32Array(f.buffer)
  i[0]! += x >= 0 ? 1 : -1
  return f[0]!
}
const prev32 = (x: number) => {
  const f = new Float32Array([x])
  const i = new Int32Array(f.buffer)
  i[0]! -= x > 0 ? 1 : -1
  return f[0]!
}

/**
 * Independent reference for one CUBICSPLINE segment: the Hermite segment as a cubic Bézier with control points
 * P1 = v_k + b_k·Δt/3, P2 = v_{k+1} − a_{k+1}·Δt/3, evaluated by de Casteljau in double.
 */
function bezierReference(ch: Channel, k: number, u: number): number[] {
  const c = ch.components
  const v = ch.values
  const dt = ch.times[k + 1]! - ch.times[k]!
  const out: number[] = []
  for (let j = 0; j < c; j++) {
    const p0 = v[k * 3 * c + c + j]!
    const p3 = v[(k + 1) * 3 * c + c + j]!
    const p1 = p0 + (v[k * 3 * c + 2 * c + j]! * dt) / 3
    const p2 = p3 - (v[(k + 1) * 3 * c + j]! * dt) / 3
    const lerp = (a: number, b: number) => a + (b - a) * u
    const [q0, q1, q2] = [lerp(p0, p1), lerp(p1, p2), lerp(p2, p3)]
    out.push(lerp(lerp(q0, q1), lerp(q1, q2)))
  }
  return out
}
function normalized(q: number[]): number[] {
  const len = Math.hypot(...q)
  return q.map((x) => x / len)
}
function expectClose(actual: number[], expected: number[], tol: number, what: string): void {
  expect(actual).toHaveLength(expected.length)
  for (let j = 0; j < expected.length; j++) {
    const d = Math.abs(actual[j]! - expected[j]!)
    if (!(d <= tol))
      expect.fail(`${what}: component ${j} is ${actual[j]}, expected ${expected[j]} (± ${tol})`)
  }
}

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

describe('findSegment', () => {
  const sortedTimes = fc
    .uniqueArray(fc.float({ min: 0, max: 1000, noNaN: true, noDefaultInfinity: true }), {
      minLength: 2,
      maxLength: 40,
    })
    .map((ts) => Float32Array.from(ts.map(Math.abs)).sort())
    .filter((ts) => ts.every((t, i) => i === 0 || t > ts[i - 1]!))

  it('property: agrees with a linear scan for every hint and every time inside the keys', () => {
    fc.assert(
      fc.property(
        sortedTimes,
        fc.nat({ max: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.boolean(),
        (times, hint, f, onKey) => {
          const n = times.length
          let t = times[0]! + f * (times[n - 1]! - times[0]!)
          if (onKey) t = times[Math.min(n - 2, Math.floor(f * (n - 1)))]!
          if (!(t > times[0]! || (onKey && t === times[0]!)) || !(t < times[n - 1]!)) return
          expect(findSegment(times, t, hint)).toBe(scanSegment(times, t))
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('checks every hint and every key time and midpoint exhaustively on a small channel', () => {
    const times = Float32Array.from([0, 0.25, 0.5, 1, 1.5, 4])
    for (let hint = 0; hint < 9; hint++) {
      for (let k = 0; k + 1 < times.length; k++) {
        for (const t of [times[k]!, (times[k]! + times[k + 1]!) / 2, prev32(times[k + 1]!)]) {
          expect(findSegment(times, t, hint), `t ${t} hint ${hint}`).toBe(k)
        }
      }
    }
  })
})

describe('frame-coherent search', () => {
  /** A times array that counts element reads (a Proxy; typed-array getters need the real target as receiver). */
  function counted(times: Float32Array): { times: Float32Array; reads: () => number; reset: () => void } {
    let reads = 0
    const proxy = new Proxy(times, {
      get(target, prop) {
        if (typeof prop === 'string' && /^\d+$/.test(prop)) reads++
        return Reflect.get(target, prop)
      },
    })
    return { times: proxy, reads: () => reads, reset: () => (reads = 0) }
  }
  const many = Float32Array.from({ length: 1000 }, (_, i) => i / 30) // 1000 keys, 30 per second

  it('sequential playback reads at most 3 key times per frame, forward and backward', () => {
    const c = counted(many)
    let hint = 0
    let worstForward = 0
    for (let t = 0.001; t < many[999]!; t += 1 / 60) {
      c.reset()
      hint = findSegment(c.times, t, hint)
      worstForward = Math.max(worstForward, c.reads())
    }
    let worstBackward = 0
    for (let t = many[999]! - 0.001; t > 0; t -= 1 / 60) {
      c.reset()
      hint = findSegment(c.times, t, hint)
      worstBackward = Math.max(worstBackward, c.reads())
    }
    expect(worstForward).toBeLessThanOrEqual(3)
    expect(worstBackward).toBeLessThanOrEqual(3)
    // The counter works: a seek across the clip costs a binary search (~log2 1000 = 10 reads).
    c.reset()
    findSegment(c.times, 20.01, 0)
    expect(c.reads()).toBeGreaterThan(5)
  })

  it('forward and backward playback: the cursor moves at most one segment per small step, results equal a fresh cursor', () => {
    const ch = channelOf({
      node: 0,
      path: 'translation',
      times: Array.from(many),
      values: Array.from({ length: 3000 }, (_, i) => Math.sin(i * 0.37)),
    })
    const out = new Float32Array(3)
    const cursors = new Uint32Array(4)
    for (const dir of [1, -1]) {
      let t = dir > 0 ? 0.0005 : many[999]! - 0.0005
      let last = cursors[2]!
      for (let frame = 0; frame < 2200; frame++, t += dir / 60) {
        sampleChannel(out, 0, ch, t, cursors, 2)
        const now = cursors[2]!
        if (t > many[0]! && t < many[999]!) expect(Math.abs(now - last)).toBeLessThanOrEqual(1)
        last = now
        expect(Array.from(out)).toEqual(sample(ch, t))
      }
    }
    expect(Array.from(cursors)).toEqual([0, 0, cursors[2], 0]) // only its own slot is touched
  })

  it('property: random seeks with a stale cursor equal a fresh-cursor sample', () => {
    const ch = channelOf(rawChannel(SHAPES[1], 'LINEAR'))
    const cursors = new Uint32Array(1)
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 4, noNaN: true }), { minLength: 1, maxLength: 30 }),
        (ts) => {
          for (const t of ts) expect(sample(ch, t, cursors)).toEqual(sample(ch, t))
        },
      ),
    )
  })
})
