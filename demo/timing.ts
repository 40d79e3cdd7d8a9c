import type { World } from 'bitecs'
import type { AnimationPlugin } from '../entry/index.ts'

/**
 * Frame-time readout for the demo only: wraps each of `plugin.systems` with performance.now(), in place, so
 * `plugin.step()` keeps running exactly its own sequence (and its step counter, which the state hash covers).
 * Clock reads here are outside the simulation: they time it, they never feed it.
 *
 * Totals are milliseconds summed since the last `take()`; `take(frames)` turns them into per-frame averages.
 */
export interface SystemTimer {
  /** Names of the timed rows: the systems, in step order, then the demo's own rows. */
  readonly names: readonly string[]
  /** Adds `ms` to one of the demo's own rows ('three sync', 'draw'). */
  add(name: string, ms: number): void
  /** Per-frame averages over `frames` frames, then resets. */
  take(frames: number): { name: string; ms: number }[]
  /** System calls timed so far: stays 0 while steps run if the plugin stopped running `plugin.systems`. */
  readonly calls: number
}

export function wrapSystems(plugin: AnimationPlugin, extra: readonly string[]): SystemTimer {
  const list = plugin.systems as unknown as ((world: World) => void)[]
  const systemNames = list.map((s, i) => s.name || `system ${i}`)
  const names = [...systemNames, ...extra]
  const totals = new Float64Array(names.length)
  let calls = 0
  list.forEach((system, i) => {
    const timed = (world: World): void => {
      const t0 = performance.now()
      system(world)
      totals[i]! += performance.now() - t0
      calls++
    }
    // The wrapper keeps the system's name: plugin.systems still reads sampleTracks, not timed.
    Object.defineProperty(timed, 'name', { value: systemNames[i] })
    list[i] = timed
  })
  return {
    names,
    get calls() {
      return calls
    },
    add(name, ms) {
      const i = names.indexOf(name)
      if (i >= 0) totals[i]! += ms
    },
    take(frames) {
      const out = names.map((name, i) => ({ name, ms: totals[i]! / Math.max(1, frames) }))
      totals.fill(0)
      return out
    },
  }
}

/** The readout's window: frames, their wall time and the steps they ran since it last refreshed. */
export interface StatsWindow {
  countStep(): void
  countFrame(ms: number): void
  /** Whether `everyMs` of frames have passed since the last take. */
  readonly due: boolean
  /** The window's timings (per-frame averages) and its readout lines; starts a new window. */
  take(): { rows: { name: string; ms: number }[]; lines: string[] }
}

export function createStatsWindow(timer: SystemTimer, everyMs: number): StatsWindow {
  let frames = 0
  let ms = 0
  let steps = 0
  let allSteps = 0
  return {
    countStep() {
      steps++
      allSteps++
    },
    countFrame(elapsed) {
      frames++
      ms += elapsed
    },
    get due() {
      return ms >= everyMs
    },
    take() {
      const rows = timer.take(frames)
      const frameMs = ms / frames
      const lines = [
        `frame ${frameMs.toFixed(1)} ms (${(1000 / frameMs).toFixed(0)} fps), ${(steps / frames).toFixed(2)} steps/frame`,
        ...rows.map((r) => `  ${r.name.padEnd(20)} ${r.ms.toFixed(3)} ms`),
        timer.calls === 0 && allSteps > 0
          ? '  (systems not timed: the plugin no longer runs plugin.systems)'
          : '',
      ]
      frames = 0
      ms = 0
      steps = 0
      return { rows, lines }
    },
  }
}
