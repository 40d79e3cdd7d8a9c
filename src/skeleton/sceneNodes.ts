import { JOINT_STRIDE, R_OFFSET, S_OFFSET, T_OFFSET } from '../math/poseLayout.ts'
import { composeMatrix, multiplyAffine } from '../math/transform.ts'

/**
 * SceneNode: one node of a transform hierarchy (every skeleton joint is one). SoA, indexed by entity id `e`,
 * valid for `1 <= e < capacity` (bitecs never issues id 0, so 0 means "no parent"):
 *
 *   translation  Float32Array(capacity*3)   [e*3 .. e*3+3)    local x y z
 *   rotation     Float32Array(capacity*4)   [e*4 .. e*4+4)    local unit quaternion x y z w
 *   scale        Float32Array(capacity*3)   [e*3 .. e*3+3)    local x y z
 *   parent       Int32Array(capacity)       [e]               parent SceneNode eid, 0 = root   (read-only: use
 *                                                             setSceneNodeParent, which keeps the graph valid)
 *   dirty        Uint8Array(capacity)       [e]               1 = local T/R/S changed since the last propagation;
 *                                                             whoever writes the local sets it, propagation clears it
 *   changed      Uint8Array(capacity)       [e]               1 = world was recomputed by the last propagation
 *   world        Float32Array(capacity*16)  [e*16 .. e*16+16) world matrix, column-major (see math/transform.ts);
 *                                                             output of propagation (read-only for games): its
 *                                                             last row, 0 0 0 1, is written only when the node
 *                                                             is added
 */
export interface SceneNodeStore {
  /** Local translation, 3 floats per entity at `e*3`. Writable: set `dirty[e] = 1` after writing. */
  readonly translation: Float32Array
  /** Local rotation, unit quaternion [x, y, z, w] at `e*4`. Writable: set `dirty[e] = 1` after writing. */
  readonly rotation: Float32Array
  /** Local scale, 3 floats per entity at `e*3`. Writable: set `dirty[e] = 1` after writing. */
  readonly scale: Float32Array
  /** Parent SceneNode entity, 0 for a root. Read-only: change it with setSceneNodeParent. */
  readonly parent: Int32Array
  /** 1 when the local transform changed since the last propagation; the writer sets it, propagation clears it. */
  readonly dirty: Uint8Array
  /** 1 when the last propagation recomputed the node's world matrix (what a renderer needs to upload). */
  readonly changed: Uint8Array
  /**
   * World matrix, 16 floats column-major at `e*16`, always finite. Written by propagation; read-only for games.
   */
  readonly world: Float32Array
}

/**
 * Writes a pose into the scene nodes: joint j's 10 floats (`pose[poseOffset + j·10 ..]`, layout of
 * src/math/poseLayout.ts) become the local T/R/S of node `jointIndices[jointStart + j]`, for j < count. A node is
 * written and marked dirty only when a value actually changed (compared by value as float32), so still joints
 * cost no world-matrix work downstream. Returns how many nodes changed.
 *
 * The last line of defence against non-finite values: a joint whose 10 floats are not all finite is not written
 * (its node keeps its last good local transform) and is counted in `nonFinite[0]` when that is given (set, not
 * added to). Node 0 (bitecs never issues entity 0) marks a joint whose entity is gone and is skipped.
 * Allocation-free; otherwise trusts its arguments (offsets in range).
 */
export function applyPoseToSceneGraph(
  nodes: SceneNodeStore,
  pose: Float32Array,
  jointIndices: ArrayLike<number>,
  poseOffset = 0,
  jointStart = 0,
  count = jointIndices.length - jointStart,
  nonFinite: Uint32Array | null = null,
): number {
  let changed = 0
  let rejected = 0
  for (let j = 0; j < count; j++) {
    const e = jointIndices[jointStart + j]!
    if (e === 0) continue
    const p = poseOffset + j * JOINT_STRIDE
    if (holds(nodes, e, pose, p)) continue
    if (!finite(pose, p)) {
      rejected++
      continue
    }
    for (let k = 0; k < 3; k++) {
      nodes.translation[3 * e + k] = pose[p + T_OFFSET + k]!
      nodes.scale[3 * e + k] = pose[p + S_OFFSET + k]!
    }
    for (let k = 0; k < 4; k++) nodes.rotation[4 * e + k] = pose[p + R_OFFSET + k]!
    nodes.dirty[e] = 1
    changed++
  }
  if (nonFinite !== null) nonFinite[0] = rejected
  return changed
}

