/**
 * The loader fuzzer's engine: takes the real assets in assets/ apart (glTF JSON + one byte array per
 * buffer), applies structured, seeded mutations (fast-check arbitraries of plain-data `Mutation`s, so a
 * failing case prints as readable JSON and shrinks), and writes the file back in its own container:
 *
 *   .glb source                 → GLB (buffer 0 is the BIN chunk)
 *   .gltf with data: uris       → .gltf, every buffer a data: uri
 *   .gltf with sibling files    → .gltf + `resources` (uri → bytes), as readAsset's `{resources}` takes them
 *
 * The judges a mutated file goes to are in fuzzJudges.ts; the parts are in mutate/ (subjects, the
 * arbitraries: values, dataArbs, structureArbs; apply). Shared by test/gltf/fuzz.test.ts and
 * scripts/fuzz.ts. Written without src/gltf (a GLB joiner of its own, byte offsets from the JSON), so a bug
 * in the loader's reading cannot hide the same bug here.
 */
import fc from 'fast-check'
import type { Json } from './gltfFiles.ts'
import { addDataMutations } from './mutate/dataArbs.ts'
import { addStructureMutations } from './mutate/structureArbs.ts'
import { loadSubjects, type Subject } from './mutate/subjects.ts'
import { pick } from './mutate/values.ts'

export { COMPONENTS, loadSubjects, type Subject } from './mutate/subjects.ts'
export { applyCase, type MutatedFile } from './mutate/apply.ts'

export type Container = 'glb' | 'embedded' | 'external'
export type Path = (string | number)[]
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

// -----------------------------------------------------------------------------------------------------------
// Mutations: plain data, so a counterexample prints as JSON and can be replayed
// -----------------------------------------------------------------------------------------------------------

/** How a key time is edited (`prev` is the key before, `next` the key after, as in the file). */
export type KeyTimeEdit =
  | 'repeat-previous' // = prev: not increasing
  | 'before-previous' // < prev
  | 'negative'
  | 'nan'
  | 'infinity'
  | 'huge' // 3e38: finite, increasing when last
  | 'negative-zero'
  | 'swap-next'
  | 'one-ulp-later' // prev + 1 ulp: still strictly increasing (a valid edit)

export type Mutation = { kind: string } & (
  | { op: 'set'; path: Path; value: JsonValue }
  | { op: 'delete'; path: Path }
  | { op: 'keyTime'; accessor: number; key: number; edit: KeyTimeEdit }
  /** Writes float32 `values` into an accessor's element from `component` on (within the element). */
  | { op: 'floats'; accessor: number; element: number; component: number; values: number[] }
  /** Multiplies one element of a FLOAT accessor by `factor` (0: a zero quaternion). */
  | { op: 'scaleElement'; accessor: number; element: number; factor: number }
  /**
   * Makes a FLOAT accessor sparse: appends the indices (as `indexType`) and the element values to the
   * accessor's buffer, in two new buffer views, and points `sparse` at them. `offsets: false` leaves the
   * sparse byteOffsets out (they default to 0, whatever the accessor's own byteOffset).
   */
  | {
      op: 'sparse'
      accessor: number
      indices: number[]
      values: number[]
      indexType: number
      offsets: boolean
    }
  | { op: 'binByte'; buffer: number; at: number; value: number }
  | { op: 'cutBuffer'; buffer: number; length: number }
  /** A byte of the written JSON text (the JSON chunk of a GLB). `at` is taken modulo the text length. */
  | { op: 'textByte'; at: number; value: number }
  /** A byte anywhere in the written file, header included. `at` modulo the file length. */
  | { op: 'fileByte'; at: number; value: number }
  /** Cuts the file to `fraction` of its length; `fixHeader` also patches a GLB's declared length to match. */
  | { op: 'truncate'; fraction: number; fixHeader: boolean }
)

export interface FuzzCase {
  subject: number
  mutations: Mutation[]
}

const mutationArbs = new WeakMap<Subject, fc.Arbitrary<Mutation>>()

/** The mutations one subject can receive, weighted toward the data animation and skinning read. Cached. */
export function mutationArb(subject: Subject): fc.Arbitrary<Mutation> {
  let arb = mutationArbs.get(subject)
  if (!arb) mutationArbs.set(subject, (arb = makeMutationArb(subject)))
  return arb
}

function makeMutationArb(subject: Subject): fc.Arbitrary<Mutation> {
  const j = subject.json
  const nAccessors = j.accessors?.length ?? 0
  const nViews = j.bufferViews?.length ?? 0
  const nBuffers = j.buffers?.length ?? 0
  const nNodes = j.nodes?.length ?? 0
  const nSkins = j.skins?.length ?? 0
  const nScenes = j.scenes?.length ?? 0
  const animations: Json[] = j.animations ?? []
  const animated = [...subject.animationInputs, ...subject.animationOutputs.map((o) => o.accessor)]
  const interesting = [...animated, ...subject.ibmAccessors]
  const accessor: fc.Arbitrary<number> = fc.oneof(
    { weight: 3, arbitrary: interesting.length > 0 ? pick(interesting) : fc.nat(nAccessors - 1) },
    { weight: 1, arbitrary: fc.nat(Math.max(0, nAccessors - 1)) },
  )
  const at = fc.nat({ max: 2 ** 31 - 1 })
  const byte = fc.integer({ min: 0, max: 255 })
  const arbs: { weight: number; arbitrary: fc.Arbitrary<Mutation> }[] = []
  const add = (weight: number, arbitrary: fc.Arbitrary<Mutation>): void => {
    arbs.push({ weight, arbitrary })
  }

  const c = {
    subject,
    j,
    nAccessors,
    nViews,
    nBuffers,
    nNodes,
    nSkins,
    nScenes,
    animations,
    accessor,
    at,
    byte,
    add,
  }
  addDataMutations(c)
  addStructureMutations(c)
  return fc.oneof(...arbs)
}

/** A case: one subject (index into `loadSubjects()`) and one to three mutations. */
export function caseArb(subjectIndices?: readonly number[]): fc.Arbitrary<FuzzCase> {
  const all = loadSubjects()
  const indices = subjectIndices ?? all.map((_, i) => i)
  return pick(indices).chain((subject) =>
    fc.record({
      subject: fc.constant(subject),
      mutations: fc.array(mutationArb(all[subject]!), { minLength: 1, maxLength: 3 }),
    }),
  )
}

/** A mutation as one line (numbers as JS prints them, so NaN and Infinity survive). */
export function describeMutation(m: Mutation): string {
  const { kind, op, ...rest } = m
  const show = (v: unknown): string =>
    typeof v === 'number' ? String(v) : Array.isArray(v) ? `[${v.map(show).join(',')}]` : JSON.stringify(v)
  const fields = Object.entries(rest).map(
    ([k, v]) => `${k}=${k === 'path' ? (v as Path).join('/') : show(v)}`,
  )
  return `${kind} (${op} ${fields.join(' ')})`
}

/**
 * A case as JSON text that keeps NaN, ±Infinity and -0 (written "#NaN", "#Infinity", "#-Infinity", "#-0").
 */
export function encodeCase(fuzzCase: FuzzCase): string {
  return JSON.stringify(fuzzCase, (_, v: unknown) =>
    typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))
      ? `#${Object.is(v, -0) ? '-0' : v}`
      : v,
  )
}

export function decodeCase(text: string): FuzzCase {
  return JSON.parse(text, (_, v: unknown) =>
    typeof v === 'string' && /^#(NaN|-?Infinity|-0)$/.test(v) ? Number(v.slice(1)) : v,
  ) as FuzzCase
}
