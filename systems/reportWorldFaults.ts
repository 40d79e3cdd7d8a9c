import type { World } from 'bitecs'
import { hasComponent } from 'bitecs'
import type { AnimationStores, StepState } from './state.ts'

/** What reportWorldFaults reads and writes. */
export type ReportWorldFaultsInput = Pick<
  StepState,
  'world' | 'step' | 'sceneGraph' | 'pool' | 'assets' | 'events' | 'worldReported'
> & { readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler'> }

/**
 * reportWorldFaults: after propagateTransforms, turns the nodes whose world matrix it refused (not finite in
 * float32: they kept their last one) into one 'world-non-finite' event per character lifetime (per node for a
 * node under no character), and has that character's clip resampled on the next step. Costs nothing in a step
 * with no refused node; allocates only the event. Never throws.
 */
export function createReportWorldFaultsSystem(ctx: ReportWorldFaultsInput) {
  const graph = ctx.sceneGraph
  const parent = graph.store.parent
  const { Pose, Sampler } = ctx.stores

  return function reportWorldFaults(_world: World): void {
    const refused = graph.stats.refused
    if (refused === 0) return
    const listed = Math.min(refused, graph.refusedNodes.length)
    for (let i = 0; i < listed; i++) {
      const node = graph.refusedNodes[i]!
      let owner = node
      while (owner !== 0 && !hasComponent(ctx.world, owner, Pose)) owner = parent[owner]!
      const reported = owner === 0 ? node : owner
      if (owner !== 0) Sampler.lastTime[owner] = Number.NaN
      if (ctx.worldReported[reported] === 1) continue
      ctx.worldReported[reported] = 1
      ctx.events.push({
        step: ctx.step,
        character: owner,
        entity: reported,
        kind: 'world-non-finite',
        message:
          `${owner === 0 ? `scene node ${node}` : `character ${owner}`}: ${refused} node(s) had a world matrix ` +
          `that is not finite in float32 (first: ${describeNode(ctx, owner, node)}); they keep their last one`,
      })
    }
  }
}

function describeNode(ctx: ReportWorldFaultsInput, owner: number, node: number): string {
  if (owner === 0) return `node ${node}`
  const { Pose } = ctx.stores
  const base = Pose.base[owner]!
  const n = Pose.count[owner]!
  for (let j = 0; j < n; j++) {
    if (ctx.pool.joints[base + j] !== node) continue
    const asset = ctx.assets[Pose.asset[owner]!]!
    return `joint ${j} "${asset.asset.nodes[asset.jointNodes[j]!]!.name}"`
  }
  return node === owner ? 'the character node' : `node ${node}`
}
