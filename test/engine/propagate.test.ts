/**
 * The fast propagation passes, JavaScript (src/engine/propagate.ts) and WebAssembly (kernels 'wasm': the f64x2
 * SIMD form src/engine/propagateSimd.wat and the scalar src/engine/propagate.wat), against the clean one (src/skeleton/sceneNodes.ts propagateWorldMatrices), the reference: the
 * same bits in every world matrix, the same flags, counts and refusals, on random forests with any float32 locals (NaN, ±∞, −0, subnormals, products past float32's
 * range) and on real characters through the plugin; and the committed modules are their WAT sources assembled.
 * test/systems/propagateTransforms.test.ts runs its cases on both kernels too.
 */
import { readFileSync } from 'node:fs'
import { addEntity, createWorld } from 'bitecs'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { WASM_BASE64 as FUSED_BASE64 } from '../../src/engine/fusedSimdModule.ts'
import { assembleWat, KERNELS, moduleText, watText } from '../../scripts/build-wasm.mjs'
import {
  addSceneNode,
  createSceneGraph,
  MAX_REFUSED_NODES,
  propagationKernel,
  refreshSceneOrder,
  setSceneNodeParent,
  type SceneGraph,
  type SceneKernels,
} from '../../components/SceneNode.ts'
import { createPropagateTransformsSystem } from '../../systems/propagateTransforms.ts'
import { propagateWorldMatrices } from '../../src/skeleton/sceneNodes.ts'
import {
  createPropagationKernel,
  decodeBase64,
  forceKernelForm,
  kernelForm,
  SIMD_PROBE,
  SIMD_PROBE_WAT,
  type KernelForm,
} from '../../src/engine/wasmKernels.ts'
import { WASM_BASE64 } from '../../src/engine/propagateModule.ts'
import { WASM_BASE64 as SIMD_BASE64 } from '../../src/engine/propagateSimdModule.ts'

const WAT = 'src/engine/propagate.wat'
const SIMD_WAT = 'src/engine/propagateSimd.wat'
const FUSED_WAT = 'src/engine/fusedSimd.wat'

