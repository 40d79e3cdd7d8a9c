/**
 * A fuzz worker (started by pool.ts through boot.mjs): runs the cases it is sent, one at a time, and posts
 *
 *   { type: 'ready', tid }                 once warmed up; tid: its thread's id (the pool reads its CPU time)
 *   { type: 'run', index, label }          as each run of a case starts (label null: the case is done)
 *   { type: 'progress', label }            as each pipeline stage starts
 *   { type: 'checks', ms, cpu }            the run's judge has spent `ms` (wall), `cpu` (CPU) on its checks
 *   { type: 'result', result }             the case's CaseResult
 *   { type: 'crash', detail }              something threw outside the judged calls
 *
 * Warming up runs a case on each of a few shipped files without mutation, so a case's time is the case's
 * own and not the first-call compilation of everything it touches (a cold pipeline takes over a second).
 */
import { parentPort } from 'node:worker_threads'
import { loadSubjects } from '../../test/helpers/mutate.ts'
import { runCase, type FuzzCaseSpec } from './cases.ts'
import { onCheckTime } from './judge.ts'
import { threadId } from './cpu.ts'

const port = parentPort!

for (let round = 0; round < 1; round++) {
  for (let subject = 0; subject < loadSubjects().length; subject++) {
    await runCase(
      { index: -1, file: { subject, mutations: [] }, seed: round, forgeries: 1, calls: 10, validate: false },
      () => {},
    )
  }
}
port.postMessage({ type: 'ready', tid: threadId() })

// The pool stops a run by its time less the judge's checks: it hears them every 100 ms they grow by.
let toldMs = 0
onCheckTime((ms, cpu) => {
  if (ms - toldMs < 100) return
  toldMs = ms
  port.postMessage({ type: 'checks', ms, cpu })
})

port.on('message', async (spec: FuzzCaseSpec) => {
  try {
    const result = await runCase(
      spec,
      (label) => {
        toldMs = 0
        port.postMessage({ type: 'run', index: spec.index, label })
      },
      (label) => port.postMessage({ type: 'progress', label }),
    )
    port.postMessage({ type: 'result', result })
  } catch (error) {
    // Thrown outside every judged call (writing the file, mapping a snapshot): the harness's or the library's
    // fault; either way the parent reports it, with where it came from.
    port.postMessage({
      type: 'crash',
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    })
  }
})
