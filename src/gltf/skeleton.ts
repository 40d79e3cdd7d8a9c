import type { Skeleton } from './asset.ts'
import { AnimationError } from '../errors.ts'
import { buildNodeTree, commonAncestor, isAncestorOrSelf, type NodeTree } from './nodeTree.ts'

/** One glTF skin as the file gives it, in the file's joint order. */
export interface SkinSource {
  name: string
  /** glTF node indices, in the order of the file's `skin.joints` (the order skinning indices refer to). */
  joints: readonly number[]
  /** 16 floats per joint (column-major), in file joint order; extra trailing values are ignored. null = identity. */
  inverseBindMatrices: ArrayLike<number> | null
  /** The skin's `skeleton` node index, or -1 when the file names none. */
  skeleton: number
}

/**
 * Builds the Skeleton of one skin (see `Skeleton` in asset.ts for the layout). Joint order: depth-first,
 * parent before child, siblings (joints sharing the nearest joint ancestor) in ascending glTF node index.
 *
 * `nodeParents[i]` is node i's parent node index, or -1 for a root. `where` prefixes messages
 * (e.g. `Fox.glb: skin 0`). `tree`, the NodeTree of `nodeParents`, is built here when not given; a caller with
 * several skins builds it once. O(joints · log joints) given the tree, without recursion.
 * Throws AnimationError (kind 'gltf') when a joint is not a node, a joint repeats, the parents have a cycle,
 * the inverse bind matrices are too few or not finite, or the named skeleton root is not an ancestor of every
 * joint.
 */
export function buildSkeleton(
  skin: SkinSource,
  nodeParents: ArrayLike<number>,
  where: string,
  tree?: NodeTree,
): Skeleton {
  const fail = (what: string): never => {
    throw new AnimationError('gltf', `${where}: ${what}`)
  }
  const nodeCount = nodeParents.length
  const jointCount = skin.joints.length
  if (jointCount === 0) fail('has no joints')

  const filePosition = new Map<number, number>()
  skin.joints.forEach((node, j) => {
    if (!Number.isInteger(node) || node < 0 || node >= nodeCount) {
      fail(`joint ${j} is node ${node}, which does not exist (${nodeCount} nodes)`)
    }
    if (filePosition.has(node)) fail(`joint ${j} repeats node ${node} (also joint ${filePosition.get(node)})`)
    filePosition.set(node, j)
  })
  const nodes =
    tree ??
    buildNodeTree(nodeParents, (node) => fail(`node ${node} is its own ancestor (the node tree has a cycle)`))

  // Joints are handled by file position f (node skin.joints[f]) in flat arrays.
  const nodeOf = skin.joints
  /** Every f, ordered by key(f) (distinct integers ≥ 0): a native numeric sort of key(f) · jointCount + f. */
  const sortedBy = (key: (f: number) => number): Int32Array => {
    const packed = new Float64Array(jointCount)
    for (let f = 0; f < jointCount; f++) packed[f] = key(f) * jointCount + f
    packed.sort()
    const order = new Int32Array(jointCount)
    for (let k = 0; k < jointCount; k++) order[k] = packed[k]! % jointCount
    return order
  }

  // Nearest joint ancestor of each joint (-1: none): in pre-order, the innermost joint whose subtree is still
  // open when the joint comes.
  const parentJoint = new Int32Array(jointCount)
  const open = new Int32Array(jointCount)
  let depth = 0
  for (const f of sortedBy((f) => nodes.enter[nodeOf[f]!]!)) {
    while (depth > 0 && !isAncestorOrSelf(nodes, nodeOf[open[depth - 1]!]!, nodeOf[f]!)) depth--
    parentJoint[f] = depth > 0 ? open[depth - 1]! : -1
    open[depth++] = f
  }

  // The children of joint f, in ascending node index, are kids[start[f + 1] .. start[f + 2]); the top-level
  // joints are kids[start[0] .. start[1]).
  const start = new Int32Array(jointCount + 2)
  for (let f = 0; f < jointCount; f++) start[parentJoint[f]! + 2]!++
  for (let g = 1; g < jointCount + 2; g++) start[g]! += start[g - 1]!
  const kids = new Int32Array(jointCount)
  const next = start.slice(0, jointCount + 1)
  for (const f of sortedBy((f) => nodeOf[f]!)) kids[next[parentJoint[f]! + 1]!++] = f

  // Depth-first, pre-order: every joint after its parent joint.
  const joints = new Int32Array(jointCount)
  const parents = new Int32Array(jointCount)
  const skinJointOrder = new Int32Array(jointCount)
  const orderOf = new Int32Array(jointCount)
  const stack = new Int32Array(jointCount)
  let top = 0
  for (let k = start[1]! - 1; k >= start[0]!; k--) stack[top++] = kids[k]!
  for (let j = 0; top > 0; j++) {
    const f = stack[--top]!
    orderOf[f] = j
    joints[j] = nodeOf[f]!
    parents[j] = parentJoint[f] === -1 ? -1 : orderOf[parentJoint[f]!]!
    skinJointOrder[j] = f
    for (let k = start[f + 2]! - 1; k >= start[f + 1]!; k--) stack[top++] = kids[k]!
  }

  const inverseBindMatrices = new Float32Array(16 * jointCount)
  const ibm = skin.inverseBindMatrices
  if (ibm === null) {
    for (let j = 0; j < jointCount; j++) for (let d = 0; d < 4; d++) inverseBindMatrices[16 * j + 5 * d] = 1
  } else {
    if (ibm.length < 16 * jointCount) {
      fail(`has ${jointCount} joints but ${Math.floor(ibm.length / 16)} inverse bind matrices`)
    }
    for (let j = 0; j < jointCount; j++) {
      const from = 16 * skinJointOrder[j]!
      for (let e = 0; e < 16; e++) {
        const v = ibm[from + e]!
        if (!Number.isFinite(v)) fail(`inverse bind matrix ${skinJointOrder[j]} element ${e} is ${v}`)
        inverseBindMatrices[16 * j + e] = v
      }
    }
  }

  return {
    name: skin.name,
    joints,
    parents,
    inverseBindMatrices,
    skinJointOrder,
    root: skeletonRoot(skin, nodes, fail),
  }
}

/**
 * The named `skeleton` node, checked to be an ancestor-or-self of every joint (glTF 2.0 §5.28); else the joints'
 * deepest common ancestor-or-self, or -1 when the joints lie in different trees.
 */
function skeletonRoot(skin: SkinSource, tree: NodeTree, fail: (what: string) => never): number {
  const named = skin.skeleton
  if (named !== -1) {
    if (!Number.isInteger(named) || named < 0 || named >= tree.enter.length) {
      fail(`skeleton root node ${named} does not exist (${tree.enter.length} nodes)`)
    }
    for (const joint of skin.joints) {
      if (!isAncestorOrSelf(tree, named, joint)) {
        fail(`skeleton root node ${named} is not an ancestor of joint node ${joint}`)
      }
    }
    return named
  }
  // An ancestor of the first and the last joint in pre-order holds every joint between them.
  let first = skin.joints[0]!
  let last = first
  for (const joint of skin.joints) {
    if (tree.enter[joint]! < tree.enter[first]!) first = joint
    if (tree.enter[joint]! > tree.enter[last]!) last = joint
  }
  return commonAncestor(tree, first, last)
}
