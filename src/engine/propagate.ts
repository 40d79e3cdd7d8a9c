import type { SceneNodeStore } from '../skeleton/sceneNodes.ts'
import type { PropagationKernel } from './wasmKernels.ts'
import { PROPAGATION_CHUNK, v8Measures } from './v8.ts'

/**
 * World-matrix propagation's fast forms, and the one place that picks among them. The clean form is
 * propagateWorldMatrices (src/skeleton/sceneNodes.ts, which says what propagation computes); here:
 * - createPropagationPass: the same pass as a closure over one store's arrays with the matrix products written
 *   out, run in chunks (v8.ts says why);
 * - the WebAssembly pass of the `kernels: 'wasm'` option (wasmKernels.ts; propagateSimd.wat or propagate.wat);
 * - the JavaScript pass split among worker threads (the `workers` option; the runner is systems/workers/pool.ts).
 * choosePropagation picks one when the propagation system is made. test/engine/propagate.test.ts holds the
 * JavaScript and the WebAssembly passes to the clean form bit for bit.
 */

/**
 * propagateWorldMatrices over one scene-node store, its parents-first `order`, the list refused nodes go to
 * (`refusedNodes`: the first as many as it holds) and `kept`, counting refusals in `refusedCount[0]`. A pass over a range of
 * `order` that starts at a root and ends before one (or at the end) reads and writes only that range's subtrees,
 * so the worker threads of the `workers` option run disjoint ranges with passes of their own.
 */
export interface PropagationPass {
  /** The pass over order[start, end): returns the nodes it recomputed. */
  readonly pass: (start: number, end: number) => number
  /** Nodes refused since the last call, which starts the count afresh. */
  readonly takeRefused: () => number
}

export function createPropagationPass(
  store: SceneNodeStore,
  order: Int32Array,
  refusedNodes: Int32Array,
  kept: Uint8Array,
  refusedCount: Int32Array = new Int32Array(1),
): PropagationPass {
  const { translation, rotation, scale, parent, dirty, changed, world } = store
  const fround = Math.fround
  const maxRefused = refusedNodes.length

  function pass(start: number, end: number): number {
    let recomputed = 0
    for (let i = start; i < end; i++) {
      const e = order[i]!
      const p = parent[e]!
      if (dirty[e] === 0 && changed[p] === 0) {
        changed[e] = 0
        continue
      }
      // world = parentWorld · T·R·S (composeMatrix and multiplyAffine written out), or T·R·S for a root.
      const oo = e * 16
      const ro = e * 4
      const to = e * 3
      const x = rotation[ro]!
      const y = rotation[ro + 1]!
      const z = rotation[ro + 2]!
      const w = rotation[ro + 3]!
      const x2 = x + x
      const y2 = y + y
      const z2 = z + z
      const xx = x * x2
      const xy = x * y2
      const xz = x * z2
      const yy = y * y2
      const yz = y * z2
      const zz = z * z2
      const wx = w * x2
      const wy = w * y2
      const wz = w * z2
      const sx = scale[to]!
      const sy = scale[to + 1]!
      const sz = scale[to + 2]!
      const l00 = (1 - (yy + zz)) * sx
      const l10 = (xy + wz) * sx
      const l20 = (xz - wy) * sx
      const l01 = (xy - wz) * sy
      const l11 = (1 - (xx + zz)) * sy
      const l21 = (yz + wx) * sy
      const l02 = (xz + wy) * sz
      const l12 = (yz - wx) * sz
      const l22 = (1 - (xx + yy)) * sz
      const tx = translation[to]!
      const ty = translation[to + 1]!
      const tz = translation[to + 2]!
      let m0 = l00
      let m1 = l10
      let m2 = l20
      let m4 = l01
      let m5 = l11
      let m6 = l21
      let m8 = l02
      let m9 = l12
      let m10 = l22
      let m12 = tx
      let m13 = ty
      let m14 = tz
      if (p !== 0) {
        const po = p * 16
        const p00 = world[po]!
        const p10 = world[po + 1]!
        const p20 = world[po + 2]!
        const p01 = world[po + 4]!
        const p11 = world[po + 5]!
        const p21 = world[po + 6]!
        const p02 = world[po + 8]!
        const p12 = world[po + 9]!
        const p22 = world[po + 10]!
        m0 = p00 * l00 + p01 * l10 + p02 * l20
        m1 = p10 * l00 + p11 * l10 + p12 * l20
        m2 = p20 * l00 + p21 * l10 + p22 * l20
        m4 = p00 * l01 + p01 * l11 + p02 * l21
        m5 = p10 * l01 + p11 * l11 + p12 * l21
        m6 = p20 * l01 + p21 * l11 + p22 * l21
        m8 = p00 * l02 + p01 * l12 + p02 * l22
        m9 = p10 * l02 + p11 * l12 + p12 * l22
        m10 = p20 * l02 + p21 * l12 + p22 * l22
        m12 = p00 * tx + p01 * ty + p02 * tz + world[po + 12]!
        m13 = p10 * tx + p11 * ty + p12 * tz + world[po + 13]!
        m14 = p20 * tx + p21 * ty + p22 * tz + world[po + 14]!
      }
      // Refused when an element rounds to ±∞ in float32 or is NaN: that is when |m| ≥ F32_OVERFLOW, and then
      // the sum of squares is at least F32_OVERFLOW² (rounding is monotone), as it is for a NaN (no comparison
      // holds): only then are the elements rounded and summed, a NaN or ∞ anywhere making the sum NaN or ∞
      // (twelve finite float32 values sum finite). The squares cost half what twelve roundings do.
      const q =
        m0 * m0 +
        m1 * m1 +
        (m2 * m2 + m4 * m4) +
        (m5 * m5 + m6 * m6 + (m8 * m8 + m9 * m9)) +
        (m10 * m10 + m12 * m12 + (m13 * m13 + m14 * m14))
      if (!(q < F32_OVERFLOW_SQUARED)) {
        const sum =
          fround(m0) +
          fround(m1) +
          (fround(m2) + fround(m4)) +
          (fround(m5) + fround(m6) + (fround(m8) + fround(m9))) +
          (fround(m10) + fround(m12) + (fround(m13) + fround(m14)))
        if (sum - sum !== 0) {
          // Nodes refused so far in this step's passes (shared with the fused pass: src/engine/fusedSimd.wat).
          const refused = refusedCount[0]!
          if (refused < maxRefused) refusedNodes[refused] = e
          refusedCount[0] = refused + 1
          kept[e] = 1
          dirty[e] = 0
          changed[e] = 0
          continue
        }
      }
      world[oo] = m0
      world[oo + 1] = m1
      world[oo + 2] = m2
      world[oo + 4] = m4
      world[oo + 5] = m5
      world[oo + 6] = m6
      world[oo + 8] = m8
      world[oo + 9] = m9
      world[oo + 10] = m10
      world[oo + 12] = m12
      world[oo + 13] = m13
      world[oo + 14] = m14
      dirty[e] = 0
      changed[e] = 1
      recomputed++
    }
    return recomputed
  }

  function takeRefused(): number {
    const r = refusedCount[0]!
    refusedCount[0] = 0
    return r
  }
  return { pass, takeRefused }
}

