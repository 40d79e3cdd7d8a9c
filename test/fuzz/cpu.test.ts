/** The fuzz judge's thread clock (scripts/fuzz/cpu.ts): the stat file read in place agrees with a fresh read. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { forgetTask, taskCpuMs, threadCpuMs, threadId } from '../../scripts/fuzz/cpu.ts'

/** utime + stime of this thread, read and parsed afresh. */
function freshMs(): number {
  const text = readFileSync('/proc/thread-self/stat', 'latin1')
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

describe.runIf(process.platform === 'linux')('the thread CPU clock', () => {
  it('re-reads the open stat file: it follows the thread CPU time as a fresh read does', () => {
    const before = threadCpuMs()!
    let x = 0
    const end = freshMs() + 60
    while (freshMs() < end) for (let i = 0; i < 1e5; i++) x += Math.sqrt(i)
    const after = threadCpuMs()!
    expect(x).toBeGreaterThan(0)
    expect(after - before).toBeGreaterThanOrEqual(50)
    // Both 10 ms steps of the same counter, read moments apart.
    expect(Math.abs(after - freshMs())).toBeLessThanOrEqual(10)
    const tid = threadId()!
    expect(Math.abs(taskCpuMs(tid)! - freshMs())).toBeLessThanOrEqual(10)
    forgetTask(tid)
    expect(Math.abs(taskCpuMs(tid)! - freshMs())).toBeLessThanOrEqual(10)
  })

  it('is null for a thread that is not there', () => {
    expect(taskCpuMs(2 ** 31 - 1)).toBeNull()
  })
})
