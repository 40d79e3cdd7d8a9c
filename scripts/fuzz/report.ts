/**
 * The fuzzer's counts, and the tables `npm run fuzz` prints. The six targets (the issues' contract):
 *
 *   errors          a run threw something other than an AnimationError, step() threw, or a worker died (not
 *                   in gltf-validator: that is the judge broken, counted apart)
 *   over 2 s        a run spent longer than the budget in the library (its thread's CPU time, measured in the
 *                   worker, the judge's own checks left out: pipeline.ts RunReport), or the pool stopped it
 *                   (pool.ts), or a pile step's work grew past its bound (pile.ts)
 *   over 256 MiB    a run's heap + array buffers rose by more (measured), or its worker ran out of memory
 *   non-finite      a world matrix element was NaN or ±∞ after a step or a restore
 *   changed         a call that threw changed hash() or the snapshot() bytes
 *   corrupt         a snapshot with bits flipped (its checksum as written) was restored (forge.ts corrupt)
 *
 * Each counts runs (a case has a pipeline run, its forged restores and its call sequence), each run at most
 * once per target. Also counted, outside the targets: restored plugins that diverged from their original, and
 * the loader judge and gltf-validator comparison of every validated case.
 */
import type { CaseOutcome } from './pool.ts'
import {
  describeFile,
  encodeSpec,
  fileKinds,
  JUDGE_STAGES,
  type FuzzCaseSpec,
  type RunResult,
} from './cases.ts'
import { PIPELINE_STAGES } from './pipeline.ts'

export type Target = 'errors' | 'over-time' | 'over-memory' | 'non-finite' | 'changed' | 'corrupt'

export const TARGETS: { id: Target; label: string }[] = [
  { id: 'errors', label: 'errors other than AnimationError (or any from step())' },
  { id: 'over-time', label: 'runs over 2 s' },
  { id: 'over-memory', label: 'allocations over 256 MiB' },
  { id: 'non-finite', label: 'non-finite values in a world matrix' },
  { id: 'changed', label: 'failed calls that changed hash() or snapshot()' },
  { id: 'corrupt', label: 'corrupt snapshots restored (bits flipped)' },
]

export interface Finding {
  target: Target | 'diverged' | 'loader' | 'validator'
  spec: FuzzCaseSpec
  run: string
  detail: string
  extra?: string[]
}

interface KindRow {
  runs: number
  /** Wall seconds of the cases whose file has this kind (file kinds only). */
  seconds: number
  refusedAtLoad: number
  completed: number
  faulty: number
}

interface StageRow {
  reached: number
  completed: number
  refusals: Map<string, number>
  faults: number
}

export const replayCommand = (spec: FuzzCaseSpec): string =>
  `npm run fuzz -- --case '${encodeSpec({ file: spec.file, seed: spec.seed, forgeries: spec.forgeries, calls: spec.calls, pile: spec.pile ?? 0 })}'`

export class Tally {
  readonly budgetMs: number
  readonly memoryBytes: number
  cases = 0
  readonly runs = { pipeline: 0, forge: 0, calls: 0, pile: 0 }
  calls = { made: 0, ok: 0, refused: 0 }
  readonly targets = new Map<Target, Finding[]>(TARGETS.map((t) => [t.id, []]))
  readonly extras: Finding[] = []
  readonly byKind = new Map<string, KindRow>()
  readonly byStage = new Map<string, StageRow>()
  readonly forgeOutcomes = new Map<string, number>()
  maxMs = { pipeline: 0, forge: 0, calls: 0, pile: 0 }
  maxMemory = 0
  validation = {
    cases: 0,
    accepted: 0,
    rejected: 0,
    broken: 0,
    validatorNull: 0,
    /** Cases whose worker died or was stopped inside gltf-validator. */
    validatorBroken: 0,
    unexplained: 0,
    cleanRejected: 0,
  }
  readonly unexplainedCodes = new Map<string, number>()
  /** Runs first seen over the budget; `confirm` says which stayed over it on a rerun. */
  readonly slow: { spec: FuzzCaseSpec; run: string; detail: string }[] = []

