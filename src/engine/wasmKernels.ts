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
import { WASM_BASE64 as FUSED_BASE64 } from './fusedSimdModule.ts'
import { ARC_SERIES } from '../clip/arcKernels.ts'

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
  /** The pose pool's data (f32, 10 a slot) and joint column (i32) for `poseSlots` slots (0: not here). */
  readonly poseData: number
  readonly poseJoints: number
  readonly poseSlots: number
  /** The fused pass's per-track inputs (i32 key, f64 position, i32 between keys) for `maxTracks` tracks. */
  readonly trackK: number
  readonly trackU: number
  readonly trackOn: number
  readonly maxTracks: number
  /** The same for a cross-fade's FROM clip. */
  readonly trackK2: number
  readonly trackU2: number
  readonly trackOn2: number
  /** A cross-fade's weight (f64), its slerp series coefficients (20 f64), its joints' paths (u8 each). */
  readonly fadeWeight: number
  readonly fadeSeries: number
  readonly fadePaths: number
  readonly maxFadeJoints: number
  /** i32: the joints the fused pass's last call did not write (not finite). */
  readonly fusedOut: number
  /** ARC_SERIES's doubles, copied in when the memory is made. */
  readonly arcSeries: number
  /** The clip arena (keys and plans the fused pass reads: wasmFused.ts) and its size in bytes. */
  readonly clips: number
  readonly clipBytes: number
  readonly bytes: number
}

const PAGE = 65536

/** Time tracks a clip may have for the fused pass (more: the three systems play it). */
export const FUSED_MAX_TRACKS = 4096
/** Joints a cross-fading character may have for the fused pass (more: the three systems). */
export const FUSED_MAX_FADE_JOINTS = 4096

/**
 * Where everything goes for ids `0 <= e < capacity`: the 16-byte rows on 64-byte boundaries, the rest after;
 * then a pose pool of `poseSlots` slots and a clip arena of `clipBytes` bytes (both 0 for the propagation
 * pass alone).
 */
export function kernelLayout(
  capacity: number,
  maxRefused: number,
  poseSlots = 0,
  clipBytes = 0,
): KernelLayout {
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
  const fused = poseSlots > 0
  const poseData = take(poseSlots * 40, 64)
  const poseJoints = take(poseSlots * 4, 64)
  const maxTracks = fused ? FUSED_MAX_TRACKS : 0
  const trackK = take(maxTracks * 4, 64)
  const trackU = take(maxTracks * 8, 64)
  const trackOn = take(maxTracks * 4, 64)
  const trackK2 = take(maxTracks * 4, 64)
  const trackU2 = take(maxTracks * 8, 64)
  const trackOn2 = take(maxTracks * 4, 64)
  const fadeWeight = take(fused ? 8 : 0, 64)
  const fadeSeries = take(fused ? 160 : 0, 64)
  const maxFadeJoints = fused ? FUSED_MAX_FADE_JOINTS : 0
  const fadePaths = take(maxFadeJoints, 64)
  const fusedOut = take(fused ? 4 : 0, 64)
  const arcSeries = take(fused ? ARC_SERIES.byteLength : 0, 64)
  const clips = take(clipBytes, 64)
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
    poseData,
    poseJoints,
    poseSlots,
    trackK,
    trackU,
    trackOn,
    maxTracks,
    trackK2,
    trackU2,
    trackOn2,
    fadeWeight,
    fadeSeries,
    fadePaths,
    maxFadeJoints,
    fusedOut,
    arcSeries,
    clips,
    clipBytes,
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
  /**
   * The fused pass (fusedSimd.wat) over this memory, when it has a pose pool and the engine has SIMD; null until
   * then where the engine compiles it in the background (a page's main thread: compileFused).
   */
  fused: FusedKernel | null
}

