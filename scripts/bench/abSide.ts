/**
 * One side of `npm run bench:ab` (scripts/ab.mjs): the benchmark's crowd of the project's code at one version,
 * bundled on its own so that two versions load into one process. Kept small and on the benchmark's long-lived
 * names (loadBenchAsset, planOptions, makeCrowdPlan, createOurCrowd) so an older checkout can bundle it too.
 */
import { CROWD_KINDS, makeCrowdPlan, type CrowdKind } from './crowd.ts'
import { ASSET_NAMES, DT, FADE_SECONDS, type AssetName } from './options.ts'
import { createOurCrowd } from './ours.ts'
import { loadBenchAsset, planOptions } from './scenarioJob.ts'

export interface AbSideOptions {
  asset: AssetName
  crowd: CrowdKind
  characters: number
  /** The Fox's .glb, when `asset` is 'fox'. */
  foxPath: string
  rigJoints: number
}

export interface AbSide {
  /** Runs `steps` fixed steps of the crowd. */
  run(steps: number): void
  /** The plugin's state hash now. */
  hash(): string
}

/**
 * Throws an Error naming the option and the choices when `o` names an asset or crowd the benchmark does not
 * have (the driver passes the command line's strings through).
 */
export function checkAbSideOptions(o: { asset: string; crowd: string }): void {
  if (!(ASSET_NAMES as readonly string[]).includes(o.asset))
    throw new Error(`--asset ${o.asset}: one of ${ASSET_NAMES.join(', ')}`)
  if (!(CROWD_KINDS as readonly string[]).includes(o.crowd))
    throw new Error(`--crowd ${o.crowd}: one of ${CROWD_KINDS.join(', ')}`)
}

export async function createAbSide(o: AbSideOptions): Promise<AbSide> {
  const asset = await loadBenchAsset(o.asset, o.rigJoints, o.foxPath)
  const plan = makeCrowdPlan(asset, o.characters, o.crowd, {
    ...planOptions(o.asset, o.crowd),
    fadeSeconds: FADE_SECONDS,
    dt: DT,
  })
  const crowd = createOurCrowd(plan)
  return { run: (steps) => crowd.run(steps), hash: () => String(crowd.plugin.hash()) }
}
