import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CROSS_END,
  CROSS_LOOP,
  CROSS_MARKER,
  crossTimeline,
  MAX_BOUNDARIES_PER_STEP,
  SPAN_LENGTH,
} from '../../src/clip/timeline.ts'
import { advancePhase, LOOP_ONCE, LOOP_PINGPONG, LOOP_REPEAT } from '../../src/clip/phase.ts'

/** One crossing as text: 'm0' (marker 0), 'loop@0' / 'loop@1' (start, end), 'end@0' / 'end@1'. */
type Crossing = string

/** crossTimeline's report of one step from phase `before` by `delta`, as advancePhase moves it. */
function cross(before: number, delta: number, d: number, loop: number, markers: number[]): Crossing[] {
  const span = new Float64Array(SPAN_LENGTH)
  span.set([before, delta, advancePhase(before, delta, d, loop), d])
  const out: Crossing[] = []
  crossTimeline(span, loop, Float64Array.from(markers), (kind, index) => {
    if (kind === CROSS_MARKER) out.push(`m${index}`)
    else if (kind === CROSS_LOOP) out.push(`loop@${index}`)
    else if (kind === CROSS_END) out.push(`end@${index}`)
    else out.push(`?${kind}`)
  })
  return out
}

/** Steps of `delta` from `start`, each reported, the phase carried as advanceTrack carries it. */
function run(start: number, delta: number, steps: number, d: number, loop: number, markers: number[]) {
  const out: Crossing[][] = []
  let phase = advancePhase(0, start, d, loop)
  for (let i = 0; i < steps; i++) {
    out.push(cross(phase, delta, d, loop, markers))
    phase = advancePhase(phase, delta, d, loop)
  }
  return out
}

/**
 * The oracle, written from the definition rather than by walking segments: every item the play head can meet
 * laid out on the unwrapped phase line (markers at each of their places, each boundary's group with its order),
 * then those on the path (before, before + delta] (or [before + delta, before)) sorted along it. Inputs are
 * binary fractions, so every sum is exact.
 */
function oracle(before: number, delta: number, d: number, loop: number, markers: number[]): Crossing[] {
  const end = before + delta
  const forward = delta > 0
  if (loop === LOOP_ONCE) {
    const to = Math.min(Math.max(end, 0), d)
    const hit = markers
      .map((t, i) => ({ t, i }))
      .filter(({ t }) => (forward ? t > before && t <= to : t >= to && t < before))
      .sort((a, b) => (forward ? a.t - b.t : b.t - a.t) || a.i - b.i)
      .map(({ i }) => `m${i}`)
    if (forward && to >= d) hit.push('end@1')
    if (!forward && to <= 0) hit.push('end@0')
    return hit
  }
  const pingpong = loop === LOOP_PINGPONG
  // Items: position, then a rank among items at one position in the forward direction.
  const items: { pos: number; rank: number; name: string }[] = []
  const lo = Math.floor(Math.min(before, end) / d) - 1
  const hi = Math.ceil(Math.max(before, end) / d) + 1
  for (let j = lo; j <= hi; j++) {
    const at = j * d
    const odd = ((j % 2) + 2) % 2 === 1
    markers.forEach((t, i) => {
      if (t > 0 && t < d) items.push({ pos: at + (pingpong && odd ? d - t : t), rank: 0, name: `m${i}` })
    })
    if (!pingpong) {
      // A wrap: the markers at d (the time left going forwards), the wrap, the markers at 0.
      markers.forEach((t, i) => t === d && items.push({ pos: at, rank: -2, name: `m${i}` }))
      items.push({ pos: at, rank: -1, name: forward ? 'loop@1' : 'loop@0' })
      markers.forEach((t, i) => t === 0 && items.push({ pos: at, rank: 0, name: `m${i}` }))
    } else {
      const turnAt = odd ? d : 0
      markers.forEach((t, i) => t === turnAt && items.push({ pos: at, rank: -2, name: `m${i}` }))
      items.push({ pos: at, rank: -1, name: `loop@${odd ? 1 : 0}` })
    }
  }
  const onPath = items.filter((x) =>
    forward ? x.pos > before && x.pos <= end : x.pos >= end && x.pos < before,
  )
  onPath.sort((a, b) => {
    if (a.pos !== b.pos) return forward ? a.pos - b.pos : b.pos - a.pos
    // Backwards, a repeat wrap's group runs the other way (markers at 0, the wrap, markers at d); a ping-pong
    // turn's group keeps its order (markers at the turn, then the turn).
    const ra = pingpong || forward ? a.rank : -2 - a.rank
    const rb = pingpong || forward ? b.rank : -2 - b.rank
    return ra - rb || Number(a.name.slice(1)) - Number(b.name.slice(1))
  })
  return onPath.map((x) => x.name)
}

