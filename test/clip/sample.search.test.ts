/**
 * Sampling one channel (src/clip/sample.ts): finding the key segment: findSegment and the frame-coherent
 * cursor.
 * Setup and references: test/helpers/clipSample.ts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findSegment, sampleChannel } from '../../src/clip/sample.ts'
import { SHAPES, rawChannel, channelOf, sample, scanSegment, prev32 } from '../helpers/clipSample.ts'

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
