import { query } from 'bitecs'
import { Writer } from '../src/sim/byteWriter.ts'
import type { AnimationContext } from '../plugin/context.ts'

/**
 * What a plugin keeps between snapshots so that writing one allocates nothing in steady state: the writer, the
 * systems' character list (a live array), the sorted scene-node ids (remade only when the hierarchy changed),
 * per-id scratch. Made on the first snapshot or restore; internal to snapshot/.
 */
export interface SnapshotState {
  readonly writer: Writer
  /** The dense array of the systems' [Ragdoll, Pose] query: every character, in the order the systems visit. */
  readonly characters: readonly number[]
  /** Scene-node ids ascending (`nodeCount` of them) and their runs of consecutive ids, for `nodeVersion`. */
  nodeVersion: number
  nodeIds: Int32Array
  nodeCount: number
  /** [start, length] pairs. */
  nodeRuns: Uint32Array
  nodeRunCount: number
  /** The nodes' parents in `nodeIds` order, as bytes (the nodes section's parent column). */
  nodeParents: Uint8Array
  /** Whether every child list is in descending id order (the nodes section then needs no link order). */
  nodeLinksDescending: boolean
  /** Per character id: its CHARACTER_* flags of the snapshot being written. */
  readonly characterFlags: Uint8Array
  /** [start, length] pairs the nodes section finds (grown to twice the nodes, kept). */
  runScratch: Uint32Array
  /** Per id scratch, all 0 between uses (nodes.ts marks runs in it). */
  readonly mark: Uint8Array
  /** Two words of checksum. */
  readonly checksum: Uint32Array
  /** The one row a layer's store fields are written from (layers.ts). */
  readonly row: Int32Array
  /** Per joint of the pose layer being written: its stored paths (poseLayers.ts), grown as needed. */
  pathMasks: Uint8Array
  /** The bytes of a key cursor in the characters section, and the count of registered clips it was found for. */
  cursorWidth: number
  cursorClips: number
  /** Per character: byte views of its pose layers (characters.ts layerViews). */
  readonly layerViews: Map<
    number,
    {
      readonly data: Float32Array
      readonly base: number
      readonly n: number
      readonly layers: readonly Uint8Array[]
    }
  >
}

const states = new WeakMap<AnimationContext, SnapshotState>()

export function snapshotState(ctx: AnimationContext): SnapshotState {
  const known = states.get(ctx)
  if (known !== undefined) return known
  const s: SnapshotState = {
    writer: new Writer(),
    characters: query(ctx.world, [ctx.stores.Ragdoll, ctx.stores.Pose]) as unknown as readonly number[],
    nodeVersion: -1,
    nodeIds: new Int32Array(0),
    nodeCount: 0,
    nodeRuns: new Uint32Array(0),
    nodeRunCount: 0,
    nodeParents: new Uint8Array(0),
    nodeLinksDescending: true,
    characterFlags: new Uint8Array(ctx.capacity),
    runScratch: new Uint32Array(0),
    mark: new Uint8Array(ctx.capacity),
    checksum: new Uint32Array(2),
    row: new Int32Array(1),
    pathMasks: new Uint8Array(0),
    cursorWidth: 4,
    cursorClips: -1,
    layerViews: new Map(),
  }
  states.set(ctx, s)
  return s
}

/**
 * The scene-node ids ascending, their runs, parents and whether the child lists descend, brought up to date
 * with the hierarchy (the graph's version counts every node added or removed and every parent changed, the
 * only changes to the child lists): allocates only when it changed.
 */
export function refreshNodeIds(ctx: AnimationContext, s: SnapshotState): void {
  const graph = ctx.sceneGraph
  if (s.nodeVersion === graph.version) return
  const members = query(ctx.world, [graph.store])
  const ids = Int32Array.from(members).sort()
  const runs: number[] = []
  for (let i = 0; i < ids.length;) {
    let k = i + 1
    while (k < ids.length && ids[k] === ids[k - 1]! + 1) k++
    runs.push(ids[i]!, k - i)
    i = k
  }
  s.nodeIds = ids
  s.nodeCount = ids.length
  s.nodeRuns = Uint32Array.from(runs)
  s.nodeRunCount = runs.length / 2
  const parents = new Int32Array(ids.length)
  let descending = true
  for (let i = 0; i < ids.length; i++) {
    const e = ids[i]!
    parents[i] = graph.store.parent[e]!
    const next = graph.nextSibling[e]!
    descending &&= next === 0 || next < e
  }
  s.nodeParents = new Uint8Array(parents.buffer)
  s.nodeLinksDescending = descending
  s.nodeVersion = graph.version
}