  constructor(budgetMs: number, memoryMb: number) {
    this.budgetMs = budgetMs
    this.memoryBytes = memoryMb * 2 ** 20
  }

  private find(
    target: Finding['target'],
    spec: FuzzCaseSpec,
    run: string,
    detail: string,
    extra?: string[],
  ): void {
    const finding = { target, spec, run, detail, extra }
    if (target === 'diverged' || target === 'loader' || target === 'validator') this.extras.push(finding)
    else this.targets.get(target)!.push(finding)
  }

  private stage(name: string): StageRow {
    let row = this.byStage.get(name)
    if (!row) this.byStage.set(name, (row = { reached: 0, completed: 0, refusals: new Map(), faults: 0 }))
    return row
  }

  private kind(name: string): KindRow {
    let row = this.byKind.get(name)
    if (!row)
      this.byKind.set(name, (row = { runs: 0, seconds: 0, refusedAtLoad: 0, completed: 0, faulty: 0 }))
    return row
  }

  record(outcome: CaseOutcome): void {
    this.cases++
    const { spec } = outcome
    if (outcome.killed?.run === 'validate' && outcome.killed.stage === JUDGE_STAGES.validator) {
      // gltf-validator itself died or hung (its stack overflow escapes its promise): the judge is broken, the
      // library was not running.
      const k = outcome.killed
      this.validation.validatorBroken++
      this.find('validator', spec, k.run, `gltf-validator broke (${k.reason}): ${k.detail}`)
    } else if (outcome.killed) {
      const k = outcome.killed
      const target: Target =
        k.reason === 'time' ? 'over-time' : k.reason === 'memory' ? 'over-memory' : 'errors'
      if (target === 'over-time') {
        this.slow.push({ spec, run: k.run, detail: `stopped after ${k.ms.toFixed(0)} ms: ${k.detail}` })
      } else
        this.find(target, spec, k.run, `${k.reason === 'died' ? 'the worker died' : 'stopped'}: ${k.detail}`)
      this.stage(k.run.replace(/ \d+$/, '')).faults++
    }
    for (const run of outcome.result?.runs ?? []) this.recordRun(spec, run)
    for (const k of fileKinds(spec.file)) this.kind(k).seconds += outcome.wallMs / 1000
    const v = outcome.result?.validation
    if (v) {
      this.validation.cases++
      this.validation[v.loader]++
      if (v.loader === 'broken') this.find('loader', spec, 'validate', `loader judge: ${v.problem}`)
      if (v.errors === null) this.validation.validatorNull++
      else if (v.loader === 'rejected' && v.errors.length === 0) this.validation.cleanRejected++
      for (const e of v.errors ?? []) {
        if (v.loader !== 'accepted' || e.repair !== undefined) continue
        if (!['animation', 'skin', 'node'].includes(e.category)) continue
        this.validation.unexplained++
        this.unexplainedCodes.set(e.code, (this.unexplainedCodes.get(e.code) ?? 0) + 1)
        this.find(
          'validator',
          spec,
          'validate',
          `accepted, validator error ${e.code} ${e.pointer}: ${e.message}`,
        )
      }
    }
  }

