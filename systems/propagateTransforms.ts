import type { World } from 'bitecs'
import type { SceneGraph, SceneKernels } from '../components/SceneNode.ts'
import { propagationKernel, refreshSceneOrder } from '../components/SceneNode.ts'
import { createPropagationPass } from './propagationPass.ts'
import type { Parallel } from './workers/pool.ts'
import type { PropagationKernel } from '../src/engine/wasmKernels.ts'
import { PROPAGATION_CHUNK, v8Measures } from '../src/engine/v8.ts'

/**
 * propagateTransforms: world = parentWorld · T·R·S(local) for every node whose local is dirty and for all of
 * its descendants, parents first; every other node's `world` is left untouched.
 *
 * One pass over the cached parents-first order (rebuilt only when the hierarchy version changed): a node is
 * recomputed when it is dirty or its parent was recomputed earlier in this pass (`changed[parent]`; entry 0 of
 * `changed` belongs to no node and stays 0, so roots need no branch). Afterwards `dirty` is 0 and `changed` is
 * 1 for exactly the recomputed nodes; `graph.stats.recomputed` holds their count.
 * A dirty node under a clean parent uses the parent's current world, kept from earlier passes.
 * A node whose world matrix would not be finite in float32 (a product of huge but finite locals, or a
 * non-finite local a game wrote) keeps its last one and is listed in `graph.stats.refused` / `refusedNodes`
 * (reportWorldFaults turns that into an event), so no world matrix ever holds NaN or ∞; `graph.kept` marks it
 * for good (a snapshot stores such a node's world matrix instead of recomputing it).
 *
 * Only the 12 affine elements are written: elements 3, 7, 11, 15 (the last row, 0 0 0 1) are set when the node is
 * added (identity) and every matrix composed from T/R/S keeps them, so they are not rewritten (~8% of the pass).
 * Allocates nothing unless the hierarchy changed. Never throws.
 *
 * A graph made with kernels 'wasm' runs the WebAssembly twin of `pass` below (src/engine/propagate.wat), which
 * gives the same bits; this one is the reference. `kernels` 'js' runs this one over such a graph too (the
 * benchmark compares the two over one store: scripts/bench/kernels.ts).
 */
export function createPropagateTransformsSystem(
  ctx: { readonly sceneGraph: SceneGraph; readonly parallel?: Parallel | null },
  kernels: SceneKernels = ctx.sceneGraph.kernels,
) {
  const graph = ctx.sceneGraph
  const kernel = propagationKernel(graph)
  if (kernels === 'wasm' && kernel !== null) return createWasmPropagation(graph, kernel)
  const { pass, takeRefused } = createPropagationPass(
    graph.store,
    graph.order,
    graph.refusedNodes,
    graph.kept,
  )

  const chunk = v8Measures().chunkPropagation ? PROPAGATION_CHUNK : 0x7fffffff

  const parallel = ctx.parallel ?? null
  const propagation = { pass, takeRefused }
  return function propagateTransforms(_world: World): void {
    const n = refreshSceneOrder(graph)
    // With workers: subtree-aligned ranges of the order, shared among the threads (systems/workers/pool.ts).
    if (parallel !== null) return parallel.propagate(graph, propagation, n)
    let recomputed = 0
    for (let start = 0; start < n; start += chunk)
      recomputed += pass(start, start + chunk < n ? start + chunk : n)
    graph.stats.recomputed = recomputed
    graph.stats.refused = takeRefused()
  }
}

/** propagateTransforms with the WebAssembly pass: one call over the whole order (it is compiled ahead). */
function createWasmPropagation(graph: SceneGraph, kernel: PropagationKernel) {
  const { pass, refusedCount, refusedNodes } = kernel
  const kept = graph.kept
  return function propagateTransforms(_world: World): void {
    const n = refreshSceneOrder(graph)
    refusedCount[0] = 0
    graph.stats.recomputed = pass(0, n)
    const refused = refusedCount[0]!
    graph.stats.refused = refused
    // As the JavaScript pass marks them (the kernel lists every refused node: its list is sized for all).
    for (let i = 0; i < refused && i < refusedNodes.length; i++) kept[refusedNodes[i]!] = 1
  }
}
