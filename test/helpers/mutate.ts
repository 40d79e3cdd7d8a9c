/**
 * The loader fuzzer's engine: takes the real assets in assets/ apart (glTF JSON + one byte array per
 * buffer), applies structured, seeded mutations (fast-check arbitraries of plain-data `Mutation`s, so a
 * failing case prints as readable JSON and shrinks), and writes the file back in its own container:
 *
 *   .glb source                 → GLB (buffer 0 is the BIN chunk)
 *   .gltf with data: uris       → .gltf, every buffer a data: uri
 *   .gltf with sibling files    → .gltf + `resources` (uri → bytes), as readAsset's `{resources}` takes them
 *
 * The judges a mutated file goes to are in fuzzJudges.ts. Shared by test/gltf/fuzz.test.ts and
 * scripts/fuzz.ts. Written without src/gltf (a GLB joiner of its own, byte offsets from the JSON), so a bug
 * in the loader's reading cannot hide the same bug here.
 */
import fc from 'fast-check'
import type { Json } from './gltfFiles.ts'
import { ASSET_FILES, readRaw } from './gltfFiles.ts'

// -----------------------------------------------------------------------------------------------------------
// Subjects: the pristine assets, taken apart once
// -----------------------------------------------------------------------------------------------------------

export type Container = 'glb' | 'embedded' | 'external'
type Path = (string | number)[]
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** One asset file, parsed once; mutations start from a copy of it. */
export interface Subject {
  file: string
  container: Container
  /**
   * The JSON as in the file, except embedded buffers' uris hold a placeholder (`BUFFER_URI(i)`) until
   * written.
   */
  json: Json
  buffers: Uint8Array[]
  /**
   * Byte offset (in its buffer) and stride of every plain FLOAT accessor, for data edits; undefined
   * otherwise.
   */
  floatLayout: (
    { buffer: number; offset: number; stride: number; components: number; count: number } | undefined
  )[]
  animationInputs: number[]
  /** Output accessors with their channel's path (rotation keys are edited differently). */
  animationOutputs: { accessor: number; path: string; interpolation: string }[]
  ibmAccessors: number[]
  /** Every JSON location, root-first (objects, arrays and leaves), for untargeted edits. */
  paths: Path[]
  /** The object locations among `paths`. */
  objectPaths: Path[]
  /** Required glTF properties present in this file (glTF 2.0 schema), for deletions. */
  requiredPaths: Path[]
  /** Parent node index of each node (-1: root), for cycle-making edits. */
  parents: number[]
}

const placeholder = (i: number): string => `data:application/octet-stream;base64,@@BUFFER${i}@@`

function makeSubject(file: string): Subject {
  const raw = readRaw(file)
  const json = structuredClone(raw.json)
  let container: Container = 'glb'
  if (file.endsWith('.gltf')) {
    const embedded = (json.buffers ?? []).every((b: Json) => String(b.uri).startsWith('data:'))
    container = embedded ? 'embedded' : 'external'
    if (embedded) json.buffers.forEach((b: Json, i: number) => (b.uri = placeholder(i)))
  }
  const inputs = new Set<number>()
  const outputs = new Map<number, { accessor: number; path: string; interpolation: string }>()
  for (const animation of json.animations ?? []) {
    for (const channel of animation.channels) {
      const sampler = animation.samplers[channel.sampler]
      inputs.add(sampler.input)
      outputs.set(sampler.output, {
        accessor: sampler.output,
        path: channel.target.path,
        interpolation: sampler.interpolation ?? 'LINEAR',
      })
    }
  }
  const parents = new Array<number>(json.nodes?.length ?? 0).fill(-1)
  ;(json.nodes ?? []).forEach((node: Json, i: number) => {
    for (const c of node.children ?? []) parents[c] = i
  })
  const paths: Path[] = []
  const objectPaths: Path[] = []
  const walk = (value: Json, path: Path): void => {
    paths.push(path)
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]))
    else if (value !== null && typeof value === 'object') {
      objectPaths.push(path)
      for (const [k, v] of Object.entries(value)) if (k !== 'uri') walk(v, [...path, k])
    }
  }
  walk(json, [])
  return {
    file,
    container,
    json,
    buffers: raw.buffers,
    floatLayout: (json.accessors ?? []).map((a: Json) => floatLayout(json, a)),
    animationInputs: [...inputs].sort((a, b) => a - b),
    animationOutputs: [...outputs.values()].sort((a, b) => a.accessor - b.accessor),
    ibmAccessors: (json.skins ?? [])
      .map((s: Json) => s.inverseBindMatrices)
      .filter((i: unknown) => typeof i === 'number'),
    paths,
    objectPaths,
    requiredPaths: requiredPaths(json),
    parents,
  }
}

