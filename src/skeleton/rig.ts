import { AnimationError } from '../errors.ts'
import type { AnimationAsset } from '../gltf/asset.ts'
import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { MAX_NODES } from '../gltf/limits.ts'

/**
 * A character's joints: every node of the asset's scene, parents before children (depth-first from the scene's
 * roots, children in file order). The one joint order of the project: poses, ragdolls and the renderer adapter
 * index joints by it. Built once per asset (buildRig); immutable.
 *
 *   jointNodes[j]    glTF node index of joint j
 *   jointParents[j]  parent joint index, -1 for the scene's roots (which hang under the character entity)
 *   nodeJoint[i]     joint index of glTF node i, -1 for nodes outside the scene
 *   rest             rest pose, 10 floats per joint (src/math/poseLayout.ts)
 *   skinJoint[j]     1 when joint j is a joint of one of the asset's skins
 *   morphJoints[k]   joint of the k-th node with morph targets (joint order); its weights are at
 *                    [morphOffsets[k], morphOffsets[k + 1]) of a character's morph weights (morphCount in all),
 *                    and their defaults in morphRest
 */
export interface Rig {
  readonly jointNodes: Int32Array
  readonly jointParents: Int32Array
  readonly nodeJoint: Int32Array
  readonly rest: Float32Array
  readonly skinJoint: Uint8Array
  readonly morphJoints: Int32Array
  readonly morphOffsets: Int32Array
  readonly morphCount: number
  readonly morphRest: Float32Array
}

/** Most joints a character may have (pose records index joints with 16 bits): the loader's MAX_NODES. */
export const MAX_RIG_JOINTS = MAX_NODES

/**
 * Flattens the asset's scene into a Rig. Iterative, linear in the node count. Throws AnimationError('gltf')
 * for a root or child index out of range, a node reachable twice, or an empty scene; ('capacity') for more
 * than MAX_RIG_JOINTS nodes.
 */
export function buildRig(asset: AnimationAsset): Rig {
  const nodes = asset.nodes
  const nodeJoint = new Int32Array(nodes.length).fill(-1)
  const order: number[] = []
  const parents: number[] = []
  // Pending (node, parent joint) pairs; children pushed in reverse so they pop in file order.
  const stack: number[] = []
  const push = (node: number, parentJoint: number, where: string): void => {
    if (!Number.isInteger(node) || node < 0 || node >= nodes.length) {
      throw new AnimationError(
        'gltf',
        `${asset.source}: ${where} names node ${node}, out of range (${nodes.length} nodes)`,
      )
    }
    stack.push(node, parentJoint)
  }
  for (let r = asset.roots.length - 1; r >= 0; r--) push(asset.roots[r]!, -1, `scene root ${r}`)
  while (stack.length > 0) {
    const parentJoint = stack.pop()!
    const node = stack.pop()!
    if (nodeJoint[node] !== -1) {
      throw new AnimationError('gltf', `${asset.source}: node ${node} is reachable twice in the scene tree`)
    }
    if (order.length >= MAX_RIG_JOINTS) {
      throw new AnimationError(
        'capacity',
        `${asset.source}: more than ${MAX_RIG_JOINTS} scene nodes; a character holds at most ${MAX_RIG_JOINTS}`,
      )
    }
    const j = order.length
    nodeJoint[node] = j
    order.push(node)
    parents.push(parentJoint)
    const children = nodes[node]!.children
    for (let c = children.length - 1; c >= 0; c--) push(children[c]!, j, `node ${node}'s child ${c}`)
  }
  if (order.length === 0) throw new AnimationError('gltf', `${asset.source}: the scene has no nodes`)
  const rest = new Float32Array(order.length * JOINT_STRIDE)
  order.forEach((node, j) => {
    const n = nodes[node]!
    rest.set(n.translation, j * JOINT_STRIDE)
    rest.set(n.rotation, j * JOINT_STRIDE + 3)
    rest.set(n.scale, j * JOINT_STRIDE + 7)
  })
  const skinJoint = new Uint8Array(order.length)
  for (const skin of asset.skeletons) {
    for (const node of skin.joints) if (nodeJoint[node]! >= 0) skinJoint[nodeJoint[node]!] = 1
  }
  const morphJoints: number[] = []
  const morphOffsets: number[] = [0]
  const morphRest: number[] = []
  order.forEach((node, j) => {
    const weights = nodes[node]!.weights
    if (weights.length === 0) return
    morphJoints.push(j)
    for (const w of weights) morphRest.push(w)
    morphOffsets.push(morphRest.length)
  })
  return {
    jointNodes: Int32Array.from(order),
    jointParents: Int32Array.from(parents),
    nodeJoint,
    rest,
    skinJoint,
    morphJoints: Int32Array.from(morphJoints),
    morphOffsets: Int32Array.from(morphOffsets),
    morphCount: morphRest.length,
    morphRest: Float32Array.from(morphRest),
  }
}

/**
 * The joint of a node given by glTF node index or by name. A name shared by several scene nodes (a bone and a
 * mesh both called "Head") resolves to the one skin joint among them; when that does not settle it, throws with
 * the candidates. Throws AnimationError('argument') naming `what` for an unknown node.
 */
export function findJoint(rig: Rig, asset: AnimationAsset, node: number | string, what: string): number {
  if (typeof node === 'number') {
    const j = Number.isInteger(node) && node >= 0 && node < rig.nodeJoint.length ? rig.nodeJoint[node]! : -1
    if (j < 0) throw unknownNode(asset, node, what)
    return j
  }
  if (typeof node !== 'string') throw unknownNode(asset, node, what)
  const candidates: number[] = []
  for (const n of asset.nodes) if (n.name === node && rig.nodeJoint[n.index]! >= 0) candidates.push(n.index)
  if (candidates.length === 0) throw unknownNode(asset, node, what)
  if (candidates.length === 1) return rig.nodeJoint[candidates[0]!]!
  const skin = candidates.filter((i) => rig.skinJoint[rig.nodeJoint[i]!] === 1)
  if (skin.length === 1) return rig.nodeJoint[skin[0]!]!
  throw new AnimationError(
    'argument',
    `${what}: ${asset.source} has ${candidates.length} scene nodes named ${JSON.stringify(node)} ` +
      `(nodes ${candidates.join(', ')}${skin.length > 1 ? `, joints of a skin: ${skin.join(', ')}` : ', none a skin joint'}); pass the node index`,
  )
}

function unknownNode(asset: AnimationAsset, node: unknown, what: string): AnimationError {
  const shown = typeof node === 'string' || typeof node === 'number' ? JSON.stringify(node) : typeof node
  return new AnimationError('argument', `${what}: ${asset.source} has no scene node ${shown}`)
}
