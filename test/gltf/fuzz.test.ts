/**
 * The loader under structured mutation of the real assets: the short form of `npm run fuzz`.
 *
 * Property: for every asset of assets/ and 1–3 mutations (JSON fields, accessor layouts, key times
 * and values in the buffers, node/skin/scene indices, bytes, truncation; test/helpers/mutate.ts), `readAsset`
 * either returns a whole asset (checked independently, then sampled and stepped in a plugin with finite
 * results) or throws AnimationError whose one-line message starts with the file name. Never another
 * exception, never slow. A sample is also judged by Khronos gltf-validator: every error it reports in the
 * animation, skin or node categories must make the loader reject the file, or be one of the documented
 * repairs (DELIBERATE_REPAIRS).
 *
 * The seed is fixed so CI is repeatable; FUZZ_SEED=<n> explores another. The long form runs 50k cases.
 */
import { readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { readAsset } from '../../src/gltf/read.ts'
import { ASSET_FILES, assetPath, rawFloatAccessor, readRaw, splitGlb } from '../helpers/gltfFiles.ts'
import {
  checkWholeAsset,
  LOADER_CATEGORIES,
  repairFor,
  runLoader,
  runValidator,
} from '../helpers/fuzzJudges.ts'
import {
  applyCase,
  caseArb,
  decodeCase,
  describeMutation,
  encodeCase,
  type FuzzCase,
  loadSubjects,
  type Mutation,
  mutationArb,
} from '../helpers/mutate.ts'
import { cpuMsAsync } from '../helpers/cpuTime.ts'

const SEED = Number(process.env['FUZZ_SEED'] ?? 20260)
/**
 * Cases per asset file: 300, and 150 for the three files whose readAsset costs ~10 ms (Fox, RiggedFigure);
 * 3450 in all, about 8 s on 2 cores.
 */
const HEAVY_FILES = [
  'RiggedFigure/glTF-Binary/RiggedFigure.glb',
  'Fox/glTF-Binary/Fox.glb',
  'Fox/glTF/Fox.gltf',
]
const runsFor = (file: string): number => (HEAVY_FILES.includes(file) ? 150 : 300)
/**
 * A case (readAsset and the judge's checks) taking more CPU time than this is a (near) hang; CPU time, so a busy
 * machine does not fail it (test/helpers/cpuTime.ts). Slowest in 120k cases: 370 ms of wall time, busy machine.
 */
const SLOW_MS = 2000

const subjectOf = (file: string): number => ASSET_FILES.indexOf(file as (typeof ASSET_FILES)[number])

/**
 * Runs one case; fails with the case (replayable with `npm run fuzz -- --case`) unless the property holds.
 */
async function holds(fuzzCase: FuzzCase): Promise<void> {
  const { ms, value: outcome } = await cpuMsAsync(() => runLoader(applyCase(fuzzCase)))
  const what = () =>
    `${ASSET_FILES[fuzzCase.subject]}: ${fuzzCase.mutations.map(describeMutation).join('; ')}\n` +
    `  replay: npm run fuzz -- --case '${encodeCase(fuzzCase)}'`
  if (outcome.status === 'broken') throw new Error(`${outcome.problem}\n${what()}`)
  if (ms > SLOW_MS) throw new Error(`readAsset and its judge took ${ms.toFixed(0)} ms of CPU\n${what()}`)
}

describe('the mutation engine', () => {
  it.each(ASSET_FILES)('writes %s back unchanged when there is no mutation', async (file) => {
    const written = applyCase({ subject: subjectOf(file), mutations: [] })
    const rewritten = await readAsset(written.bytes, 'x', { resources: written.resources })
    const original = await loadAsset(assetPath(file))
    const [a, b] = [
      { ...rewritten, source: '' },
      { ...original, source: '' },
    ]
    // Node's deep equality first (the Fox's clips are megabytes of typed arrays: toEqual took ~2 s over them);
    // toEqual gives the verdict, and the difference, when it finds any.
    if (!isDeepStrictEqual(a, b)) expect(a).toEqual(b)
  })

  it('writes key-time edits where the file keeps the times (read back with the test-side reader)', () => {
    // Fox Walk's key times are accessor 27 (18 keys); edit key 5 three ways.
    const fox = readRaw('Fox/glTF-Binary/Fox.glb')
    const times = rawFloatAccessor(fox, 27)
    const edited = (edit: Mutation): number[] => {
      const file = applyCase({ subject: subjectOf('Fox/glTF-Binary/Fox.glb'), mutations: [edit] })
      return rawFloatAccessor({ json: fox.json, buffers: [splitGlb(file.bytes).bin!] }, 27)
    }
    const key5 = (edit: Extract<Mutation, { op: 'keyTime' }>['edit']): Mutation => ({
      kind: 'times',
      op: 'keyTime',
      accessor: 27,
      key: 5,
      edit,
    })
    expect(edited(key5('repeat-previous'))).toEqual([...times.slice(0, 5), times[4], ...times.slice(6)])
    expect(edited(key5('nan'))[5]).toBeNaN()
    expect(edited(key5('swap-next'))).toEqual([...times.slice(0, 5), times[6], times[5], ...times.slice(7)])
  })

  it('generates every kind of mutation, replayable through encodeCase/decodeCase', () => {
    const cases = fc.sample(caseArb(), { seed: SEED, numRuns: 3000 })
    const kinds = new Set(cases.flatMap((c) => c.mutations.map((m) => m.kind)))
    for (const kind of [
      'json.byte',
      'file.byte',
      'bin.byte',
      'truncate',
      'buffer.cut',
      'accessor.count',
      'accessor.componentType',
      'accessor.type',
      'accessor.byteOffset',
      'accessor.normalized',
      'accessor.minmax',
      'accessor.sparse',
      'sampler.interpolation',
      'sampler.input',
      'sampler.output',
      'times',
      'values.float',
      'values.rotation-scale',
      'channel.node',
      'channel.path',
      'animation.duplicate',
      'skin.joints',
      'skin.skeleton',
      'skin.ibm',
      'node.children',
      'scene.nodes',
      'bufferView.byteStride',
      'bufferView.byteLength',
      'buffer.byteLength',
      'delete.required',
      'unknown.field',
      'extensions',
    ]) {
      expect(kinds).toContain(kind)
    }
    const nan = cases.find((c) => c.mutations.some((m) => m.op === 'floats' && Number.isNaN(m.values[0])))!
    expect(decodeCase(encodeCase(nan))).toEqual(nan)
  })
})

describe('readAsset under structured mutations: a whole asset or an AnimationError, nothing else', () => {
  it.each(ASSET_FILES)('%s', async (file) => {
    const subject = subjectOf(file)
    const mutations = fc.array(mutationArb(loadSubjects()[subject]!), { minLength: 1, maxLength: 3 })
    await fc.assert(
      fc.asyncProperty(mutations, (list) => holds({ subject, mutations: list })),
      { seed: SEED + subject, numRuns: runsFor(file) },
    )
  })
})

describe('readAsset against Khronos gltf-validator', () => {
  it('rejects or knowingly repairs every animation, skin and node error the validator finds', async () => {
    const cases = fc.sample(caseArb(), { seed: SEED, numRuns: 80 })
    const unexplained: string[] = []
    let rejectedWithErrors = 0
    for (const fuzzCase of cases) {
      const file = applyCase(fuzzCase)
      const outcome = await runLoader(file)
      expect(outcome.status).not.toBe('broken')
      const errors = await runValidator(file, loadSubjects()[fuzzCase.subject]!)
      if (errors === null) continue
      const relevant = errors.filter((e) => LOADER_CATEGORIES.includes(e.category))
      if (relevant.length === 0) continue
      if (outcome.status === 'rejected') {
        rejectedWithErrors++
        continue
      }
      for (const e of relevant) {
        if (!repairFor(e, file.json))
          unexplained.push(`${e.code} ${e.pointer} (${e.message}) after ${encodeCase(fuzzCase)}`)
      }
    }
    expect(unexplained).toEqual([])
    // Not vacuous: the sample holds files the validator faults and the loader rejects.
    expect(rejectedWithErrors).toBeGreaterThan(20)
  })

  it('finds the unmodified assets valid, as the loader does', async () => {
    for (const [subject, file] of ASSET_FILES.entries()) {
      const written = applyCase({ subject, mutations: [] })
      expect(await runValidator(written, loadSubjects()[subject]!), file).toEqual([])
    }
  })
})

/** The loader's message for one file after the given edits (as a one-case fuzz run would produce it). */
async function rejection(file: string, mutations: Mutation[]): Promise<string> {
  const outcome = await runLoader(applyCase({ subject: subjectOf(file), mutations }))
  if (outcome.status !== 'rejected') throw new Error(`expected a rejection, got ${outcome.status}`)
  expect(outcome.error).toBeInstanceOf(AnimationError)
  return outcome.error.message
}
const set = (path: (string | number)[], value: unknown): Mutation =>
  ({ kind: 'test', op: 'set', path, value }) as Mutation

describe('checks the fuzzer found missing (each was accepted before)', () => {
  const FOX = 'Fox/glTF/Fox.gltf'
  it.each<[string, string, Mutation[], string]>([
    [
      'two channels animating one property',
      FOX,
      [set(['animations', 1, 'channels', 21], { sampler: 1, target: { node: 8, path: 'rotation' } })],
      'Fox.gltf: animation 1 "Walk": channels 0 and 21 both animate b_Head_05.rotation (node 8)',
    ],
    [
      'a default scene without nodes',
      FOX,
      [set(['scenes', 0, 'nodes'], [])],
      'Fox.gltf: the default scene 0 lists no nodes: there is nothing to animate',
    ],
    [
      'a normalized FLOAT accessor',
      FOX,
      [set(['accessors', 27, 'normalized'], true)],
      'Fox.gltf: accessor 27: normalized is true for a FLOAT accessor ' +
        '(only (U)BYTE and (U)SHORT can be normalized)',
    ],
    [
      'a normalized flag that is not a boolean',
      FOX,
      [set(['accessors', 27, 'normalized'], 'yes')],
      'Fox.gltf: accessor 27: normalized "yes" is not true or false',
    ],
    [
      'an accessor offset that is not a multiple of its component size',
      FOX,
      [set(['accessors', 27, 'byteOffset'], 333)],
      'Fox.gltf: accessor 27: byteOffset 333 (77901 into the buffer) ' +
        'is not a multiple of the component size 4',
    ],
    [
      "an element longer than its buffer view's stride",
      FOX,
      [set(['bufferViews', 3, 'byteStride'], 12)],
      "Fox.gltf: accessor 4: elements of 64 bytes do not fit bufferView 3's byteStride 12",
    ],
    [
      'a byteStride that is not a multiple of 4',
      FOX,
      [set(['bufferViews', 3, 'byteStride'], 66)],
      'Fox.gltf: bufferView 3: byteStride 66 is not a multiple of 4 in [4, 252]',
    ],
    [
      'a componentType written as a string',
      FOX,
      [set(['accessors', 27, 'componentType'], '5126')],
      'Fox.gltf: accessor 27: componentType "5126" is not a glTF component type',
    ],
    [
      'an accessor with a byteOffset but no bufferView',
      FOX,
      [{ kind: 'test', op: 'delete', path: ['accessors', 27, 'bufferView'] }],
      'Fox.gltf: accessor 27: has a byteOffset but no bufferView',
    ],
    [
      'an interpolation of null (gltf-transform reads it as LINEAR)',
      FOX,
      [set(['animations', 1, 'samplers', 3, 'interpolation'], null)],
      'Fox.gltf: animation 1 "Walk" sampler 3: interpolation null is not STEP, LINEAR or CUBICSPLINE',
    ],
    [
      'an empty interpolation',
      FOX,
      [set(['animations', 1, 'samplers', 3, 'interpolation'], '')],
      'Fox.gltf: animation 1 "Walk" sampler 3: interpolation "" is not STEP, LINEAR or CUBICSPLINE',
    ],
    [
      'an animation without channels',
      FOX,
      [{ kind: 'test', op: 'delete', path: ['animations', 2, 'channels'] }],
      'Fox.gltf: animation 2 "Run": samplers or channels is missing or not an array',
    ],
    [
      'a node matrix with shear',
      'RiggedSimple/glTF/RiggedSimple.gltf',
      [set(['nodes', 3, 'matrix'], [1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])],
      'RiggedSimple.gltf: node 3 "Bone": matrix [1,1,0,0,0,1,0,0,0,0,1,0,0,0,0,1] is not a TRS matrix ' +
        '(columns 0 and 1 are not orthogonal (shear))',
    ],
    [
      'a node matrix whose last row is not [0, 0, 0, 1]',
      'RiggedSimple/glTF/RiggedSimple.gltf',
      [set(['nodes', 3, 'matrix'], [1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])],
      'RiggedSimple.gltf: node 3 "Bone": matrix [1,0,0,0.5,0,1,0,0,0,0,1,0,0,0,0,1] is not a TRS matrix ' +
        '(last row [0.5, 0, 0, 1] is not [0, 0, 0, 1])',
    ],
    [
      'node weights on a node without morph targets',
      FOX,
      [set(['nodes', 4, 'weights'], [0.5])],
      'Fox.gltf: node 4: 1 default weights for 0 morph targets',
    ],
    [
      'mesh weights that are not numbers',
      'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb',
      [set(['meshes', 0, 'weights', 0], '')],
      'AnimatedMorphCube.glb: node 0: default weights (of its mesh) ["", 0] is not finite as float32',
    ],
    [
      'a node name that is not a string',
      FOX,
      [set(['nodes', 1, 'name'], true)],
      'Fox.gltf: node 1: name true is not a string',
    ],
    [
      'a translation beyond the float32 range',
      FOX,
      [set(['nodes', 4, 'translation'], [1e39, 0, 0])],
      'Fox.gltf: node 4: translation [1e+39, 0, 0] is not finite as float32',
    ],
    [
      'an inverse bind matrix that is not affine',
      FOX,
      [{ kind: 'test', op: 'floats', accessor: 4, element: 2, component: 15, values: [2] }],
      'Fox.gltf: skin 0: inverse bind matrix 2 has last row [0, 0, 0, 2], not [0, 0, 0, 1]',
    ],
    [
      'a NaN in an inverse bind matrix past the joint count',
      'SimpleSkin/glTF-Embedded/SimpleSkin.gltf',
      [
        set(['skins', 0, 'joints'], [1]),
        { kind: 'test', op: 'floats', accessor: 4, element: 1, component: 7, values: [NaN] },
      ],
      'SimpleSkin.gltf: skin 0: inverse bind matrix 1 element 7 is NaN',
    ],
  ])('rejects %s', async (_, file, mutations, message) => {
    expect(await rejection(file, mutations)).toBe(message)
  })

  const TRIANGLE = 'AnimatedTriangle/glTF/AnimatedTriangle.gltf'
  const sparse = (indices: number[], values: number[], offsets: boolean): Mutation => ({
    kind: 'test',
    op: 'sparse',
    accessor: 3, // the rotation keys: 5 VEC4, byteOffset 20 in bufferView 2
    indices,
    values,
    indexType: 5123,
    offsets,
  })

  it.each([true, false])(
    'reads sparse rotation keys from their own offsets (sparse byteOffsets written: %s)',
    async (offsets) => {
      // gltf-transform used the accessor's byteOffset (20) for sparse parts without one: wrong keys, no
      // error.
      const outcome = await runLoader(
        applyCase({
          subject: subjectOf(TRIANGLE),
          mutations: [sparse([1, 3], [0, 0, 0, 1, 0, 1, 0, 0], offsets)],
        }),
      )
      if (outcome.status !== 'accepted') throw new Error(`expected the asset, got ${outcome.status}`)
      const keys = rawFloatAccessor(readRaw(TRIANGLE), 3)
      keys.splice(4, 4, 0, 0, 0, 1)
      keys.splice(12, 4, 0, 1, 0, 0)
      const loaded = Array.from(outcome.asset.clips[0]!.channels[0]!.values)
      for (let k = 0; k < 5; k++) {
        const q = keys.slice(4 * k, 4 * k + 4)
        const length = Math.hypot(...q)
        q.forEach((v, c) => expect(loaded[4 * k + c]).toBeCloseTo(v / length, 6))
      }
    },
  )

  it.each<[number[], string]>([
    [[1, 1], 'AnimatedTriangle.gltf: accessor 3: sparse index 1 is 1, not after sparse index 0 (1)'],
    [[2, 1], 'AnimatedTriangle.gltf: accessor 3: sparse index 1 is 1, not after sparse index 0 (2)'],
    [[5], 'AnimatedTriangle.gltf: accessor 3: sparse index 0 is 5, past its 5 elements'],
  ])(
    'rejects sparse indices %j (gltf-transform drops or repeats them silently)',
    async (indices, message) => {
      const values = indices.flatMap(() => [0, 0, 0, 1])
      expect(await rejection(TRIANGLE, [sparse(indices, values, true)])).toBe(message)
    },
  )

  it('still accepts what it repairs on purpose: non-unit rotations are normalized', async () => {
    // Fox Walk channel 0 (b_Head_05.rotation) is sampler 0, output accessor 28; key 3 scaled by 2.
    const file = applyCase({
      subject: subjectOf(FOX),
      mutations: [
        { kind: 'test', op: 'scaleElement', accessor: 28, element: 3, factor: 2 },
        set(['nodes', 4, 'rotation'], [0, 0, 0, 2]),
      ],
    })
    const outcome = await runLoader(file)
    if (outcome.status !== 'accepted') throw new Error(`expected the asset, got ${outcome.status}`)
    const raw = rawFloatAccessor(readRaw(FOX), 28).slice(12, 16)
    const length = Math.hypot(...raw)
    const key3 = Array.from(outcome.asset.clips[1]!.channels[0]!.values.subarray(12, 16))
    key3.forEach((v, i) => expect(v).toBeCloseTo(raw[i]! / length, 6))
    expect(outcome.asset.nodes[4]!.rotation).toEqual([0, 0, 0, 1])
    expect(checkWholeAsset(outcome.asset)).toBeNull()
    const validator = (await runValidator(file, loadSubjects()[subjectOf(FOX)]!))!.map((e) => e.code)
    expect(validator).toContain('ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION')
    expect(validator).toContain('VALUE_NOT_IN_RANGE')
  })

  it('reads the original Fox.glb bytes as before (the checks reject nothing valid)', async () => {
    const bytes = new Uint8Array(readFileSync(assetPath('Fox/glTF-Binary/Fox.glb')))
    const asset = await readAsset(bytes, 'Fox.glb')
    expect(asset.clips.map((c) => c.name)).toEqual(['Survey', 'Walk', 'Run'])
  })
})
