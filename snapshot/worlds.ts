import type { World } from 'bitecs'
import { refreshSceneOrder } from '../components/SceneNode.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { copyWords, wordsOf, wordsOfArray } from '../src/sim/byteStream.ts'
import { NODE_CHANGED, NODE_DIRTY, NODE_KEPT } from './format.ts'
import type { NodesData } from './readNodes.ts'

/** Restore's half of the nodes section (nodes.ts): local transforms, flags and world matrices. */

/**
 * Local transforms of the nodes `restored[i]` marks (by position in `data.ids`), from the snapshot; the joints
 * whose local is their character's ANIM are written by the characters section, the flags by recomputeWorlds.
 */
export function applyNodeValues(
  ctx: AnimationContext,
  bytes: Uint8Array,
  data: NodesData,
  restored: Uint8Array,
): void {
  const graph = ctx.sceneGraph
  const tw = wordsOfArray(graph.store.translation)
  const rw = wordsOfArray(graph.store.rotation)
  const sw = wordsOfArray(graph.store.scale)
  // Word views taken once here, not by a copy call per node and field (a ragdoll's joints' locals are stored).
  const src = wordsOf(bytes.buffer)
  const origin = bytes.byteOffset >>> 2
  const runs = data.localRuns
  for (let k = 0; k < runs.length; k += 2) {
    const start = runs[k]!
    const length = runs[k + 1]!
    const t = origin + (data.localAt[k / 2]! >>> 2)
    const q = t + 3 * length
    const s = q + 4 * length
    if (allRestored(data, restored, start, length)) {
      // A run's translations, rotations and scales are each one contiguous row of its store.
      copyWords(tw, 3 * start, src, t, 3 * length)
      copyWords(rw, 4 * start, src, q, 4 * length)
      copyWords(sw, 3 * start, src, s, 3 * length)
      continue
    }
    for (let i = 0; i < length; i++) {
      const e = start + i
      if (restored[data.position[e]! - 1] === 0) continue
      copyWords(tw, 3 * e, src, t + 3 * i, 3)
      copyWords(rw, 4 * e, src, q + 4 * i, 4)
      copyWords(sw, 3 * e, src, s + 3 * i, 3)
    }
  }
}

/** Whether every node of the id run [start, start + length) is one the restore sets. */
function allRestored(data: NodesData, restored: Uint8Array, start: number, length: number): boolean {
  for (let e = start; e < start + length; e++) if (restored[data.position[e]! - 1] === 0) return false
  return true
}

/**
 * World matrices after the restored nodes' locals are in: the plugin's propagation pass over every restored node
 * (and so the game's nodes under them), then the stored worlds; every node's dirty and changed flags end as the
 * snapshot has them (restored nodes) or as they were (the others), and so do the graph's last-pass stats.
 */
export function recomputeWorlds(
  ctx: AnimationContext,
  bytes: Uint8Array,
  data: NodesData,
  restored: Uint8Array,
  propagate: (world: World) => void,
): void {
  const graph = ctx.sceneGraph
  const { dirty, changed, world } = graph.store
  const order = graph.order
  const count = refreshSceneOrder(graph)
  const saved: number[] = []
  if (count === data.count && restored.indexOf(0) < 0) {
    // Every node is one the restore sets (a world of the plugin's nodes only).
    for (let i = 0; i < count; i++) dirty[order[i]!] = 1
  } else {
    for (let i = 0; i < count; i++) {
      const e = order[i]!
      const p = e < data.position.length ? data.position[e]! : 0
      if (p !== 0 && restored[p - 1] === 1) dirty[e] = 1
      else {
        saved.push(e, dirty[e]!, changed[e]!, graph.kept[e]!)
        dirty[e] = 0
      }
    }
  }
  const { recomputed, refused } = graph.stats
  const refusedNodes = graph.refusedNodes.slice()
  propagate(ctx.world)
  graph.stats.recomputed = recomputed
  graph.stats.refused = refused
  graph.refusedNodes.set(refusedNodes)
  for (let k = 0; k < saved.length; k += 4) {
    const e = saved[k]!
    dirty[e] = saved[k + 1]!
    changed[e] = saved[k + 2]!
    graph.kept[e] = saved[k + 3]!
  }
  // Arrays in locals: V8 reloads a property read in a loop that stores into typed arrays.
  const { ids, flags, count: nodes } = data
  const kept = graph.kept
  for (let i = 0; i < nodes; i++) {
    if (restored[i] === 0) continue
    const e = ids[i]!
    const f = flags[i]!
    dirty[e] = f & NODE_DIRTY ? 1 : 0
    changed[e] = f & NODE_CHANGED ? 1 : 0
    kept[e] = f & NODE_KEPT ? 1 : 0
  }
  const ww = wordsOfArray(world)
  const src = wordsOf(bytes.buffer)
  const origin = bytes.byteOffset >>> 2
  const runs = data.worldRuns
  for (let k = 0; k < runs.length; k += 2) {
    const start = runs[k]!
    const length = runs[k + 1]!
    const at = origin + (data.worldAt[k / 2]! >>> 2)
    if (allRestored(data, restored, start, length)) {
      copyWords(ww, 16 * start, src, at, 16 * length)
      continue
    }
    for (let i = 0; i < length; i++) {
      const e = start + i
      if (restored[data.position[e]! - 1] === 1) copyWords(ww, 16 * e, src, at + 16 * i, 16)
    }
  }
}
