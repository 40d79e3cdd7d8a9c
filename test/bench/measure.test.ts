import { describe, expect, it } from 'vitest'
import { warmUp, type Side } from '../../scripts/bench/measure.ts'

/**
 * A side that counts its steps and spins `msPerStep` of this process's CPU time per step (more on a busy machine:
 * a spin overshoots), keeping the CPU each call spent as warmUp's clock sees it.
 */
function spinning(name: string, msPerStep: number): Side & { steps: number; spentMs: number[] } {
  const side = {
    name,
    steps: 0,
    spentMs: [] as number[],
    run(n: number) {
      side.steps += n
      const start = process.cpuUsage()
      for (;;) {
        const used = process.cpuUsage(start)
        if ((used.user + used.system) / 1000 >= n * msPerStep) break
      }
      const used = process.cpuUsage(start)
      side.spentMs.push((used.user + used.system) / 1000)
    },
  }
  return side
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0)

describe('warmUp', () => {
  it('runs every side the same steps, until the fastest has spent the budget', () => {
    const fast = spinning('fast', 0.1)
    const slow = spinning('slow', 0.5)
    const steps = warmUp([fast, slow], 20, 0)
    expect(fast.steps).toBe(steps)
    expect(slow.steps).toBe(steps)
    // It stops at the first round of 10 after which the fast side has spent its 20 ms (about 200 steps; fewer
    // when spins overshoot on a busy machine), while the slow side is still under 8 × 20 ms. The sides' own
    // clocks read less than warmUp's around them, by up to a few ms on a busy machine (the process's CPU time
    // is read at the kernel's accounting granularity; 16.6 ms was seen at load 4): a lower bound of 14 ms
    // still fails a warm-up that stops at the slow side's pace or at a fixed step count (4 ms at 40 steps).
    expect(fast.spentMs.length).toBe(steps / 10)
    const fastMs = sum(fast.spentMs)
    expect(fastMs).toBeGreaterThanOrEqual(14)
    expect(fastMs - fast.spentMs[fast.spentMs.length - 1]!).toBeLessThan(20)
    expect(sum(slow.spentMs) - slow.spentMs[slow.spentMs.length - 1]!).toBeLessThan(160)
    expect(steps).toBeGreaterThanOrEqual(40)
  })

  it('stops where the slowest side passes 8 × the budget', () => {
    const fast = spinning('fast', 0.01)
    const slow = spinning('slow', 1)
    const steps = warmUp([fast, slow], 5, 0)
    // 40 steps make the slow side's 40 ms; the fast side has spent 0.4 ms of its 5.
    expect(steps).toBeLessThanOrEqual(50)
    expect(fast.steps).toBe(steps)
  })

  it('runs exactly fixedSteps when given', () => {
    const a = spinning('a', 0)
    const b = spinning('b', 0)
    expect(warmUp([a, b], 1000, 7)).toBe(7)
    expect([a.steps, b.steps]).toEqual([7, 7])
  })
})
