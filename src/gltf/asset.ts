import type { Clip } from '../clip/clip.ts'

/** One glTF node of an asset: its place in the tree, rest local transform, mesh and skin. */
export interface AssetNode {
  /** glTF node index. `asset.nodes[i].index === i`. */
  readonly index: number
  /** Node name from the file; unnamed nodes get `node<i>`. */
  readonly name: string
  /** Parent node index, or -1 for a scene root. */
  readonly parent: number
  /** Child node indices, in file order. */
  readonly children: readonly number[]
  /** Rest (bind-file) local transform. A node given as a matrix is decomposed into T/R/S. */
  readonly translation: readonly [number, number, number]
  /** Unit quaternion `[x, y, z, w]`. */
  readonly rotation: readonly [number, number, number, number]
  /** Rest local scale `[x, y, z]`. */
  readonly scale: readonly [number, number, number]
  /** Default morph weights (node's, else its mesh's, else zeros), empty when the node has no morph targets. */
  readonly weights: readonly number[]
  /** Index into `asset.skeletons` of the skin this node's mesh uses, or -1. */
  readonly skin: number
  /** glTF mesh index, or -1. */
  readonly mesh: number
}

/**
 * One glTF skin. Joints are reordered parent-before-child (a stable topological order: a joint's parent joint
 * always comes earlier; among siblings, glTF node order).
 *
 *   joints[j]               glTF node index of joint j
 *   parents[j]              index into joints of the nearest ancestor that is a joint, or -1
 *   inverseBindMatrices     16 floats per joint, column-major, in the same (reordered) joint order
 *   skinJointOrder[j]       position of joint j in the file's `skin.joints` list (to map back for skinning)
 */
export interface Skeleton {
  /** The skin's name from the file; may be empty. */
  readonly name: string
  /** glTF node index of joint j, parents first. */
  readonly joints: Int32Array
  /** Index into `joints` of joint j's nearest ancestor that is a joint, or -1. */
  readonly parents: Int32Array
  /** 16 floats per joint, column-major, in the reordered joint order (identity where the file gives none). */
  readonly inverseBindMatrices: Float32Array
  /** Position of joint j in the file's `skin.joints` list (to map back for skinning). */
  readonly skinJointOrder: Int32Array
  /** glTF node index of the skin's `skeleton` root, or of the joints' common root when the file names none. */
  readonly root: number
}

/**
 * What the project takes from a glTF file (readAsset, loadAsset, assetFromDocument): the node tree with rest
 * transforms, skeletons (one per skin) and clips (one per glTF animation, in file order). Plain data, read-only
 * (the plugin and its characters share it, never copy it), engine-agnostic.
 */
export interface AnimationAsset {
  /** Where it came from (file path or a caller-given name), for messages. */
  readonly source: string
  /** Every node of the file; `nodes[i]` is glTF node i. */
  readonly nodes: readonly AssetNode[]
  /** Root node indices of the default scene (or of all scenes when there is no default), in file order. */
  readonly roots: readonly number[]
  /** One per glTF skin, in file order. */
  readonly skeletons: readonly Skeleton[]
  /** One per glTF animation, in file order, already built (validated) by buildClip. */
  readonly clips: readonly Clip[]
}
