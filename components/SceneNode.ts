import type { World } from 'bitecs'
import {
  addComponent,
  entityExists,
  hasComponent,
  observe,
  onAdd,
  onRemove,
  query,
  removeComponent,
} from 'bitecs'
import { AnimationError } from '../src/errors.ts'
import { identityMatrix } from '../src/math/transform.ts'
import type { PropagationKernel } from '../src/engine/wasmKernels.ts'
import type { PoolRegion } from './Pose.ts'
import {
  checkCapacity,
  createKernel,
  createSceneNodeStore,
  kernelStore,
  type SceneKernels,
  type SceneNodeStore,
} from './sceneNodeStore.ts'

export {
  createSceneNodeStore,
  MAX_SCENE_CAPACITY,
  type SceneKernels,
  type SceneNodeStore,
} from './sceneNodeStore.ts'

/** The WebAssembly kernel of each graph made with kernels 'wasm' (kept off the public SceneGraph type). */
const kernelOf = new WeakMap<SceneGraph, PropagationKernel>()

/** Where a 'wasm' graph made with `poseSlots` reserved its pose pool (createPosePool's region), else null. */
export function poseRegion(graph: SceneGraph): PoolRegion | null {
  const kernel = kernelOf.get(graph)
  if (kernel === undefined || kernel.layout.poseSlots === 0) return null
  return { buffer: kernel.buffer, data: kernel.layout.poseData, joints: kernel.layout.poseJoints }
}

/** The graph's WebAssembly propagation kernel, or null for a 'js' graph. */
export function propagationKernel(graph: SceneGraph): PropagationKernel | null {
  return kernelOf.get(graph) ?? null
}

/**
 * A SceneNode store bound to one bitecs world, with the bookkeeping that keeps a parents-first order valid.
 * One per plugin per world; nothing is shared between graphs.
 *
 * Children are kept as doubly linked sibling lists (`firstChild`, `nextSibling`, `prevSibling`, 0 = none), so
 * re-parenting and removal cost O(1 + children). `version` counts hierarchy changes (membership or a parent);
 * `order[0 .. orderLength)` is a parents-first (depth-first preorder) list of every node, valid while
 * `orderVersion === version` and rebuilt by `refreshSceneOrder` when not. Everything here except the store's
 * local T/R/S and `dirty` is the graph's own: read it, change it only through the functions in this file.
 */
export interface SceneGraph {
  /** The bitecs world the graph observes; nodes are entities of it. */
  readonly world: World
  /** The bitecs component: `addComponent(world, e, graph.store)` works too (the graph observes it). */
  readonly store: SceneNodeStore
  /** Length of every array here: node entity ids are `1 <= e < capacity`. */
  readonly capacity: number
  /** First child of each node, 0 for none. Read-only. */
  readonly firstChild: Int32Array
  /** Next sibling of each node in its parent's child list, 0 for none. Read-only. */
  readonly nextSibling: Int32Array
  /** Previous sibling of each node in its parent's child list, 0 for none. Read-only. */
  readonly prevSibling: Int32Array
  /** Counts hierarchy changes (a node added or removed, a parent changed). Read-only. */
  version: number
  /** Every node, parents first, in `order[0 .. orderLength)` while `orderVersion === version`. Read-only. */
  readonly order: Int32Array
  /** Nodes in `order` (see refreshSceneOrder). Read-only. */
  orderLength: number
  /** The `version` that `order` was built for; -1 before the first build. Read-only. */
  orderVersion: number
  /**
   * Written by propagateTransforms: nodes recomputed by the last pass; times the order was rebuilt; nodes whose
   * new world matrix was not finite in float32 and which kept their last one, in the last pass (`refused`, the
   * first MAX_REFUSED_NODES of them in `refusedNodes`).
   */
  readonly stats: {
    /** Nodes whose world matrix the last pass recomputed. */
    recomputed: number
    /** Times `order` was rebuilt since the graph was made. */
    orderBuilds: number
    /** Nodes the last pass refused (their world matrix would not be finite): they kept their last one. */
    refused: number
  }
  /** The first 64 (MAX_REFUSED_NODES) node ids the last pass refused; entries past `stats.refused` are stale. */
  readonly refusedNodes: Int32Array
  /**
   * 1 for a node a pass refused (it kept its last world matrix, which may since differ from its parent's world
   * times its local): set by propagation, cleared when the node is added. Snapshots store such nodes' world
   * matrices rather than recompute them. Read-only.
   */
  readonly kept: Uint8Array
  /**
   * Placements so far (the plugin's setTransform counts each): a renderer that interpolates between steps shows
   * the step after a change of this count as it is, rather than sliding across the jump.
   */
  placements: number
  /** DFS stack for the order rebuild, made once. */
  readonly stack: Int32Array
  /**
   * Which code propagates its world matrices (SceneKernels; the plugin's `kernels` option): with 'wasm' the
   * store's arrays, `order` and `refusedNodes` are views over one WebAssembly memory, never replaced.
   */
  readonly kernels: SceneKernels
}