/** The instructions of a WAT file, its includes expanded (comments removed). */
async function instructionsOf(path: string): Promise<Set<string>> {
  const code = (await watText(path)).replace(/;;.*$/gm, '')
  return new Set([...code.matchAll(/\(\s*([a-z0-9_]+(?:\.[a-z0-9_]+)?)/g)].map((m) => m[1]!))
}

/** The scalar module's instructions: exact IEEE arithmetic, conversions, memory access and control. */
const SCALAR_ALLOWED = ['module', 'import', 'memory', 'global', 'func', 'export', 'param', 'result', 'local']
  .concat(['block', 'loop', 'if', 'then', 'else', 'br', 'br_if', 'local.get', 'local.set', 'global.get'])
  .concat(['i32.const', 'i32.add', 'i32.mul', 'i32.shl', 'i32.or', 'i32.eqz', 'i32.lt_s', 'i32.ge_s'])
  .concat(['i32.load', 'i32.store', 'i32.load8_u', 'i32.store8', 'f32.load', 'f32.store'])
  .concat(['f64.const', 'f64.add', 'f64.sub', 'f64.mul', 'f64.ne', 'f64.promote_f32', 'f32.demote_f64'])

describe('the committed WebAssembly module', () => {
  it('is its WAT source assembled (node scripts/build-wasm.mjs regenerates it)', async () => {
    for (const { source, module } of KERNELS) {
      const bytes = await assembleWat(source, await watText(source))
      expect(readFileSync(module, 'utf8'), `${module} is stale: run node scripts/build-wasm.mjs`).toBe(
        moduleText(source, bytes),
      )
    }
    const bytes = await assembleWat(WAT, readFileSync(WAT, 'utf8'))
    expect(decodeBase64(WASM_BASE64)).toEqual(bytes)
  })

  it('fits a synchronous compile on a page (Chromium refuses one past 4 KB on the main thread)', () => {
    expect(decodeBase64(WASM_BASE64).length).toBeLessThanOrEqual(4096)
    expect(decodeBase64(SIMD_BASE64).length).toBeLessThanOrEqual(4096)
    // The fused pass's is larger: it is compiled in the background there (test/engine/wasmFused.test.ts).
    expect(decodeBase64(FUSED_BASE64).length).toBeGreaterThan(4096)
  })

  it('uses only exact IEEE arithmetic, conversions, memory access and control: no fma, SIMD, sqrt or grow', async () => {
    const used = await instructionsOf(WAT)
    expect([...used].filter((op) => !SCALAR_ALLOWED.includes(op))).toEqual([])
    expect(used.has('f64.mul') && used.has('f32.demote_f64')).toBe(true) // the scan does see instructions
  })

  it.each([SIMD_WAT, FUSED_WAT])(
    '%s: lane-wise IEEE f64x2 arithmetic, exact moves; no relaxed-SIMD, fma or reductions',
    async (path) => {
      const used = await instructionsOf(path)
      // Every lane op here is one IEEE operation per lane (or exact: xor of a sign bit, shuffles, loads,
      // stores, promote/demote); f32x4.sub/add/eq only ever see finite-or-not checks whose result is a boolean.
      const simd = ['v128.const', 'v128.load', 'v128.store', 'v128.xor', 'i8x16.shuffle', 'i32x4.all_true']
        .concat(['f64x2.add', 'f64x2.sub', 'f64x2.mul', 'f64x2.promote_low_f32x4', 'f32x4.demote_f64x2_zero'])
        .concat(['f32x4.add', 'f32x4.sub', 'f32x4.eq', 'f64x2.splat'])
        // The fused pass's sampling: compares, integer addressing and whole-value moves (exact).
        .concat(['i32.le_s', 'i32.eq', 'i32.sub', 'f64.lt', 'f64.le', 'f64.gt', 'f32.ne'])
        .concat(['f64.load', 'i64.load', 'i64.store', 'i32.ge_u', 'i32.lt_u'])
        .concat(['v128.load64_zero', 'v128.load64_splat', 'v128.store64_lane', 'f64x2.replace_lane'])
        .concat(['f64x2.extract_lane', 'v128.or', 'v128.and', 'v128.any_true', 'f32x4.ne'])
        // The cross-fade's blend: f64.sqrt and f64.div are correctly rounded in every engine, as Math.sqrt and /.
        .concat(['call', 'return', 'select', 'f64.ge', 'i32.and', 'f64.sqrt', 'f64.div'])
      const allowed = new Set([...SCALAR_ALLOWED, ...simd])
      expect([...used].filter((op) => !allowed.has(op))).toEqual([])
      expect(used.has('f64x2.mul') && used.has('i8x16.shuffle')).toBe(true)
      expect((await watText(path)).replace(/;;.*$/gm, '')).not.toMatch(/relaxed|fma|madd/)
    },
  )

  it('picks the SIMD form where the SIMD probe validates, the scalar one where it does not', async () => {
    expect(Array.from(await assembleWat('probe', SIMD_PROBE_WAT))).toEqual(SIMD_PROBE)
    expect(kernelForm()).toBe('simd') // Node 20+ has WebAssembly SIMD
    expect(createPropagationKernel(8, 8).form).toBe('simd')
    const validate = vi.spyOn(WebAssembly, 'validate').mockReturnValue(false)
    try {
      expect(kernelForm()).toBe('scalar')
      expect(createPropagationKernel(8, 8).form).toBe('scalar')
    } finally {
      validate.mockRestore()
    }
  })
})

/** One scene graph per kernel kind ('clean': a 'js' graph the clean pass runs over), built by the same calls. */
interface Twin {
  graph: SceneGraph
  propagate: () => void
  eids: number[]
}

/** 'clean', 'js', and kernels 'wasm' in each form. */
type TwinKind = Exclude<SceneKernels, 'wasm'> | 'clean' | KernelForm

function twin(kind: TwinKind, parents: readonly number[]): Twin {
  const world = createWorld()
  const kernels: SceneKernels = kind === 'simd' || kind === 'scalar' ? 'wasm' : 'js'
  forceKernelForm(kind === 'scalar' ? 'scalar' : null)
  let graph: SceneGraph
  try {
    graph = createSceneGraph(world, parents.length + 8, kernels)
  } finally {
    forceKernelForm(null)
  }
  if (kernels === 'wasm') expect(propagationKernel(graph)!.form).toBe(kind)
  const eids = parents.map(() => addEntity(world))
  for (const e of eids) addSceneNode(graph, e)
  parents.forEach((p, i) => {
    if (p >= 0) setSceneNodeParent(graph, eids[i]!, eids[p]!)
  })
  if (kind === 'clean') return { graph, propagate: () => cleanPropagation(graph), eids }
  const system = createPropagateTransformsSystem({ sceneGraph: graph })
  return { graph, propagate: () => system(world), eids }
}

/** propagateTransforms with the clean pass: one call over the whole order, stats as the system sets them. */
function cleanPropagation(graph: SceneGraph): void {
  const n = refreshSceneOrder(graph)
  const refused = new Int32Array(1)
  graph.stats.recomputed = propagateWorldMatrices(
    graph.store,
    graph.order,
    0,
    n,
    graph.kept,
    graph.refusedNodes,
    refused,
  )
  graph.stats.refused = refused[0]!
}

/** The clean pass and the three fast ones (JavaScript, WebAssembly SIMD, WebAssembly scalar), built alike. */
function makeTwins(parents: readonly number[]): Twin[] {
  return (['clean', 'js', 'simd', 'scalar'] as const).map((kind) => twin(kind, parents))
}

/** Every fast pass leaves what the clean one does. */
function expectSameOutcomes(twins: readonly Twin[]): void {
  const [clean, ...fast] = twins.map(outcome)
  for (const f of fast) expect(f).toEqual(clean)
}

/** Writes the same 10 float32 locals (T xyz, R xyzw, S xyz) to node i of both twins and marks it dirty. */
function writeLocal(twins: readonly Twin[], i: number, v: readonly number[]): void {
  for (const { graph, eids } of twins) {
    const e = eids[i]!
    const { translation, rotation, scale, dirty } = graph.store
    translation.set(v.slice(0, 3), e * 3)
    rotation.set(v.slice(3, 7), e * 4)
    scale.set(v.slice(7, 10), e * 3)
    dirty[e] = 1
  }
}

const bitsOf = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length)

