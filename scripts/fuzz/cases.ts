/**
 * A fuzz case and how one is run. A case is plain data (it crosses to a worker and replays from one line of
 * JSON): a file (a shipped asset with mutate.ts mutations and/or generator edits), a seed for the forged
 * snapshots and the random calls, and how many of each. Running it (in a worker, see worker.ts):
 *
 *   1. the pipeline on the file (pipeline.ts);
 *   2. `forgeries` forged copies of the pipeline's snapshot, each restored into a fresh plugin, and one corrupt
 *      copy (forge.ts);
 *   3. `calls` random public calls on a fresh plugin holding the loaded asset (calls.ts);
 *   3b. with `pile`, that many characters of the asset 1 cm apart, all ragdolled at once (pile.ts);
 *   4. when `validate`: the loader judge and Khronos gltf-validator on the same file (fuzzJudges.ts), as the
 *      loader fuzzer always did; outside the run budget.
 *
 * Each of 1–3 is a run: `onRun` is told when each starts, so the parent can hold it to its time budget.
 */
import fc from 'fast-check'
import {
  LOADER_CATEGORIES,
  repairFor,
  runLoader,
  runValidator,
  type ValidatorCategory,
} from '../../test/helpers/fuzzJudges.ts'
import {
  caseArb,
  describeMutation,
  loadSubjects,
  mutationArb,
  type Mutation,
} from '../../test/helpers/mutate.ts'
import { runCalls } from './calls.ts'
import { corrupt, forge, mapSnapshot, runForgery } from './forge.ts'
import { buildFile } from './expand.ts'
import { describeEdit, genArb, type FileCase, type GenEdit } from './generators.ts'
import type { Fault, MemoryPeak, RunReport, Stage } from './judge.ts'
import { runPipeline } from './pipeline.ts'
import { runPile } from './pile.ts'
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/index.ts'

export interface FuzzCaseSpec {
  /** Position in the run (for reports). */
  index: number
  file: FileCase
  seed: number
  forgeries: number
  calls: number
  /** Characters of the pile run (pile.ts); 0 or absent: none. */
  pile?: number
  validate: boolean
  /** Keep every refusal's message and every run's edits or call log (for a replay). */
  verbose?: boolean
}

/** The validate run's two parts, as its progress names them. */
export const JUDGE_STAGES = { loader: 'loader judge', validator: 'gltf-validator' } as const

/** One run of a case, as the report counts it. */
export interface RunResult {
  run: 'pipeline' | 'forge' | 'calls' | 'pile'
  /** In the library, CPU time where it can be read (pipeline.ts RunReport); `wallMs` with the checks. */
  ms: number
  cpu: boolean
  libraryWallMs: number
  wallMs: number
  memory: MemoryPeak
  faults: Fault[]
  /** What kind of input this run was about (mutation kinds; forged fields; calls). */
  kinds: string[]
  /** pipeline: last stage reached; forge: refused/restored; calls: ok/refused counts. */
  outcome: string
  /** Refusals as stage:kind (the pipeline's), for the per-stage table. */
  refusals: string[]
  /** Stages that ran to their end (pipeline only). */
  completed?: Stage[]
  /** What the run did, when it broke a promise (or the case is verbose): forged edits or the call log. */
  detail?: string[]
  /** The refusals' messages (verbose cases only). */
  messages?: string[]
}

export interface ValidationResult {
  loader: 'accepted' | 'rejected' | 'broken'
  problem?: string
  /** Validator errors with their category and, for an accepted file, the documented repair if any. */
  errors:
    { code: string; category: ValidatorCategory; pointer: string; message: string; repair?: string }[] | null
}

export interface CaseResult {
  index: number
  runs: RunResult[]
  validation?: ValidationResult
}

/** Mutation kinds of a file case (mutate.ts kinds and generator kinds). */
export function fileKinds(c: FileCase): string[] {
  return [...new Set([...c.mutations.map((m) => m.kind), ...(c.gen ?? []).map((g) => `gen.${g.gen}`)])]
}

