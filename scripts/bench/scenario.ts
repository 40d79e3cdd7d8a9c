/**
 * Child process of `npm run bench` (child.ts, `isolate`): runs one scenario, the squad-vs-slerp comparison or the
 * snapshot / restore section,
 * in a fresh process, where the project's timed crowds are the only animation plugins, as in a game. child.ts
 * bundles this file to plain JavaScript and runs it with plain node (see bundledChildEntry there).
 * Input: one JSON argument, a ChildTask; output: its result as JSON on stdout, progress lines (`progress: …`)
 * on stderr.
 */
import { setV8Measures } from '../../src/engine/v8.ts'
import { createGcTracker } from './measure.ts'
import { measureKernel } from './kernels.ts'
import { compressionAsset, measureCompression } from './compression.ts'
import type { ChildTask } from './child.ts'
import { loadBenchAsset, runScenarioJob } from './scenarioJob.ts'
import { squadVsSlerp } from './systemSplit.ts'
import { measureSnapshots } from './snapshots.ts'
import { measureRetargetCrowd } from './retargetCrowd.ts'
import { measureIK } from './ik.ts'
import { measureWorkers } from './workers.ts'
import { measureGraphSide } from './graphs.ts'

const task = JSON.parse(process.argv[2] ?? '{}') as ChildTask
// Before any plugin exists: priming happens once per process.
setV8Measures(Object.fromEntries((task.settings.v8MeasuresOff ?? []).map((name) => [name, false])))
const tracker = createGcTracker()
try {
  const log = (line: string): void => void process.stderr.write(`progress: ${line}\n`)
  const done =
    task.kind === 'scenario'
      ? await runScenarioJob(task.job, task.settings, tracker, log)
      : task.kind === 'snapshots'
        ? await measureSnapshots(task.settings, tracker, log)
        : task.kind === 'graphs'
          ? await measureGraphSide(task.side, task.count, task.recording, task.foxPath, task.settings.rounds)
          : task.kind === 'retarget'
            ? measureRetargetCrowd(task.settings, log)
            : task.kind === 'ik'
              ? await measureIK(task.settings, tracker, log)
              : task.kind === 'workers'
                ? await measureWorkers(
                    await loadBenchAsset(task.scenario.asset, task.settings.rigJoints, task.foxPath),
                    task.scenario,
                    task.workers,
                    task.settings,
                    task.mainWaits,
                  )
                : task.kind === 'compression'
                  ? measureCompression(
                      await compressionAsset(task.asset, task.compact, task.foxPath),
                      task.asset,
                      task.count,
                      task.compact,
                      task.settings,
                    )
                  : task.kind === 'kernels'
                    ? measureKernel(
                        await loadBenchAsset(task.asset, task.settings.rigJoints, task.foxPath),
                        task.asset,
                        task.count,
                        task.kernels,
                        task.settings,
                      )
                    : squadVsSlerp(
                        await loadBenchAsset('rig-linear', task.settings.rigJoints, ''),
                        task.count,
                        task.settings,
                      )
  process.stdout.write(JSON.stringify(done))
} finally {
  tracker.stop()
}
