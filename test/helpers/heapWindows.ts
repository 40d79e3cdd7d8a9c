/**
 * Heap measurement for the allocation tests that run in a process of their own (node --expose-gc): the bytes
 * the heap grew by over each of 12 windows of `run(n)`, after `run(warm)` optimized every path. A window in
 * which a garbage collection ran, or for which `keep()` (asked right after it) says no, is left out.
 */
import { performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import { collectGarbage, createGcTracker } from '../../scripts/bench/measure.ts'

/**
 * The node flags of an allocation measurement's process: --expose-gc, and V8's optimizing compiles done on the
 * main thread when a function turns hot. Compiled concurrently (the default), a loaded machine starves the
 * compiler's thread, the windows run in the interpreter, which boxes doubles, and a step that allocates nothing
 * when optimized shows ~80 bytes a step for as long as the compile waits; compiled in line, the warm-up ends
 * optimized whatever the load.
 */
export const ALLOCATION_NODE_FLAGS = ['--expose-gc', '--no-concurrent-recompilation', '--no-concurrent-osr']

export async function heapWindows(
  run: (n: number) => void,
  n: number,
  keep: () => boolean = () => true,
  warm = 20000,
): Promise<number[]> {
  if (!collectGarbage()) throw new Error('run with node --expose-gc')
  const tracker = createGcTracker()
  const used = (): number => getHeapStatistics().used_heap_size
  run(warm)
  const out: number[] = []
  collectGarbage()
  for (let w = 0; w < 12; w++) {
    const t0 = performance.now()
    // Two reads back to back: what reading the heap itself costs, taken off the window.
    const b0 = used()
    const b1 = used()
    const h0 = used()
    run(n)
    const h1 = used()
    const t1 = performance.now()
    // Judged by time (measure.ts says why); settle() also forces the GC the next window starts from.
    const clean = (await tracker.settle(t1)) && !tracker.ranBetween(t0, t1)
    if (clean && keep()) out.push(h1 - h0 - (b1 - b0))
  }
  tracker.stop()
  return out
}