export function describeFile(c: FileCase): string {
  return `${loadSubjects()[c.subject]!.file}: ${[
    ...c.mutations.map(describeMutation),
    ...(c.gen ?? []).map(describeEdit),
  ].join('; ')}`
}

/** A case as one line of JSON that keeps NaN, ±Infinity and -0 (as mutate.ts's encodeCase writes them). */
export function encodeSpec(spec: Omit<FuzzCaseSpec, 'index' | 'validate'>): string {
  return JSON.stringify(spec, (_, v: unknown) =>
    typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))
      ? `#${Object.is(v, -0) ? '-0' : v}`
      : v,
  )
}

/**
 * A replayed case: this fuzzer's line (`{file, seed, forgeries, calls}`), or a loader-fuzz case (`{subject,
 * mutations}`, as test/gltf/fuzz.test.ts prints them), which gets the default stages.
 */
export function decodeSpec(text: string): FuzzCaseSpec {
  const parsed = JSON.parse(text, (_, v: unknown) =>
    typeof v === 'string' && /^#(NaN|-?Infinity|-0)$/.test(v) ? Number(v.slice(1)) : v,
  ) as Partial<FuzzCaseSpec> & Partial<FileCase>
  if (parsed.file) {
    return { index: 0, seed: 1, forgeries: 2, calls: 50, validate: true, ...parsed, file: parsed.file }
  }
  return {
    index: 0,
    file: { subject: parsed.subject!, mutations: parsed.mutations ?? [], gen: parsed.gen },
    seed: 1,
    forgeries: 2,
    calls: 50,
    validate: true,
  }
}

/**
 * Files: a third loader mutations alone (mutate.ts), a third generator edits alone, a third both (an edit and a
 * mutation), over every shipped asset file.
 */
export function fileCaseArb(): fc.Arbitrary<FileCase> {
  const subjects = loadSubjects()
  return fc.oneof(
    caseArb(),
    fc.nat(subjects.length - 1).chain((subject) =>
      fc.record({
        subject: fc.constant(subject),
        mutations: fc.constant<Mutation[]>([]),
        gen: fc.array(genArb(subjects[subject]!), { minLength: 1, maxLength: 2 }),
      }),
    ),
    fc.nat(subjects.length - 1).chain((subject) =>
      fc.record({
        subject: fc.constant(subject),
        mutations: fc.array(mutationArb(subjects[subject]!), { minLength: 1, maxLength: 1 }),
        gen: fc.array(genArb(subjects[subject]!), { minLength: 1, maxLength: 1 }),
      }),
    ),
  )
}

/**
 * `count` cases from `seed`, numbered from `first`; every `validateEvery`-th is also validated, and every
 * `pileEvery`-th (0: none) also gets a pile run of `pile` characters.
 */
export function makeCases(
  seed: number,
  first: number,
  count: number,
  settings: { forgeries: number; calls: number; validateEvery: number; pileEvery?: number; pile?: number },
): FuzzCaseSpec[] {
  const files = fc.sample(fileCaseArb(), { seed: seed * 1_000_003 + first, numRuns: count })
  return files.map((file, k) => ({
    index: first + k,
    file,
    seed: (seed * 7919 + first + k) >>> 0,
    forgeries: settings.forgeries,
    calls: settings.calls,
    pile:
      (settings.pileEvery ?? 0) > 0 && (first + k) % settings.pileEvery! === 0 ? (settings.pile ?? 40) : 0,
    validate: settings.validateEvery > 0 && (first + k) % settings.validateEvery === 0,
  }))
}

const refusalsOf = (rs: { stage: Stage; kind: string }[]): string[] => rs.map((r) => `${r.stage}:${r.kind}`)
const messagesOf = (spec: FuzzCaseSpec, rs: { call: string; message: string }[]): string[] | undefined =>
  spec.verbose ? rs.map((r) => `${r.call}: ${r.message}`) : undefined

