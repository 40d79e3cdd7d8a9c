/**
 * The benchmark: the project's full fixed step (`plugin.step()`) against three.js (an AnimationMixer per
 * character + `updateMatrixWorld`) on the same clips and characters, in one process.
 *
 * Per scenario (asset × crowd × character count):
 *   1. build both crowds from one plan (crowd.ts) and check they show the same world matrices (to `tolerance`);
 *   2. warm up both (interleaved), check again;
 *   3. time `rounds` interleaved rounds (measure.ts), median per side; check again (same step count on both);
 *   4. heap bytes allocated per step over `allocSteps` steps, per side;
 *   5. at the largest size: per-system split of the project's step.
 * A scenario whose check fails is reported with its error and no timings: a fast wrong answer cannot win.
 * Before the scenarios of an asset, a short-fade check follows a few characters through a whole cross-fade
 * (0.25 s), step by step, so the fade semantics (not only its cost) agree with three.js.
 * Then squad against slerp (the project only; three has no squad), same crowd, interleaved.
 */
import os from 'node:os'
import { REVISION } from 'three'
import { createGcTracker } from './measure.ts'
import { measureSnapshots, snapshotTargets, type SnapshotCrowdResult } from './snapshots.ts'
import { measureRetargetCrowd, retargetTargets, type RetargetCrowdResult } from './retargetCrowd.ts'
import { ikTargets, measureIK, type IKResult } from './ik.ts'
import { removeChildEntry, runInChild, runScenarioInChild } from './child.ts'
import { clipPair, fadeCheck, loadBenchAsset, runScenarioJob, type ScenarioJob } from './scenarioJob.ts'
import { squadVsSlerp } from './systemSplit.ts'
import { targets } from './targets.ts'
import {
  DEFAULT_FOX,
  benchSettings,
  type BenchOptions,
  type BenchResult,
  type SquadResult,
} from './options.ts'

export async function runBenchmark(options: BenchOptions = {}): Promise<BenchResult> {
  const settings = benchSettings(options)
  const log = options.log ?? (() => {})
  const tracker = createGcTracker()
  const largest = Math.max(...settings.characters)
  const result: BenchResult = {
    machine: machine(),
    settings,
    fadeChecks: [],
    scenarios: [],
    splits: [],
    squad: null,
    snapshots: [],
    retarget: null,
    ik: null,
    targets: [],
    ok: true,
  }
  const crowds = settings.sections.includes('crowds')
  try {
    for (const name of crowds ? settings.assets : []) {
      const asset = await loadBenchAsset(name, settings.rigJoints, options.foxPath ?? DEFAULT_FOX)
      const clips = clipPair(name)
      const fade = fadeCheck(asset, clips, settings.tolerance)
      result.fadeChecks.push({ asset: name, ...fade })
      log(`${name}: short-fade check over ${fade.steps} steps, max error ${fade.maxError.toExponential(2)}`)
      if (!fade.ok) result.ok = false
      for (const crowd of settings.crowds) {
        for (const count of settings.characters) {
          const split = settings.split && count === largest
          const job: ScenarioJob = {
            asset: name,
            crowd,
            count,
            split,
            foxPath: options.foxPath ?? DEFAULT_FOX,
          }
          const done = settings.isolate
            ? await runScenarioInChild(job, settings, log)
            : await runScenarioJob(job, settings, tracker, log, asset)
          result.scenarios.push(done.result)
          if (!done.result.check.ok) result.ok = false
          if (done.result.peers.some((p) => p.check !== null && !p.check.ok)) result.ok = false
          if (done.split) result.splits.push(done.split)
        }
      }
    }
    if (settings.sections.includes('snapshots')) {
      result.snapshots = settings.isolate
        ? await runInChild<SnapshotCrowdResult[]>({ kind: 'snapshots', settings }, log)
        : await measureSnapshots(settings, tracker, log)
    }
    if (settings.sections.includes('retarget')) {
      result.retarget = settings.isolate
        ? await runInChild<RetargetCrowdResult>({ kind: 'retarget', settings }, log)
        : measureRetargetCrowd(settings, log)
    }
    if (settings.sections.includes('ik')) {
      result.ik = settings.isolate
        ? await runInChild<IKResult>({ kind: 'ik', settings }, log)
        : await measureIK(settings, tracker, log)
    }
    if (crowds && settings.squad) {
      result.squad = settings.isolate
        ? await runInChild<SquadResult>({ kind: 'squad', count: largest, settings }, log)
        : squadVsSlerp(await loadBenchAsset('rig-linear', settings.rigJoints, ''), largest, settings)
      log(`squad/slerp at ${largest} characters: ${result.squad.ratio.toFixed(2)}×`)
    }
  } finally {
    tracker.stop()
    await removeChildEntry()
  }
  result.targets = crowds ? targets(result, largest, settings.rigJoints) : []
  result.targets.push(...snapshotTargets(result.snapshots), ...retargetTargets(result.retarget))
  result.targets.push(...ikTargets(result.ik))
  return result
}

function machine(): BenchResult['machine'] {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    node: process.version,
    v8: process.versions.v8,
    three: REVISION,
    platform: `${os.platform()} ${os.arch()}`,
    date: new Date().toISOString(),
    load: os.loadavg(),
  }
}
