/**
 * The WebAssembly kernels (the `kernels: 'wasm'` option): a SceneNode store laid out in one WebAssembly memory,
 * sized for the plugin's capacity when it is made and never grown (so the store's views are never detached),
 * and the world-matrix propagation pass over it (propagate.wat, a twin of propagateWorldMatrices in
 * src/skeleton/sceneNodes.ts, which stays the reference: the same bits in every engine,
 * test/engine/propagate.test.ts).
 *
 * The module is carried as base64 (propagateModule.ts, generated from propagate.wat by scripts/build-wasm.mjs)
 * and compiled synchronously once per process: it is small (Chromium refuses a synchronous compile of more
 * than 4 KB on a page's main thread, and createAnimationPlugin is synchronous).
 */
import { WASM_BASE64 } from './propagateModule.ts'

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

let compiled: WebAssembly.Module | null = null

/**
 * Makes the memory (all zeros) and instantiates the pass over it. Throws a plain Error when the engine has no
 * WebAssembly or cannot give the memory; the caller words it.
 */
export function createPropagationKernel(capacity: number, maxRefused: number): PropagationKernel {
  if (typeof WebAssembly !== 'object') throw new Error('this JavaScript engine has no WebAssembly')
  const layout = kernelLayout(capacity, maxRefused)
  const pages = Math.ceil(layout.bytes / PAGE)
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages })
  compiled ??= new WebAssembly.Module(decodeBase64(WASM_BASE64))
  // The layout's offsets are the module's imports by name (its byte count is not imported).
  const instance = new WebAssembly.Instance(compiled, { env: { memory, ...layout } })
  const buffer = memory.buffer
  return {
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