export const COMPONENTS: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
}

function floatLayout(json: Json, accessor: Json): Subject['floatLayout'][number] {
  if (accessor.componentType !== 5126 || accessor.bufferView === undefined || accessor.sparse)
    return undefined
  const view = json.bufferViews[accessor.bufferView]
  const components = COMPONENTS[accessor.type]!
  return {
    buffer: view.buffer,
    offset: (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0),
    stride: view.byteStride ?? 4 * components,
    components,
    count: accessor.count,
  }
}

/** Required properties by the glTF 2.0 JSON schema, as paths into this file. */
function requiredPaths(json: Json): Path[] {
  const out: Path[] = [['asset'], ['asset', 'version']]
  const each = (key: string, fields: string[]): void =>
    (json[key] ?? []).forEach((item: Json, i: number) => {
      for (const f of fields) if (item[f] !== undefined) out.push([key, i, f])
    })
  each('accessors', ['componentType', 'count', 'type'])
  each('bufferViews', ['buffer', 'byteLength'])
  each('buffers', ['byteLength'])
  each('skins', ['joints'])
  each('meshes', ['primitives'])
  ;(json.animations ?? []).forEach((a: Json, i: number) => {
    out.push(['animations', i, 'channels'], ['animations', i, 'samplers'])
    a.channels.forEach((_: Json, c: number) =>
      out.push(
        ['animations', i, 'channels', c, 'sampler'],
        ['animations', i, 'channels', c, 'target'],
        ['animations', i, 'channels', c, 'target', 'path'],
      ),
    )
    a.samplers.forEach((_: Json, s: number) =>
      out.push(['animations', i, 'samplers', s, 'input'], ['animations', i, 'samplers', s, 'output']),
    )
  })
  return out
}

let subjects: Subject[] | undefined
/** Every asset file of ASSET_FILES, parsed (cached). */
export function loadSubjects(): readonly Subject[] {
  subjects ??= ASSET_FILES.map(makeSubject)
  return subjects
}

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

const set = (kind: string, path: Path, value: JsonValue): Mutation => ({ kind, op: 'set', path, value })

/** A bad-or-good index for a list of `n`: mostly valid, else the usual suspects. */
const indexValue = (n: number): fc.Arbitrary<JsonValue> =>
  fc.oneof(
    { weight: 3, arbitrary: n > 0 ? fc.integer({ min: 0, max: n - 1 }) : fc.constant(0) },
    { weight: 2, arbitrary: fc.constantFrom<JsonValue>(n, n + 1, -1, 2 ** 31, 2 ** 53, 0.5, '0', null, [0]) },
  )

/** Odd JSON values for untargeted edits. Infinity is written as 1e999 (JSON.parse reads it as Infinity). */
const oddValue: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(
    null,
    0,
    -1,
    1,
    0.5,
    -0.5,
    1e999,
    -1e999,
    2 ** 32,
    '',
    'x',
    true,
    false,
    [],
    {},
    [null],
  ),
  fc.integer({ min: -5, max: 100 }),
  fc.string({ maxLength: 6 }),
)

