/**
 * `npm run bench -- --compare-compression`: exact clips against compact ones (loadAsset's `compress`,
 * src/clip/compress.ts) on the bench's playing crowd: clip memory per key, the keys kept and the world error
 * compression measured, and the sampleTracks system's CPU time per joint. As kernels.ts does for propagation:
 * each measurement is a fresh bundled child process holding one plugin; children alternate (exact, compact,
 * compact, exact, …) so that a change of the machine's load falls on both; within a child the system is timed
 * inside whole steps (CPU time, median of rounds).
 *
 * The assets: 'rig-mixamo', the bench rig at 67 joints with translation, rotation and scale keyed on every joint
 * (a Mixamo export's shape), and the Fox, compressed at 0.1 mm at 1 m in its own units (centimetres: tolerance
 * 0.01 at distance 100).
 */
import { clipBytes } from '../../src/clip/compactClip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { compressClip, type CompressOptions } from '../../src/clip/compress.ts'
import { removeChildEntry, runInChild } from './child.ts'
import { makeCrowdPlan } from './crowd.ts'
import { markdownTable, median, runRounds } from './measure.ts'
import { DEFAULT_FOX, type AssetName, type Settings } from './options.ts'
import { createOurCrowd } from './ours.ts'
import { createBenchRig } from './rig.ts'

/** One child's measurement: one plugin, exact or compact clips. */
export interface CompressionRun {
  compact: boolean
  /** Median CPU ms of the sampleTracks system per step, per joint in ns. */
  sampleNsPerJoint: number
  /** Bytes the asset's clips take, and their keys (the exact clips'), so bytes per key. */
  bytes: number
  keys: number
  keptKeys: number
  /** The largest world error compression measured over the clips (0 for exact). */
  error: number
  joints: number
}

export interface CompressionComparison {
  asset: AssetName | 'rig-mixamo'
  characters: number
  options: CompressOptions
  runs: CompressionRun[]
  exact: { bytesPerKey: number; sampleNsPerJoint: number }
  compact: { bytesPerKey: number; sampleNsPerJoint: number; keptKeys: number; keys: number; error: number }
  /** exact ÷ compact sampling time (> 1: compact samples faster). */
  sampleRatio: number
}

export type CompressionAsset = 'rig-mixamo' | 'fox'
export const COMPRESSION_ASSETS: readonly CompressionAsset[] = ['rig-mixamo', 'fox']

const STEPS_PER_ROUND = 30
/** The system that samples clips, the one timed. */
const SAMPLER = 'sampleTracks'
const WARMUP_STEPS = 60

/** What each asset is compressed with: 0.1 mm at 1 m in its units. */
export function compressionOptions(asset: CompressionAsset): CompressOptions {
  return asset === 'fox' ? { tolerance: 0.01, distance: 100 } : { tolerance: 1e-4, distance: 1 }
}

/** The asset, exact or with every clip compressed. */
export async function compressionAsset(
  asset: CompressionAsset,
  compact: boolean,
  foxPath: string,
): Promise<AnimationAsset> {
  const exact =
    asset === 'fox' ? await loadAsset(foxPath) : createBenchRig({ joints: 67, everyChannel: true })
  if (!compact) return exact
  const options = compressionOptions(asset)
  return { ...exact, clips: exact.clips.map((clip) => compressClip(clip, exact.nodes, options)) }
}

