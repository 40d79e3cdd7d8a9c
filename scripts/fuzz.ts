/**
 * The loader fuzzer, long form: `npm run fuzz -- [--runs 50000] [--seed 1] [--validate-every 20] [--case
 * JSON]`.
 *
 * Generates `runs` seeded cases (an asset of assets/ and 1–3 structured mutations,
 * test/helpers/mutate.ts) and checks on each what the CI form (test/gltf/fuzz.test.ts) checks: readAsset
 * returns a whole asset that holds what the file says, or throws AnimationError naming the file; never
 * anything else, never slowly (test/helpers/fuzzJudges.ts). Every `validate-every`-th case also goes through
 * Khronos gltf-validator and the verdicts are compared.
 *
 * Prints tables per mutation kind and per asset, the loader/validator comparison per category, and every
 * broken, slow or unexplained case (a validator error in an animation/skin/node category on a file the loader
 * accepted, with no documented repair), each with the command that replays it. Exit code 1 when there is one.
 * `--case` replays one case and shows both verdicts. Run from the repository root (assets: assets/).
 */
import fc from 'fast-check'
import {
  LOADER_CATEGORIES,
  type LoaderOutcome,
  repairFor,
  runLoader,
  runValidator,
  type ValidatorError,
} from '../test/helpers/fuzzJudges.ts'
import {
  applyCase,
  caseArb,
  decodeCase,
  describeMutation,
  encodeCase,
  type FuzzCase,
  loadSubjects,
  type MutatedFile,
} from '../test/helpers/mutate.ts'

