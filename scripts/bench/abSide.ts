/**
 * One side of `npm run bench:ab` (scripts/ab.mjs): the benchmark's crowd of the project's code at one version,
 * bundled on its own so that two versions load into one process. Kept small and on the benchmark's long-lived
 * names (loadBenchAsset, planOptions, makeCrowdPlan, createOurCrowd) so an older checkout can bundle it too.
 */
import { CROWD_KINDS, makeCrowdPlan, type CrowdKind } from './crowd.ts'
import { ASSET_NAMES, DT, FADE_SECONDS, type AssetName } from './options.ts'
import { createOurCrowd } from './ours.ts'
import { loadBenchAsset, planOptions } from './scenarioJob.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { SceneKernels } from '../../components/SceneNode.ts'
import { setCrowdIK } from './ikCrowd.ts'
import { compressClip } from '../../src/clip/compress.ts'
import { compressionOptions } from './compression.ts'

/**
 * What a side times: fixed steps, or (of the crowd as it is after its warm-up) snapshotInto, restore, or
 * propagate (the propagateTransforms system alone, every scene node marked dirty before each call).
 */
export const AB_MEASURES = ['step', 'snapshotInto', 'restore', 'propagate'] as const
export type AbMeasure = (typeof AB_MEASURES)[number]

export interface AbSideOptions {
  asset: AssetName
  crowd: CrowdKind
  characters: number
  /** The Fox's .glb, when `asset` is 'fox'. */
  foxPath: string
  rigJoints: number
  /** A .glb to load (each side with its own loader) instead of `asset` (whose clip choice it then takes). */
  file?: string
  /** Default 'step'. */
  measure?: AbMeasure
  /** Characters ragdolled (every tenth, as the snapshot bench does) 60 steps before a snapshot measure. */
  ragdolls?: number
  /** The plugin's `kernels` option (default: the plugin's default). */
  kernels?: SceneKernels
  /** Every character with the ik section's feet and aim solvers (ikCrowd.ts; the rig's joint names). */
  ik?: boolean
  /**
   * Every clip compressed (compact clips, compressClip) with the compression bench's options: the Fox at 0.1 mm
   * at 1 m in its centimetres, a rig at 0.1 mm at 1 m.
   */
  compress?: boolean
}

export interface AbSide {
  /** Runs `steps` fixed steps of the crowd, or as many calls of the measure. */
  run(steps: number): void
  /** The plugin's state hash now. */
  hash(): string
}

/**
 * Throws an Error naming the option and the choices when `o` names an asset or crowd the benchmark does not
 * have (the driver passes the command line's strings through).
 */
export function checkAbSideOptions(o: {
  asset: string
  crowd: string
  measure?: string
  kernels?: string
}): void {
  if (o.kernels !== undefined && o.kernels !== 'js' && o.kernels !== 'wasm')
    throw new Error(`--kernels ${o.kernels}: js or wasm`)
  if (!(ASSET_NAMES as readonly string[]).includes(o.asset))
    throw new Error(`--asset ${o.asset}: one of ${ASSET_NAMES.join(', ')}, rig-all`)
  if (o.measure !== undefined && !(AB_MEASURES as readonly string[]).includes(o.measure))
    throw new Error(`--measure ${o.measure}: one of ${AB_MEASURES.join(', ')}`)
  if (!(CROWD_KINDS as readonly string[]).includes(o.crowd))
    throw new Error(`--crowd ${o.crowd}: one of ${CROWD_KINDS.join(', ')}`)
}

export async function createAbSide(o: AbSideOptions): Promise<AbSide> {
  const loaded = o.file ? await loadAsset(o.file) : await loadBenchAsset(o.asset, o.rigJoints, o.foxPath)
  const options = compressionOptions(o.asset === 'fox' ? 'fox' : 'rig-mixamo')
  const asset = o.compress
    ? { ...loaded, clips: loaded.clips.map((clip) => compressClip(clip, loaded.nodes, options)) }
    : loaded
  const plan = makeCrowdPlan(asset, o.characters, o.crowd, {
    ...planOptions(o.asset, o.crowd),
    fadeSeconds: FADE_SECONDS,
    dt: DT,
  })
  const crowd = createOurCrowd(plan, o.kernels)
  const { plugin } = crowd
  if (o.ik) setCrowdIK(plugin, crowd.characters, true)
  const hash = (): string => String(plugin.hash())
  const measure = o.measure ?? 'step'
  if (measure === 'step') return { run: (steps) => crowd.run(steps), hash }
  if (measure === 'propagate') {
    crowd.run(60)
    const propagate = plugin.systems.find((s) => s.name === 'propagateTransforms')!
    const dirty = plugin.sceneGraph.store.dirty
    const run = (calls: number) => {
      for (let k = 0; k < calls; k++) {
        dirty.fill(1)
        propagate(crowd.world)
      }
    }
    return { run, hash }
  }
  // The snapshot bench's crowd (scripts/bench/snapshots.ts): every tenth character knocked over 1 s before.
  const joint = asset.nodes[Math.min(2, asset.nodes.length - 1)]!.name
  for (let i = 0; i < (o.ragdolls ?? 0); i++) {
    plugin.ragdoll(crowd.characters[10 * i]!, { impulse: { joint, impulse: [5, 1, 0] } })
  }
  crowd.run(60)
  const buffer = new Uint8Array(2 * plugin.snapshot().length)
  const here = buffer.slice(0, plugin.snapshotInto(buffer))
  const run =
    measure === 'snapshotInto'
      ? (calls: number) => {
          for (let k = 0; k < calls; k++) plugin.snapshotInto(buffer)
        }
      : (calls: number) => {
          for (let k = 0; k < calls; k++) plugin.restore(here)
        }
  return { run, hash }
}
