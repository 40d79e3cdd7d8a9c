/**
 * Measuring tools for the benchmark: interleaved timing rounds, garbage-collection events, heap bytes allocated.
 *
 * Timing: each round runs the same number of steps on every side, one side after the other, the order
 * alternating round to round (so neither side always runs on a cache warmed, or a heap littered, by the other);
 * the result is the median round. Clock: performance.now() around a whole round, never around one call; also
 * process.cpuUsage() (this process's CPU time, all its threads, so GC and JIT helper threads count too): when
 * other processes load the machine, wall time grows and CPU time much less.
 *
 * GC: a PerformanceObserver on 'gc' entries. Entries arrive asynchronously, so callers `await tracker.flush()`
 * before reading; each entry is attributed to the timing window (side, round) its start time falls in. A heap
 * window is judged by time, not by counting entries: on a loaded machine the entry of the GC forced just before
 * a window can arrive after it, and counting would then throw out every window (`settle` waits for delivery).
 *
 * Heap bytes allocated per step, two methods:
 *   exact    `v8.getHeapStatistics().used_heap_size` before and after a window of steps in which no GC ran
 *            (checked with the tracker): the difference is exactly what the window allocated, minus a
 *            calibrated baseline (the statistics object of the first reading). Exact means exact: 0 is reported
 *            only when a whole window of `steps` steps grew the heap by nothing.
 *            When the windows of `steps` saw a GC, one shorter window (sampledSteps) without one is still exact.
 *   sampled  when every window saw a GC (a side that allocates megabytes per step), V8's sampling heap profiler
 *            with `includeObjectsCollectedByMinorGC/MajorGC`, so collected objects count too; the estimate is
 *            the profile's total (sample sizes scaled by V8 for the sampling rate) over the window.
 */
import { Session } from 'node:inspector/promises'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import v8 from 'node:v8'

export interface GcEvent {
  /** performance.now() time the GC started, ms. */
  start: number
  /** Pause, ms. */
  duration: number
}

export interface GcTracker {
  readonly events: GcEvent[]
  /** Yields once to the event loop: entries already queued are delivered (a loaded machine may queue later). */
  flush(): Promise<void>
  /**
   * Forces a GC and waits (up to 5 s) until its entry is delivered: every GC that started before `after` has
   * then been seen, however late the observer runs. False when the entry never came (or no --expose-gc).
   */
  settle(after: number): Promise<boolean>
  /** Whether a GC started in [t0, t1] (performance.now() times), among the entries delivered so far. */
  ranBetween(t0: number, t1: number): boolean
  stop(): void
}

export function createGcTracker(): GcTracker {
  const events: GcEvent[] = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) events.push({ start: e.startTime, duration: e.duration })
  })
  observer.observe({ entryTypes: ['gc'] })
  const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0))
  return {
    events,
    flush,
    async settle(after) {
      if (!collectGarbage()) return false
      const deadline = performance.now() + 5000
      while (!events.some((e) => e.start >= after)) {
        if (performance.now() > deadline) return false
        await new Promise((resolve) => setTimeout(resolve, 1))
      }
      return true
    },
    ranBetween: (t0, t1) => events.some((e) => e.start >= t0 && e.start <= t1),
    stop: () => observer.disconnect(),
  }
}

/** Forces a full GC when the process runs with --expose-gc; returns whether it could. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) return false
  gc()
  return true
}

export interface Side {
  readonly name: string
  /** Runs `steps` fixed steps. */
  run(steps: number): void
}

export interface Window {
  start: number
  end: number
}

export interface RoundsResult {
  /** ms per step of each round, per side (in the order given): wall clock, and this process's CPU time. */
  msPerStep: number[][]
  cpuMsPerStep: number[][]
  windows: Window[][]
}

/**
 * Warms the sides up, every side the same step count (the correctness checks compare the sides at the same
 * step), in rounds of 10 until the FASTEST side has run `budgetMs` of CPU time — or the slowest side 8 ×
 * budgetMs, or 3000 steps. A budget of both sides together left a side 7× faster than the other still tiering
 * up when timing began, and V8's background compile jobs landed in its timed CPU. `fixedSteps` > 0 runs exactly
 * that many instead. Returns the steps run.
 */
export function warmUp(sides: readonly Side[], budgetMs: number, fixedSteps: number): number {
  if (fixedSteps > 0) {
    runRounds(sides, fixedSteps, 1)
    return fixedSteps
  }
  const spent = sides.map(() => 0)
  let steps = 0
  while (steps < 3000 && Math.min(...spent) < budgetMs && Math.max(...spent) < 8 * budgetMs) {
    const r = runRounds(sides, 10, 1)
    for (let i = 0; i < sides.length; i++) spent[i]! += r.cpuMsPerStep[i]![0]! * 10
    steps += 10
  }
  return steps
}

/** `rounds` interleaved rounds of `steps` steps per side; side order alternates each round. */
export function runRounds(sides: readonly Side[], steps: number, rounds: number): RoundsResult {
  const msPerStep = sides.map(() => [] as number[])
  const cpuMsPerStep = sides.map(() => [] as number[])
  const windows = sides.map(() => [] as Window[])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = r % 2 === 0 ? k : sides.length - 1 - k
      const cpu = process.cpuUsage()
      const start = performance.now()
      sides[i]!.run(steps)
      const end = performance.now()
      const used = process.cpuUsage(cpu)
      msPerStep[i]!.push((end - start) / steps)
      cpuMsPerStep[i]!.push((used.user + used.system) / 1000 / steps)
      windows[i]!.push({ start, end })
    }
  }
  return { msPerStep, cpuMsPerStep, windows }
}