function pick<T>(items: readonly T[]): fc.Arbitrary<T> {
  return fc.constantFrom(...items)
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

  // Bytes and truncation.
  add(
    3,
    fc.record({ at, value: byte }).map(({ at, value }) => ({ kind: 'json.byte', op: 'textByte', at, value })),
  )
  add(
    1,
    fc.record({ at, value: byte }).map(({ at, value }) => ({ kind: 'file.byte', op: 'fileByte', at, value })),
  )
  add(
    2,
    fc
      .record({ fraction: fc.double({ min: 0, max: 1, noNaN: true }), fixHeader: fc.boolean() })
      .map(({ fraction, fixHeader }) => ({ kind: 'truncate', op: 'truncate', fraction, fixHeader })),
  )
  if (subject.buffers.length > 0) {
    const buffer = fc.nat(subject.buffers.length - 1)
    add(
      2,
      fc
        .record({ buffer, at, value: byte })
        .map(({ buffer, at, value }) => ({ kind: 'bin.byte', op: 'binByte', buffer, at, value })),
    )
    add(
      1,
      fc
        .record({ buffer, fraction: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) })
        .map(({ buffer, fraction }): Mutation => ({
          kind: 'buffer.cut',
          op: 'cutBuffer',
          buffer,
          length: Math.floor(fraction * subject.buffers[buffer]!.length),
        })),
    )
  }

  // Accessors.
  if (nAccessors > 0) {
    const field = (kind: string, name: string, value: (a: Json) => fc.Arbitrary<JsonValue>): void =>
      add(
        2,
        accessor.chain((i) => value(j.accessors[i]).map((v) => set(kind, ['accessors', i, name], v))),
      )
    field('accessor.count', 'count', (a) =>
      fc.constantFrom<JsonValue>(
        a.count - 1,
        a.count + 1,
        0,
        -1,
        2 * a.count,
        2 ** 32,
        1.5,
        String(a.count),
        1,
      ),
    )
    field('accessor.componentType', 'componentType', () =>
      fc.constantFrom<JsonValue>(5120, 5121, 5122, 5123, 5125, 5126, 5124, 5130, 0, '5126', null),
    )
    field('accessor.type', 'type', () =>
      fc.constantFrom<JsonValue>(
        'SCALAR',
        'VEC2',
        'VEC3',
        'VEC4',
        'MAT2',
        'MAT3',
        'MAT4',
        'VEC5',
        'vec3',
        '',
        4,
      ),
    )
    field('accessor.byteOffset', 'byteOffset', (a) =>
      fc.constantFrom<JsonValue>(
        (a.byteOffset ?? 0) + 4,
        (a.byteOffset ?? 0) + 1,
        (a.byteOffset ?? 0) + 2,
        -4,
        2 ** 31,
        0,
      ),
    )
    field('accessor.normalized', 'normalized', () => fc.constantFrom<JsonValue>(true, false, 'yes', 1))
    field('accessor.bufferView', 'bufferView', () => indexValue(nViews))
    add(
      2,
      accessor.chain((i) => {
        const a = j.accessors[i]
        const n = COMPONENTS[a.type] ?? 1
        const bound = fc.oneof(
          fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: n, maxLength: n }),
          fc.constantFrom<JsonValue>([], [0], null, 'x'),
        )
        return fc
          .record({ which: fc.constantFrom('min', 'max'), value: fc.oneof(bound, fc.constant(undefined)) })
          .map(({ which, value }): Mutation =>
            value === undefined
              ? { kind: 'accessor.minmax', op: 'delete', path: ['accessors', i, which] }
              : set('accessor.minmax', ['accessors', i, which], value),
          )
      }),
    )
  }

  // Animation data in the buffers: key times and output values.
  const withLayout = (list: number[]): number[] => list.filter((a) => subject.floatLayout[a] !== undefined)
  const inputs = withLayout(subject.animationInputs)
  if (inputs.length > 0) {
    add(
      4,
      pick(inputs).chain((a) =>
        fc
          .record({
            key: fc.nat(subject.floatLayout[a]!.count - 1),
            edit: fc.constantFrom<KeyTimeEdit>(
              'repeat-previous',
              'before-previous',
              'negative',
              'nan',
              'infinity',
              'huge',
              'negative-zero',
              'swap-next',
              'one-ulp-later',
            ),
          })
          .map(({ key, edit }): Mutation => ({ kind: 'times', op: 'keyTime', accessor: a, key, edit })),
      ),
    )
  }
  const outputs = subject.animationOutputs.filter((o) => subject.floatLayout[o.accessor] !== undefined)
  if (outputs.length > 0) {
    add(
      3,
      pick(outputs).chain((o) => {
        const layout = subject.floatLayout[o.accessor]!
        return fc.oneof(
          fc
            .record({
              element: fc.nat(layout.count - 1),
              component: fc.nat(layout.components - 1),
              value: fc.constantFrom(NaN, Infinity, -Infinity, 3e38, 1e39, -0, 1e-42),
            })
            .map(({ element, component, value }): Mutation => ({
              kind: 'values.float',
              op: 'floats',
              accessor: o.accessor,
              element,
              component,
              values: [value],
            })),
          fc
            .record({
              element: fc.nat(layout.count - 1),
              factor: fc.constantFrom(0, 2, 1e-3, -1, 1e-30, 1e30),
            })
            .map(({ element, factor }): Mutation => ({
              kind: o.path === 'rotation' ? 'values.rotation-scale' : 'values.scale',
              op: 'scaleElement',
              accessor: o.accessor,
              element,
              factor,
            })),
        )
      }),
    )
  }
  const sparseTargets = withLayout([
    ...subject.animationInputs,
    ...subject.animationOutputs.map((o) => o.accessor),
  ])
  if (sparseTargets.length > 0) {
    add(
      2,
      pick(sparseTargets).chain((a) => {
        const { count, components } = subject.floatLayout[a]!
        const valid: fc.Arbitrary<number[]> = fc
          .uniqueArray(fc.nat(count - 1), { minLength: 1, maxLength: Math.min(3, count) })
          .map((xs) => xs.sort((x, y) => x - y))
        const odd: fc.Arbitrary<number[]> = fc.constantFrom<number[]>(
          [count],
          [0, 0],
          [1, 0],
          [count + 5],
          [-1],
        )
        return fc
          .record({
            indices: fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: odd }),
            indexType: fc.constantFrom(5121, 5123, 5125, 5125, 5126),
            offsets: fc.boolean(),
            value: fc.oneof(fc.double({ min: 0, max: 4, noNaN: true }), fc.constantFrom(NaN, -1)),
          })
          .map(({ indices, indexType, offsets, value }): Mutation => {
            // For key times keep the edit mostly valid: the new time sits between its neighbours' old times.
            const values = indices.flatMap((i) =>
              Array.from({ length: components }, (_, c) => value + i + c / 10),
            )
            return { kind: 'accessor.sparse', op: 'sparse', accessor: a, indices, values, indexType, offsets }
          })
      }),
    )
  }
  if (subject.ibmAccessors.length > 0) {
    add(
      1,
      pick(subject.ibmAccessors).chain((a) =>
        fc
          .record({
            element: fc.nat(Math.max(0, (subject.floatLayout[a]?.count ?? 1) - 1)),
            component: fc.nat(15),
            value: fc.constantFrom(NaN, Infinity, 2, 0, 1e30),
          })
          .map(({ element, component, value }): Mutation => ({
            kind: 'skin.ibm-values',
            op: 'floats',
            accessor: a,
            element,
            component,
            values: [value],
          })),
      ),
    )
  }

  // Animations: samplers and channels.
  if (animations.length > 0) {
    const animation = fc.nat(animations.length - 1)
    const sampler = animation.chain((a) =>
      fc.tuple(fc.constant(a), fc.nat(animations[a].samplers.length - 1)),
    )
    const channel = animation.chain((a) =>
      fc.tuple(fc.constant(a), fc.nat(animations[a].channels.length - 1)),
    )
    add(
      3,
      fc
        .tuple(
          sampler,
          fc.constantFrom<JsonValue | undefined>(
            'STEP',
            'LINEAR',
            'CUBICSPLINE',
            'linear',
            'Step',
            'CUBIC',
            'SMOOTH',
            '',
            ' LINEAR',
            0,
            null,
            undefined,
          ),
        )
        .map(([[a, s], value]): Mutation => {
          const path = ['animations', a, 'samplers', s, 'interpolation']
          return value === undefined
            ? { kind: 'sampler.interpolation', op: 'delete', path }
            : set('sampler.interpolation', path, value)
        }),
    )
    add(
      2,
      fc
        .tuple(sampler, fc.constantFrom('input', 'output'), indexValue(nAccessors))
        .map(([[a, s], which, value]) =>
          set(`sampler.${which}`, ['animations', a, 'samplers', s, which], value),
        ),
    )
    add(
      2,
      fc
        .tuple(channel, indexValue(nNodes))
        .map(([[a, c], value]) =>
          set('channel.node', ['animations', a, 'channels', c, 'target', 'node'], value),
        ),
    )
    add(
      1,
      fc
        .tuple(
          channel,
          fc.constantFrom<JsonValue>(
            'translation',
            'rotation',
            'scale',
            'weights',
            'Rotation',
            'pointer',
            '',
            3,
          ),
        )
        .map(([[a, c], value]) =>
          set('channel.path', ['animations', a, 'channels', c, 'target', 'path'], value),
        ),
    )
    add(
      1,
      fc
        .tuple(channel, fc.nat(20))
        .map(([[a, c], s]) => set('channel.sampler', ['animations', a, 'channels', c, 'sampler'], s)),
    )
    add(
      2,
      fc
        .tuple(channel, fc.constantFrom('duplicate', 'retarget', 'drop', 'drop-sampler', 'no-node', 'empty'))
        .map(([[a, c], how]): Mutation => {
          const anim = structuredClone(animations[a])
          const copy = anim.channels[c]
          if (how === 'duplicate') anim.channels.push(structuredClone(copy))
          else if (how === 'retarget')
            anim.channels.push({ ...copy, target: { ...copy.target, node: (copy.target.node + 1) % nNodes } })
          else if (how === 'drop') anim.channels.splice(c, 1)
          else if (how === 'drop-sampler') anim.samplers.splice(copy.sampler, 1)
          else if (how === 'no-node') delete copy.target.node
          else anim.channels = []
          return set(`animation.${how}`, ['animations', a], anim)
        }),
    )
  }

  // Nodes, skins, scenes.
  if (nNodes > 0) {
    const node = fc.nat(nNodes - 1)
    add(
      3,
      fc
        .tuple(
          node,
          fc.constantFrom('ancestor', 'self', 'any', 'duplicate', 'out-of-range', 'negative', 'none', 'drop'),
          fc.nat(nNodes - 1),
        )
        .map(([i, how, other]) => {
          const children: JsonValue[] = [...(j.nodes[i].children ?? [])]
          const ancestors: number[] = []
          for (let p = subject.parents[i]!; p !== -1; p = subject.parents[p]!) ancestors.push(p)
          if (how === 'ancestor')
            children.push(ancestors.length > 0 ? ancestors[other % ancestors.length]! : i)
          else if (how === 'self') children.push(i)
          else if (how === 'any') children.push(other)
          else if (how === 'duplicate') children.push(children.length > 0 ? children[0]! : other)
          else if (how === 'out-of-range') children.push(nNodes)
          else if (how === 'negative') children.push(-1)
          else if (how === 'none') return set('node.children', ['nodes', i, 'children'], [])
          else children.splice(other % Math.max(1, children.length), 1)
          return set(`node.children`, ['nodes', i, 'children'], children)
        }),
    )
    add(
      2,
      fc
        .tuple(
          node,
          fc.constantFrom<[string, JsonValue]>(
            ['rotation', [0, 0, 0, 0]],
            ['rotation', [0, 0, 0, 2]],
            ['rotation', [0, 0, 1e-9, 0]],
            ['rotation', [1, 0, 0]],
            ['translation', [1e999, 0, 0]],
            ['translation', [3e38, 3e38, 3e38]],
            ['scale', [0, 0, 0]],
            ['scale', [-1, 1, 1]],
            ['matrix', [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]],
            ['matrix', [1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]],
            ['matrix', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
            ['matrix', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0]],
            ['weights', [0.5]],
            ['mesh', 0],
            ['skin', 0],
          ),
        )
        .map(([i, [name, value]]) => set(`node.${name}`, ['nodes', i, name], value)),
    )
  }
  if (nSkins > 0) {
    const skin = fc.nat(nSkins - 1)
    add(
      3,
      fc
        .tuple(
          skin,
          fc.constantFrom('duplicate', 'out-of-range', 'negative', 'drop', 'add', 'reverse', 'empty'),
          fc.nat(nNodes - 1),
        )
        .map(([s, how, other]) => {
          const joints: JsonValue[] = [...j.skins[s].joints]
          if (how === 'duplicate') joints.push(joints[other % joints.length]!)
          else if (how === 'out-of-range') joints[other % joints.length] = nNodes
          else if (how === 'negative') joints[other % joints.length] = -1
          else if (how === 'drop') joints.splice(other % joints.length, 1)
          else if (how === 'add') joints.push(other)
          else if (how === 'reverse') joints.reverse()
          else joints.length = 0
          return set('skin.joints', ['skins', s, 'joints'], joints)
        }),
    )
    add(
      1,
      fc
        .tuple(skin, fc.oneof(indexValue(nNodes), fc.constant(undefined)))
        .map(([s, value]): Mutation =>
          value === undefined
            ? { kind: 'skin.skeleton', op: 'delete', path: ['skins', s, 'skeleton'] }
            : set('skin.skeleton', ['skins', s, 'skeleton'], value),
        ),
    )
    add(
      1,
      fc
        .tuple(skin, fc.oneof(indexValue(nAccessors), fc.constant(undefined)))
        .map(([s, value]): Mutation =>
          value === undefined
            ? { kind: 'skin.ibm', op: 'delete', path: ['skins', s, 'inverseBindMatrices'] }
            : set('skin.ibm', ['skins', s, 'inverseBindMatrices'], value),
        ),
    )
  }
  if (nScenes > 0) {
    add(
      1,
      fc
        .tuple(
          fc.nat(nScenes - 1),
          fc.constantFrom('non-root', 'duplicate', 'out-of-range', 'empty'),
          fc.nat(nNodes - 1),
        )
        .map(([s, how, other]) => {
          const roots: JsonValue[] = [...(j.scenes[s].nodes ?? [])]
          const nonRoot = subject.parents.findIndex((p) => p !== -1)
          if (how === 'non-root') roots.push(nonRoot === -1 ? other : nonRoot)
          else if (how === 'duplicate') roots.push(roots[0] ?? other)
          else if (how === 'out-of-range') roots.push(nNodes)
          else roots.length = 0
          return set('scene.nodes', ['scenes', s, 'nodes'], roots)
        }),
    )
    add(
      1,
      indexValue(nScenes).map((value) => set('scene.default', ['scene'], value)),
    )
  }

  // Buffer views and buffers.
  if (nViews > 0) {
    add(
      2,
      fc
        .tuple(fc.nat(nViews - 1), fc.constantFrom('byteLength', 'byteOffset', 'byteStride', 'buffer'))
        .chain(([v, name]) => {
          const view = j.bufferViews[v]
          const values: Record<string, JsonValue[]> = {
            byteLength: [view.byteLength - 1, view.byteLength - 4, view.byteLength + 4, 0, -1, 2 ** 32, 1.5],
            byteOffset: [
              (view.byteOffset ?? 0) + 4,
              (view.byteOffset ?? 0) + 1,
              (view.byteOffset ?? 0) - 4,
              -1,
              2 ** 32,
            ],
            byteStride: [4, 8, 12, 16, 3, 5, 64, 252, 256, 0],
            buffer: [nBuffers, -1, 0, '0'],
          }
          return pick(values[name]!).map((value) =>
            set(`bufferView.${name}`, ['bufferViews', v, name], value),
          )
        }),
    )
  }
  if (nBuffers > 0) {
    add(
      1,
      fc
        .tuple(fc.nat(nBuffers - 1), fc.constantFrom(-4, -1, 1, 4, 1e6))
        .map(([b, delta]) =>
          set(
            'buffer.byteLength',
            ['buffers', b, 'byteLength'],
            Math.max(0, j.buffers[b].byteLength + delta),
          ),
        ),
    )
    add(
      1,
      fc
        .tuple(
          fc.nat(nBuffers - 1),
          fc.constantFrom<JsonValue>(
            'missing.bin',
            'data:,abc',
            'data:application/octet-stream;base64,!!',
            'http://x/y.bin',
            7,
          ),
        )
        .map(([b, value]) => set('buffer.uri', ['buffers', b, 'uri'], value)),
    )
  }

  // Untargeted JSON edits, deletions, unknown fields, extensions.
  add(
    2,
    pick(subject.requiredPaths).map((path): Mutation => ({ kind: 'delete.required', op: 'delete', path })),
  )
  add(
    1,
    pick(subject.paths.slice(1)).map((path): Mutation => ({ kind: 'delete.any', op: 'delete', path })),
  )
  add(
    2,
    fc.tuple(pick(subject.paths.slice(1)), oddValue).map(([path, value]) => set('set.any', path, value)),
  )
  add(
    1,
    fc
      .tuple(
        pick(subject.objectPaths),
        fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('extras', 'extensions')),
        oddValue,
      )
      .map(([path, key, value]) =>
        set('unknown.field', [...path, key], key === 'extensions' ? { EXT_unknown: value } : value),
      ),
  )
  add(
    2,
    fc
      .tuple(
        fc.constantFrom('extensionsRequired', 'extensionsUsed'),
        fc.constantFrom<JsonValue>(
          ['EXT_unknown_thing'],
          ['KHR_draco_mesh_compression'],
          ['KHR_mesh_quantization'],
          ['KHR_animation_pointer'],
          ['KHR_texture_transform'],
          [],
          'KHR_mesh_quantization',
          [3],
        ),
      )
      .map(([key, value]) => set('extensions', [key], value)),
  )
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