/** Whether node e's local T/R/S equal the joint's 10 floats at pose[p ..] (a NaN equals nothing). */
function holds(nodes: SceneNodeStore, e: number, pose: Float32Array, p: number): boolean {
  for (let k = 0; k < 3; k++) {
    if (nodes.translation[3 * e + k] !== pose[p + T_OFFSET + k]) return false
    if (nodes.scale[3 * e + k] !== pose[p + S_OFFSET + k]) return false
  }
  for (let k = 0; k < 4; k++) if (nodes.rotation[4 * e + k] !== pose[p + R_OFFSET + k]) return false
  return true
}

function finite(pose: Float32Array, p: number): boolean {
  for (let k = 0; k < JOINT_STRIDE; k++) if (!Number.isFinite(pose[p + k]!)) return false
  return true
}

/**
 * World matrices, parents first, over order[start, end) of a parents-first order: world = parentWorld · T·R·S
 * (composeMatrix, multiplyAffine) for every node whose local is dirty or whose parent was recomputed earlier
 * (`changed[parent]`; entry 0 of `changed` belongs to no node and stays 0, so roots need no branch); every other
 * node's world matrix is left untouched and its `changed` cleared. Afterwards `dirty` is 0 and `changed` 1 for
 * exactly the recomputed nodes. Returns how many were recomputed.
 *
 * A node whose world matrix would not be finite in float32 (a product of huge but finite locals, or a non-finite
 * local a game wrote) keeps its last one, is marked in `kept`, and is refused: `refused[0]` counts refusals
 * (go on from what it holds), the first `refusedNodes.length` of them listed at refusedNodes[refused[0]]. Its
 * descendants that are not dirty themselves keep theirs too (its `changed` is 0). Only the 12 affine elements are
 * written: the last row, 0 0 0 1, is set when a node is added and every matrix composed from T/R/S keeps it.
 * A range that starts at a root and ends before one (or at the end) reads and writes only its own subtrees.
 */
export function propagateWorldMatrices(
  nodes: SceneNodeStore,
  order: Int32Array,
  start: number,
  end: number,
  kept: Uint8Array,
  refusedNodes: Int32Array,
  refused: Int32Array,
): number {
  const { translation, rotation, scale, parent, dirty, changed, world } = nodes
  let recomputed = 0
  for (let i = start; i < end; i++) {
    const e = order[i]!
    const p = parent[e]!
    if (dirty[e] === 0 && changed[p] === 0) {
      changed[e] = 0
      continue
    }
    composeMatrix(local, 0, translation, 3 * e, rotation, 4 * e, scale, 3 * e)
    let m = local
    if (p !== 0) {
      multiplyAffine(product, 0, world, 16 * p, local, 0)
      m = product
    }
    dirty[e] = 0
    if (!fitsFloat32(m)) {
      if (refused[0]! < refusedNodes.length) refusedNodes[refused[0]!] = e
      refused[0] = refused[0]! + 1
      kept[e] = 1
      changed[e] = 0
      continue
    }
    for (let k = 0; k < 12; k++) world[16 * e + AFFINE[k]!] = m[AFFINE[k]!]!
    changed[e] = 1
    recomputed++
  }
  return recomputed
}

/** Whether every affine element of m is finite as a float32 (none rounds to ±∞, none is NaN). */
function fitsFloat32(m: Float64Array): boolean {
  for (let k = 0; k < 12; k++) if (!Number.isFinite(Math.fround(m[AFFINE[k]!]!))) return false
  return true
}

/** The affine elements of a column-major 4×4 matrix (all but the last row). */
const AFFINE = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14] as const
/** A node's local matrix and its product with its parent's world, in double (working memory). */
const local = new Float64Array(16)
const product = new Float64Array(16)