describe('crossTimeline: what one step meets', () => {
  const markers = [0, 0.25, 0.5, 1] // of a 1 s clip: at the start, inside, and at the end

  it('repeat, forwards: markers in order, the wrap between the end and the start markers, once each', () => {
    // 0.75 → 1.25: marker 3 (at 1 s), the wrap, marker 0 (at 0 s), marker 1 (0.25, landed on)
    expect(cross(0.75, 0.5, 1, LOOP_REPEAT, markers)).toEqual(['m3', 'loop@1', 'm0', 'm1'])
    // from 0.25 on: marker 1 is behind the head, not met again
    expect(cross(0.25, 0.25, 1, LOOP_REPEAT, markers)).toEqual(['m2'])
    // landing exactly on the end wraps (the phase becomes 0), meeting all three, and the next step none again
    expect(cross(0.5, 0.5, 1, LOOP_REPEAT, markers)).toEqual(['m3', 'loop@1', 'm0'])
    expect(cross(0, 0.125, 1, LOOP_REPEAT, markers)).toEqual([])
  })

  it('repeat, backwards: mirrored, start markers before the wrap', () => {
    // 0.25 → -0.25: marker 1 is where the head was (left, not met), then the start marker, the wrap, the end one
    expect(cross(0.25, -0.5, 1, LOOP_REPEAT, markers)).toEqual(['m0', 'loop@0', 'm3'])
    // landing on 0 meets the wrap then; leaving 0 meets nothing more
    expect(cross(0.5, -0.5, 1, LOOP_REPEAT, markers)).toEqual(['m1', 'm0', 'loop@0', 'm3'])
    expect(cross(0, -0.125, 1, LOOP_REPEAT, markers)).toEqual([])
  })

  it('ping-pong: a turn at each end, a marker at an end met once per turn', () => {
    // 0.75 → 1.25 (local 0.75 → 1 → 0.75): the marker at 1 s, the turn
    expect(cross(0.75, 0.5, 1, LOOP_PINGPONG, markers)).toEqual(['m3', 'loop@1'])
    // 1.75 → 2.25 (local 0.25 → 0 → 0.25): the marker at 0, the wrap, then marker 1 landed on
    expect(cross(1.75, 0.5, 1, LOOP_PINGPONG, markers)).toEqual(['m0', 'loop@0', 'm1'])
    // backwards through the turn at d: 1.25 → 0.75
    expect(cross(1.25, -0.5, 1, LOOP_PINGPONG, markers)).toEqual(['m3', 'loop@1'])
    // one full period forwards from 0.125: each inside marker twice (up and down), each end once
    expect(cross(0.125, 2, 1, LOOP_PINGPONG, markers)).toEqual([
      'm1',
      'm2',
      'm3',
      'loop@1',
      'm2',
      'm1',
      'm0',
      'loop@0',
    ])
  })

  it('once: markers up to the end, then the end on every step that pushes against it', () => {
    expect(cross(0.75, 0.5, 1, LOOP_ONCE, markers)).toEqual(['m3', 'end@1'])
    expect(cross(1, 0.5, 1, LOOP_ONCE, markers)).toEqual(['end@1'])
    expect(cross(0.375, -0.5, 1, LOOP_ONCE, markers)).toEqual(['m1', 'm0', 'end@0'])
    // leaving the end backwards meets nothing at it
    expect(cross(1, -0.125, 1, LOOP_ONCE, markers)).toEqual([])
    // a zero-length once clip ends at once; a zero-length repeating one reports nothing
    expect(cross(0, 1 / 60, 0, LOOP_ONCE, [0])).toEqual(['end@1'])
    expect(cross(0, 1 / 60, 0, LOOP_REPEAT, [0])).toEqual([])
  })

  it('speed 0, and values that are not finite, meet nothing', () => {
    for (const loop of [LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG]) {
      expect(cross(0.25, 0, 1, loop, markers)).toEqual([])
      expect(cross(Number.NaN, 0.5, 1, loop, markers)).toEqual([])
      expect(cross(0.25, Number.POSITIVE_INFINITY, 1, loop, markers)).toEqual([])
    }
  })

  it('one step across several wraps reports each wrap and each marker, up to the bound', () => {
    // 3.5 clip lengths in one step
    const many = cross(0.125, 3.5, 1, LOOP_REPEAT, [0.5])
    expect(many).toEqual(['m0', 'loop@1', 'm0', 'loop@1', 'm0', 'loop@1', 'm0'])
    // 100 wraps (0.25 → 100.75): the first MAX_BOUNDARIES_PER_STEP are reported, and the marker after the last
    const bounded = cross(0.25, 100.5, 1, LOOP_REPEAT, [0.5])
    expect(bounded.filter((c) => c === 'loop@1')).toHaveLength(MAX_BOUNDARIES_PER_STEP)
    expect(bounded.at(-1)).toBe('m0')
    // a speed that overflows nothing still ends (no loop of 1e300 iterations)
    expect(cross(0.25, 1e300, 1, LOOP_PINGPONG, [0.5]).length).toBeLessThanOrEqual(
      2 * MAX_BOUNDARIES_PER_STEP + 2,
    )
  })

  it('agrees with the oracle for any binary-fraction motion (fast-check)', () => {
    const sixteenths = (lo: number, hi: number) =>
      fc.integer({ min: lo * 16, max: hi * 16 }).map((k) => k / 16)
    fc.assert(
      fc.property(
        fc.constantFrom(0.5, 1, 2, 0.75),
        fc.constantFrom(LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG),
        fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 6 }),
        sixteenths(0, 4),
        sixteenths(-5, 5).filter((x) => x !== 0),
        (d, loop, eighths, start, delta) => {
          const markers = eighths.map((k) => (k / 8) * d).sort((a, b) => a - b)
          const before = advancePhase(0, start, d, loop)
          expect(cross(before, delta, d, loop, markers), `${before} + ${delta} on ${d} s`).toEqual(
            oracle(before, delta, d, loop, markers),
          )
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('is additive: two steps one way meet what one step of their sum meets, nothing lost or repeated', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 0.75),
        fc.constantFrom(LOOP_REPEAT, LOOP_PINGPONG, LOOP_ONCE),
        fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 5 }),
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        (d, loop, eighths, start, a, b, backwards) => {
          const markers = eighths.map((k) => (k / 8) * d).sort((x, y) => x - y)
          const sign = backwards ? -1 : 1
          const p0 = advancePhase(0, start / 32, d, loop)
          const p1 = advancePhase(p0, (sign * a) / 32, d, loop)
          const split = [
            ...cross(p0, (sign * a) / 32, d, loop, markers),
            ...cross(p1, (sign * b) / 32, d, loop, markers),
          ]
          const whole = cross(p0, (sign * (a + b)) / 32, d, loop, markers)
          // A once clip reports its end on each step that pushes against it: compare the rest.
          const drop = (xs: Crossing[]) => (loop === LOOP_ONCE ? xs.filter((x) => !x.startsWith('end')) : xs)
          expect(drop(split)).toEqual(drop(whole))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('a run of steps meets each marker once per pass, in either direction', () => {
    // 1 s repeat clip, marker at 0.5, 1/8 s steps: 3 wraps and 3 passes of the marker in 24 steps
    const forwards = run(0, 0.125, 24, 1, LOOP_REPEAT, [0.5]).flat()
    expect(forwards).toEqual(['m0', 'loop@1', 'm0', 'loop@1', 'm0', 'loop@1'])
    const backwards = run(0, -0.125, 24, 1, LOOP_REPEAT, [0.5]).flat()
    expect(backwards).toEqual(['m0', 'loop@0', 'm0', 'loop@0', 'm0', 'loop@0'])
  })
})