/** GC events whose start falls inside any of the windows: count and total pause (ms). */
export function gcInWindows(
  events: readonly GcEvent[],
  windows: readonly Window[],
): { count: number; ms: number } {
  let count = 0
  let ms = 0
  for (const e of events) {
    if (windows.some((w) => e.start >= w.start && e.start <= w.end)) {
      count++
      ms += e.duration
    }
  }
  return { count, ms }
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export interface Allocation {
  bytesPerStep: number
  method: 'exact' | 'sampled'
  /** Steps measured (per window for 'exact'). */
  steps: number
  /** Bytes per step of each exact window, null where a GC ran during it. */
  windows: (number | null)[]
}

/**
 * The bytes V8 allocates to grow an emptied array back to `n` elements: the storage a game's
 * `events.length = 0` hands back, and the next step's events ask for again. Growth follows V8's rule
 * (capacity + capacity / 2 + 16), each store a 16-byte header plus 8 bytes per slot.
 */
export function arrayRegrowthBytes(n: number): number {
  let bytes = 0
  for (let capacity = 0; capacity < n;) {
    capacity = capacity + (capacity >> 1) + 16
    bytes += 16 + 8 * capacity
  }
  return bytes
}

const usedHeap = (): number => v8.getHeapStatistics().used_heap_size

/** The bytes one `usedHeap()` reading adds to a window (its result object), measured on an empty window. */
async function heapBaseline(tracker: GcTracker): Promise<number> {
  const samples: number[] = []
  collectGarbage()
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now()
    const h0 = usedHeap()
    const h1 = usedHeap()
    const t1 = performance.now()
    if ((await tracker.settle(t1)) && !tracker.ranBetween(t0, t1)) samples.push(h1 - h0)
  }
  return samples.length > 0 ? median(samples) : 0
}

/**
 * Heap bytes one step allocates (see the header for the two methods): up to five exact windows of `steps`
 * steps (the first one at 0 settles it); the result is the smallest GC-free window (steady state: a one-off such
 * as a function being re-optimized after a late deopt, when it runs unoptimized for a while and boxes its floats,
 * or the late compile of a small function called once per step, which a cheap idle step reaches only after a few
 * thousand steps, shows in some windows only; any allocation that recurs within `steps` steps shows in all). Every window is reported. When no window
 * is GC-free the side clearly allocates, and the sampled estimate runs over `min(steps, sampledSteps)` steps
 * (a side allocating megabytes per step needs no thousand steps to show it, and a thousand would take minutes).
 * `side.run` should be warmed up first: the first calls of a function allocate its compiled code and feedback.
 */
export async function measureAllocation(
  side: Side,
  steps: number,
  tracker: GcTracker,
  sampledSteps = 100,
): Promise<Allocation> {
  const baseline = await heapBaseline(tracker)
  const windows: (number | null)[] = []
  collectGarbage()
  for (let w = 0; w < 5; w++) {
    const t0 = performance.now()
    const h0 = usedHeap()
    side.run(steps)
    const h1 = usedHeap()
    const t1 = performance.now()
    // settle() also forces the GC the next window starts from.
    const clean = (await tracker.settle(t1)) && !tracker.ranBetween(t0, t1)
    const bytes = clean ? Math.max(0, h1 - h0 - baseline) / steps : null
    windows.push(bytes)
    // Done at a window of exactly 0 (nothing to tell apart) or one that needed a GC (megabytes: the sampled
    // estimate says how many, more thousand-step windows would not).
    if (bytes === 0 || bytes === null) break
  }
  const exact = windows.filter((x): x is number => x !== null)
  if (exact.length > 0) return { bytesPerStep: Math.min(...exact), method: 'exact', steps, windows }
  const n = Math.min(steps, sampledSteps)
  // One GC in a long window can be incidental (the young generation left nearly full by the setup, a crowd of
  // slow steps): a short window without one is still exact. A side that allocates megabytes a step GCs there too.
  const t0 = performance.now()
  const h0 = usedHeap()
  side.run(n)
  const h1 = usedHeap()
  const t1 = performance.now()
  if ((await tracker.settle(t1)) && !tracker.ranBetween(t0, t1)) {
    const bytes = Math.max(0, h1 - h0 - baseline) / n
    return { bytesPerStep: bytes, method: 'exact', steps: n, windows: [...windows, bytes] }
  }
  return { bytesPerStep: (await sampleAllocation(side, n)) / n, method: 'sampled', steps: n, windows }
}

interface ProfileNode {
  selfSize: number
  children: ProfileNode[]
}

/** Total bytes allocated while running `steps` steps, estimated by V8's sampling heap profiler. */
async function sampleAllocation(side: Side, steps: number): Promise<number> {
  // Calibrate the sampling interval: ~1 sample per 4 KiB would be millions of samples for a side allocating
  // megabytes per step, so aim at ~200k samples over the window.
  collectGarbage()
  const probe = Math.max(1, Math.min(steps, 5))
  const session = new Session()
  session.connect()
  try {
    await session.post('HeapProfiler.enable')
    const rough = await sampled(session, side, probe, 4096)
    const interval = Math.max(512, Math.min(1 << 20, Math.round(((rough / probe) * steps) / 200_000)))
    return await sampled(session, side, steps, interval)
  } finally {
    await session.post('HeapProfiler.disable')
    session.disconnect()
  }
}

async function sampled(session: Session, side: Side, steps: number, interval: number): Promise<number> {
  // Node 20's V8 supports the two include flags; @types/node does not list them yet.
  const params = {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  }
  await session.post('HeapProfiler.startSampling', params)
  side.run(steps)
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: ProfileNode } }
  const total = (n: ProfileNode): number => n.children.reduce((s, c) => s + total(c), n.selfSize)
  return total(profile.head)
}

/** A Markdown table: the header, its rule, then the rows. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x
}
