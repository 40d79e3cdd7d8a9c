import type { World } from 'bitecs'
import type { SceneGraph, SceneKernels } from '../components/SceneNode.ts'
import { propagationKernel, refreshSceneOrder } from '../components/SceneNode.ts'
import type { Parallel } from './workers/pool.ts'
import { choosePropagation } from '../src/engine/propagate.ts'
import { registerQuery } from 'bitecs'
import { createFusedPropagation, fusedPassOn, type FusedSystemInput } from './fusedCharacters.ts'

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
 * The pass is src/skeleton/sceneNodes.ts's propagateWorldMatrices, in the fast form src/engine/propagate.ts
 * picks when the system is made (choosePropagation): the WebAssembly pass for a graph made with kernels 'wasm',
 * else the JavaScript pass, on the `workers` or in chunks. `kernels` 'js' runs the JavaScript pass over a 'wasm'
 * graph too (the benchmark compares the two over one store: scripts/bench/kernels.ts).
 */
export function createPropagateTransformsSystem(
  ctx: { readonly sceneGraph: SceneGraph; readonly parallel?: Parallel | null } & Partial<FusedSystemInput>,
  kernels: SceneKernels = ctx.sceneGraph.kernels,
) {
  const graph = ctx.sceneGraph
  const kernel = kernels === 'wasm' ? propagationKernel(graph) : null
  // With the plugin's state (not a bare scene graph), the walk that runs the fused characters' passes.
  const propagate =
    ctx.fused !== undefined &&
    ctx.world !== undefined &&
    fusedPassOn({ sceneGraph: graph, parallel: ctx.parallel ?? null })
      ? createFusedPropagation(
          ctx as FusedSystemInput,
          registerQuery(ctx.world, [ctx.stores!.Sampler, ctx.stores!.Pose]),
          kernel,
        )
      : choosePropagation(graph, kernel, ctx.parallel ?? null)
  return function propagateTransforms(_world: World): void {
    propagate(refreshSceneOrder(graph))
  }
}
