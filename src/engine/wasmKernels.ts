/**
 * The WebAssembly kernels (the `kernels: 'wasm'` option): a SceneNode store laid out in one WebAssembly memory,
 * sized for the plugin's capacity when it is made and never grown (so the store's views are never detached),
 * and the world-matrix propagation pass over it (propagate.wat, a twin of propagateWorldMatrices in
 * src/skeleton/sceneNodes.ts, which stays the reference: the same bits in every engine,
 * test/engine/propagate.test.ts).
 *
 * The pass comes in two forms with the same bits: propagateSimd.wat (f64x2 lanes), where the engine validates
 * WebAssembly SIMD, else propagate.wat (scalar). Each is carried as base64 (propagate*Module.ts, generated from
 * the .wat by scripts/build-wasm.mjs) and compiled synchronously once per process: it is small (Chromium
 * refuses a synchronous compile of more than 4 KB on a page's main thread, and createAnimationPlugin is
 * synchronous).
 */
import { WASM_BASE64 as SCALAR_BASE64 } from './propagateModule.ts'
import { WASM_BASE64 as SIMD_BASE64 } from './propagateSimdModule.ts'

/** Byte offsets of the arrays in a kernel memory (what propagate.wat imports), and its size in bytes. */
export interface KernelLayout {
  /** i32 count of nodes refused in the step, then `maxRefused` i32 node ids. */
  readonly refused: number
  readonly maxRefused: number
  readonly world: number
  readonly rotation: number
  readonly translation: number
  readonly scale: number
  readonly parent: number
  readonly order: number
  readonly dirty: number
  readonly changed: number
  readonly bytes: number
}

const PAGE = 65536

/** Where everything goes for ids `0 <= e < capacity`: the 16-byte rows on 64-byte boundaries, the rest after. */
export function kernelLayout(capacity: number, maxRefused: number): KernelLayout {
  let at = 0
  const take = (bytes: number, align: number) => {
    at = Math.ceil(at / align) * align
    const start = at
    at += bytes
    return start
  }
  const refused = take(4 + 4 * maxRefused, 64)
  const world = take(capacity * 64, 64)
  const rotation = take(capacity * 16, 64)
  const translation = take(capacity * 12, 64)
  const scale = take(capacity * 12, 64)
  const parent = take(capacity * 4, 64)
  const order = take(capacity * 4, 64)
  const dirty = take(capacity, 64)
  const changed = take(capacity, 64)
  return {
    refused,
    maxRefused,
    world,
    rotation,
    translation,
    scale,
    parent,
    order,
    dirty,
    changed,
    bytes: at,
  }
}

/**
 * A kernel memory and its propagation pass. The store's views are made by the caller from `layout` and
 * `buffer` (components/SceneNode.ts); nothing here is a WebAssembly type (a game's `lib` may lack them).
 */
export interface PropagationKernel {
  /** Which module runs the pass. */
  readonly form: KernelForm
  readonly layout: KernelLayout
  /** The memory's bytes: one buffer for the life of the kernel, never detached (the memory never grows). */
  readonly buffer: ArrayBuffer
  /** The graph's parents-first order. */
  readonly order: Int32Array
  /** [0]: nodes refused so far in this step (zero it before the step's first pass). */
  readonly refusedCount: Int32Array
  /** The first `maxRefused` refused node ids. */
  readonly refusedNodes: Int32Array
  /** propagateTransforms's pass over order[start, end): returns the nodes it recomputed. */
  readonly pass: (start: number, end: number) => number
}

/** The pass's module: 'simd' (propagateSimd.wat) or 'scalar' (propagate.wat). Both give the same bits. */
export type KernelForm = 'simd' | 'scalar'

/** An engine that validates this has the SIMD instructions propagateSimd.wat uses (all in one proposal). */
export const SIMD_PROBE_WAT = '(module (func (result v128) (f64x2.promote_low_f32x4 (v128.const i64x2 0 0))))'

/** SIMD_PROBE_WAT assembled (test/engine/propagate.test.ts checks it). */
export const SIMD_PROBE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 24, 1, 22, 0, 253, 12, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 253, 95, 11,
]

let forced: KernelForm | null = null

/** The form kernels made now use: 'simd' where WebAssembly SIMD validates (unless forced), else 'scalar'. */
export function kernelForm(): KernelForm {
  if (forced !== null) return forced
  return typeof WebAssembly === 'object' && WebAssembly.validate(Uint8Array.from(SIMD_PROBE))
    ? 'simd'
    : 'scalar'
}

/** For tests and benchmarks: the form of the kernels made afterwards (null: kernelForm's choice). */
export function forceKernelForm(form: KernelForm | null): void {
  forced = form
}

const compiled: Record<KernelForm, WebAssembly.Module | null> = { simd: null, scalar: null }

/**
 * Makes the memory (all zeros) and instantiates the pass over it. Throws a plain Error when the engine has no
 * WebAssembly or cannot give the memory; the caller words it.
 */
export function createPropagationKernel(capacity: number, maxRefused: number): PropagationKernel {
  if (typeof WebAssembly !== 'object') throw new Error('this JavaScript engine has no WebAssembly')
  const layout = kernelLayout(capacity, maxRefused)
  const pages = Math.ceil(layout.bytes / PAGE)
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages })
  const form = kernelForm()
  const module = (compiled[form] ??= new WebAssembly.Module(
    decodeBase64(form === 'simd' ? SIMD_BASE64 : SCALAR_BASE64),
  ))
  // The layout's offsets are the module's imports by name (its byte count is not imported).
  const instance = new WebAssembly.Instance(module, { env: { memory, ...layout } })
  const buffer = memory.buffer
  return {
    form,
    layout,
    buffer,
    order: new Int32Array(buffer, layout.order, capacity),
    refusedCount: new Int32Array(buffer, layout.refused, 1),
    refusedNodes: new Int32Array(buffer, layout.refused + 4, maxRefused),
    pass: instance.exports['pass'] as (start: number, end: number) => number,
  }
}

/** Base64 to bytes without Node's Buffer (the library runs in browsers too). */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const chars = atob(text)
  const bytes = new Uint8Array(chars.length)
  for (let i = 0; i < chars.length; i++) bytes[i] = chars.charCodeAt(i)
  return bytes
}
