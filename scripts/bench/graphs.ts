/**
 * `npm run bench -- --compare-graphs`: a crowd of Foxes on a six-state graph (setGraph) against the same crowd
 * driven by hand: the public calls (crossFade, play, playBlendSpace, setBlendParameter) made at the steps the
 * graph decided, recorded once beforehand (graphReplay.ts). Both sides run the same schedule of game inputs and
 * end with the same world matrices (checked); the graph side pays for its decisions and its setParameter calls,
 * the hand side for its calls' checks. Each measurement is a fresh bundled child process holding one plugin;
 * children alternate sides (graph, hand, hand, graph, …) so a change of the machine's load falls on both.
 */
import { createWorld } from 'bitecs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationGraph } from '../../entry/index.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createHasher } from '../../src/sim/hasher.ts'
import { markdownTable, median, runRounds } from './measure.ts'
import { DEFAULT_FOX, type Settings } from './options.ts'
import { removeChildEntry, runInChild } from './child.ts'
import { entryEntries, prepareByHand, recordingStep, replayEntries, type GraphEntry } from './graphReplay.ts'

/**
 * Six states on the Fox's three clips (Survey 3.29 s, Walk 0.71 s, Run 0.58 s): idle, walk, run, a walk-run blend
 * space on `speed`, a slow look around, a sprint; `mode` picks one, with a fade of 0.2–0.4 s.
 */
export const FOX_GRAPH: AnimationGraph = {
  parameters: { mode: { type: 'int' }, speed: { type: 'float', default: 1 } },
  layers: [
    {
      name: 'base',
      entry: 'idle',
      states: {
        idle: { clip: 'Survey' },
        walk: { clip: 'Walk' },
        run: { clip: 'Run' },
        move: {
          blendSpace: {
            points: [
              { clip: 'Walk', at: 1 },
              { clip: 'Run', at: 3 },
            ],
            parameter: 'speed',
          },
        },
        look: { clip: 'Survey', speed: 0.5 },
        sprint: { clip: 'Run', speed: 1.5 },
      },
      transitions: ['idle', 'walk', 'run', 'move', 'look', 'sprint'].map((to, mode) => ({
        from: 'any',
        to,
        when: [['mode', '==', mode] as const],
        duration: 0.2 + 0.04 * mode,
      })),
    },
  ],
}

/**
 * Steps before timing: every character has been in every state by then (its mode cycles through the six, one
 * every 120 steps, from an offset under 120), so both sides have made the layer stacks their blend spaces need
 * (a stack, once made, stays: sampleTracks and composeLayers then run the layered path for it).
 */
const WARMUP_STEPS = 840
const STEPS_PER_ROUND = 40
/** The speeds the schedule sets, boxed once (see test/helpers/graphAllocation.ts). */
const SPEEDS: unknown[] = [1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 'boxed']

/** The game's inputs before step `s` to character number c: a new mode every 2 s (staggered), a speed every 4th. */
function inputs(s: number, c: number, set: (name: 'mode' | 'speed', value: number) => void): void {
  const k = s + 37 * c
  if (k % 120 === 0) set('mode', (k / 120 + c) % 6)
  if (k % 4 === 0) set('speed', SPEEDS[(k / 4) % 8] as number)
}

function crowd(asset: AnimationAsset, count: number): { plugin: AnimationPlugin; ids: number[] } {
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: count * (asset.nodes.length + 1) + 16,
    maxPoseSlots: Math.max(1024, count * asset.nodes.length * 24),
  })
  const handle = plugin.addAsset(asset)
  return { plugin, ids: Array.from({ length: count }, () => plugin.addCharacter(handle)) }
}

/** The graph side's decisions over `steps` steps: per step, what each layer entered and each blend space moved. */
export function recordGraphRun(asset: AnimationAsset, count: number, steps: number): GraphEntry[][] {
  const { plugin, ids } = crowd(asset, count)
  for (const eid of ids) plugin.setGraph(eid, FOX_GRAPH)
  const log: GraphEntry[] = []
  const step = recordingStep(plugin, log)
  const out: GraphEntry[][] = []
  for (let s = 0; s < steps; s++) {
    for (let c = 0; c < ids.length; c++) inputs(s, c, (name, v) => plugin.setParameter(ids[c]!, name, v))
    log.length = 0
    step()
    plugin.events.length = 0
    out.push([...log])
  }
  return out
}

/** One child's measurement: one side, one plugin. */
export interface GraphSideRun {
  side: 'graph' | 'hand'
  /** Median CPU ms per step over the rounds. */
  msPerStep: number
  /** Digest of every joint's world matrix after the schedule: the same on both sides. */
  digest: string
}

