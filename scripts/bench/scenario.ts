/**
 * Child process of `npm run bench` (run.ts, `isolate`): runs one scenario in a fresh process, where the
 * project's timed crowd is the only animation plugin, as in a game. Input: one JSON argument
 * `{ job, settings }`; output: the ScenarioDone as JSON on stdout, progress lines (`progress: …`) on stderr.
 */
import { createGcTracker } from './measure.ts'
import { runScenarioJob, type ScenarioJob, type Settings } from './run.ts'

const { job, settings } = JSON.parse(process.argv[2] ?? '{}') as { job: ScenarioJob; settings: Settings }
const tracker = createGcTracker()
try {
  const done = await runScenarioJob(job, settings, tracker, (line) =>
    process.stderr.write(`progress: ${line}\n`),
  )
  process.stdout.write(JSON.stringify(done))
} finally {
  tracker.stop()
}
