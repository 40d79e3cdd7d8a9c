/**
 * The per-system split of the project's step, and squad against slerp on the same crowd.
 */
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf } from '../../entry/plugin.ts'
import { makeCrowdPlan } from './crowd.ts'
import { createOurCrowd, type OurCrowd } from './ours.ts'
import { clamp, median, runRounds, type Side } from './measure.ts'
import { FADE_SECONDS, type Settings, type SplitResult, type SquadResult } from './options.ts'

/**
 * Median CPU ms per step of each of the project's systems, run one by one exactly as `plugin.step()` runs them
 * (the step counter advanced once per step), for each crowd; with several crowds the rounds are interleaved.
 * Advances the crowds; compare nothing with three.js after this.
 */
export function splitSystems(crowds: readonly OurCrowd[], settings: Settings): SplitResult['systems'][] {
  const steps = Math.max(3, settings.roundSteps || 20)
  const perRound = crowds.map((c) => c.plugin.systems.map(() => [] as number[]))
  for (let r = 0; r < settings.rounds; r++) {
    for (let i = 0; i < crowds.length; i++) {
      const { systems } = crowds[i]!.plugin
      const context = contextOf(crowds[i]!.plugin)
      const world = crowds[i]!.world
      const acc = new Float64Array(systems.length)
      for (let s = 0; s < steps; s++) {
        const before = context.step
        for (let k = 0; k < systems.length; k++) {
          const cpu = process.cpuUsage()
          systems[k]!(world)
          const used = process.cpuUsage(cpu)
          acc[k] = acc[k]! + (used.user + used.system) / 1000
        }
        // Whichever advances the step counter (step() or its last system), it advances once per step.
        if (context.step === before) context.step++
        crowds[i]!.plugin.events.length = 0
      }
      for (let k = 0; k < systems.length; k++) perRound[i]![k]!.push(acc[k]! / steps)
    }
  }
  return crowds.map((crowd, i) => {
    const ms = perRound[i]!.map((xs) => median(xs))
    const total = ms.reduce((a, b) => a + b, 0)
    return crowd.plugin.systems.map((f, k) => ({
      name: f.name || `system ${k}`,
      msPerStep: ms[k]!,
      share: ms[k]! / total,
    }))
  })
}

/** The same moving crowd twice, LINEAR rig, rotations by slerp and by squad; interleaved rounds. */
export function squadVsSlerp(asset: AnimationAsset, count: number, settings: Settings): SquadResult {
  const make = (rotation: 'slerp' | 'squad') =>
    createOurCrowd(
      makeCrowdPlan(asset, count, 'moving', { clipA: 0, clipB: 1, fadeSeconds: FADE_SECONDS, rotation }),
    )
  const slerp = make('slerp')
  const squad = make('squad')
  const sides: Side[] = [
    { name: 'slerp', run: (n) => slerp.run(n) },
    { name: 'squad', run: (n) => squad.run(n) },
  ]
  const probe = runRounds(sides, 1, 2)
  const estimate = median(probe.msPerStep[0]!)
  runRounds(sides, settings.warmupSteps || clamp(Math.ceil(settings.warmupMs / estimate), 20, 3000), 2)
  const warm = runRounds(sides, 3, 1)
  const steps =
    settings.roundSteps || clamp(Math.ceil(settings.roundMs / median(warm.msPerStep[0]!)), 3, 20000)
  const timed = runRounds(sides, steps, settings.rounds)
  const slerpMs = median(timed.cpuMsPerStep[0]!)
  const squadMs = median(timed.cpuMsPerStep[1]!)
  const [slerpSplit, squadSplit] = splitSystems([slerp, squad], settings)
  const sampleMs = (split: SplitResult['systems'] | undefined) =>
    split?.find((s) => s.name === 'sampleTracks')?.msPerStep ?? NaN
  const slerpSample = sampleMs(slerpSplit)
  const squadSample = sampleMs(squadSplit)
  return {
    characters: count,
    joints: slerp.joints,
    slerpMsPerStep: slerpMs,
    squadMsPerStep: squadMs,
    ratio: squadMs / slerpMs,
    slerpSampleMs: slerpSample,
    squadSampleMs: squadSample,
    sampleRatio: squadSample / slerpSample,
  }
}