/** How many refused nodes a pass records by id (SceneGraph.refusedNodes); the count goes on past it. */
export const MAX_REFUSED_NODES = 64

/**
 * Makes the store and its graph for `world`, entity ids `1 <= e < capacity`.
 *
 * Observes the world so that however a node enters or leaves (`addSceneNode`, `removeSceneNode`, or bitecs's
 * own `addComponent`, `removeComponent`, `removeEntity`) the graph stays valid:
 * - on add, the node's data is reset (bitecs keeps stale data on removal and recycles ids): identity local,
 *   identity world, root, dirty, not changed, no children;
 * - on remove, the node is unlinked from its parent and **its children become roots** (their local transform
 *   is kept and now reads as a world transform; they are marked dirty). Remove children first (or remove their
 *   entities) to drop a whole subtree.
 *
 * `kernels` 'wasm' lays the store, `order` and `refusedNodes` out in one WebAssembly memory for `capacity` and
 * propagates with the WebAssembly pass (SceneKernels); it throws AnimationError 'capacity' when the engine
 * cannot give that memory, 'argument' when it cannot run WebAssembly. With `poseSlots` > 0 the memory also
 * reserves a pose pool of that many slots for the plugin (poseRegion) and the fused pass's clip arena.
 */
export function createSceneGraph(
  world: World,
  capacity: number,
  kernels: SceneKernels = 'js',
  poseSlots = 0,
): SceneGraph {
  checkCapacity(capacity)
  const kernel = kernels === 'wasm' ? createKernel(capacity, poseSlots) : null
  const store = kernel === null ? createSceneNodeStore(capacity) : kernelStore(kernel, capacity)
  const graph: SceneGraph = {
    world,
    store,
    capacity,
    firstChild: new Int32Array(capacity),
    nextSibling: new Int32Array(capacity),
    prevSibling: new Int32Array(capacity),
    version: 0,
    order: kernel?.order ?? new Int32Array(capacity),
    orderLength: 0,
    orderVersion: -1,
    stats: { recomputed: 0, orderBuilds: 0, refused: 0 },
    refusedNodes: kernel?.refusedNodes.subarray(0, MAX_REFUSED_NODES) ?? new Int32Array(MAX_REFUSED_NODES),
    kept: new Uint8Array(capacity),
    placements: 0,
    stack: new Int32Array(capacity),
    kernels,
  }
  if (kernel !== null) kernelOf.set(graph, kernel)
  observe(world, onAdd(store), (eid: number) => resetNode(graph, eid))
  observe(world, onRemove(store), (eid: number) => detachNode(graph, eid))
  return graph
}

/** Makes `eid` (an existing entity, `1 <= eid < capacity`) a SceneNode: identity local, dirty, under `parent`. */
export function addSceneNode(graph: SceneGraph, eid: number, parent = 0): void {
  checkEntityId(graph, eid, 'addSceneNode')
  if (!entityExists(graph.world, eid)) {
    throw new AnimationError('argument', `addSceneNode: entity ${eid} does not exist in the world`)
  }
  if (hasComponent(graph.world, eid, graph.store)) {
    throw new AnimationError('argument', `addSceneNode: entity ${eid} is already a SceneNode`)
  }
  if (parent !== 0) checkNode(graph, parent, `addSceneNode: parent ${parent} of node ${eid}`)
  addComponent(graph.world, eid, graph.store)
  if (parent !== 0) {
    link(graph, eid, parent)
    graph.version++
  }
}

/** Removes the SceneNode component from `eid` (the entity stays); its children become roots (see above). */
export function removeSceneNode(graph: SceneGraph, eid: number): void {
  checkNode(graph, eid, `removeSceneNode: node ${eid}`)
  removeComponent(graph.world, eid, graph.store)
}

/**
 * Moves node `eid` under `parent` (0 = make it a root) and marks it dirty. The local transform is kept, so
 * the node's world transform changes. Throws if either is not a SceneNode or if `parent` is `eid` or one of
 * its descendants (a cycle).
 */
export function setSceneNodeParent(graph: SceneGraph, eid: number, parent: number): void {
  checkNode(graph, eid, `setSceneNodeParent: node ${eid}`)
  if (parent !== 0) checkNode(graph, parent, `setSceneNodeParent: parent ${parent} of node ${eid}`)
  const parents = graph.store.parent
  for (let a = parent; a !== 0; a = parents[a]!) {
    if (a === eid) {
      throw new AnimationError(
        'argument',
        `setSceneNodeParent: parent ${parent} of node ${eid} would make a cycle (${parent === eid ? 'the node itself' : `${parent} is a descendant of ${eid}`})`,
      )
    }
  }
  relinkSceneNode(graph, eid, parent)
}

