import type { World } from 'bitecs'
import type { SceneGraph } from '../components/SceneNode.ts'
import { refreshSceneOrder } from '../components/SceneNode.ts'
import { composeChildMatrix, composeMatrix } from '../src/math/transform.ts'

/**
 * propagateTransforms: world = parentWorld · T·R·S(local) for every node whose local is dirty and for all of
 * its descendants, parents first; every other node's `world` is left untouched.
 *
 * One pass over the cached parents-first order (rebuilt only when the hierarchy version changed): a node is
 * recomputed when it is dirty or its parent was recomputed earlier in this pass (`changed[parent]`; entry 0 of
 * `changed` belongs to no node and stays 0, so roots need no branch). Afterwards `dirty` is 0 and `changed` is
 * 1 for exactly the recomputed nodes; `graph.stats.recomputed` holds their count.
 * A dirty node under a clean parent uses the parent's current world, kept from earlier passes.
 *
 * Allocates nothing unless the hierarchy changed. Never throws.
 */
export function createPropagateTransformsSystem(ctx: { readonly sceneGraph: SceneGraph }) {
  const graph = ctx.sceneGraph
  const { translation, rotation, scale, parent, dirty, changed, world } = graph.store
  const order = graph.order

  return function propagateTransforms(_world: World): void {
    const n = refreshSceneOrder(graph)
    let recomputed = 0
    for (let i = 0; i < n; i++) {
      const e = order[i]!
      const p = parent[e]!
      if (dirty[e] === 0 && changed[p] === 0) {
        changed[e] = 0
        continue
      }
      const m = e * 16
      if (p === 0) composeMatrix(world, m, translation, e * 3, rotation, e * 4, scale, e * 3)
      else composeChildMatrix(world, m, world, p * 16, translation, e * 3, rotation, e * 4, scale, e * 3)
      dirty[e] = 0
      changed[e] = 1
      recomputed++
    }
    graph.stats.recomputed = recomputed
  }
}