/** fusedSimd.wat's pass and its inputs' views (layout in KernelLayout). */
export interface FusedKernel {
  /** One character: plan at byte `table`, `n` joints, ANIM pose at byte `anim`, joint ids at byte `joints`. */
  readonly character: (table: number, n: number, anim: number, joints: number) => number
  /**
   * One cross-fading character: TO's plan at `table`, FROM's at `fromTable`, the poses ANIM, FROM and TO at those
   * bytes, joint ids at `joints`; `paths` 1 when fadePaths holds its joints' paths (0: every path).
   */
  readonly fade: (
    table: number,
    fromTable: number,
    n: number,
    anim: number,
    from: number,
    to: number,
    joints: number,
    paths: number,
  ) => number
  readonly trackK: Int32Array
  readonly trackU: Float64Array
  readonly trackOn: Int32Array
  readonly trackK2: Int32Array
  readonly trackU2: Float64Array
  readonly trackOn2: Int32Array
  /** [0] the cross-fade's weight; its 20 series coefficients; its joints' paths. */
  readonly fadeWeight: Float64Array
  readonly fadeSeries: Float64Array
  readonly fadePaths: Uint8Array
  /** [0]: the joints the last call did not write. */
  readonly out: Int32Array
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
let fusedModule: WebAssembly.Module | Promise<WebAssembly.Module> | null = null
let fusedOn = true

/** For tests and benchmarks: whether kernels made afterwards get the fused pass (on by default). */
export function setFusedKernel(on: boolean): void {
  fusedOn = on
}

let background = false

/** For tests: kernels made afterwards compile the fused pass in the background, as on a page's main thread. */
export function compileFusedInBackground(on: boolean): void {
  background = on
}

/**
 * Makes the memory (all zeros) and instantiates the pass over it; with `poseSlots` > 0, the fused pass too
 * (where SIMD validates). Throws a plain Error when the engine has no WebAssembly or cannot give the memory; the
 * caller words it.
 */
export function createPropagationKernel(
  capacity: number,
  maxRefused: number,
  poseSlots = 0,
  clipBytes = 0,
): PropagationKernel {
  if (typeof WebAssembly !== 'object') throw new Error('this JavaScript engine has no WebAssembly')
  const layout = kernelLayout(capacity, maxRefused, poseSlots, clipBytes)
  const pages = Math.ceil(layout.bytes / PAGE)
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages })
  const form = kernelForm()
  const module = (compiled[form] ??= new WebAssembly.Module(
    decodeBase64(form === 'simd' ? SIMD_BASE64 : SCALAR_BASE64),
  ))
  // The layout's offsets are the module's imports by name (its byte count is not imported).
  const instance = new WebAssembly.Instance(module, { env: { memory, ...layout } })
  const buffer = memory.buffer
  const kernel: { -readonly [K in keyof PropagationKernel]: PropagationKernel[K] } = {
    form,
    layout,
    buffer,
    order: new Int32Array(buffer, layout.order, capacity),
    refusedCount: new Int32Array(buffer, layout.refused, 1),
    refusedNodes: new Int32Array(buffer, layout.refused + 4, maxRefused),
    pass: instance.exports['pass'] as (start: number, end: number) => number,
    fused: null,
  }
  if (poseSlots > 0 && form === 'simd' && fusedOn) {
    new Float64Array(buffer, layout.arcSeries, ARC_SERIES.length).set(ARC_SERIES)
    const imports = { env: { memory, ...layout } }
    const made = (instance: WebAssembly.Instance) => {
      kernel.fused = fusedKernel(instance, buffer, layout)
    }
    const module = compileFused()
    if (module instanceof WebAssembly.Module) {
      try {
        made(new WebAssembly.Instance(module, imports))
      } catch {
        WebAssembly.instantiate(module, imports).then(made, () => {})
      }
    } else {
      module.then((m) => WebAssembly.instantiate(m, imports)).then(made, () => {})
    }
  }
  return kernel
}

/**
 * The fused module: compiled synchronously where the engine allows it, else in the background (Chromium has
 * refused a synchronous compile or instantiation past 4 KB on a page's main thread; Chromium 156 takes this
 * module's 4.5 KB): until then the fused characters take the three systems, which give the same bits.
 */
function compileFused(): WebAssembly.Module | Promise<WebAssembly.Module> {
  if (background) return WebAssembly.compile(decodeBase64(FUSED_BASE64))
  if (fusedModule !== null) return fusedModule
  const bytes = decodeBase64(FUSED_BASE64)
  try {
    fusedModule = new WebAssembly.Module(bytes)
  } catch {
    fusedModule = WebAssembly.compile(bytes).then((m) => (fusedModule = m))
  }
  return fusedModule
}

function fusedKernel(instance: WebAssembly.Instance, buffer: ArrayBuffer, layout: KernelLayout): FusedKernel {
  return {
    character: instance.exports['character'] as FusedKernel['character'],
    fade: instance.exports['fade'] as FusedKernel['fade'],
    trackK: new Int32Array(buffer, layout.trackK, layout.maxTracks),
    trackU: new Float64Array(buffer, layout.trackU, layout.maxTracks),
    trackOn: new Int32Array(buffer, layout.trackOn, layout.maxTracks),
    trackK2: new Int32Array(buffer, layout.trackK2, layout.maxTracks),
    trackU2: new Float64Array(buffer, layout.trackU2, layout.maxTracks),
    trackOn2: new Int32Array(buffer, layout.trackOn2, layout.maxTracks),
    fadeWeight: new Float64Array(buffer, layout.fadeWeight, 1),
    fadeSeries: new Float64Array(buffer, layout.fadeSeries, 20),
    fadePaths: new Uint8Array(buffer, layout.fadePaths, layout.maxFadeJoints),
    out: new Int32Array(buffer, layout.fusedOut, 1),
  }
}

/** Base64 to bytes without Node's Buffer (the library runs in browsers too). */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const chars = atob(text)
  const bytes = new Uint8Array(chars.length)
  for (let i = 0; i < chars.length; i++) bytes[i] = chars.charCodeAt(i)
  return bytes
}
