/**
 * The fuzzer, long form: `npm run fuzz -- [--runs 10000] [--seed 1] [--workers 2] [--forgeries 2] [--calls 50]
 * [--validate-every 20] [--pile-every 20] [--pile 40] [--budget-ms 2000] [--first 0] [--case JSON]`. `--first N` (a multiple of 500) starts
 * at case N of the seed's sample: the same cases a run from 0 has there, so a long run can be split in parts.
 *
 * Each of `runs` seeded cases is a mutant of a shipped asset file (test/helpers/mutate.ts mutations and the
 * generators of scripts/fuzz/generators.ts) run through the whole library in a worker with a time and memory
 * limit (scripts/fuzz/pool.ts): load → addCharacter → play → 30 steps with a fade → ragdoll → 30 steps →
 * snapshot → restore into a fresh plugin → 10 steps (scripts/fuzz/pipeline.ts); then forged copies of that
 * snapshot with a recomputed checksum, restored, and one corrupt copy (bits flipped, checksum as written), which
 * must be refused (forge.ts); then random public calls with arbitrary JavaScript values (calls.ts). Every
 * `pile-every`-th case also piles `pile` characters of its asset 1 cm apart and ragdolls them all at once
 * (pile.ts). Every `validate-every`-th case also goes to the loader judge and Khronos gltf-validator, as the
 * loader fuzzer did.
 *
 * Prints the counts per stage and per mutation kind, every finding with the command that replays it, and the
 * table of the five targets (scripts/fuzz/report.ts). Cases with a run over the time budget are run once more
 * before it counts, since the machine may be shared. Exit code 1 when a target is missed. `--case` replays one
 * case in this process and prints everything it did. Run from the repository root (assets: assets/).
 */
import { loadSubjects } from '../test/helpers/mutate.ts'
import { runLoader, runValidator } from '../test/helpers/fuzzJudges.ts'
import { decodeSpec, describeFile, makeCases, runCase, type FuzzCaseSpec } from './fuzz/cases.ts'
import { buildFile } from './fuzz/expand.ts'
import { DEFAULT_POOL, runPool, type CaseOutcome } from './fuzz/pool.ts'
import { printReport, Tally } from './fuzz/report.ts'

/** Cases generated per fast-check sample call. */
const CHUNK = 500

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`)
  if (at === -1) return fallback
  const value = Number(process.argv[at + 1])
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number, got ${process.argv[at + 1]}`)
  return value
}

async function replay(text: string): Promise<void> {
  const spec = decodeSpec(text)
  console.log(describeFile(spec.file).slice(0, 2000))
  const file = buildFile(spec.file)
  const loader = await runLoader(file)
  const detail =
    loader.status === 'rejected' ? loader.error.message : loader.status === 'broken' ? loader.problem : ''
  console.log('loader judge:', loader.status, detail)
  const errors = await runValidator(file, loadSubjects()[spec.file.subject]!)
  if (errors === null) console.log('validator: could not judge it')
  for (const e of errors ?? []) console.log(`validator: [${e.category}] ${e.code} ${e.pointer} ${e.message}`)
  const result = await runCase({ ...spec, validate: false, verbose: true }, () => {})
  for (const run of result.runs) {
    console.log(
      `\n${run.run}: ${run.outcome}, ${run.ms.toFixed(0)} ms${run.cpu ? ' of CPU' : ''} in the library ` +
        `(${run.libraryWallMs.toFixed(0)} wall, ${run.wallMs.toFixed(0)} with the checks), ` +
        `+${(run.memory.isolate / 2 ** 20).toFixed(1)} MiB`,
    )
    if (run.completed) console.log(`  completed: ${run.completed.join(', ')}`)
    for (const m of run.messages ?? []) console.log(`  refused: ${m.slice(0, 300)}`)
    for (const f of run.faults) console.log(`  FAULT ${f.kind} at ${f.stage}: ${f.detail}`)
    for (const line of run.detail ?? []) console.log(`    ${line.slice(0, 300)}`)
  }
  const faults = result.runs.reduce((n, r) => n + r.faults.length, 0)
  console.log(`\n${faults === 0 ? 'OK' : 'FAIL'}: ${faults} faults`)
  process.exitCode = faults === 0 ? 0 : 1
}

async function main(): Promise<void> {
  const caseAt = process.argv.indexOf('--case')
  if (caseAt !== -1) return replay(process.argv[caseAt + 1] ?? '')
  const runs = option('runs', 10_000)
  const start = option('first', 0)
  if (start < 0 || start % CHUNK !== 0)
    throw new Error(`--first must be a multiple of ${CHUNK}, got ${start}`)
  const seed = option('seed', 1)
  const settings = {
    forgeries: option('forgeries', 2),
    calls: option('calls', 50),
    validateEvery: option('validate-every', 20),
    pileEvery: option('pile-every', 20),
    pile: option('pile', 40),
  }
  const pool = { ...DEFAULT_POOL, workers: option('workers', 2), budgetMs: option('budget-ms', 2000) }
  const specs: FuzzCaseSpec[] = []
  for (let first = start; first < start + runs; first += CHUNK) {
    specs.push(...makeCases(seed, first, Math.min(CHUNK, start + runs - first), settings))
  }
  const started = performance.now()
  const tally = new Tally(pool.budgetMs, 256)
  let done = 0
  await runPool(specs, pool, (outcome: CaseOutcome) => {
    tally.record(outcome)
    if (++done % 250 === 0) {
      const s = (performance.now() - started) / 1000
      process.stderr.write(`  ${done}/${runs} cases, ${s.toFixed(0)} s\n`)
    }
  })
  // A run over the budget on a shared machine may have been starved: it counts if it is over it again.
  const slowCases = [...new Map(tally.slow.map((s) => [s.spec.index, s.spec])).values()]
  const stillSlow = new Set<number>()
  if (slowCases.length > 0) {
    process.stderr.write(`  rerunning ${slowCases.length} cases that had a run over ${pool.budgetMs} ms\n`)
    const retry = new Tally(pool.budgetMs, 256)
    await runPool(slowCases, pool, (o) => {
      retry.record(o)
      if (o.killed?.reason === 'time' || o.result?.runs.some((r) => r.ms > pool.budgetMs))
        stillSlow.add(o.spec.index)
    })
  }
  tally.confirmSlow(stillSlow)
  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  printReport(
    tally,
    `ecs-anim fuzz: ${runs} cases${start > 0 ? ` from case ${start}` : ''} over ${loadSubjects().length} asset files, seed ${seed}, ${pool.workers} ` +
      `workers, ${seconds} s`,
  )
  process.exitCode = tally.met ? 0 : 1
}

await main()
