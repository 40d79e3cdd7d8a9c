/**
 * A small pool of fuzz workers (worker.ts) with a time and a memory limit. Each worker runs one case at a time. A
 * run of a case (the pipeline, each forged restore, the call sequence) is judged by the time it spends in the
 * library, measured in the worker (`budgetMs`, report.ts: its thread's CPU time, the judge's own checks left out).
 * The pool stops a run whose CPU time in the library, read from /proc every POLL_MS (cpu.ts), reaches `stopAfter`
 * budgets, or whose wall time less the judge's checks reaches `wallFactor` times that (a stuck run; where the CPU
 * time cannot be read, `stopAfter` budgets of wall time): the worker is terminated and the run counts as over
 * time. (Wall time with the checks made the calls stage of 2,000-node rigs "still running after 6 s" with 1 s in
 * the library, and a busy machine made them 4 s.) The worker's old generation is capped at `memoryMb`
 * (resourceLimits); a worker that dies of it counts its run as over the memory limit. Either way a fresh worker
 * takes the next case. Validation (gltf-validator) is held to `validateMs` of wall time only, and setting up a
 * case (writing its file) to `setupMs`.
 */
import { Worker } from 'node:worker_threads'
import type { CaseResult, FuzzCaseSpec } from './cases.ts'
import { forgetTask, taskCpuMs } from './cpu.ts'

export interface PoolOptions {
  workers: number
  budgetMs: number
  stopAfter: number
  memoryMb: number
  validateMs: number
  setupMs: number
  /**
   * A run stopped by its CPU time may still be starved of CPU by a busy machine: its wall time (less the
   * checks) is held to this many times the CPU limit only, which a run that is not stuck never reaches.
   */
  wallFactor: number
}

export const DEFAULT_POOL: PoolOptions = {
  workers: 2,
  budgetMs: 2000,
  stopAfter: 3,
  // The run's own limit is 256 MiB (judged from its measured peak); the cap leaves the worker's baseline (the
  // parsed assets, the modules) on top of that, so a worker that dies of it had a run well past 256 MiB.
  memoryMb: 320,
  validateMs: 60_000,
  setupMs: 60_000,
  wallFactor: 10,
}

/** A case's end: its result, or the run that was stopped and why. */
export interface CaseOutcome {
  spec: FuzzCaseSpec
  result?: CaseResult
  /** From handing the case to the worker to its end, in the parent. */
  wallMs: number
  /** `stage`: what the run was doing (a pipeline stage, or 'loader judge' or 'gltf-validator' in validate). */
  killed?: { run: string; reason: 'time' | 'memory' | 'died'; detail: string; ms: number; stage: string }
}

interface Message {
  type: 'ready' | 'run' | 'progress' | 'checks' | 'result' | 'crash'
  /** ready: the worker's thread id, to read its CPU time (cpu.ts), null where it cannot. */
  tid?: number | null
  /** checks: the run's judge's own milliseconds so far, wall and CPU. */
  ms?: number
  cpu?: number
  detail?: string
  index?: number
  label?: string | null
  result?: CaseResult
}

/** Runs every case on the pool; `onOutcome` gets each as it ends (in no particular order). */
export async function runPool(
  specs: FuzzCaseSpec[],
  options: PoolOptions,
  onOutcome: (outcome: CaseOutcome) => void,
): Promise<void> {
  let next = 0
  const slot = async (): Promise<void> => {
    while (next < specs.length) {
      const { worker, tid } = await startWorker(options)
      // Cases go to this worker until one of them is stopped; then a fresh worker takes over.
      for (;;) {
        if (next >= specs.length) break
        const spec = specs[next++]!
        const outcome = await runOne(worker, tid, spec, options)
        onOutcome(outcome)
        if (outcome.killed) break
      }
      await worker.terminate()
      if (tid !== null) forgetTask(tid)
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.workers, specs.length) }, slot))
}