// -----------------------------------------------------------------------------------------------------------
// Applying a case and writing the file
// -----------------------------------------------------------------------------------------------------------

export interface MutatedFile {
  /** Source name for messages: the subject's file name. */
  source: string
  bytes: Uint8Array
  /** The external buffers (`external` container only), keyed by uri as written. */
  resources: Record<string, Uint8Array>
  /**
   * The mutated JSON, or null after a byte edit or truncation (which may leave it unreadable or different).
   */
  json: Json | null
  /** The bytes of each buffer as written (BIN chunk, data: uri or external file), by buffer index. */
  buffers: Uint8Array[]
}

export function applyCase(fuzzCase: FuzzCase): MutatedFile {
  const subject = loadSubjects()[fuzzCase.subject]!
  const json = structuredClone(subject.json)
  const buffers = subject.buffers.map((b) => b.slice())
  // Data edits use the file's own layout, so they land where the file's accessors are, whatever JSON edits
  // do.
  for (const m of fuzzCase.mutations) applyData(subject, buffers, m)
  for (const m of fuzzCase.mutations) if (m.op === 'sparse') applySparse(subject, json, buffers, m)
  for (const m of fuzzCase.mutations) {
    if (m.op === 'set') setAt(json, m.path, m.value)
    else if (m.op === 'delete') deleteAt(json, m.path)
  }
  let { bytes, textStart, textLength } = writeFile(subject.container, json, buffers)
  let jsonIntact = true
  for (const m of fuzzCase.mutations) {
    if (m.op === 'textByte' && textLength > 0) {
      bytes[textStart + (m.at % textLength)] = m.value
      jsonIntact = false
    } else if (m.op === 'fileByte' && bytes.length > 0) {
      bytes[m.at % bytes.length] = m.value
      jsonIntact = false
    } else if (m.op === 'truncate') {
      bytes = bytes.slice(0, Math.floor(m.fraction * bytes.length))
      if (m.fixHeader && subject.container === 'glb' && bytes.length >= 12) {
        new DataView(bytes.buffer).setUint32(8, bytes.length, true)
      }
      jsonIntact = false
    }
  }
  const resources: Record<string, Uint8Array> = {}
  if (subject.container === 'external') {
    subject.json.buffers.forEach((b: Json, i: number) => (resources[b.uri] = buffers[i]!))
  }
  return { source: subject.file.split('/').pop()!, bytes, resources, json: jsonIntact ? json : null, buffers }
}

