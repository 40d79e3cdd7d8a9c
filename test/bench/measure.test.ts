import { describe, expect, it } from 'vitest'
import { warmUp, type Side } from '../../scripts/bench/measure.ts'

/** A side that counts its steps and spins `msPerStep` of this process's CPU time per step. */
function spinning(name: string, msPerStep: number): Side & { steps: number } {
  const side = {
    name,
    steps: 0,
    run(n: number) {
      side.steps += n
      const start = process.cpuUsage()
      for (;;) {
        const used = process.cpuUsage(start)
        if ((used.user + used.system) / 1000 >= n * msPerStep) break
      }
    },
  }
  return side
}

describe('warmUp', () => {
  it('runs every side the same steps, until the fastest has spent the budget', () => {
    const fast = spinning('fast', 0.1)
    const slow = spinning('slow', 0.5)
    const steps = warmUp([fast, slow], 20, 0)
    expect(fast.steps).toBe(steps)
    expect(slow.steps).toBe(steps)
    // The fast side's 20 ms take 200 steps (fewer if a spin overshoots); the slow side stays under its 160 ms.
    expect(steps).toBeGreaterThanOrEqual(150)
    expect(steps).toBeLessThanOrEqual(210)
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