  private recordRun(spec: FuzzCaseSpec, run: RunResult): void {
    this.runs[run.run]++
    this.maxMs[run.run] = Math.max(this.maxMs[run.run], run.ms)
    this.maxMemory = Math.max(this.maxMemory, run.memory.isolate)
    const label =
      run.run === 'pipeline'
        ? 'pipeline'
        : run.run === 'forge'
          ? 'forged restore'
          : run.run === 'pile'
            ? 'pile'
            : 'call sequence'
    if (run.ms > this.budgetMs) {
      this.slow.push({
        spec,
        run: run.run,
        detail:
          `${run.ms.toFixed(0)} ms ${run.cpu ? 'of CPU ' : ''}in the library (${run.libraryWallMs.toFixed(0)} ` +
          `wall, ${run.wallMs.toFixed(0)} with the judge's checks)`,
      })
    }
    if (run.memory.isolate > this.memoryBytes) {
      this.find(
        'over-memory',
        spec,
        label,
        `heap + array buffers rose by ${(run.memory.isolate / 2 ** 20).toFixed(0)} MiB`,
      )
    }
    for (const f of run.faults) {
      // A step whose work grew past its bound (pile.ts) is a cost broken: the time target's.
      const target = f.kind === 'error' ? 'errors' : f.kind === 'unbounded' ? 'over-time' : f.kind
      this.find(target, spec, label, `${f.stage}: ${f.detail}`, run.detail)
    }
    if (run.run === 'pipeline') {
      const completed = new Set(run.completed)
      for (const s of PIPELINE_STAGES) {
        if (completed.has(s) || s === run.outcome) this.stage(s).reached++
        if (completed.has(s)) this.stage(s).completed++
      }
      for (const r of run.refusals) {
        const [s, kind] = r.split(':') as [string, string]
        const row = this.stage(s).refusals
        row.set(kind, (row.get(kind) ?? 0) + 1)
      }
      for (const f of run.faults) this.stage(f.stage).faults++
    } else {
      const row = this.stage(run.run)
      row.reached++
      if (run.faults.length === 0) row.completed++
      else row.faults++
      if (run.run === 'forge')
        this.forgeOutcomes.set(run.outcome, (this.forgeOutcomes.get(run.outcome) ?? 0) + 1)
      else if (run.run === 'calls') {
        const m = /^(\d+) ok, (\d+) refused$/.exec(run.outcome)
        if (m) {
          this.calls.ok += Number(m[1])
          this.calls.refused += Number(m[2])
          this.calls.made += Number(m[1]) + Number(m[2])
        }
        for (const r of run.refusals) {
          const kind = r.split(':')[1]!
          row.refusals.set(kind, (row.refusals.get(kind) ?? 0) + 1)
        }
      }
    }
    for (const k of run.kinds) {
      const row = this.kind(k)
      row.runs++
      if (run.run === 'pipeline' && run.outcome === 'load') row.refusedAtLoad++
      if (run.run !== 'pipeline' || run.outcome === 'steps3') row.completed++
      if (run.faults.length > 0) row.faulty++
    }
  }

  /** Keeps as over-time only the slow runs that `stillSlow` confirms (the case run again). */
  confirmSlow(stillSlow: Set<number>): void {
    for (const s of this.slow) {
      if (!stillSlow.has(s.spec.index)) continue
      this.find('over-time', s.spec, s.run, `${s.detail}, and again on a rerun`)
    }
  }

  count(target: Target): number {
    return this.targets.get(target)!.length
  }

  get met(): boolean {
    return TARGETS.every((t) => this.count(t.id) === 0)
  }
}

const pad = (cells: (string | number)[], widths: number[]): string =>
  cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[0]!) : String(c).padStart(widths[i]!))).join(' ')