/** One child's part: the playing crowd of `count` characters, the sampleTracks system timed over rounds. */
export function measureCompression(
  asset: AnimationAsset,
  name: CompressionAsset,
  count: number,
  compact: boolean,
  settings: { rounds: number; dt: number },
): CompressionRun {
  const clips = name === 'fox' ? { clipA: 1, clipB: 2 } : { clipA: 0, clipB: 1 }
  const plan = makeCrowdPlan(asset, count, 'playing', { ...clips, fadeSeconds: 1, dt: settings.dt })
  const crowd = createOurCrowd(plan)
  const { plugin, world } = crowd
  const systems = plugin.systems
  // A renamed system would otherwise be timed as 0 ns without a word.
  if (!systems.some((s) => s.name === SAMPLER)) throw new Error(`no ${SAMPLER} system in the plugin's step`)
  let spent = 0
  const sampleRounds: number[] = []
  const run = (steps: number) => {
    const before = spent
    for (let s = 0; s < steps; s++) {
      for (let i = 0; i < systems.length; i++) {
        const system = systems[i]!
        if (system.name !== SAMPLER) {
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
    sampleRounds.push((spent - before) / 1000 / steps)
  }
  run(WARMUP_STEPS)
  sampleRounds.length = 0
  runRounds([{ name: compact ? 'compact' : 'exact', run }], STEPS_PER_ROUND, settings.rounds)
  const keys = asset.clips.reduce(
    (sum, c) => sum + (c.compression?.keys ?? c.channels.reduce((s, ch) => s + ch.times.length, 0)),
    0,
  )
  return {
    compact,
    sampleNsPerJoint: (median(sampleRounds) * 1e6) / (count * crowd.joints),
    bytes: asset.clips.reduce((sum, c) => sum + clipBytes(c), 0),
    keys,
    keptKeys: asset.clips.reduce((sum, c) => sum + (c.compression?.keptKeys ?? 0), 0),
    error: Math.max(0, ...asset.clips.map((c) => c.compression?.error ?? 0)),
    joints: crowd.joints,
  }
}

/** Each asset's comparison at `count` characters: `children` child processes a side (at least 2), alternating. */
export async function runCompressionComparisons(
  assets: readonly CompressionAsset[],
  count: number,
  children: number,
  settings: Settings,
  log: (line: string) => void,
): Promise<CompressionComparison[]> {
  const out: CompressionComparison[] = []
  try {
    for (const asset of assets) {
      const runs: CompressionRun[] = []
      for (let c = 0; c < children; c++) {
        for (const compact of c % 2 === 0 ? [false, true] : [true, false]) {
          const task = { kind: 'compression', asset, count, compact, foxPath: DEFAULT_FOX, settings } as const
          const r = await runInChild<CompressionRun>(task, log)
          log(
            `${asset} ×${count} ${compact ? 'compact' : 'exact'}: ${SAMPLER} ${r.sampleNsPerJoint.toFixed(1)} ns/joint`,
          )
          runs.push(r)
        }
      }
      const side = (compact: boolean) => runs.filter((r) => r.compact === compact)
      const exact = side(false)
      const compact = side(true)
      const first = compact[0]!
      out.push({
        asset,
        characters: count,
        options: compressionOptions(asset),
        runs,
        exact: {
          bytesPerKey: exact[0]!.bytes / exact[0]!.keys,
          sampleNsPerJoint: median(exact.map((r) => r.sampleNsPerJoint)),
        },
        compact: {
          bytesPerKey: first.bytes / first.keys,
          sampleNsPerJoint: median(compact.map((r) => r.sampleNsPerJoint)),
          keptKeys: first.keptKeys,
          keys: first.keys,
          error: first.error,
        },
        sampleRatio:
          median(exact.map((r) => r.sampleNsPerJoint)) / median(compact.map((r) => r.sampleNsPerJoint)),
      })
    }
  } finally {
    await removeChildEntry()
  }
  return out
}

/** Markdown table of comparisons. */
export function formatCompressionComparisons(results: readonly CompressionComparison[]): string {
  return markdownTable(
    [
      'asset',
      'chars × joints',
      'tolerance at distance',
      'clip bytes/key exact',
      'compact',
      'keys kept',
      'world error',
      `${SAMPLER} ns/joint exact`,
      'compact',
      'exact ÷ compact',
      'children per side',
    ],
    results.map((r) => [
      r.asset,
      `${r.characters} × ${r.runs[0]!.joints}`,
      `${r.options.tolerance} at ${r.options.distance}`,
      r.exact.bytesPerKey.toFixed(1),
      r.compact.bytesPerKey.toFixed(1),
      `${r.compact.keptKeys} of ${r.compact.keys}`,
      r.compact.error.toPrecision(2),
      r.exact.sampleNsPerJoint.toFixed(1),
      r.compact.sampleNsPerJoint.toFixed(1),
      `${r.sampleRatio.toFixed(2)}×`,
      r.runs.length / 2,
    ]),
  )
}