/** Everything a pass leaves behind, for the two twins to be compared whole. */
function outcome({ graph }: Twin) {
  const { world, changed, dirty } = graph.store
  const { recomputed, refused } = graph.stats
  return {
    world: Array.from(bitsOf(world)),
    changed: Array.from(changed),
    dirty: Array.from(dirty),
    recomputed,
    refused,
    refusedNodes: Array.from(graph.refusedNodes.subarray(0, Math.min(refused, MAX_REFUSED_NODES))),
    kept: Array.from(graph.kept),
  }
}

const f32 = (min: number, max: number) =>
  fc.float({ min: Math.fround(min), max: Math.fround(max), noNaN: true })
/** Plausible locals: a unit quaternion, translations of ±100, scales 0.01..10. */
const plausible = fc
  .tuple(
    fc.array(f32(-100, 100), { minLength: 3, maxLength: 3 }),
    fc.array(f32(-1, 1), { minLength: 4, maxLength: 4 }),
  )
  .chain(([t, q]) =>
    fc.array(f32(0.01, 10), { minLength: 3, maxLength: 3 }).map((s) => {
      const n = Math.hypot(...q) || 1
      return [...t, ...q.map((x) => x / n), ...s]
    }),
  )
/** Any float32 bits at all (NaN, ±∞, −0, subnormals, huge), or big scales whose products leave float32. */
const hostile = fc.oneof(
  fc.array(fc.float(), { minLength: 10, maxLength: 10 }),
  plausible.chain((v) => f32(1e15, 1e30).map((big) => [...v.slice(0, 7), big, -big, big])),
)
/**
 * Locals made of round numbers (quaternion components of common angles, powers of ten): their products cancel
 * exactly or nearly (90° turns, mirrored terms), where a sum taken in another order or a rounding in another
 * place shows in the float32 result; random values almost never do (an f64 result's last bit rarely moves its
 * float32 rounding).
 */
const COMPONENTS = [0, 0.5, Math.SQRT1_2, 1, 0.35355338, 0.8660254, 0.25, 1e-4].map(Math.fround)
const component = fc.tuple(fc.constantFrom(...COMPONENTS), fc.boolean()).map(([c, neg]) => (neg ? -c : c))
const magnitude = fc
  .tuple(fc.constantFrom(0, 1e-3, 0.1, 1, 3, 1e3, 1e8), fc.boolean())
  .map(([c, neg]) => Math.fround(neg ? -c : c))
