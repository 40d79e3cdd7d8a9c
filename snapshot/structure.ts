import {
  $internal,
  commitRemovals,
  entityExists,
  hasComponent,
  removeEntity,
  type InternalWorld,
  type Query,
} from 'bitecs'
import { addSceneNode, relinkSceneNode } from '../components/SceneNode.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { invalidValue, snapshotError } from '../src/sim/valueChecks.ts'
import { claimEntity, rebuildEntityIndex, restoreEntityOrder, type EntitiesData } from './entities.ts'
import { entityIndexOf } from './format.ts'
import { checkCycles, type NodesData } from './readNodes.ts'
import type { CharactersData } from './readCharacters.ts'

/**
 * Which entities a restore makes, keeps and removes (the contract: snapshot/format.ts, "Entity ids"), decided
 * while reading — a restore that cannot keep it is refused before anything changes — and carried out first when
 * the plan is applied.
 */
export interface StructurePlan {
  /** A fresh world: the whole entity index and every node are the snapshot's. */
  readonly fresh: boolean
  /** Nothing to make, remove or relink: the plugin's entities and scene links are the snapshot's. */
  readonly same: boolean
  /** Current characters to remove (the snapshot has not them, or not as they are now). */
  readonly remove: readonly number[]
  /** Entity ids to make (the snapshot's plugin entities not alive now), ascending. */
  readonly claim: readonly number[]
  /** Per snapshot character (position): 1 when it is to be made a character (attachCharacter). */
  readonly attach: Uint8Array
  /** Per snapshot node (position in nodes.ids): 1 when the restore sets it (fresh: all; in place: the plugin's). */
  readonly restored: Uint8Array
}

/** Plans a restore into `ctx`'s world; throws AnimationError('snapshot') when the contract cannot be kept. */
export function planStructure(
  ctx: AnimationContext,
  entities: EntitiesData,
  nodes: NodesData,
  chars: CharactersData,
  current: readonly number[],
): StructurePlan {
  const world = ctx.world
  const index = entityIndexOf(world)
  if (index.versioning) throw snapshotError('cannot be restored into a world with versioned entity ids')
  const attach = new Uint8Array(chars.count)
  const restored = new Uint8Array(nodes.count)
  if (index.maxId === 0 && index.dense.length === 0) {
    checkCycles(nodes.ids, nodes.parents, nodes.position)
    attach.fill(1)
    restored.fill(1)
    return { fresh: true, same: false, remove: [], claim: [], attach, restored }
  }
  // The snapshot's plugin entities, by id: 1 its characters, 2 their joints.
  const mine = new Uint8Array(entities.maxId + 1)
  for (let i = 0; i < chars.count; i++) mine[chars.eids[i]!] = 1
  for (const e of chars.joints) if (e !== 0) mine[e] = 2
  for (let i = 0; i < nodes.count; i++) if (mine[nodes.ids[i]!] !== 0) restored[i] = 1

  // Characters now: kept when the snapshot has them with the same asset and joints.
  const { Pose } = ctx.stores
  const remove: number[] = []
  const kept = new Set<number>()
  let sameOrder = current.length === chars.count
  for (let k = 0; k < current.length; k++) {
    const eid = current[k]!
    const i = eid < chars.position.length ? chars.position[eid]! - 1 : -1
    sameOrder &&= i === k
    let keep = i >= 0 && Pose.asset[eid] === chars.asset[i] && Pose.count[eid] === chars.n[i]
    for (let j = 0, from = chars.jointsFrom[i]!; keep && j < chars.n[i]!; j++) {
      keep = ctx.pool.joints[Pose.base[eid]! + j] === chars.joints[from + j]
    }
    if (keep) kept.add(eid)
    else remove.push(eid)
  }
  const pluginNow = (e: number): number => {
    if (e < ctx.capacity && entityExists(world, e) && hasComponent(world, e, Pose)) return e
    return e < ctx.capacity ? ctx.jointOwner[e]! : 0
  }
  // Every entity the snapshot's plugin needs: already its own (kept), freed by a removal, or free. When every
  // character is kept, in order, so are all of them (a kept character's joints are the snapshot's).
  const allKept = remove.length === 0 && sameOrder
  const claim: number[] = []
  for (let e = allKept ? entities.maxId + 1 : 1; e <= entities.maxId; e++) {
    if (mine[e] === 0) continue
    if (!entityExists(world, e)) {
      claim.push(e)
      continue
    }
    const owner = pluginNow(e)
    if (owner !== 0 && kept.has(owner)) continue
    if (owner !== 0) {
      claim.push(e)
      continue
    }
    throw snapshotError(
      `needs entity ${e} for ${mine[e] === 1 ? `its character ${e}` : 'a joint'}, and it is the game's now ` +
        '(alive, not the plugin’s): restore the game’s own entities to the snapshot’s step first, or keep ' +
        'the ids the plugin had',
    )
  }
  if (!allKept) for (let i = 0; i < chars.count; i++) if (!kept.has(chars.eids[i]!)) attach[i] = 1
  // Scene links to nodes that are not the plugin's: those must be the game's nodes, alive.
  let sameLinks = true
  for (let i = 0; i < nodes.count; i++) {
    if (restored[i] === 0) continue
    const e = nodes.ids[i]!
    const p = nodes.parents[i]!
    if (sameLinks && (allKept || entityExists(world, e)) && ctx.sceneGraph.store.parent[e] !== p)
      sameLinks = false
    if (p === 0 || mine[p] !== 0) continue
    const gameNode =
      p < ctx.capacity && entityExists(world, p) && hasComponent(world, p, ctx.sceneGraph.store)
    if (!gameNode || pluginNow(p) !== 0) {
      throw snapshotError(
        `section "nodes", scene node ${e}: hangs from node ${p}, which is not one of the game's scene nodes ` +
          'now: restore the game’s nodes first',
      )
    }
  }
  const same = allKept && sameLinks
  if (!same) checkLinks(ctx, nodes, restored, mine)
  return { fresh: false, same, remove, claim, attach, restored }
}

