import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  advancePhase,
  localTime,
  LOOP_MODES,
  LOOP_ONCE,
  LOOP_PINGPONG,
  LOOP_REPEAT,
} from '../../src/clip/phase.ts'

/** Positive remainder, the textbook way (independent of advancePhase's floor form). */
function mod(x: number, m: number): number {
  const r = x % m
  return r < 0 ? r + m : r
}

const finite = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true })

describe('loop modes', () => {
  it('are numbered in LOOP_MODES order', () => {
    expect(LOOP_MODES).toEqual(['once', 'repeat', 'pingpong'])
    expect([LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG]).toEqual([0, 1, 2])
  })
})

describe('advancePhase', () => {
  it('once: clamps to [0, duration] at both ends and holds there', () => {
    expect(advancePhase(0.5, 0.25, 1, LOOP_ONCE)).toBe(0.75)
    expect(advancePhase(0.9, 0.25, 1, LOOP_ONCE)).toBe(1)
    expect(advancePhase(1, 0.25, 1, LOOP_ONCE)).toBe(1)
    expect(advancePhase(0.1, -0.25, 1, LOOP_ONCE)).toBe(0)
    expect(advancePhase(0, -0.25, 1, LOOP_ONCE)).toBe(0)
  })

  it('repeat: wraps into [0, duration) forwards and backwards; landing on the duration reads 0', () => {
    expect(advancePhase(0.75, 0.5, 1, LOOP_REPEAT)).toBe(0.25)
    expect(advancePhase(0.25, -0.5, 1, LOOP_REPEAT)).toBe(0.75)
    expect(advancePhase(0.5, 0.5, 1, LOOP_REPEAT)).toBe(0)
    expect(advancePhase(0, 3.25, 1, LOOP_REPEAT)).toBe(0.25)
    expect(advancePhase(0, -3.25, 1, LOOP_REPEAT)).toBe(0.75)
    // -1e-17 + 1 rounds to 1 (the period itself): must read 0, not the clip's end.
    expect(advancePhase(0, -1e-17, 1, LOOP_REPEAT)).toBe(0)
    // -5e-324 / 3.25 underflows to -0, so the floor step alone leaves the phase negative (found by fast-check).
    expect(advancePhase(1e-323, -1.5e-323, 3.25, LOOP_REPEAT)).toBe(0)
    expect(advancePhase(1e-323, -1.5e-323, 3.25, LOOP_PINGPONG)).toBe(0)
  })

  it('ping-pong: wraps into [0, 2·duration); clip-local time goes up then back down', () => {
    expect(advancePhase(0.75, 0.5, 1, LOOP_PINGPONG)).toBe(1.25)
    expect(localTime(1.25, 1, LOOP_PINGPONG)).toBe(0.75)
    expect(advancePhase(1.75, 0.5, 1, LOOP_PINGPONG)).toBe(0.25)
    expect(advancePhase(0.25, -0.5, 1, LOOP_PINGPONG)).toBe(1.75)
    expect(localTime(1.75, 1, LOOP_PINGPONG)).toBe(0.25)
    expect(localTime(1, 1, LOOP_PINGPONG)).toBe(1)
    // Only ping-pong reflects.
    expect(localTime(0.5, 1, LOOP_REPEAT)).toBe(0.5)
  })

  it('a zero-length clip stays at 0 in every mode', () => {
    for (const loop of [LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG]) {
      expect(advancePhase(0, 0.5, 0, loop)).toBe(0)
      expect(advancePhase(0, -0.5, 0, loop)).toBe(0)
    }
  })

  it('for all inputs: the result is in range and congruent to phase + delta', () => {
    fc.assert(
      fc.property(
        finite(1e-3, 100),
        finite(0, 1),
        finite(-50, 50),
        fc.constantFrom(LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG),
        (duration, phaseFraction, delta, loop) => {
          const period = loop === LOOP_PINGPONG ? 2 * duration : duration
          const phase = phaseFraction * period * (loop === LOOP_ONCE ? 1 : 0.999999)
          const p = advancePhase(phase, delta, duration, loop)
          if (loop === LOOP_ONCE) {
            expect(p).toBe(Math.min(duration, Math.max(0, phase + delta)))
            return
          }
          expect(p).toBeGreaterThanOrEqual(0)
          expect(p).toBeLessThan(period)
          // Congruent modulo the period (compare on the circle: a value near 0 and one near the period agree).
          const d = Math.abs(p - mod(phase + delta, period))
          expect(Math.min(d, period - d)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(phase + delta)))
          const t = localTime(p, duration, loop)
          expect(t).toBeGreaterThanOrEqual(0)
          expect(t).toBeLessThanOrEqual(duration)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('stays accurate over a long run: 10^6 steps of 1/60 s on a 0.7 s loop', () => {
    const dt = 1 / 60
    let p = 0
    for (let k = 0; k < 1_000_000; k++) p = advancePhase(p, dt, 0.7, LOOP_REPEAT)
    // Exact: 10^6/60 s = 16666.66… s; mod 0.7 = 0.4666… (in exact rationals: 10^6/60 − 23809·0.7).
    const exact = 1_000_000 / 60 - 23809 * 0.7
    expect(p).toBeGreaterThanOrEqual(0)
    expect(p).toBeLessThan(0.7)
    expect(Math.abs(p - exact)).toBeLessThan(1e-9)
  })
})
