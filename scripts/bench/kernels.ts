/**
 * `npm run bench -- --compare-kernels`: world-matrix propagation by kernels 'js' and 'wasm' on the bench's
 * playing crowd (every joint dirty every step). Each measurement is a fresh bundled child process holding one
 * plugin, as a game does; children alternate kernels (js, wasm, wasm, js, …) so that a change of the machine's
 * load falls on both; within a child the propagation system is timed inside whole steps (CPU time, median of
 * rounds). Reported: the median over children per kernel, and whether every child ended with the same hash().
 *
 * Why not two plugins in one process, or two passes over one store: V8 specializes a closure to the arrays it
 * closed over only while one plugin exists, and the JavaScript pass over a 'wasm' plugin's store (views into
 * WebAssembly memory) ran ~30 % slower than over its own plugin's arrays; either set-up measured the JavaScript
 * pass 1.3–1.7× slower than a game would see it (rig and Fox at 1000 characters, a loaded machine).
 */
import type { SceneKernels } from '../../components/SceneNode.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { makeCrowdPlan } from './crowd.ts'
import { createOurCrowd } from './ours.ts'
import { markdownTable, median, runRounds } from './measure.ts'
import { DEFAULT_FOX, type AssetName, type Settings } from './options.ts'
import { removeChildEntry, runInChild } from './child.ts'

/** One child's measurement: one plugin with one kernel. */
export interface KernelRun {
  kernels: SceneKernels
  /** Median CPU ms of the propagation system per step over the rounds, per node it recomputed in ns. */
  propagateMs: number
  nsPerNode: number
  /** Median CPU ms of the whole step, per joint in ns (the bench's `ours ns/joint`). */
  stepMs: number
  stepNsPerJoint: number
  /** Nodes recomputed by the last step (every animated joint: all dirty), and joints per character. */
  recomputed: number
  joints: number
  /** hash() after the fixed schedule of steps: the same for both kernels when their bits are. */
  hash: string
}

export interface KernelComparison {
  asset: AssetName
  characters: number
  joints: number
  rounds: number
  stepsPerRound: number
  runs: KernelRun[]
  /** Medians over the children of each kernel. */
  js: { nsPerNode: number; stepNsPerJoint: number }
  wasm: { nsPerNode: number; stepNsPerJoint: number }
  /** js ÷ wasm (> 1: the WebAssembly pass is faster), propagation and whole step. */
  propagateRatio: number
  stepRatio: number
  /** Every child ended with the same hash(). */
  sameBits: boolean
}

/** Steps per round: a fixed schedule, so that every child ends in the same state. */
const STEPS_PER_ROUND = 30
const WARMUP_STEPS = 40

/** One child's part: the playing crowd in one plugin with `kernels`, timed over `rounds` rounds. */
export function measureKernel(
  asset: AnimationAsset,
  name: AssetName,
  count: number,
  kernels: SceneKernels,
  settings: { rounds: number; dt: number },
): KernelRun {
  const clips = name === 'fox' ? { clipA: 1, clipB: 2 } : { clipA: 0, clipB: 1 }
  const plan = makeCrowdPlan(asset, count, 'playing', { ...clips, fadeSeconds: 1, dt: settings.dt })
  const crowd = createOurCrowd(plan, kernels)
  const { plugin, world } = crowd
  const systems = plugin.systems
  let spent = 0
  const propagateRounds: number[] = []
  const run = (steps: number) => {
    const before = spent
    for (let s = 0; s < steps; s++) {
      for (let i = 0; i < systems.length; i++) {
        const system = systems[i]!
        if (system.name !== 'propagateTransforms') {
          system(world)
          continue
        }
        const cpu = process.cpuUsage()
        system(world)
        const used = process.cpuUsage(cpu)
        spent += used.user + used.system
      }
      plugin.events.length = 0
    }
    propagateRounds.push((spent - before) / 1000 / steps)
  }
  run(WARMUP_STEPS)
  propagateRounds.length = 0
  const timed = runRounds([{ name: kernels, run }], STEPS_PER_ROUND, settings.rounds)
  const recomputed = plugin.sceneGraph.stats.recomputed
  const propagateMs = median(propagateRounds)
  const stepMs = median(timed.cpuMsPerStep[0]!)
  return {
    kernels,
    propagateMs,
    nsPerNode: (propagateMs * 1e6) / recomputed,
    stepMs,
    stepNsPerJoint: (stepMs * 1e6) / (count * crowd.joints),
    recomputed,
    joints: crowd.joints,
    hash: plugin.hash(),
  }
}

/**
 * Each asset's comparison at `count` characters: `children` child processes per kernel (at least 2),
 * alternating.
 */
export async function runKernelComparisons(
  assets: readonly AssetName[],
  count: number,
  children: number,
  settings: Settings,
  log: (line: string) => void,
): Promise<KernelComparison[]> {
  const out: KernelComparison[] = []
  try {
    for (const asset of assets) {
      const runs: KernelRun[] = []
      for (let c = 0; c < children; c++) {
        for (const kernels of c % 2 === 0 ? (['js', 'wasm'] as const) : (['wasm', 'js'] as const)) {
          const task = { kind: 'kernels', asset, count, kernels, foxPath: DEFAULT_FOX, settings } as const
          const r = await runInChild<KernelRun>(task, log)
          log(`${asset} ×${count} ${kernels}: propagation ${r.nsPerNode.toFixed(1)} ns/node`)
          runs.push(r)
        }
      }
      const of = (k: SceneKernels) => runs.filter((r) => r.kernels === k)
      const side = (k: SceneKernels) => ({
        nsPerNode: median(of(k).map((r) => r.nsPerNode)),
        stepNsPerJoint: median(of(k).map((r) => r.stepNsPerJoint)),
      })
      const js = side('js')
      const wasm = side('wasm')
      out.push({
        asset,
        characters: count,
        joints: runs[0]!.joints,
        rounds: settings.rounds,
        stepsPerRound: STEPS_PER_ROUND,
        runs,
        js,
        wasm,
        propagateRatio: js.nsPerNode / wasm.nsPerNode,
        stepRatio: js.stepNsPerJoint / wasm.stepNsPerJoint,
        sameBits: runs.every((r) => r.hash === runs[0]!.hash),
      })
    }
  } finally {
    await removeChildEntry()
  }
  return out
}

/** Markdown table of comparisons. */
export function formatKernelComparisons(results: readonly KernelComparison[]): string {
  const header = [
    'asset',
    'chars × joints',
    'nodes recomputed',
    'propagate ns/node js',
    'wasm',
    'js ÷ wasm',
    'step ns/joint js',
    'wasm',
    'js ÷ wasm',
    'children per kernel',
    'same hash',
  ]
  return markdownTable(
    header,
    results.map((r) => [
      r.asset,
      `${r.characters} × ${r.joints}`,
      r.runs[0]!.recomputed,
      r.js.nsPerNode.toFixed(1),
      r.wasm.nsPerNode.toFixed(1),
      `${r.propagateRatio.toFixed(2)}×`,
      r.js.stepNsPerJoint.toFixed(1),
      r.wasm.stepNsPerJoint.toFixed(1),
      `${r.stepRatio.toFixed(2)}×`,
      r.runs.length / 2,
      r.sameBits ? 'yes' : 'NO',
    ]),
  )
}