/** One child's part: `side`'s crowd of `count` Foxes over the recorded schedule, timed in rounds. */
export async function measureGraphSide(
  side: 'graph' | 'hand',
  count: number,
  recording: string,
  foxPath: string,
  rounds: number,
): Promise<GraphSideRun> {
  const asset = await loadAsset(foxPath)
  const entries = JSON.parse(await readFile(recording, 'utf8')) as GraphEntry[][]
  const { plugin, ids } = crowd(asset, count)
  const speed = ids.map(() => 1)
  const index = new Int32Array(ids[ids.length - 1]! + 1)
  ids.forEach((eid, c) => (index[eid] = c))
  const params = (eid: number) => ({ speed: speed[index[eid]!]! })
  if (side === 'graph') for (const eid of ids) plugin.setGraph(eid, FOX_GRAPH)
  else
    for (const eid of ids) {
      prepareByHand(plugin, FOX_GRAPH, eid)
      replayEntries(plugin, FOX_GRAPH, entryEntries(FOX_GRAPH, eid), params)
    }
  let s = 0
  const run = (n: number): void => {
    for (let k = 0; k < n; k++, s++) {
      for (let c = 0; c < ids.length; c++) {
        inputs(s, c, (name, v) => {
          if (side === 'graph') plugin.setParameter(ids[c]!, name, v)
          else if (name === 'speed') speed[c] = v
        })
      }
      if (side === 'hand') replayEntries(plugin, FOX_GRAPH, entries[s]!, params)
      plugin.step()
      plugin.events.length = 0
    }
  }
  run(WARMUP_STEPS)
  const timed = runRounds([{ name: side, run }], STEPS_PER_ROUND, rounds)
  const h = createHasher()
  for (const eid of ids)
    for (const e of plugin.joints(eid)) h.update(plugin.stores.SceneNode.world, e * 16, e * 16 + 16)
  return { side, msPerStep: median(timed.cpuMsPerStep[0]!), digest: h.digest() }
}

export interface GraphComparison {
  characters: number
  rounds: number
  stepsPerRound: number
  /** Transitions the graph started per step over the schedule (layer entries, cuts and fades). */
  transitionsPerStep: number
  runs: GraphSideRun[]
  /** Medians over the children of each side; graph ÷ hand. */
  graphMs: number
  handMs: number
  ratio: number
  /** Both sides ended every child with the same world matrices. */
  sameBits: boolean
}

/** The comparison: the schedule recorded here, then `children` children per side, alternating. */
export async function runGraphComparison(
  count: number,
  children: number,
  settings: Settings,
  log: (line: string) => void,
): Promise<GraphComparison> {
  const steps = WARMUP_STEPS + STEPS_PER_ROUND * settings.rounds
  log(`graphs: recording ${count} Foxes over ${steps} steps`)
  const entries = recordGraphRun(await loadAsset(DEFAULT_FOX), count, steps)
  const recording = path.join(os.tmpdir(), `ecs-anim-graphs-${process.pid}.json`)
  await writeFile(recording, JSON.stringify(entries))
  const runs: GraphSideRun[] = []
  try {
    for (let k = 0; k < 2 * children; k++) {
      const side = (k % 4 === 0 || k % 4 === 3 ? 'graph' : 'hand') as 'graph' | 'hand'
      log(`graphs: child ${k + 1} of ${2 * children}: ${side}`)
      runs.push(
        await runInChild<GraphSideRun>(
          { kind: 'graphs', side, count, recording, foxPath: DEFAULT_FOX, settings },
          log,
        ),
      )
    }
  } finally {
    await rm(recording, { force: true })
    await removeChildEntry()
  }
  const of = (side: string) => median(runs.filter((r) => r.side === side).map((r) => r.msPerStep))
  const graphMs = of('graph')
  const handMs = of('hand')
  const started = entries.reduce((n, step) => n + step.filter((e) => e.kind === 'enter').length, 0)
  return {
    characters: count,
    rounds: settings.rounds,
    stepsPerRound: STEPS_PER_ROUND,
    transitionsPerStep: started / steps,
    runs,
    graphMs,
    handMs,
    ratio: graphMs / handMs,
    sameBits: runs.every((r) => r.digest === runs[0]!.digest),
  }
}

export function formatGraphComparison(r: GraphComparison): string {
  const rows = r.runs.map((run, k) => [`${k + 1}`, run.side, run.msPerStep.toFixed(3), run.digest])
  return [
    `${r.characters} Foxes on a six-state graph, ${r.transitionsPerStep.toFixed(1)} transitions a step; ` +
      `per child the median CPU ms per step of ${r.rounds} rounds of ${r.stepsPerRound} steps:`,
    '',
    markdownTable(['child', 'side', 'ms/step', 'world digest'], rows),
    '',
    `graph ${r.graphMs.toFixed(3)} ms, hand ${r.handMs.toFixed(3)} ms: graph/hand ${r.ratio.toFixed(3)} ` +
      `(${((r.ratio - 1) * 100).toFixed(1)} %); same world matrices: ${r.sameBits}`,
  ].join('\n')
}