function startWorker(options: PoolOptions): Promise<{ worker: Worker; tid: number | null }> {
  const worker = new Worker(new URL('./boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./worker.ts', import.meta.url).href },
    resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
    stdout: false,
    stderr: false,
  })
  return new Promise((resolve, reject) => {
    const onMessage = (m: Message): void => {
      if (m.type !== 'ready') return
      worker.off('message', onMessage)
      worker.off('error', reject)
      resolve({ worker, tid: m.tid ?? null })
    }
    worker.on('message', onMessage)
    worker.on('error', reject)
  })
}

/** How often the pool reads a running worker's CPU time. */
const POLL_MS = 200

function runOne(
  worker: Worker,
  tid: number | null,
  spec: FuzzCaseSpec,
  options: PoolOptions,
): Promise<CaseOutcome> {
  return new Promise((resolve) => {
    let run = 'setup'
    const posted = performance.now()
    let started = posted
    let timer: NodeJS.Timeout | undefined
    let settled = false
    const finish = (outcome: CaseOutcome): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearInterval(poll)
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
      resolve(outcome)
    }
    let stage = ''
    /** The run's limit (0 between runs), and whether it is one of CPU time (a library run on Linux). */
    let limit = 0
    let byCpu = false
    /** The worker's CPU time when the run started, and the judge's own milliseconds so far (wall, CPU). */
    let cpuStart = 0
    let checks = 0
    let checksCpu = 0
    let poll: NodeJS.Timeout | undefined
    const stop = (): void => {
      clearTimeout(timer)
      clearInterval(poll)
      limit = 0
    }
    const kill = (reason: 'time' | 'memory' | 'died', detail: string, ms?: number): void => {
      const spent = ms ?? performance.now() - started - checks
      const where = stage ? `${detail} (in ${stage})` : detail
      stop()
      finish({
        spec,
        wallMs: performance.now() - posted,
        killed: { run, reason, detail: where, ms: spent, stage },
      })
      void worker.terminate()
    }
    const judged = (): string => (checks > 0 ? ` besides ${checks.toFixed(0)} ms of the judge's checks` : '')
    /** The wall-clock deadline: the limit itself, or `wallFactor` times a CPU limit; moved by the checks. */
    const schedule = (): void => {
      clearTimeout(timer)
      const wall = byCpu ? limit * options.wallFactor : limit
      timer = setTimeout(
        () => kill('time', `still running after ${wall} ms of wall time${judged()}`),
        started + wall + checks - performance.now(),
      )
    }
    const cpuUsed = (): number | null => {
      const cpu = tid === null ? null : taskCpuMs(tid)
      return cpu === null ? null : cpu - cpuStart - checksCpu
    }
    const arm = (label: string): void => {
      stop()
      run = label
      stage = ''
      started = performance.now()
      checks = 0
      checksCpu = 0
      const library = label !== 'validate' && label !== 'setup'
      limit = !library
        ? label === 'validate'
          ? options.validateMs
          : options.setupMs
        : options.budgetMs * options.stopAfter
      const cpu = library && tid !== null ? taskCpuMs(tid) : null
      byCpu = cpu !== null
      cpuStart = cpu ?? 0
      schedule()
      if (byCpu) {
        poll = setInterval(() => {
          const used = cpuUsed()
          if (used !== null && used >= limit) {
            kill('time', `still running after ${used.toFixed(0)} ms of CPU in the library${judged()}`, used)
          }
        }, POLL_MS)
      }
    }
    const onMessage = (m: Message): void => {
      if (m.type === 'checks') {
        checks = m.ms ?? checks
        checksCpu = m.cpu ?? checksCpu
        if (limit > 0) schedule()
      } else if (m.type === 'progress') stage = m.label ?? ''
      else if (m.type === 'run') {
        if (m.label === null || m.label === undefined) stop()
        else arm(m.label)
      } else if (m.type === 'result') finish({ spec, result: m.result, wallMs: performance.now() - posted })
      else if (m.type === 'crash') kill('died', m.detail ?? 'crashed')
    }
    const onError = (error: Error & { code?: string }): void => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') kill('memory', error.message)
      else kill('died', `${error.name}: ${error.message}`)
    }
    const onExit = (code: number): void => kill('died', `worker exited with code ${code}`)
    worker.on('message', onMessage)
    worker.on('error', onError)
    worker.on('exit', onExit)
    arm('setup')
    worker.postMessage(spec)
  })
}
