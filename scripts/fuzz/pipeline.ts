/**
 * The pipeline judge: what one mutated file does to the whole library, through the public API only.
 *
 *   load → addCharacter → play(c, 0) → 30 steps with crossFade(c, 1 % clips, 0.2) after the first → ragdoll(c)
 *   → 30 steps → snapshot() → restore into a fresh world and plugin (same options, addAsset) → 10 steps
 *
 * The contract it holds each call to (README, "What it guarantees"):
 *   - whatever is thrown is an AnimationError; step() throws nothing at all;
 *   - a call that throws leaves hash() and the snapshot() bytes as they were (compared around every call);
 *   - after every step (and after a restore) every element of SceneNode.world of every entity is finite.
 * A refusal (AnimationError) is not a fault: the run goes on where the contract still says what must happen
 * (an asset without clips cannot play; a generated ragdoll may be refused on an odd rig), and stops where it
 * cannot (no asset, no character). The restored plugin must also match the original: same hash() at restore
 * and after each of the 10 steps both take (a snapshot is the complete state).
 *
 * The bookkeeping (`Judge`) is judge.ts, shared with the forged-snapshot and random-call stages.
 */
import { AnimationError, readAsset, type AnimationAsset } from '../../entry/index.ts'
import { describeError, freshPlugin, Judge, type RunReport, type Stage } from './judge.ts'

export const PIPELINE_STAGES: readonly Stage[] = [
  'load',
  'addCharacter',
  'play',
  'steps1',
  'ragdoll',
  'steps2',
  'snapshot',
  'restore',
  'steps3',
]

export interface PipelineReport extends RunReport {
  /** The last stage the run started. */
  reached: Stage
  /** The stages that ran to their end (refusals included). */
  completed: Stage[]
  /** Milliseconds spent in each stage that started. */
  stageMs: Partial<Record<Stage, number>>
  /** Set once loading succeeded: what the forged-snapshot and call stages start from. */
  asset?: AnimationAsset
  options?: { capacity: number }
  /** The snapshot taken after the ragdoll steps, if it was taken. */
  snapshot?: Uint8Array
  clips: number
  nodes: number
}

export interface PipelineInput {
  /** The file's name for messages (readAsset's source). */
  name: string
  bytes: Uint8Array
  /** A .gltf's external buffers, by uri. */
  resources?: Record<string, Uint8Array>
}

/** Entity ids a plugin needs for `nodes` asset nodes: one character, and room to restore and add a few more. */
export function capacityFor(nodes: number, characters = 1): number {
  return Math.max(64, (characters + 1) * (nodes + 2) + 16)
}

/** Runs the sequence above on one file; `onStage` hears each stage as it starts. */
export async function runPipeline(
  input: PipelineInput,
  onStage: (stage: Stage) => void = () => {},
): Promise<PipelineReport> {
  const judge = new Judge()
  const completed: Stage[] = []
  const stageMs: Partial<Record<Stage, number>> = {}
  let stageStart = performance.now()
  const finish = (extra: Partial<PipelineReport>): PipelineReport => ({
    ...judge.report(),
    reached: judge.stage,
    completed,
    stageMs: { ...stageMs, [judge.stage]: stageMs[judge.stage] ?? performance.now() - stageStart },
    clips: 0,
    nodes: 0,
    ...extra,
  })
  const enter = (stage: Stage): void => {
    onStage(stage)
    judge.stage = stage
    stageStart = performance.now()
  }
  const done = (): void => {
    completed.push(judge.stage)
    stageMs[judge.stage] = performance.now() - stageStart
  }

  enter('load')
  let asset: AnimationAsset
  try {
    asset = await readAsset(input.bytes, input.name, { resources: input.resources ?? {} })
  } catch (error) {
    judge.sampleMemory()
    if (error instanceof AnimationError) {
      judge.refusals.push({ stage: 'load', call: 'readAsset', kind: error.kind, message: error.message })
    } else judge.fault('error', `readAsset threw ${describeError(error)}`)
    return finish({})
  }
  judge.sampleMemory()
  done()
  const clips = asset.clips.length
  const nodes = asset.nodes.length
  const options = { capacity: capacityFor(nodes) }
  const base = { asset, options, clips, nodes }

  enter('addCharacter')
  const plugin = freshPlugin(judge, asset, options)
  if (!plugin) return finish(base)
  const added = judge.call(plugin, 'addCharacter(asset)', () => plugin.addCharacter(asset))
  if (!added[0]) return finish(base)
  const c = added[1]
  done()

  enter('play')
  judge.call(plugin, `play(${c}, 0)`, () => plugin.play(c, 0))
  done()

  enter('steps1')
  for (let i = 0; i < 30; i++) {
    if (!judge.step(plugin, `step ${i + 1}`)) break
    if (i === 0 && clips > 0) {
      judge.call(plugin, `crossFade(${c}, ${1 % clips}, 0.2)`, () => plugin.crossFade(c, 1 % clips, 0.2))
    }
  }
  done()

  enter('ragdoll')
  judge.call(plugin, `ragdoll(${c})`, () => plugin.ragdoll(c))
  done()

  enter('steps2')
  for (let i = 0; i < 30; i++) if (!judge.step(plugin, `step ${31 + i}`)) break
  done()

  enter('snapshot')
  const taken = judge.call(plugin, 'snapshot()', () => plugin.snapshot())
  if (!taken[0]) return finish(base)
  const snapshot = taken[1]
  done()

  enter('restore')
  const restored = freshPlugin(judge, asset, options)
  if (!restored) return finish({ ...base, snapshot })
  if (!judge.call(restored, 'restore(snapshot)', () => restored.restore(snapshot))[0]) {
    judge.fault('diverged', 'a fresh plugin refused the snapshot of the original')
    return finish({ ...base, snapshot })
  }
  judge.finite(restored, 'after restore')
  const [copied, original] = [judge.hash(restored), judge.hash(plugin)]
  if (copied !== original) judge.fault('diverged', `restored hash ${copied}, original ${original}`)
  done()

  enter('steps3')
  for (let i = 0; i < 10; i++) {
    if (!judge.step(restored, `restored step ${i + 1}`)) break
    if (!judge.step(plugin, `original step ${61 + i}`)) break
    const [copied, original] = [judge.hash(restored), judge.hash(plugin)]
    if (copied !== original) {
      judge.fault('diverged', `after ${i + 1} steps: restored hash ${copied}, original ${original}`)
      break
    }
  }
  done()
  return finish({ ...base, snapshot })
}
