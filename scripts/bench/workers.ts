/**
 * `npm run bench -- --compare-workers`: the project's whole step with the plugin's `workers` option at 0 and
 * 2 (or `--workers a,b,…`), on the 64-joint rig's playing crowd of 10,000 and the crowds of 1000. Each
 * measurement is a fresh bundled child process holding one plugin (as a game does); children alternate the
 * worker counts so that a change of the machine's load falls on all of them. Within a child: the workers
 * started, a warm-up, then rounds of steps, each timed by the wall clock (what parallelism shortens) and by
 * the process's CPU time (every thread's: what it costs the machine). Reported: the median over children of
 * each child's median round, the speed-up of the wall time against the first count, and whether every child
 * of a scenario ended with the same hash() (a fixed schedule of steps: it must, for any worker count).
 *
 * On a shared machine the wall time also counts the time other processes held the cores: read it with the
 * load average printed beside it.
 */
import { readFileSync } from 'node:fs'
import { contextOf } from '../../entry/plugin.ts'
import { CTL_DONE } from '../../systems/workers/pool.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { makeCrowdPlan, type CrowdKind } from './crowd.ts'
import { createOurCrowd } from './ours.ts'
import { markdownTable, median, runRounds } from './measure.ts'
import { DEFAULT_FOX, type AssetName, type Settings } from './options.ts'
import { planOptions } from './scenarioJob.ts'
import { removeChildEntry, runInChild } from './child.ts'

/** One child's measurement: one plugin with one worker count. */
export interface WorkersRun {
  workers: number
  /** Median wall and CPU (all threads) ms per step over the rounds. */
  wallMs: number
  cpuMs: number
  /** CPU ms per step of the calling thread alone over the timed rounds (Linux only; NaN elsewhere). */
  mainCpuMs: number
  /** Items the workers worked on (0 would mean they never took part). */
  workerItems: number
  hash: string
}

/** A scenario of the comparison: asset, crowd, characters. */
export interface WorkersScenario {
  asset: AssetName
  crowd: CrowdKind
  characters: number
}

export interface WorkersComparison extends WorkersScenario {
  joints: number
  runs: WorkersRun[]
  /** Per worker count (in the order asked): median wall and CPU ms per step over its children. */
  counts: { workers: number; wallMs: number; cpuMs: number; mainCpuMs: number; speedup: number }[]
  sameBits: boolean
}

/**
 * The comparison's scenarios: by default the rig playing at 10,000, then every crowd of the chosen assets at
 * 1000; with `characters` (the bench's --characters), every crowd at each of those counts.
 */
export function workersScenarios(
  assets: readonly AssetName[],
  crowds: readonly CrowdKind[],
  characters?: readonly number[],
): WorkersScenario[] {
  const out: WorkersScenario[] = []
  if (characters !== undefined) {
    for (const count of characters)
      for (const asset of assets) for (const crowd of crowds) out.push({ asset, crowd, characters: count })
    return out
  }
  if (assets.includes('rig-linear') && crowds.includes('playing'))
    out.push({ asset: 'rig-linear', crowd: 'playing', characters: 10000 })
  for (const asset of assets) for (const crowd of crowds) out.push({ asset, crowd, characters: 1000 })
  return out
}

const STEPS_PER_ROUND = 20
const WARMUP_STEPS = 40

