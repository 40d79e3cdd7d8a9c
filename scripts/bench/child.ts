/**
 * Child processes of the benchmark: each task runs in a fresh Node process on the bundled scenario.ts, so the
 * project's timed crowd is the only animation plugin in its process, as in a game.
 */
import { spawn } from 'node:child_process'
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleForNode } from '../bundle.mjs'
import type { SceneKernels } from '../../components/SceneNode.ts'
import type { AssetName, Settings } from './options.ts'
import type { ScenarioDone, ScenarioJob } from './scenarioJob.ts'
import type { WorkersScenario } from './workers.ts'
import type { CompressionAsset } from './compression.ts'

/**
 * What a child process (scenario.ts) is asked to run: one scenario, the squad-vs-slerp comparison, or the
 * kernels comparison (kernels.ts).
 */
export type ChildTask =
  | { kind: 'scenario'; job: ScenarioJob; settings: Settings }
  | { kind: 'squad'; count: number; settings: Settings }
  | { kind: 'snapshots'; settings: Settings }
  | { kind: 'retarget'; settings: Settings }
  | { kind: 'ik'; settings: Settings }
  | {
      kind: 'graphs'
      side: 'graph' | 'hand'
      count: number
      recording: string
      foxPath: string
      settings: Settings
    }
  | {
      kind: 'kernels'
      asset: AssetName
      count: number
      kernels: SceneKernels
      foxPath: string
      settings: Settings
    }
  | {
      kind: 'compression'
      asset: CompressionAsset
      count: number
      compact: boolean
      foxPath: string
      settings: Settings
    }
  | {
      kind: 'workers'
      scenario: WorkersScenario
      workers: number
      mainWaits: boolean
      foxPath: string
      settings: Settings
    }

/**
 * The child entry (scenario.ts) bundled to plain JavaScript (scripts/bundle.mjs), made once per run: children run
 * it with plain `node`, not through tsx, which slows every typed-array access of the process it loads (the
 * project's step measured ~17 % slower: 58 against 49 ns per joint on the 64-joint rig). A game runs bundled
 * JavaScript, so the children do too. The bundle is written under node_modules/.cache, named by this process's
 * id, and removed when the run ends: worktrees of the project may share one node_modules (a symlink), and a
 * shared name let one worktree's run execute another's bundle.
 */
let childEntry: Promise<string> | null = null

function bundledChildEntry(): Promise<string> {
  childEntry ??= (async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url))
    const outfile = path.join(root, 'node_modules', '.cache', 'ecs-anim-bench', `scenario-${process.pid}.mjs`)
    await bundleForNode(fileURLToPath(new URL('./scenario.ts', import.meta.url)), outfile)
    return outfile
  })()
  return childEntry
}

/** Removes this run's child bundle, if it made one. */
export async function removeChildEntry(): Promise<void> {
  if (childEntry === null) return
  const entry = childEntry
  childEntry = null
  await rm(await entry, { force: true })
}

/** runScenarioJob in a fresh Node process (see bundledChildEntry), with --expose-gc. */
export function runScenarioInChild(job: ScenarioJob, settings: Settings, log: (line: string) => void) {
  return runInChild<ScenarioDone>({ kind: 'scenario', job, settings }, log)
}

/** A task in a fresh Node process running the bundled scenario.ts; its progress lines pass through. */
export async function runInChild<T>(task: ChildTask, log: (line: string) => void): Promise<T> {
  const entry = await bundledChildEntry()
  const child = spawn(process.execPath, ['--expose-gc', entry, JSON.stringify(task)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d
    for (const line of d.split('\n')) if (line.startsWith('progress: ')) log(line.slice(10))
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) {
    const what =
      task.kind === 'scenario' ? `${task.job.asset} ${task.job.crowd} ${task.job.count}` : task.kind
    throw new Error(`bench ${what}: child exited ${code}\n${err}`)
  }
  return JSON.parse(out) as T
}
