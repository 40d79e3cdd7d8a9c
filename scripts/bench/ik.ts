/**
 * The benchmark's "ik" section: what foot placement and look-at cost a crowd. The generated rig (64 joints,
 * rig.ts) playing its walk (crowd.ts's playing crowd, 1000 characters by default), timed without IK and with
 * two solvers on every character (ikCrowd.ts: feet on a gentle slope, the head aiming with the neck). One plugin:
 * the rounds alternate between the crowd with its solvers and the same crowd with them removed (setIK null,
 * outside the timing), so both sides run the same code on the same memory.
 *
 * CPU ms per step (process.cpuUsage), median of interleaved rounds, in a fresh process running the bundled bench
 * (run.ts); the IK's cost per character is (with − without) / characters; allocation is measured with IK on.
 */
import { createBenchRig } from './rig.ts'
import { makeCrowdPlan } from './crowd.ts'
import { createOurCrowd } from './ours.ts'
import { setCrowdIK } from './ikCrowd.ts'
import {
  measureAllocation,
  median,
  runRounds,
  type Allocation,
  type GcTracker,
  type Side,
} from './measure.ts'
import type { Target } from './options.ts'

export const IK_JOINTS = 64
/** The goal of issue 37: a crowd with feet and aim costs at most this much more than without. */
export const IK_OVERHEAD_GOAL = 0.25

export interface IKResult {
  characters: number
  joints: number
  /** Median CPU ms per step without and with the solvers, and every round's. */
  withoutMs: number
  withMs: number
  rounds: { without: number[]; with: number[] }
  /** with / without − 1. */
  overhead: number
  /** (with − without) / characters, microseconds. */
  usPerCharacter: number
  /** Heap bytes per step with the solvers on (steady state). */
  allocation: Allocation
}

export interface IKSettings {
  characters: number[]
  rounds: number
  roundMs: number
  roundSteps: number
  allocSteps: number
}

export async function measureIK(
  settings: IKSettings,
  tracker: GcTracker,
  log: (line: string) => void,
): Promise<IKResult> {
  const characters = Math.max(...settings.characters)
  const asset = createBenchRig({ joints: IK_JOINTS })
  const plan = makeCrowdPlan(asset, characters, 'playing', { clipA: 0, clipB: 1 })
  const crowd = createOurCrowd(plan)
  const { plugin } = crowd
  const on = (): void => setCrowdIK(plugin, crowd.characters, true)
  const off = (): void => setCrowdIK(plugin, crowd.characters, false)
  const sides: Side[] = [
    { name: 'without', run: (n) => crowd.run(n) },
    { name: 'with', run: (n) => crowd.run(n) },
  ]
  const toggle = [off, on]
  // Warm-up, both ways (every path optimized; tests set a few roundSteps).
  const warmSteps = settings.roundSteps || 30
  const per: number[] = []
  for (let i = 0; i < 2; i++) {
    toggle[i]!()
    per.push(median(runRounds([sides[i]!], warmSteps, 3).cpuMsPerStep[0]!))
  }
  const rounds = { without: [] as number[], with: [] as number[] }
  for (let r = 0; r < settings.rounds; r++) {
    for (let k = 0; k < 2; k++) {
      const i = r % 2 === 0 ? k : 1 - k
      toggle[i]!()
      // One untimed step: the first after a toggle restores or first edits every pose.
      crowd.run(1)
      const steps = settings.roundSteps || Math.max(3, Math.min(2000, Math.ceil(settings.roundMs / per[i]!)))
      const ms = runRounds([sides[i]!], steps, 1).cpuMsPerStep[0]![0]!
      ;(i === 0 ? rounds.without : rounds.with).push(ms)
    }
  }
  on()
  const window = settings.allocSteps || 200
  sides[1]!.run(3 * window)
  const allocation = await measureAllocation(sides[1]!, window, tracker)
  const withoutMs = median(rounds.without)
  const withMs = median(rounds.with)
  const result: IKResult = {
    characters,
    joints: crowd.joints,
    withoutMs,
    withMs,
    rounds,
    overhead: withMs / withoutMs - 1,
    usPerCharacter: ((withMs - withoutMs) * 1000) / characters,
    allocation,
  }
  log(
    `ik: ${characters} × ${crowd.joints} joints, without ${withoutMs.toFixed(3)} ms, with feet + aim ` +
      `${withMs.toFixed(3)} ms (+${(result.overhead * 100).toFixed(1)} %, ${result.usPerCharacter.toFixed(2)} µs ` +
      `per character), ${allocation.bytesPerStep.toFixed(1)} B/step`,
  )
  return result
}

/** The goal: ≤ 25 % over the same crowd without IK; and no allocation per step. */
export function ikTargets(r: IKResult | null): Target[] {
  if (r === null) return []
  const name = `ik: ${r.characters}×${r.joints} with feet + aim`
  return [
    {
      name,
      goal: `≤ ${IK_OVERHEAD_GOAL * 100} % over the same crowd without IK`,
      measured: `+${(r.overhead * 100).toFixed(1)} % (${r.usPerCharacter.toFixed(2)} µs per character)`,
      met: r.overhead <= IK_OVERHEAD_GOAL,
    },
    {
      name: `${name}: allocation`,
      goal: '0 bytes per step (steady state)',
      measured: `${r.allocation.bytesPerStep.toFixed(1)} B/step`,
      met: r.allocation.bytesPerStep === 0,
    },
  ]
}

/** The section's table (report.ts adds it after the snapshots'). */
export function formatIK(r: IKResult | null, rounds: number): string[] {
  if (r === null) return []
  return [
    `IK (${r.characters} characters of the ${r.joints}-joint rig walking; feet on a height function and the head ` +
      `aiming with the neck; CPU ms per step, median of ${rounds} interleaved rounds, one plugin, the solvers ` +
      'removed for the rounds without):',
    '',
    '| crowd | ms/step | per character |',
    '| --- | --- | --- |',
    `| without IK | ${r.withoutMs.toFixed(3)} | ${((r.withoutMs * 1000) / r.characters).toFixed(2)} µs |`,
    `| with feet + aim | ${r.withMs.toFixed(3)} | ${((r.withMs * 1000) / r.characters).toFixed(2)} µs |`,
    `| IK's cost | +${(r.overhead * 100).toFixed(1)} % | ${r.usPerCharacter.toFixed(2)} µs |`,
  ]
}