/**
 * The smallest double that rounds to ±∞ in float32: halfway between the largest float32, 2^128 − 2^104, and
 * 2^128, where round-half-to-even goes up. Its square (50 significant bits) is exact in a double.
 */
const F32_OVERFLOW = 3.4028235677973366e38 // 2^128 − 2^103 (a literal: the step uses no `**`)
export const F32_OVERFLOW_SQUARED = F32_OVERFLOW * F32_OVERFLOW

/** What a propagation reads and writes of a scene graph (components/SceneNode.ts SceneGraph). */
export interface PropagatedGraph {
  readonly store: SceneNodeStore
  readonly order: Int32Array
  readonly refusedNodes: Int32Array
  readonly kept: Uint8Array
  readonly stats: { recomputed: number; refused: number }
}

/** Propagation split among worker threads (systems/workers/pool.ts Parallel), this thread running `pass`. */
export interface ParallelPropagation {
  propagate(graph: PropagatedGraph, pass: PropagationPass, n: number): void
}

/**
 * The propagation of `graph` over order[0, n): world matrices, `graph.stats` and its refused list, as
 * propagateWorldMatrices gives them.
 */
export type Propagate = (n: number) => void

/**
 * Picks the propagation once, when the system is made: the WebAssembly pass when `kernel` is given (a graph laid
 * out in its memory, kernels 'wasm'), else the JavaScript pass, split among the workers when `parallel` is
 * given, else run in chunks of PROPAGATION_CHUNK nodes (v8.ts chunkPropagation).
 */
export function choosePropagation(
  graph: PropagatedGraph,
  kernel: PropagationKernel | null,
  parallel: ParallelPropagation | null,
): Propagate {
  if (kernel !== null) return wasmPropagation(graph, kernel)
  const propagation = createPropagationPass(graph.store, graph.order, graph.refusedNodes, graph.kept)
  if (parallel !== null) return (n) => parallel.propagate(graph, propagation, n)
  const chunk = v8Measures().chunkPropagation ? PROPAGATION_CHUNK : 0x7fffffff
  const { pass, takeRefused } = propagation
  return function propagateInChunks(n: number): void {
    let recomputed = 0
    for (let start = 0; start < n; start += chunk)
      recomputed += pass(start, start + chunk < n ? start + chunk : n)
    graph.stats.recomputed = recomputed
    graph.stats.refused = takeRefused()
  }
}

/** The WebAssembly pass: one call over the whole order (it is compiled ahead, so no chunks). */
function wasmPropagation(graph: PropagatedGraph, kernel: PropagationKernel): Propagate {
  const { pass, refusedCount, refusedNodes } = kernel
  const kept = graph.kept
  return function propagateWasm(n: number): void {
    refusedCount[0] = 0
    graph.stats.recomputed = pass(0, n)
    const refused = refusedCount[0]!
    graph.stats.refused = refused
    // As the JavaScript pass marks them (the kernel lists every refused node: its list is sized for all).
    for (let i = 0; i < refused && i < refusedNodes.length; i++) kept[refusedNodes[i]!] = 1
  }
}