/**
 * setSceneNodeParent without its checks, for a caller that has already shown both are nodes and that no cycle
 * results (a restore's plan, snapshot/structure.ts). O(1): the cycle check walks the parent's ancestors, which
 * made restoring a 16,000-node chain, one link at a time, 128 million steps.
 */
export function relinkSceneNode(graph: SceneGraph, eid: number, parent: number): void {
  graph.store.dirty[eid] = 1
  if (graph.store.parent[eid] === parent) return
  unlink(graph, eid)
  if (parent !== 0) link(graph, eid, parent)
  graph.version++
}

/**
 * Brings `graph.order[0 .. orderLength)` up to date if the hierarchy changed since it was built, and returns
 * `orderLength`. Cheap when nothing changed (one comparison); a rebuild is O(nodes) and allocates only the
 * key string of one bitecs query.
 */
export function refreshSceneOrder(graph: SceneGraph): number {
  if (graph.orderVersion === graph.version) return graph.orderLength
  const { order, stack, firstChild, nextSibling } = graph
  const parents = graph.store.parent
  const members = query(graph.world, [graph.store])
  let n = 0
  for (let i = 0; i < members.length; i++) {
    const root = members[i]!
    if (parents[root] !== 0) continue
    let top = 0
    stack[top++] = root
    while (top > 0) {
      const e = stack[--top]!
      order[n++] = e
      for (let c = firstChild[e]!; c !== 0; c = nextSibling[c]!) stack[top++] = c
    }
  }
  graph.orderLength = n
  graph.orderVersion = graph.version
  graph.stats.orderBuilds++
  return n
}

function checkEntityId(graph: SceneGraph, eid: number, where: string): void {
  if (!Number.isInteger(eid) || eid < 1 || eid >= graph.capacity) {
    throw new AnimationError(
      'capacity',
      `${where}: entity id ${eid} is outside 1..${graph.capacity - 1} (SceneNode capacity ${graph.capacity})`,
    )
  }
}

function checkNode(graph: SceneGraph, eid: number, what: string): void {
  if (
    !Number.isInteger(eid) ||
    eid < 1 ||
    eid >= graph.capacity ||
    !hasComponent(graph.world, eid, graph.store)
  ) {
    throw new AnimationError('argument', `${what} is not a SceneNode entity`)
  }
}

function resetNode(graph: SceneGraph, eid: number): void {
  // Reached from bitecs's addComponent, after bitecs has recorded the component; an id past the store cannot
  // be stored at all, so fail loudly rather than lose writes silently.
  checkEntityId(graph, eid, 'SceneNode added')
  const { translation, rotation, scale, parent, dirty, changed, world } = graph.store
  translation.fill(0, eid * 3, eid * 3 + 3)
  rotation.fill(0, eid * 4, eid * 4 + 3)
  rotation[eid * 4 + 3] = 1
  scale.fill(1, eid * 3, eid * 3 + 3)
  identityMatrix(world, eid * 16)
  parent[eid] = 0
  dirty[eid] = 1
  changed[eid] = 0
  graph.kept[eid] = 0
  graph.firstChild[eid] = 0
  graph.nextSibling[eid] = 0
  graph.prevSibling[eid] = 0
  graph.version++
}

function detachNode(graph: SceneGraph, eid: number): void {
  const { firstChild, nextSibling, prevSibling } = graph
  const { parent, dirty } = graph.store
  unlink(graph, eid)
  for (let c = firstChild[eid]!; c !== 0;) {
    const next = nextSibling[c]!
    parent[c] = 0
    nextSibling[c] = 0
    prevSibling[c] = 0
    dirty[c] = 1
    c = next
  }
  firstChild[eid] = 0
  graph.version++
}

/** Pushes `eid` (currently a root) at the head of `parent`'s child list. */
function link(graph: SceneGraph, eid: number, parent: number): void {
  const { firstChild, nextSibling, prevSibling } = graph
  const head = firstChild[parent]!
  graph.store.parent[eid] = parent
  nextSibling[eid] = head
  prevSibling[eid] = 0
  if (head !== 0) prevSibling[head] = eid
  firstChild[parent] = eid
}

/** Takes `eid` out of its parent's child list and makes it a root. */
function unlink(graph: SceneGraph, eid: number): void {
  const { firstChild, nextSibling, prevSibling } = graph
  const parent = graph.store.parent[eid]!
  if (parent !== 0) {
    const prev = prevSibling[eid]!
    const next = nextSibling[eid]!
    if (prev !== 0) nextSibling[prev] = next
    else firstChild[parent] = next
    if (next !== 0) prevSibling[next] = prev
  }
  graph.store.parent[eid] = 0
  nextSibling[eid] = 0
  prevSibling[eid] = 0
}