/** The report: per stage, per kind, findings with replay commands, then the target table last. */
export function printReport(t: Tally, header: string): void {
  console.log(header)
  console.log(
    `runs: ${t.runs.pipeline} pipelines, ${t.runs.forge} forged restores, ${t.runs.calls} call sequences, ` +
      `${t.runs.pile} piles ` +
      `(${t.calls.made} calls: ${t.calls.ok} returned, ${t.calls.refused} refused with AnimationError)`,
  )
  console.log(
    `slowest: pipeline ${t.maxMs.pipeline.toFixed(0)} ms, forged restore ${t.maxMs.forge.toFixed(0)} ms, ` +
      `call sequence ${t.maxMs.calls.toFixed(0)} ms, pile ${t.maxMs.pile.toFixed(0)} ms; largest memory rise ${(t.maxMemory / 2 ** 20).toFixed(1)} MiB`,
  )

  console.log('\nBy stage (refusals are AnimationErrors, by kind):')
  const sw = [16, 9, 10, 7, 60]
  console.log(pad(['stage', 'reached', 'completed', 'faults', 'refusals'], sw))
  for (const s of [...PIPELINE_STAGES, 'forge', 'calls', 'pile', 'validate', 'setup']) {
    const row = t.byStage.get(s)
    if (!row) continue
    const refusals = [...row.refusals]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')
    console.log(pad([s, row.reached, row.completed, row.faults, ''], sw.slice(0, 4)) + '  ' + refusals)
  }
  if (t.forgeOutcomes.size > 0) {
    console.log(`forged restores: ${[...t.forgeOutcomes].map(([k, n]) => `${k} ${n}`).join(', ')}`)
  }

  console.log(
    '\nBy mutation kind (a run with several kinds counts under each; forge.* and call.* are the other stages):',
  )
  const kw = [34, 8, 12, 10, 7, 9]
  console.log(pad(['kind', 'runs', 'load refused', 'completed', 'faulty', 'seconds'], kw))
  const groups = (k: string): number =>
    k.startsWith('call.') ? 3 : k.startsWith('forge.') ? 2 : k.startsWith('gen.') ? 1 : 0
  for (const [k, r] of [...t.byKind].sort(
    (a, b) => groups(a[0]) - groups(b[0]) || a[0].localeCompare(b[0]),
  )) {
    console.log(
      pad([k, r.runs, r.refusedAtLoad, r.completed, r.faulty, r.seconds > 0 ? r.seconds.toFixed(0) : ''], kw),
    )
  }

  const v = t.validation
  console.log(
    `\nLoader judge and gltf-validator on ${v.cases} cases: loader accepted ${v.accepted}, rejected ${v.rejected}, ` +
      `BROKEN ${v.broken}; validator could not judge ${v.validatorNull}; rejected with no validator error ` +
      `${v.cleanRejected} (stricter); accepted with an unexplained animation/skin/node error ${v.unexplained}` +
      (t.unexplainedCodes.size > 0
        ? ` (${[...t.unexplainedCodes].map(([c, n]) => `${c} ×${n}`).join(', ')})`
        : ''),
  )

  const findings = [...TARGETS.flatMap((x) => t.targets.get(x.id)!), ...t.extras]
  if (findings.length > 0) console.log('\nFindings (the first 5 of each target and kind of detail):')
  const shown = new Map<string, number>()
  for (const f of findings) {
    const key = `${f.target} ${f.detail.replace(/\d+(\.\d+)?(e[-+]?\d+)?/g, 'N').slice(0, 80)}`
    const n = shown.get(key) ?? 0
    shown.set(key, n + 1)
    if (n >= 5) continue
    console.log(`\n[${f.target}] ${f.run}: ${f.detail}`)
    console.log(`  ${describeFile(f.spec.file).slice(0, 400)}`)
    for (const line of (f.extra ?? []).slice(-12)) console.log(`    ${line.slice(0, 200)}`)
    console.log(`  replay: ${replayCommand(f.spec).slice(0, 4000)}`)
  }
  const repeats = [...shown].filter(([, n]) => n > 5)
  for (const [key, n] of repeats) console.log(`  (${n - 5} more like: ${key})`)

  console.log('\nTargets:')
  const tw = [52, 8, 8]
  console.log(pad(['', 'count', 'target', ''], [...tw, 0]))
  for (const x of TARGETS) {
    const n = t.count(x.id)
    console.log(`${pad([x.label, n, 0], tw)}  ${n === 0 ? 'met' : 'NOT MET'}`)
  }
  const slowSeen = t.slow.length
  console.log(
    `(runs over 2 s count those over the budget on the first try and again on a rerun: ${slowSeen} were ` +
      `over it on the first try)`,
  )
  const diverged = t.extras.filter((f) => f.target === 'diverged').length
  console.log(
    `also: restored plugins that diverged from their original ${diverged}; loader judge broken ${v.broken}; ` +
      `gltf-validator broken ${v.validatorBroken}; unexplained validator errors ${v.unexplained}`,
  )
}
