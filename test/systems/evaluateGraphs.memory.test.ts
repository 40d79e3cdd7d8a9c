/**
 * evaluateGraphs allocates nothing: neither in steps where graphs only follow their parameters nor in steps
 * where transitions start on every kind of layer (the layer calls they make included), once V8 has optimized
 * them. Measured in processes of their own (test/helpers/graphAllocation.ts says why and how).
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

function windows(scenario: 'steady' | 'busy'): number[] {
  const out = execFileSync(
    process.execPath,
    [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/graphAllocation.ts', scenario],
    { encoding: 'utf8', timeout: 180_000 },
  )
  // A negative window is the sweeper finishing the warm-up's garbage: it says nothing about the steps.
  return (JSON.parse(out) as number[]).filter((b) => b >= 0).sort((x, y) => x - y)
}

describe('evaluateGraphs: memory', () => {
  for (const scenario of ['steady', 'busy'] as const) {
    it(`allocates nothing in 64 steps of 12 characters (${scenario})`, () => {
      const clean = windows(scenario)
      expect(clean.length, `windows ${clean.join(', ')}`).toBeGreaterThanOrEqual(3)
      // Anything allocated per step or per transition (a boxed float, a closure) shows in every window.
      expect(clean[0], `windows ${clean.join(', ')}`).toBe(0)
      expect(clean[clean.length >> 1], `windows ${clean.join(', ')}`).toBe(0)
    })
  }
})