function applySparse(
  subject: Subject,
  json: Json,
  buffers: Uint8Array[],
  m: Extract<Mutation, { op: 'sparse' }>,
): void {
  const layout = subject.floatLayout[m.accessor]
  if (!layout) return
  const b = layout.buffer
  const indexBytes = m.indexType === 5121 ? 1 : m.indexType === 5123 ? 2 : 4
  const start = Math.ceil(buffers[b]!.length / 4) * 4
  const valuesStart = start + Math.ceil((m.indices.length * indexBytes) / 4) * 4
  const grown = new Uint8Array(valuesStart + 4 * m.values.length)
  grown.set(buffers[b]!)
  const view = new DataView(grown.buffer)
  m.indices.forEach((index, k) => {
    const at = start + k * indexBytes
    if (indexBytes === 1) view.setUint8(at, index & 0xff)
    else if (indexBytes === 2) view.setUint16(at, index & 0xffff, true)
    else view.setUint32(at, index >>> 0, true)
  })
  m.values.forEach((v, k) => view.setFloat32(valuesStart + 4 * k, v, true))
  buffers[b] = grown
  json.buffers[b].byteLength = grown.length
  const views: Json[] = (json.bufferViews ??= [])
  views.push(
    { buffer: b, byteOffset: start, byteLength: Math.max(1, valuesStart - start) },
    { buffer: b, byteOffset: valuesStart, byteLength: Math.max(1, 4 * m.values.length) },
  )
  const offset = m.offsets ? { byteOffset: 0 } : {}
  json.accessors[m.accessor].sparse = {
    count: m.indices.length,
    indices: { bufferView: views.length - 2, componentType: m.indexType, ...offset },
    values: { bufferView: views.length - 1, ...offset },
  }
}