const round = fc.tuple(
  fc.array(magnitude, { minLength: 3, maxLength: 3 }),
  fc.array(component, { minLength: 4, maxLength: 4 }),
  fc.array(fc.constantFrom(1, 0.5, 2, 1e-4, 1e4, 3).map(Math.fround), { minLength: 3, maxLength: 3 }),
)
const local = fc.oneof(
  { arbitrary: plausible, weight: 3 },
  { arbitrary: round.map((parts) => parts.flat()), weight: 3 },
  { arbitrary: hostile, weight: 1 },
)

/** A forest of n nodes: node i hangs under an earlier one, or is a root. */
const forest = fc
  .array(fc.nat(), { minLength: 1, maxLength: 48 })
  .map((picks) => picks.map((k, i) => (i === 0 || k % 5 === 0 ? -1 : Math.floor(k / 5) % i)))

describe('kernels: the JavaScript and WebAssembly passes give the clean pass’s bits', () => {
  it('on random forests with any locals, over passes that dirty random subsets', () => {
    const scenario = forest.chain((parents) =>
      fc.tuple(
        fc.constant(parents),
        fc.array(fc.array(fc.tuple(fc.nat(parents.length - 1), local), { maxLength: parents.length }), {
          minLength: 1,
          maxLength: 4,
        }),
      ),
    )
    let refusals = 0
    fc.assert(
      fc.property(scenario, ([parents, passes]) => {
        const twins = makeTwins(parents)
        for (const writes of passes) {
          for (const [i, v] of writes) writeLocal(twins, i, v)
          for (const t of twins) t.propagate()
          expectSameOutcomes(twins)
          refusals += twins[0]!.graph.stats.refused
        }
      }),
      { numRuns: 300 },
    )
    expect(refusals).toBeGreaterThan(0) // the guard's path was taken, not only the plain one
  })

  it('under clean parents whose world matrices mix magnitudes, where any reordered sum would show', () => {
    // The parents are not dirty, so the pass keeps their world matrices (written here) and multiplies the
    // children's locals into them. Entries of ±1e8 against locals of 45° and 90° turns (columns such as
    // (½, ½, √½)) cancel exactly in one order and leave a rounding error of ~1e-9 in another, which a term of
    // 1e-3 shows in float32; so a sum taken in another order or a rounding in another place fails here.
    const sign = (values: number[]) =>
      fc.tuple(fc.constantFrom(...values.map(Math.fround)), fc.boolean()).map(([c, neg]) => (neg ? -c : c))
    const entries = sign([1e8, 1e8, 1e-3, 1])
    const turn = fc.tuple(
      fc.array(sign([0, 1e8, 1e-3, 1]), { minLength: 3, maxLength: 3 }),
      fc.array(sign([0, 0.5, Math.SQRT1_2, 1e-4]), { minLength: 4, maxLength: 4 }),
      fc.array(sign([1, 1e-3]), { minLength: 3, maxLength: 3 }),
    )
    const scene = fc.tuple(
      fc.array(fc.array(entries, { minLength: 12, maxLength: 12 }), { minLength: 2, maxLength: 2 }),
      fc.array(
        turn.map((parts) => parts.flat()),
        { minLength: 1, maxLength: 24 },
      ),
    )
    fc.assert(
      fc.property(scene, ([parentWorlds, children]) => {
        const parents = [-1, -1, ...children.map((_, i) => i % 2)]
        const twins = makeTwins(parents)
        for (const t of twins) {
          t.propagate() // every node identity, clean
          parentWorlds.forEach((w, i) => {
            const o = t.eids[i]! * 16
            for (let c = 0; c < 4; c++) t.graph.store.world.set(w.slice(c * 3, c * 3 + 3), o + c * 4)
          })
        }
        children.forEach((v, i) => writeLocal(twins, i + 2, v))
        for (const t of twins) t.propagate()
        expectSameOutcomes(twins)
      }),
      { numRuns: 200 },
    )
  })

  it('composes T·R·S in the same order: roots whose rotation puts an element of R·S near 0', () => {
    // A root's world is its T·R·S: an element that nearly cancels (1 − (yy + zz), xy + wz, …) keeps the f64
    // rounding of its terms in its float32 bits, so a term added in another order shows on a few % of them.
    // Three components at random (of magnitudes 1 to 1e-3, so that sums of their products round in f64), the
    // fourth solved (in f64, then rounded) to cancel one of the nine; scales 0.5 to 2.
    const roots = 6000
    const parents = Array.from({ length: roots }, () => -1)
    const twins = makeTwins(parents)
    let seed = 7
    const random = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1
    for (let i = 0; i < roots; i++) {
      const tenth = () => random() * 10 ** -Math.floor(Math.abs(random()) * 4)
      let [x, y, z, w] = [tenth(), tenth(), tenth(), tenth()]
      const half = (a: number) => Math.sqrt(Math.max(0, (1 - 2 * a * a) / 2))
      switch (i % 9) {
        case 0:
          z = half(y)
          break // l00 = 1 − (yy + zz)
        case 1:
          z = half(x)
          break // l11 = 1 − (xx + zz)
        case 2:
          y = half(x)
          break // l22 = 1 − (xx + yy)
        case 3:
          w = -(x * y) / z
          break // l10 = xy + wz
        case 4:
          w = (x * y) / z
          break // l01 = xy − wz
        case 5:
          w = (x * z) / y
          break // l20 = xz − wy
        case 6:
          w = -(x * z) / y
          break // l02 = xz + wy
        case 7:
          w = -(y * z) / x
          break // l21 = yz + wx
        default:
          w = (y * z) / x // l12 = yz − wx
      }
      const scale = () => 1.25 + 0.75 * random()
      writeLocal(
        twins,
        i,
        [random(), random(), random(), x, y, z, w, scale(), scale(), scale()].map(Math.fround),
      )
    }
    for (const t of twins) t.propagate()
    expectSameOutcomes(twins)
    // The cancellations happened: many elements far below their terms.
    const world = twins[0]!.graph.store.world
    let tiny = 0
    for (let i = 0; i < roots; i++)
      for (const k of [0, 1, 2, 4, 5, 6, 8, 9, 10]) if (Math.abs(world[(i + 1) * 16 + k]!) < 1e-6) tiny++
    expect(tiny).toBeGreaterThan(roots / 2)
  })

  it('refuses a product past float32 (keeps the last matrix), counts past 64 and lists the first 64 in order', () => {
    // 100 children under one root; each child's scale times the root's overflows float32 (1e30 · 1e30).
    const parents = [-1, ...Array.from({ length: 100 }, () => 0)]
    const twins = makeTwins(parents)
    for (let i = 0; i <= 100; i++) writeLocal(twins, i, [i, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    for (const t of twins) t.propagate()
    const before = twins.map((t) => Array.from(bitsOf(t.graph.store.world)))
    for (const b of before) expect(b).toEqual(before[0])
    writeLocal(twins, 0, [0, 0, 0, 0, 0, 0, 1, 1e30, 1e30, 1e30])
    for (let i = 1; i <= 100; i++) writeLocal(twins, i, [i, 0, 0, 0, 0, 0, 1, 1e30, 1, 1])
    for (const t of twins) t.propagate()
    const [clean, js, simd, scalar] = twins.map(outcome)
    expect(js).toEqual(clean)
    expect(simd).toEqual(clean)
    expect(scalar).toEqual(clean)
    expect(js!.refused).toBe(100)
    expect(js!.kept.filter((k) => k === 1).length).toBe(100)
    expect(js!.recomputed).toBe(1) // the root alone
    // The first 64 refused in the pass's (parents-first) order, each with its matrix of before.
    const order = Array.from(twins[0]!.graph.order.subarray(1, 65))
    expect(js!.refusedNodes).toEqual(order)
    for (const t of twins)
      for (let i = 1; i <= 100; i++) {
        const e = t.eids[i]!
        expect(Array.from(bitsOf(t.graph.store.world).subarray(e * 16, e * 16 + 16))).toEqual(
          before[0]!.slice(e * 16, e * 16 + 16),
        )
        expect([t.graph.store.changed[e], t.graph.store.dirty[e]]).toEqual([0, 0])
      }
  })
})
