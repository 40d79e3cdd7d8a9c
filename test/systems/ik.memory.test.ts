/**
 * Pose stages and IK allocate nothing per step, and neither do the IK jobs. Measured in a process of its own
 * (test/helpers/ikAllocation.ts says what and how).
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ALLOCATION_NODE_FLAGS } from '../helpers/heapWindows.ts'

describe('pose stages and IK: memory', () => {
  it('a step with every solver and a stage allocates nothing; nor do the jobs', () => {
    const out = execFileSync(
      process.execPath,
      [...ALLOCATION_NODE_FLAGS, '--import', 'tsx', 'test/helpers/ikAllocation.ts'],
      { encoding: 'utf8', timeout: 120_000 },
    )
    const { steps, jobs } = JSON.parse(out) as { steps: number[]; jobs: number[] }
    for (const windows of [steps, jobs]) {
      const clean = windows.filter((b) => b >= 0).sort((x, y) => x - y)
      expect(clean.length, `windows ${windows.join(', ')}`).toBeGreaterThanOrEqual(3)
      // Zero bytes in a window: anything allocated per step (a boxed float, a closure) shows in every window.
      expect(clean[0], `windows ${windows.join(', ')}`).toBe(0)
      expect(clean[clean.length >> 1], `windows ${windows.join(', ')}`).toBe(0)
    }
  })
})