function applyData(subject: Subject, buffers: Uint8Array[], m: Mutation): void {
  if (m.op === 'binByte') {
    const b = buffers[m.buffer]
    if (b && b.length > 0) b[m.at % b.length] = m.value
    return
  }
  if (m.op === 'cutBuffer') {
    buffers[m.buffer] = buffers[m.buffer]!.slice(0, m.length)
    return
  }
  if (m.op !== 'keyTime' && m.op !== 'floats' && m.op !== 'scaleElement') return
  const layout = subject.floatLayout[m.accessor]
  if (!layout) return
  const bytes = buffers[layout.buffer]!
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const address = (element: number, component: number): number =>
    layout.offset + element * layout.stride + 4 * component
  // Another edit may have cut the buffer short: reads past its end give NaN, writes there are dropped.
  const inside = (at: number): boolean => at + 4 <= bytes.length
  const read = (element: number, component = 0): number => {
    const at = address(element, component)
    return inside(at) ? view.getFloat32(at, true) : NaN
  }
  const write = (element: number, component: number, value: number): void => {
    const at = address(element, component)
    if (inside(at)) view.setFloat32(at, value, true)
  }
  if (m.op === 'floats') {
    m.values.forEach((v, k) => m.component + k < layout.components && write(m.element, m.component + k, v))
  } else if (m.op === 'scaleElement') {
    for (let c = 0; c < layout.components; c++) write(m.element, c, read(m.element, c) * m.factor)
  } else {
    const k = m.key
    const prev = k > 0 ? read(k - 1) : 0
    const next = k + 1 < layout.count ? read(k + 1) : undefined
    const values: Record<KeyTimeEdit, () => void> = {
      'repeat-previous': () => write(k, 0, prev),
      'before-previous': () => write(k, 0, prev - 0.25),
      negative: () => write(k, 0, -0.5),
      nan: () => write(k, 0, NaN),
      infinity: () => write(k, 0, Infinity),
      huge: () => write(k, 0, 3e38),
      'negative-zero': () => write(k, 0, -0),
      'swap-next': () => {
        if (next === undefined) return
        write(k + 1, 0, read(k))
        write(k, 0, next)
      },
      'one-ulp-later': () => {
        if (k === 0) return
        const f = new Float32Array([prev])
        new Uint32Array(f.buffer)[0]! += prev >= 0 ? 1 : -1
        if (next === undefined || f[0]! < next) write(k, 0, f[0]!)
      },
    }
    values[m.edit]()
  }
}

