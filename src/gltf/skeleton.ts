import type { Skeleton } from './asset.ts'
import { AnimationError } from '../errors.ts'

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
 * (e.g. `Fox.glb: skin 0`). Throws AnimationError (kind 'gltf') when a joint is not a node, a joint repeats,
 * the parents have a cycle, the inverse bind matrices are too few or not finite, or the named skeleton root is
 * not an ancestor of every joint.
 */
export function buildSkeleton(skin: SkinSource, nodeParents: ArrayLike<number>, where: string): Skeleton {
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

  /** Ancestors of `node`, nearest first; throws on a cycle. */
  const ancestors = (node: number): number[] => {
    const chain: number[] = []
    for (let p = nodeParents[node]!; p !== -1; p = nodeParents[p]!) {
      if (chain.length >= nodeCount) fail(`node ${node} is its own ancestor (the node tree has a cycle)`)
      chain.push(p)
    }
    return chain
  }

  // Group joints under their nearest joint ancestor (-1: none), siblings in ascending node index.
  const childrenOf = new Map<number, number[]>()
  for (const node of [...skin.joints].sort((a, b) => a - b)) {
    const parentJoint = ancestors(node).find((p) => filePosition.has(p)) ?? -1
    const siblings = childrenOf.get(parentJoint)
    if (siblings) siblings.push(node)
    else childrenOf.set(parentJoint, [node])
  }

  // Depth-first, pre-order: every joint after its parent joint.
  const joints = new Int32Array(jointCount)
  const parents = new Int32Array(jointCount)
  const skinJointOrder = new Int32Array(jointCount)
  const stack: { node: number; parent: number }[] = (childrenOf.get(-1) ?? [])
    .map((node) => ({ node, parent: -1 }))
    .reverse()
  let count = 0
  while (stack.length > 0) {
    const { node, parent } = stack.pop()!
    const j = count++
    joints[j] = node
    parents[j] = parent
    skinJointOrder[j] = filePosition.get(node)!
    const kids = childrenOf.get(node) ?? []
    for (let k = kids.length - 1; k >= 0; k--) stack.push({ node: kids[k]!, parent: j })
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
    root: skeletonRoot(skin, ancestors, fail),
  }
}

/**
 * The named `skeleton` node, checked to be an ancestor-or-self of every joint (glTF 2.0 §5.28); else the joints'
 * deepest common ancestor-or-self, or -1 when the joints lie in different trees.
 */
function skeletonRoot(
  skin: SkinSource,
  ancestors: (node: number) => number[],
  fail: (what: string) => never,
): number {
  const lineage = (node: number): number[] => [node, ...ancestors(node)]
  if (skin.skeleton !== -1) {
    for (const joint of skin.joints) {
      if (!lineage(joint).includes(skin.skeleton)) {
        fail(`skeleton root node ${skin.skeleton} is not an ancestor of joint node ${joint}`)
      }
    }
    return skin.skeleton
  }
  // Common ancestors form a shared prefix of the root-first lineages.
  let common = lineage(skin.joints[0]!).reverse()
  for (const joint of skin.joints) {
    const line = new Set(lineage(joint))
    let keep = 0
    while (keep < common.length && line.has(common[keep]!)) keep++
    common = common.slice(0, keep)
  }
  return common.length > 0 ? common[common.length - 1]! : -1
}
