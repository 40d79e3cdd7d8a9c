/**
 * One side of `npm run bench:ab` (scripts/ab.mjs): the benchmark's crowd of the project's code at one version,
 * bundled on its own so that two versions load into one process. Kept small and on the benchmark's long-lived
 * names (loadBenchAsset, planOptions, makeCrowdPlan, createOurCrowd) so an older checkout can bundle it too.
 */
import { makeCrowdPlan, type CrowdKind } from './crowd.ts'
import { DT, FADE_SECONDS, type AssetName } from './options.ts'
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