function setAt(root: Json, path: Path, value: JsonValue): void {
  const parent = walkTo(root, path.slice(0, -1))
  if (parent !== null && typeof parent === 'object') parent[path[path.length - 1]!] = structuredClone(value)
  else if (path.length === 0) return
}

function deleteAt(root: Json, path: Path): void {
  const parent = walkTo(root, path.slice(0, -1))
  if (parent === null || typeof parent !== 'object') return
  const key = path[path.length - 1]!
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1)
  else delete parent[key]
}

function walkTo(root: Json, path: Path): Json {
  let at = root
  for (const key of path) {
    if (at === null || typeof at !== 'object') return null
    at = at[key]
  }
  return at ?? null
}

/** Writes the file; also says where the JSON text lies in it (for text edits). */
function writeFile(
  container: Container,
  json: Json,
  buffers: Uint8Array[],
): { bytes: Uint8Array; textStart: number; textLength: number } {
  // JSON.stringify writes ±Infinity as null and -0 as 0; the file keeps them (1e999 parses as Infinity).
  let text = JSON.stringify(json, (_, v: unknown) => {
    if (typeof v !== 'number') return v
    if (Object.is(v, -0)) return '@@-0@@'
    return Number.isNaN(v) || Number.isFinite(v) ? v : v > 0 ? '@@INF@@' : '@@-INF@@'
  })
  text = text.replaceAll('"@@INF@@"', '1e999').replaceAll('"@@-INF@@"', '-1e999').replaceAll('"@@-0@@"', '-0')
  if (container === 'embedded') {
    text = text.replace(/@@BUFFER(\d+)@@/g, (_, i: string) =>
      Buffer.from(buffers[Number(i)] ?? []).toString('base64'),
    )
  }
  const encoded = new TextEncoder().encode(text)
  if (container !== 'glb') return { bytes: encoded, textStart: 0, textLength: encoded.length }
  return { bytes: joinGlb(encoded, buffers[0] ?? null), textStart: 20, textLength: encoded.length }
}

/**
 * GLB from JSON text and an optional BIN chunk, padded as glTF 2.0 §4.4.3 says (JSON with spaces, BIN with
 * zeros).
 */
function joinGlb(text: Uint8Array, bin: Uint8Array | null): Uint8Array {
  const jsonLength = Math.ceil(text.length / 4) * 4
  const binLength = bin ? Math.ceil(bin.length / 4) * 4 : 0
  const total = 20 + jsonLength + (bin ? 8 + binLength : 0)
  const out = new Uint8Array(total)
  const view = new DataView(out.buffer)
  view.setUint32(0, 0x46546c67, true)
  view.setUint32(4, 2, true)
  view.setUint32(8, total, true)
  view.setUint32(12, jsonLength, true)
  view.setUint32(16, 0x4e4f534a, true)
  out.fill(0x20, 20, 20 + jsonLength)
  out.set(text, 20)
  if (bin) {
    view.setUint32(20 + jsonLength, binLength, true)
    view.setUint32(24 + jsonLength, 0x004e4942, true)
    out.set(bin, 28 + jsonLength)
  }
  return out
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