/** A forged restore's, call sequence's or pile's result; `detail` is kept when it broke a promise (or verbose). */
function resultOf(
  run: RunResult['run'],
  spec: FuzzCaseSpec,
  r: RunReport,
  kinds: string[],
  outcome: string,
  detail: string[] | null,
): RunResult {
  return {
    run,
    ms: r.ms,
    cpu: r.cpu,
    libraryWallMs: r.libraryWallMs,
    wallMs: r.wallMs,
    memory: r.memory,
    faults: r.faults,
    kinds,
    outcome,
    refusals: refusalsOf(r.refusals),
    detail: detail !== null && (r.faults.length > 0 || spec.verbose) ? detail : undefined,
    messages: messagesOf(spec, r.refusals),
  }
}

/**
 * Runs one case (see the header). `onRun(label)` is called as each run starts, and with null after the last;
 * `onProgress` hears the pipeline's stages.
 */
export async function runCase(
  spec: FuzzCaseSpec,
  onRun: (label: string | null) => void,
  onProgress: (label: string) => void = () => {},
): Promise<CaseResult> {
  const file = buildFile(spec.file)
  const kinds = fileKinds(spec.file)
  const runs: RunResult[] = []

  onRun('pipeline')
  const p = await runPipeline({ name: file.source, bytes: file.bytes, resources: file.resources }, onProgress)
  runs.push({
    run: 'pipeline',
    ms: p.ms,
    cpu: p.cpu,
    libraryWallMs: p.libraryWallMs,
    wallMs: p.wallMs,
    memory: p.memory,
    faults: p.faults,
    kinds,
    outcome: p.reached,
    refusals: refusalsOf(p.refusals),
    completed: p.completed,
    messages: messagesOf(spec, p.refusals),
  })

  if (p.asset && p.options && p.snapshot) {
    // The map needs a plugin with the pipeline's options (its stores' layout), not its state.
    const layoutPlugin = createAnimationPlugin(createWorld(), p.options)
    const targets = mapSnapshot(p.snapshot, layoutPlugin, p.options.capacity)
    layoutPlugin.dispose()
    // The forgeries, then (when there are any) one corrupt copy: bits flipped, the checksum as written.
    const copies = spec.forgeries > 0 ? spec.forgeries + 1 : 0
    for (let f = 0; f < copies; f++) {
      const seed = (spec.seed * 31 + f) >>> 0
      const forged = f < spec.forgeries ? forge(p.snapshot, targets, seed) : corrupt(p.snapshot, seed)
      onRun(`forge ${f}`)
      const r = runForgery(p.asset, p.options, forged)
      const edited =
        f < spec.forgeries ? forged.edits.map((e) => e.replace(/\[.*$/, '').replace(/ .*$/, '')) : ['corrupt']
      const kinds = [...new Set(edited.map((e) => `forge.${e}`))]
      runs.push(resultOf('forge', spec, r, kinds, r.outcome, forged.edits))
    }
  }

  if (p.asset && spec.calls > 0) {
    onRun('calls')
    const r = runCalls(p.asset, spec.seed, spec.calls)
    const called = r.log.map((l) => l.replace(/\(.*$/, ''))
    const kinds = [...new Set(called.map((c) => `call.${c}`))]
    runs.push(resultOf('calls', spec, r, kinds, `${r.ok} ok, ${r.refused} refused`, r.log))
  }

  if (p.asset && (spec.pile ?? 0) > 0) {
    onRun('pile')
    const r = runPile(p.asset, spec.pile!)
    const outcome = `${r.ragdolls} ragdolls, ${r.equationsPerBody.toFixed(1)} equations a body at most`
    runs.push(resultOf('pile', spec, r, ['pile'], outcome, null))
  }

  let validation: ValidationResult | undefined
  if (spec.validate) {
    onRun('validate')
    validation = await validate(spec, onProgress)
  }
  onRun(null)
  return { index: spec.index, runs, validation }
}

/**
 * The loader judge and gltf-validator on the case's file (the loader fuzzer's comparison). `onProgress` hears
 * which is running: a worker that dies in 'gltf-validator' is the third-party judge's failure, not the library's.
 */
async function validate(spec: FuzzCaseSpec, onProgress: (label: string) => void): Promise<ValidationResult> {
  const file = buildFile(spec.file)
  onProgress(JUDGE_STAGES.loader)
  const outcome = await runLoader(file)
  onProgress(JUDGE_STAGES.validator)
  const errors =
    outcome.status === 'broken' ? null : await runValidator(file, loadSubjects()[spec.file.subject]!)
  return {
    loader: outcome.status,
    problem: outcome.status === 'broken' ? outcome.problem : undefined,
    errors:
      errors?.map((e) => ({
        code: e.code,
        category: e.category,
        pointer: e.pointer,
        message: e.message,
        repair:
          outcome.status === 'accepted' && LOADER_CATEGORIES.includes(e.category)
            ? repairFor(e, file.json)?.why
            : undefined,
      })) ?? null,
  }
}

/**
 * Generator edits the short form leaves out, as each takes seconds (test/fuzz/pipeline.test.ts lists why):
 * trees of more than a thousand nodes, extras of more than 300,000 numbers, any rest scale of 10 or more,
 * on which a generated ragdoll's capsules become chains of millions of spheres, and more than a hundred copies
 * of an animation.
 */
function slowEdit(edit: GenEdit): boolean {
  switch (edit.gen) {
    case 'tree.deep':
      return edit.depth > 1000 || Math.abs(edit.scale) >= 10
    case 'tree.wide':
      return edit.width > 1000
    case 'tree.bushy':
      return edit.branching ** edit.levels > 1000
    case 'json.wide':
      return edit.width > 300000
    case 'translation.huge-keys':
      return Math.abs(edit.parentScale) >= 10
    case 'node.huge':
      return edit.field !== 'translation' && Math.abs(edit.value) >= 10
    case 'scale.nested':
      return Math.abs(edit.value) >= 10
    case 'anims.copies':
      return edit.copies > 100
    default:
      return false
  }
}

/**
 * The short form's cases: `perKind` edits of every generator kind (spread over the asset files), as many
 * loader mutation cases (mutate.ts) and half as many of both; every case with forged restores and a call
 * sequence. Deterministic for a seed.
 */
export function coverageCases(
  seed: number,
  perKind: number,
  settings: { forgeries: number; calls: number; mutations: number; pileEvery?: number; pile?: number },
): FuzzCaseSpec[] {
  const subjects = loadSubjects()
  const files: FileCase[] = []
  const byKind = new Map<string, FileCase[]>()
  subjects.forEach((subject, s) => {
    for (const edit of fc.sample(genArb(subject), { seed: seed + s, numRuns: 60 })) {
      if (slowEdit(edit)) continue
      const list = byKind.get(edit.gen) ?? []
      byKind.set(edit.gen, list)
      list.push({ subject: s, mutations: [], gen: [edit] })
    }
  })
  for (const list of byKind.values()) {
    // Every asset file the kind applies to before a second case of one file.
    const step = Math.max(1, Math.floor(list.length / perKind))
    for (let k = 0; k < perKind && k * step < list.length; k++) files.push(list[k * step]!)
  }
  files.push(...fc.sample(caseArb(), { seed, numRuns: settings.mutations }))
  const mixed = fc.sample(fileCaseArb(), { seed: seed + 1, numRuns: 4 * settings.mutations })
  files.push(
    ...mixed
      .filter((c) => c.mutations.length > 0 && (c.gen ?? []).length > 0 && !(c.gen ?? []).some(slowEdit))
      .slice(0, settings.mutations >> 1),
  )
  return files.map((file, index) => ({
    index,
    file,
    seed: (seed * 7919 + index) >>> 0,
    forgeries: settings.forgeries,
    calls: settings.calls,
    pile: (settings.pileEvery ?? 0) > 0 && index % settings.pileEvery! === 0 ? (settings.pile ?? 40) : 0,
    validate: false,
  }))
}
