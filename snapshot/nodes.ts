import type { World } from 'bitecs'
import { refreshSceneOrder } from '../components/SceneNode.ts'
import type { AnimationContext } from '../plugin/context.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { CHARACTER_ANIM_IS_LOCALS, NODE_CHANGED, NODE_DIRTY, NODE_KEPT } from './format.ts'
import { refreshNodeIds, type SnapshotState } from './state.ts'

/**
 * The snapshot's "nodes" section: every SceneNode, and of its data only what a restore cannot derive.
 *
 *   u32 N, u32 R, R × (u32 start, u32 length)   the node ids ascending, as runs of consecutive ids
 *   i32[N] parent; u8[N] flags (NODE_DIRTY, NODE_CHANGED, NODE_KEPT: graph.kept)
 *   u32 0, or 1 and u32 L, u32[L] the nodes with a parent in the order to link them at the head of their
 *       parent's child list (when linking in ascending id order would not rebuild every list as it is)
 *   u32 LR runs of nodes whose local transform follows, then per run of k: f32[3k] T, f32[4k] R, f32[3k] S
 *       (the others are joints whose local is their character's ANIM pose layer: characters section)
 *   u32 WR runs of nodes whose world matrix follows, then per run of k: f32[16k]
 *
 * World matrices: a node's world is its parent's times its local — what the plugin's own propagation pass
 * computes, so a restore runs that pass and gets the same bits — except where the scene changed since the last
 * step (a dirty node and everything under it: their worlds are the old ones) or a pass refused a node (kept, and
 * everything under it). Only those are stored: none right after a step that refused nothing.
 */

export function writeNodes(ctx: AnimationContext, s: SnapshotState, w: Writer): void {
  refreshNodeIds(ctx, s)
  const graph = ctx.sceneGraph
  const { parent, dirty, changed, translation, rotation, scale, world } = graph.store
  const { nodeIds: ids, nodeCount: n } = s
  w.u32(n)
  w.u32(s.nodeRunCount)
  w.raw(s.nodeRuns, 0, 2 * s.nodeRunCount)
  // The structure as the hierarchy last changed (refreshNodeIds): one copy, not a gather over every node.
  w.align(4)
  w.view(s.nodeParents)
  let anyStale = 0
  const at = w.reserve(n)
  const out = w.buffer
  const kept = graph.kept
  for (let i = 0; i < n; i++) {
    const e = ids[i]!
    // dirty is any non-zero a game wrote; changed and kept are 0 or 1.
    const bits = (dirty[e] === 0 ? 0 : NODE_DIRTY) | (changed[e]! << 1) | (kept[e]! << 2)
    anyStale |= bits & (NODE_DIRTY | NODE_KEPT)
    out[at + i] = bits
  }
  w.align(4)
  writeLinkOrder(ctx, s, w)

  // Locals: every node but the joints of characters whose ANIM layer they are; their runs found in one pass.
  const flags = s.characterFlags
  const owner = ctx.jointOwner
  if (s.runScratch.length < 2 * n) s.runScratch = new Uint32Array(2 * n)
  const runs = s.runScratch
  let localRuns = 0
  for (let i = 0; i < n;) {
    if (!storesLocal(owner, flags, ids[i]!)) {
      i++
      continue
    }
    let k = i + 1
    while (k < n && ids[k] === ids[k - 1]! + 1 && storesLocal(owner, flags, ids[k]!)) k++
    runs[2 * localRuns] = ids[i]!
    runs[2 * localRuns + 1] = k - i
    localRuns++
    i = k
  }
  w.u32(localRuns)
  w.raw(runs, 0, 2 * localRuns)
  for (let r = 0; r < localRuns; r++) {
    const a = runs[2 * r]!
    const length = runs[2 * r + 1]!
    w.raw(translation, 3 * a, 3 * length)
    w.raw(rotation, 4 * a, 4 * length)
    w.raw(scale, 3 * a, 3 * length)
  }
  const mark = s.mark

  // Worlds: the dirty and kept nodes' subtrees.
  if (anyStale === 0) {
    w.u32(0)
    return
  }
  const order = graph.order
  const count = refreshSceneOrder(graph)
  for (let i = 0; i < count; i++) {
    const e = order[i]!
    mark[e] = dirty[e]! | graph.kept[e]! | mark[parent[e]!]!
  }
  writeRuns(w, ids, n, mark)
  for (let i = 0; i < n;) {
    const k = runEnd(ids, n, mark, i)
    if (k > i) {
      w.raw(world, 16 * ids[i]!, 16 * (k - i))
      i = k
    } else i++
  }
  for (let i = 0; i < n; i++) mark[ids[i]!] = 0
}

/** Whether node e's local transform is stored: not a joint of a character whose ANIM layer it is. */
function storesLocal(owner: Int32Array, flags: Uint8Array, e: number): boolean {
  const o = owner[e]!
  return o === 0 || (flags[o]! & CHARACTER_ANIM_IS_LOCALS) === 0
}

/**
 * 0 when linking every node with a parent in ascending id order at the head of its parent's list rebuilds
 * every child list (each list in descending id order, as a character's joints are); else 1 and the order.
 */
function writeLinkOrder(ctx: AnimationContext, s: SnapshotState, w: Writer): void {
  const graph = ctx.sceneGraph
  const { nodeIds: ids, nodeCount: n } = s
  if (s.nodeLinksDescending) {
    w.u32(0)
    return
  }
  w.u32(1)
  const countAt = w.at()
  w.u32(0)
  let count = 0
  // Parents ascending; each list from its last child to its first (linking at the head reverses it).
  for (let i = 0; i < n; i++) {
    let c = graph.firstChild[ids[i]!]!
    if (c === 0) continue
    while (graph.nextSibling[c] !== 0) c = graph.nextSibling[c]!
    for (; c !== 0; c = graph.prevSibling[c]!) {
      w.u32(c)
      count++
    }
  }
  w.setU32(countAt, count)
}

/** The end of the run of consecutive marked ids starting at `ids[i]` (i itself when it is not marked). */
function runEnd(ids: Int32Array, n: number, mark: Uint8Array, i: number): number {
  if (mark[ids[i]!] === 0) return i
  let k = i + 1
  while (k < n && ids[k] === ids[k - 1]! + 1 && mark[ids[k]!] !== 0) k++
  return k
}

/** Writes u32 count and the [start, length] runs of consecutive marked ids of `ids[0 .. n)`. */
function writeRuns(w: Writer, ids: Int32Array, n: number, mark: Uint8Array): void {
  const countAt = w.at()
  w.u32(0)
  let runs = 0
  for (let i = 0; i < n;) {
    const k = runEnd(ids, n, mark, i)
    if (k > i) {
      w.u32(ids[i]!)
      w.u32(k - i)
      runs++
      i = k
    } else i++
  }
  w.setU32(countAt, runs)
}
