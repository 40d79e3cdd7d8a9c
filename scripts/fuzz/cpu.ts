/**
 * The CPU time of one thread, from Linux's /proc (utime + stime). A run's wall time on a shared machine counts
 * every other process's turn too: at a load of 11 on 2 cores, call sequences that take 0.7 s alone took 4 s of
 * wall time in the library. Its thread's CPU time does not, so the time target judges that (pipeline.ts), and
 * the pool stops a run by it (pool.ts). null where /proc is not there (the fuzzer then falls back to wall time).
 *
 * Each stat file is opened once and re-read in place (pread at 0 into one buffer): readFileSync's open, fstat,
 * read, close and decode cost ~190 µs of CPU a read, and the judge reads its clock around every check.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs'

/** /proc counts in clock ticks of USER_HZ, which is 100 on every Linux ABI. */
const TICK_MS = 10

/** A stat line is well under 1 KiB. */
const buffer = Buffer.alloc(1024)
const SPACE = 0x20
const CLOSE = 0x29 // ')'

/** Open stat files by path; a path that could not be opened is kept as -1. */
const files = new Map<string, number>()

function fileOf(path: string): number {
  let fd = files.get(path)
  if (fd === undefined) {
    try {
      fd = openSync(path, 'r')
    } catch {
      fd = -1
    }
    files.set(path, fd)
  }
  return fd
}

/** The CPU milliseconds /proc/…/stat of a thread reports (10 ms steps), or null. */
function cpuOf(path: string): number | null {
  const fd = fileOf(path)
  if (fd < 0) return null
  let length: number
  try {
    length = readSync(fd, buffer, 0, buffer.length, 0)
  } catch {
    return null
  }
  // The fields after "pid (comm) ": state is field 3, utime 14 and stime 15 (the 12th and 13th after it).
  let at = buffer.lastIndexOf(CLOSE, length - 1) + 2
  let field = 0
  let ticks = 0
  let value = 0
  for (; at < length && field < 13; at++) {
    const c = buffer[at]!
    if (c === SPACE) {
      if (field === 11 || field === 12) ticks += value
      field++
      value = 0
    } else value = value * 10 + (c - 0x30)
  }
  return field === 13 && Number.isFinite(ticks) ? ticks * TICK_MS : null
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

/** Closes the stat file of thread `tid` (its worker has ended; thread ids are reused). */
export function forgetTask(tid: number): void {
  const path = `/proc/self/task/${tid}/stat`
  const fd = files.get(path)
  if (fd !== undefined && fd >= 0) closeSync(fd)
  files.delete(path)
}
