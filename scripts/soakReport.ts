/**
 * The soak's report: the heap trend, the printed summary and the verdict on the heap (scripts/soak.ts).
 */
import type { HeapSample, SoakReport } from './soak.ts'

/** Least-squares slope of heapUsed over simulated time, bytes per simulated minute (0 for < 2 samples). */
export function slope(samples: readonly HeapSample[], dt: number): number {
  const n = samples.length
  if (n < 2) return 0
  let sx = 0
  let sy = 0
  for (const s of samples) {
    sx += s.step * dt
    sy += s.heapUsed
  }
  const mx = sx / n
  const my = sy / n
  let num = 0
  let den = 0
  for (const s of samples) {
    num += (s.step * dt - mx) * (s.heapUsed - my)
    den += (s.step * dt - mx) ** 2
  }
  return den === 0 ? 0 : (num / den) * 60
}

export const MB = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MB`

/** Human-readable summary of a report. */
export function formatSoak(r: SoakReport): string {
  const h = r.heap
  return [
    `soak: ${r.options.characters} Fox characters, ${(r.simulatedSeconds / 60).toFixed(1)} simulated minutes ` +
      `(${r.steps} steps), seed ${r.options.seed}`,
    `time: ${r.wallSeconds.toFixed(1)} s wall, ${r.stepSeconds.toFixed(1)} s in step(): ` +
      `${r.stepsPerSecond.toFixed(0)} steps/s, ${((r.stepSeconds * 1000) / r.steps).toFixed(3)} ms/step, ` +
      `${r.realtimeFactor.toFixed(1)}× real time; ${r.cpuSeconds.toFixed(1)} s CPU ` +
      `(${((r.cpuSeconds * 1000) / r.steps).toFixed(3)} ms per step, all included)`,
    `checks: ${r.checks} passed (finite scene graph, bodies = live ragdolls, pool used = live blocks)`,
    `actions: ${Object.entries(r.actions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `events: ${
      Object.entries(r.events)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
    `ragdolls at once: max ${r.maxRagdolls} (${r.maxBodies} bodies); pose pool ${r.poolSlots} slots`,
    `heap after GC${r.options.gc ? '' : ' (no --expose-gc: no GC before samples)'}: first ${MB(h.first)}, ` +
      `last ${MB(h.last)}, min ${MB(h.min)}, max ${MB(h.max)} (${h.samples.length} samples); after warm-up ` +
      `(step ${h.warm.step}: ${MB(h.warm.heapUsed)}) the trend is ${(h.slopePerMinute / 1024).toFixed(1)} KB ` +
      `per simulated minute`,
    `hash: ${r.hash}`,
  ].join('\n')
}

/**
 * The verdict on the heap: flat when the last sample exceeds the first one after warm-up by less than
 * `tolerance` bytes, and the trend after warm-up, projected over the whole run, stays under `tolerance` too.
 */
export function heapVerdict(
  r: SoakReport,
  tolerance: number,
): { flat: boolean; growth: number; trend: number } {
  const growth = r.heap.last - r.heap.warm.heapUsed
  const trend = (r.heap.slopePerMinute * r.simulatedSeconds) / 60
  return { flat: growth < tolerance && trend < tolerance, growth, trend }
}