/** A readAsset call slower than this is reported (and fails the run). */
const SLOW_MS = 1000
/** Cases generated per fast-check sample call (seeded `seed * 1000003 + chunk`). */
const CHUNK = 500

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`)
  if (at === -1) return fallback
  const value = Number(process.argv[at + 1])
  if (!Number.isFinite(value)) throw new Error(`--${name} needs a number, got ${process.argv[at + 1]}`)
  return value
}

const line = (cells: (string | number)[], widths: number[]): string =>
  cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[0]!) : String(c).padStart(widths[i]!))).join(' ')
const describeCase = (c: FuzzCase): string =>
  `${loadSubjects()[c.subject]!.file}: ${c.mutations.map(describeMutation).join('; ')}`
const replayCommand = (c: FuzzCase): string => `npm run fuzz -- --case '${encodeCase(c)}'`

/** Loader message with the numbers and quoted names blanked, to group rejections by reason. */
const reasonOf = (message: string): string =>
  message
    .replace(/^[^:]*: /, '')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\([^()]*\.(\w*)\)/g, '(….$1)')
    .replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi, 'N')
    .slice(0, 110)

interface Row {
  cases: number
  accepted: number
  gltf: number
  clip: number
  broken: number
}

/** Counts of one run. */
class Tally {
  readonly byKind = new Map<string, Row>()
  readonly bySubject = new Map<string, Row>()
  readonly broken: { fuzzCase: FuzzCase; problem: string }[] = []
  readonly slow: { fuzzCase: FuzzCase; ms: number }[] = []
  readonly overflows: { fuzzCase: FuzzCase; note: string }[] = []
  readonly reasons = new Map<string, number>()
  maxMs = 0
  // Loader vs validator.
  validated = 0
  validatorCrashes = 0
  readonly validatorClean = { accepted: 0, rejected: 0 }
  /**
   * Per validator category: files with such an error the loader rejected / accepted explained / unexplained.
   */
  readonly comparison = new Map<string, { rejected: number; repaired: number; unexplained: number }>()
  readonly repairsSeen = new Map<string, { count: number; why: string }>()
  readonly unexplained = new Map<string, { count: number; example: FuzzCase; error: ValidatorError }>()
  /** Loader rejected, validator found no error: by reason. */
  readonly stricter = new Map<string, { count: number; example: FuzzCase }>()

  record(fuzzCase: FuzzCase, outcome: LoaderOutcome): void {
    this.maxMs = Math.max(this.maxMs, outcome.ms)
    if (outcome.ms > SLOW_MS) this.slow.push({ fuzzCase, ms: outcome.ms })
    if (outcome.status === 'broken') this.broken.push({ fuzzCase, problem: outcome.problem })
    if (outcome.status === 'accepted' && outcome.overflow) {
      this.overflows.push({ fuzzCase, note: outcome.overflow })
    }
    if (outcome.status === 'rejected') increment(this.reasons, reasonOf(outcome.error.message))
    const rows = [
      ...[...new Set(fuzzCase.mutations.map((m) => m.kind))].map((k) => row(this.byKind, k)),
      row(this.bySubject, loadSubjects()[fuzzCase.subject]!.file),
    ]
    for (const r of rows) {
      r.cases++
      if (outcome.status === 'accepted') r.accepted++
      else if (outcome.status === 'broken') r.broken++
      else if (outcome.error.kind === 'clip') r.clip++
      else r.gltf++
    }
  }

  compare(
    fuzzCase: FuzzCase,
    file: MutatedFile,
    outcome: LoaderOutcome,
    errors: ValidatorError[] | null,
  ): void {
    this.validated++
    if (errors === null) {
      this.validatorCrashes++
      return
    }
    const accepted = outcome.status === 'accepted'
    if (errors.length === 0) {
      this.validatorClean[accepted ? 'accepted' : 'rejected']++
      if (outcome.status === 'rejected') {
        const reason = reasonOf(outcome.error.message)
        const entry = this.stricter.get(reason) ?? { count: 0, example: fuzzCase }
        entry.count++
        this.stricter.set(reason, entry)
      }
    }
    for (const category of new Set(errors.map((e) => e.category))) {
      const entry = this.comparison.get(category) ?? { rejected: 0, repaired: 0, unexplained: 0 }
      this.comparison.set(category, entry)
      if (!accepted) {
        entry.rejected++
        continue
      }
      const open = errors.filter((e) => e.category === category && !repairFor(e, file.json))
      if (open.length === 0 || !LOADER_CATEGORIES.includes(category)) {
        entry.repaired++
        continue
      }
      entry.unexplained++
      for (const e of open) {
        const u = this.unexplained.get(e.code) ?? { count: 0, example: fuzzCase, error: e }
        u.count++
        this.unexplained.set(e.code, u)
      }
    }
    if (!accepted) return
    for (const e of errors) {
      const repair = repairFor(e, file.json)
      if (!repair || !LOADER_CATEGORIES.includes(e.category)) continue
      this.repairsSeen.set(e.code, { count: (this.repairsSeen.get(e.code)?.count ?? 0) + 1, why: repair.why })
    }
  }

  get failures(): number {
    return this.broken.length + this.unexplained.size + this.slow.length
  }
}

function row(rows: Map<string, Row>, key: string): Row {
  let r = rows.get(key)
  if (!r) rows.set(key, (r = { cases: 0, accepted: 0, gltf: 0, clip: 0, broken: 0 }))
  return r
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1)
}

function byCount<T>(entries: Iterable<[string, T]>, count: (t: T) => number): [string, T][] {
  return [...entries].sort((a, b) => count(b[1]) - count(a[1]))
}

function printTable(title: string, rows: [string, Row][], width: number): void {
  const widths = [width, 8, 9, 9, 9, 8]
  console.log(`\n${title}`)
  console.log(line(['', 'cases', 'accepted', 'rej.gltf', 'rej.clip', 'BROKEN'], widths))
  for (const [name, r] of rows)
    console.log(line([name, r.cases, r.accepted, r.gltf, r.clip, r.broken], widths))
}

function printReport(t: Tally, header: string, validateEvery: number): void {
  console.log(header)
  printTable(
    'By mutation kind (a case with several mutations counts under each kind):',
    [...t.byKind].sort(),
    24,
  )
  printTable('By asset file:', [...t.bySubject], 54)
  console.log('\nMost common rejection reasons (numbers and names blanked):')
  for (const [reason, n] of byCount(t.reasons, (n) => n).slice(0, 25))
    console.log(`${String(n).padStart(7)}  ${reason}`)

  console.log(`\nLoader vs gltf-validator on ${t.validated} cases (every ${validateEvery}th):`)
  console.log(`  validator crashed (a Dart exception, no report): ${t.validatorCrashes}`)
  const clean = t.validatorClean
  console.log(
    `  validator found no error: loader accepted ${clean.accepted}, rejected ${clean.rejected} (stricter)`,
  )
  const widths = [34, 9, 24, 21]
  console.log(
    line(
      ['  validator error category', 'rejected', 'accepted: repair/ignored', 'accepted: UNEXPLAINED'],
      widths,
    ),
  )
  for (const [category, e] of [...t.comparison].sort()) {
    const name = LOADER_CATEGORIES.includes(category as never) ? category : `${category} (not read)`
    console.log(line([`  ${name}`, e.rejected, e.repaired, e.unexplained], widths))
  }
  if (t.repairsSeen.size > 0) {
    console.log('\nDocumented repairs seen (validator error, loader accepted on purpose):')
    for (const [code, r] of byCount(t.repairsSeen, (r) => r.count)) {
      console.log(`${String(r.count).padStart(7)}  ${code}: ${r.why}`)
    }
  }
  if (t.stricter.size > 0) {
    console.log('\nLoader rejects, validator reports no error (reasons):')
    for (const [reason, s] of byCount(t.stricter, (s) => s.count).slice(0, 20)) {
      console.log(`${String(s.count).padStart(7)}  ${reason}\n           e.g. ${replayCommand(s.example)}`)
    }
  }
  for (const [code, u] of t.unexplained) {
    console.log(`\nUNEXPLAINED ${code} ×${u.count}: ${u.error.pointer} ${u.error.message}`)
    console.log(`  ${describeCase(u.example)}\n  replay: ${replayCommand(u.example)}`)
  }
  for (const b of t.broken.slice(0, 30)) {
    console.log(
      `\nBROKEN ${b.problem}\n  ${describeCase(b.fuzzCase)}\n  replay: ${replayCommand(b.fuzzCase)}`,
    )
  }
  if (t.overflows.length > 0) {
    console.log(
      `\nAccepted; huge values overflow the plugin's world matrices (${t.overflows.length}, not the loader):`,
    )
    for (const o of t.overflows.slice(0, 5)) console.log(`  ${o.note}: ${describeCase(o.fuzzCase)}`)
  }
  for (const s of t.slow.slice(0, 10)) console.log(`\nSLOW ${s.ms.toFixed(0)} ms ${describeCase(s.fuzzCase)}`)
  const verdict = t.failures === 0 ? 'OK' : 'FAIL'
  console.log(
    `\n${verdict}: ${t.broken.length} broken, ${t.unexplained.size} unexplained codes, ${t.slow.length} slow`,
  )
}