/**
 * The graph a restore in place leaves has no loop: the restored nodes hang where the snapshot says, the game's
 * where they hang now (from nothing where that is a node the restore removes). The current graph has none, so a
 * loop goes through a link the restore changes: walked up from each of those, every node once (state 2: walked;
 * 3: on a loop), so a 16,000-node chain costs 16,000 steps, not 128 million. The error names the first changed
 * node (in snapshot order) that lies on a loop, with the loop from it.
 */
function checkLinks(ctx: AnimationContext, nodes: NodesData, restored: Uint8Array, mine: Uint8Array): void {
  const current = ctx.sceneGraph.store.parent
  const parentAfter = (e: number): number => {
    const at = e < nodes.position.length ? nodes.position[e]! : 0
    if (at !== 0 && restored[at - 1] === 1) return nodes.parents[at - 1]!
    const p = current[e]!
    // The plugin's nodes that the snapshot does not have are removed: what hangs from them becomes a root.
    const removed =
      p !== 0 && ctx.jointOwner[p]! + (hasComponent(ctx.world, p, ctx.stores.Pose) ? 1 : 0) !== 0
    return removed && (p >= mine.length || mine[p] === 0) ? 0 : p
  }
  const changes = (i: number): boolean => {
    const e = nodes.ids[i]!
    return restored[i] !== 0 && !(entityExists(ctx.world, e) && current[e] === nodes.parents[i])
  }
  const state = new Uint8Array(Math.max(ctx.capacity, nodes.position.length) + 1)
  let loops = false
  for (let i = 0; i < nodes.count; i++) {
    if (!changes(i)) continue
    const e = nodes.ids[i]!
    let a = e
    while (a !== 0 && state[a] === 0) {
      state[a] = 1
      a = parentAfter(a)
    }
    if (a !== 0 && state[a] === 1) {
      loops = true
      for (let b = a; state[b] !== 3; b = parentAfter(b)) state[b] = 3
    }
    for (let b = e; b !== 0 && state[b] === 1; b = parentAfter(b)) state[b] = 2
  }
  if (!loops) return
  for (let i = 0; i < nodes.count; i++) {
    const e = nodes.ids[i]!
    if (!changes(i) || state[e] !== 3) continue
    const chain = [e]
    let a = parentAfter(e)
    for (; a !== e && chain.length < 64; a = parentAfter(a)) chain.push(a)
    throw invalidValue(
      `section "nodes", scene node ${e}`,
      'parent',
      nodes.parents[i]!,
      `the parent links make a cycle with the game's nodes (${chain.join(' → ')} → ${a === e ? e : '…'})`,
    )
  }
}

/**
 * The entities and scene links of a checked plan: in a fresh world the snapshot's whole entity index and every
 * node; in place, the characters to remove removed (with their joints), the ids to claim made, then every
 * restored node's parent set (nodes whose parent changes are detached first, so no link ever makes a cycle).
 * The characters themselves are made by applyCharacters (attach), in snapshot order.
 */
export function applyStructure(
  ctx: AnimationContext,
  plan: StructurePlan,
  entities: EntitiesData,
  nodes: NodesData,
): void {
  if (plan.same) return
  const world = ctx.world
  const graph = ctx.sceneGraph
  if (plan.fresh) {
    rebuildEntityIndex(world, entities)
    for (let i = 0; i < nodes.count; i++) addSceneNode(graph, nodes.ids[i]!, 0)
  } else {
    for (const eid of plan.remove) removeEntity(world, eid)
    commitRemovals(world)
    for (const e of plan.claim) claimEntity(world, e)
    for (const e of plan.claim) if (nodes.position[e] !== 0) addSceneNode(graph, e, 0)
  }
  const parent = graph.store.parent
  for (let i = 0; i < nodes.count; i++) {
    const e = nodes.ids[i]!
    if (plan.restored[i] === 1 && parent[e] !== nodes.parents[i] && parent[e] !== 0)
      relinkSceneNode(graph, e, 0)
  }
  const link = (e: number): void => {
    const p = nodes.parents[nodes.position[e]! - 1]!
    if (plan.restored[nodes.position[e]! - 1] === 1 && parent[e] !== p) relinkSceneNode(graph, e, p)
  }
  if (nodes.linkOrder) for (const e of nodes.linkOrder) link(e)
  else for (let i = 0; i < nodes.count; i++) link(nodes.ids[i]!)
}

/**
 * After the characters are made: every query of the plugin's character components alone (its systems', a
 * game's over them) lists them in the snapshot's order, and bitecs's entity index is put back in order
 * (entities.ts). In a fresh world both already are.
 */
export function finishStructure(
  ctx: AnimationContext,
  plan: StructurePlan,
  entities: EntitiesData,
  chars: CharactersData,
): void {
  if (plan.fresh) return
  restoreEntityOrder(ctx.world, entities)
  if (plan.same) return
  commitRemovals(ctx.world)
  const { Pose, Sampler, CrossFade, Ragdoll } = ctx.stores
  const components = new Set<unknown>([Pose, Sampler, CrossFade, Ragdoll])
  const rank = chars.position
  for (const q of (ctx.world as InternalWorld)[$internal].queries as Set<Query>) {
    if (q.notComponents.length > 0 || q.orComponents.length > 0 || q.allComponents.length === 0) continue
    if (!q.allComponents.every((c) => components.has(c))) continue
    q.sort((a: number, b: number) => rank[a]! - rank[b]!)
  }
}
