/**
 * A small pool of fuzz workers (worker.ts) with a time and a memory limit. Each worker runs one case at a
 * time. A run of a case (the pipeline, each forged restore, the call sequence) is judged by the time it spends
 * in the library, measured in the worker (`budgetMs`, report.ts); the pool stops a run whose wall time reaches
 * `stopAfter` budgets (the judge's checks, hash() and snapshot() around every call, take their share of the
 * wall time): the worker is terminated and the run counts as over time. The worker's old generation is
 * capped at `memoryMb` (resourceLimits); a worker that dies of it counts its run as over the memory limit.
 * Either way a fresh worker takes the next case. Validation (gltf-validator) is held to `validateMs` only,
 * and setting up a case (writing its file) to `setupMs`.
 */
import { Worker } from 'node:worker_threads'
import type { CaseResult, FuzzCaseSpec } from './cases.ts'

export interface PoolOptions {
  workers: number
  budgetMs: number
  stopAfter: number
  memoryMb: number
  validateMs: number
  setupMs: number
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
}

/** A case's end: its result, or the run that was stopped and why. */
export interface CaseOutcome {
  spec: FuzzCaseSpec
  result?: CaseResult
  /** From handing the case to the worker to its end, in the parent. */
  wallMs: number
  killed?: { run: string; reason: 'time' | 'memory' | 'died'; detail: string; ms: number }
}

interface Message {
  type: 'ready' | 'run' | 'progress' | 'result' | 'crash'
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
      const worker = await startWorker(options)
      // Cases go to this worker until one of them is stopped; then a fresh worker takes over.
      for (;;) {
        if (next >= specs.length) break
        const spec = specs[next++]!
        const outcome = await runOne(worker, spec, options)
        onOutcome(outcome)
        if (outcome.killed) break
      }
      await worker.terminate()
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.workers, specs.length) }, slot))
}

function startWorker(options: PoolOptions): Promise<Worker> {
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
      resolve(worker)
    }
    worker.on('message', onMessage)
    worker.on('error', reject)
  })
}

function runOne(worker: Worker, spec: FuzzCaseSpec, options: PoolOptions): Promise<CaseOutcome> {
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
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
      resolve(outcome)
    }
    let stage = ''
    const kill = (reason: 'time' | 'memory' | 'died', detail: string): void => {
      const ms = performance.now() - started
      const where = stage ? `${detail} (in ${stage})` : detail
      finish({ spec, wallMs: performance.now() - posted, killed: { run, reason, detail: where, ms } })
      void worker.terminate()
    }
    const arm = (label: string): void => {
      clearTimeout(timer)
      run = label
      stage = ''
      started = performance.now()
      const limit =
        label === 'validate'
          ? options.validateMs
          : label === 'setup'
            ? options.setupMs
            : options.budgetMs * options.stopAfter
      timer = setTimeout(() => kill('time', `still running after ${limit} ms`), limit)
    }
    const onMessage = (m: Message): void => {
      if (m.type === 'progress') stage = m.label ?? ''
      else if (m.type === 'run') {
        if (m.label === null || m.label === undefined) clearTimeout(timer)
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
