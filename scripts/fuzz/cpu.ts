/**
 * The CPU time of one thread, from Linux's /proc (utime + stime). A run's wall time on a shared machine counts
 * every other process's turn too: at a load of 11 on 2 cores, call sequences that take 0.7 s alone took 4 s of
 * wall time in the library. Its thread's CPU time does not, so the time target judges that (pipeline.ts), and
 * the pool stops a run by it (pool.ts). null where /proc is not there (the fuzzer then falls back to wall time).
 */
import { readFileSync } from 'node:fs'

/** /proc counts in clock ticks of USER_HZ, which is 100 on every Linux ABI. */
const TICK_MS = 10

/** The CPU milliseconds /proc/…/stat of a thread reports (10 ms steps), or null. */
function cpuOf(path: string): number | null {
  try {
    const text = readFileSync(path, 'latin1')
    // The fields after "pid (comm) ": state is field 3, utime 14 and stime 15.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks * TICK_MS : null
  } catch {
    return null
  }
}

/** CPU milliseconds of the calling thread so far, or null. */
export const threadCpuMs = (): number | null => cpuOf('/proc/thread-self/stat')

/** The calling thread's id (for `taskCpuMs` in another thread of the process), or null. */
export function threadId(): number | null {
  try {
    const id = Number.parseInt(readFileSync('/proc/thread-self/stat', 'latin1'), 10)
    return Number.isInteger(id) ? id : null
  } catch {
    return null
  }
}

/** CPU milliseconds so far of thread `tid` of this process, or null. */
export const taskCpuMs = (tid: number): number | null => cpuOf(`/proc/self/task/${tid}/stat`)