/** One child's part: the scenario's crowd in one plugin with `workers`, timed over `rounds` rounds. */
export async function measureWorkers(
  asset: AnimationAsset,
  scenario: WorkersScenario,
  workers: number,
  settings: { rounds: number; dt: number },
  mainWaits = false,
): Promise<WorkersRun & { joints: number }> {
  const plan = makeCrowdPlan(asset, scenario.characters, scenario.crowd, {
    ...planOptions(scenario.asset, scenario.crowd),
    fadeSeconds: 3600,
    dt: settings.dt,
  })
  const crowd = createOurCrowd(plan, 'js', workers)
  const parallel = contextOf(crowd.plugin).parallel
  await parallel?.ready()
  if (parallel !== null && mainWaits) parallel.mainWorks = false
  crowd.run(WARMUP_STEPS)
  const main0 = mainThreadCpuMs()
  const timed = runRounds([{ name: `workers ${workers}`, run: crowd.run }], STEPS_PER_ROUND, settings.rounds)
  const mainCpuMs = (mainThreadCpuMs() - main0) / (STEPS_PER_ROUND * settings.rounds)
  let workerItems = 0
  for (let w = 0; w < workers; w++) workerItems += parallel!.control[CTL_DONE + w]!
  const run = {
    workers,
    wallMs: median(timed.msPerStep[0]!),
    cpuMs: median(timed.cpuMsPerStep[0]!),
    mainCpuMs,
    workerItems,
    hash: crowd.plugin.hash(),
    joints: crowd.joints,
  }
  crowd.plugin.dispose()
  return run
}

/**
 * CPU ms the calling thread has used (Linux: /proc/self/task/<pid>/stat, in clock ticks of 10 ms; NaN
 * elsewhere): with the workers doing every chunk (`--main-waits`), the step's serial part.
 */
function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** Each scenario at each worker count, `children` child processes per count, alternating the order. */
export async function runWorkersComparisons(
  scenarios: readonly WorkersScenario[],
  counts: readonly number[],
  children: number,
  settings: Settings,
  log: (line: string) => void,
  mainWaits = false,
): Promise<WorkersComparison[]> {
  const out: WorkersComparison[] = []
  try {
    for (const scenario of scenarios) {
      const runs: WorkersRun[] = []
      let joints = 0
      for (let c = 0; c < children; c++) {
        for (const workers of c % 2 === 0 ? counts : [...counts].reverse()) {
          const task = {
            kind: 'workers',
            scenario,
            workers,
            mainWaits,
            foxPath: DEFAULT_FOX,
            settings,
          } as const
          const r = await runInChild<WorkersRun & { joints: number }>(task, log)
          const what = `${scenario.asset} ${scenario.crowd} ×${scenario.characters} workers ${workers}`
          log(
            `${what}: ${r.wallMs.toFixed(2)} ms/step wall, ${r.cpuMs.toFixed(2)} CPU, ${r.mainCpuMs.toFixed(1)} main`,
          )
          joints = r.joints
          runs.push(r)
        }
      }
      const of = (w: number) => runs.filter((r) => r.workers === w)
      const base = median(of(counts[0]!).map((r) => r.wallMs))
      out.push({
        ...scenario,
        joints,
        runs,
        counts: counts.map((w) => {
          const wallMs = median(of(w).map((r) => r.wallMs))
          const cpuMs = median(of(w).map((r) => r.cpuMs))
          return {
            workers: w,
            wallMs,
            cpuMs,
            mainCpuMs: median(of(w).map((r) => r.mainCpuMs)),
            speedup: base / wallMs,
          }
        }),
        sameBits: runs.every((r) => r.hash === runs[0]!.hash),
      })
    }
  } finally {
    await removeChildEntry()
  }
  return out
}

/** Markdown table of comparisons. */
export function formatWorkersComparisons(results: readonly WorkersComparison[]): string {
  const counts = results[0]?.counts.map((c) => c.workers) ?? []
  const header = [
    'scenario',
    'chars × joints',
    ...counts.map((w) => `workers ${w}: wall ms (CPU ms, calling thread's)`),
    ...counts.slice(1).map((w) => `speed-up ${w}`),
    'same hash',
  ]
  return markdownTable(
    header,
    results.map((r) => [
      `${r.asset} ${r.crowd}`,
      `${r.characters} × ${r.joints}`,
      ...r.counts.map((c) => `${c.wallMs.toFixed(2)} (${c.cpuMs.toFixed(2)}, ${c.mainCpuMs.toFixed(1)})`),
      ...r.counts.slice(1).map((c) => `${c.speedup.toFixed(2)}×`),
      r.sameBits ? 'yes' : 'NO',
    ]),
  )
}