async function replay(json: string): Promise<void> {
  const fuzzCase = decodeCase(json)
  const file = applyCase(fuzzCase)
  console.log(describeCase(fuzzCase))
  const outcome = await runLoader(file)
  const detail =
    outcome.status === 'rejected' ? outcome.error.message : outcome.status === 'broken' ? outcome.problem : ''
  console.log('loader:', outcome.status, detail)
  const errors = await runValidator(file, loadSubjects()[fuzzCase.subject]!)
  if (errors === null) console.log('validator: crashed')
  for (const e of errors ?? []) console.log(`validator: [${e.category}] ${e.code} ${e.pointer} ${e.message}`)
}

async function main(): Promise<void> {
  const caseAt = process.argv.indexOf('--case')
  if (caseAt !== -1) return replay(process.argv[caseAt + 1] ?? '')
  const runs = option('runs', 50_000)
  const seed = option('seed', 1)
  const validateEvery = option('validate-every', 20)
  const started = performance.now()
  const tally = new Tally()
  for (let done = 0, chunk = 0; done < runs; chunk++) {
    const cases = fc.sample(caseArb(), {
      seed: seed * 1_000_003 + chunk,
      numRuns: Math.min(CHUNK, runs - done),
    })
    for (const fuzzCase of cases) {
      const index = done++
      const file = applyCase(fuzzCase)
      const outcome = await runLoader(file)
      tally.record(fuzzCase, outcome)
      if (index % validateEvery === 0 && outcome.status !== 'broken') {
        tally.compare(fuzzCase, file, outcome, await runValidator(file, loadSubjects()[fuzzCase.subject]!))
      }
    }
    if (chunk % 10 === 9) {
      process.stderr.write(
        `  ${done}/${runs} cases, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
      )
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const slowest = tally.maxMs.toFixed(1)
  printReport(
    tally,
    `gltf loader fuzz: ${runs} cases, seed ${seed}, ${seconds} s, slowest readAsset ${slowest} ms`,
    validateEvery,
  )
  process.exitCode = tally.failures === 0 ? 0 : 1
}

await main()
