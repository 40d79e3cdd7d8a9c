import { AnimationError, showValue } from '../src/errors.ts'
import type { AnimationContext, RegisteredAsset } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'

/** A character's morph weights for a renderer: live arrays, valid while the character lives. */
export interface MorphWeightsView {
  /** glTF node index of each mesh node with morph targets, in joint order. */
  readonly nodes: Int32Array
  /** Node k's weights are `weights[offsets[k] .. offsets[k + 1])`. */
  readonly offsets: Int32Array
  /** This step's weights (the clips' over the file's defaults, the game's over those); read only. */
  readonly weights: Float32Array
}

/**
 * Index (among the rig's morph nodes) of a character's node by name or index; throws when it has no targets
 * or is no node, naming the nodes that have targets. A name shared with other nodes (RobotExpressive's mesh
 * "Head" and its bone "Head") means the one with morph targets.
 */
function morphNode(ctx: AnimationContext, eid: number, node: unknown, what: string): number {
  if (typeof node !== 'string' && typeof node !== 'number') {
    throw new AnimationError('argument', `${what}: node ${showValue(node)} is not a node name or index`)
  }
  const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  if (typeof node === 'string') {
    const named: number[] = []
    rig.morphJoints.forEach((j, k) => rig.asset.nodes[rig.jointNodes[j]!]!.name === node && named.push(k))
    if (named.length === 1) return named[0]!
  }
  let joint: number
  try {
    joint = jointIndex(ctx, eid, node, what)
  } catch (error) {
    if (!(error instanceof AnimationError)) throw error
    throw new AnimationError('argument', `${error.message}; ${morphNodeList(rig)}`)
  }
  const k = rig.morphJoints.indexOf(joint)
  if (k < 0) {
    throw new AnimationError(
      'argument',
      `${what}: node ${showValue(node)} has no morph targets; ${morphNodeList(rig)}`,
    )
  }
  return k
}

/** The nodes of a rig that have morph targets, for a message: `nodes with morph targets: "Head" (13, 3 targets)`. */
function morphNodeList(rig: RegisteredAsset): string {
  if (rig.morphJoints.length === 0) return `${rig.asset.source} has no node with morph targets`
  const nodes = Array.from(rig.morphJoints, (j, k) => {
    const n = rig.jointNodes[j]!
    const targets = rig.morphOffsets[k + 1]! - rig.morphOffsets[k]!
    return `${showValue(rig.asset.nodes[n]!.name)} (${n}, ${targets} targets)`
  })
  return `nodes with morph targets: ${nodes.join(', ')}`
}

/**
 * Sets the morph weights the game gives a mesh node (expression sliders), shown from the next step over what
 * the clips do: one finite number per morph target, or null to give the node back to its clips.
 */
export function setMorphWeights(
  ctx: AnimationContext,
  eid: number,
  node: string | number,
  weights: unknown,
): void {
  const what = `setMorphWeights(${showValue(eid)}, ${showValue(node)})`
  checkCharacter(ctx, eid, what)
  const k = morphNode(ctx, eid, node, what)
  const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const from = rig.morphOffsets[k]!
  const count = rig.morphOffsets[k + 1]! - from
  if (weights === null) {
    ctx.morphs[eid]!.game.fill(NaN, from, from + count)
    return
  }
  const copy = Array.isArray(weights) && weights.length === count ? Array.from(weights as unknown[]) : null
  if (!copy || !copy.every((x) => typeof x === 'number' && Number.isFinite(Math.fround(x)))) {
    throw new AnimationError(
      'argument',
      `${what}: weights ${showValue(copy ?? weights)} must be ${count} numbers finite as float32 (one per morph target) or null`,
    )
  }
  ctx.morphs[eid]!.game.set(copy as number[], from)
}

/** A mesh node's morph weights this step (a copy). */
export function getMorphWeights(ctx: AnimationContext, eid: number, node: string | number): number[] {
  const what = `getMorphWeights(${showValue(eid)}, ${showValue(node)})`
  checkCharacter(ctx, eid, what)
  const k = morphNode(ctx, eid, node, what)
  const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  return Array.from(ctx.morphs[eid]!.weights.subarray(rig.morphOffsets[k]!, rig.morphOffsets[k + 1]!))
}

/** The character's morph weights as live arrays (see MorphWeightsView), or null when it has no morph targets. */
export function morphWeights(ctx: AnimationContext, eid: number): MorphWeightsView | null {
  checkCharacter(ctx, eid, `morphWeights(${showValue(eid)})`)
  const ms = ctx.morphs[eid]
  if (ms === undefined) return null
  const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  return {
    nodes: Int32Array.from(rig.morphJoints, (j) => rig.jointNodes[j]!),
    offsets: rig.morphOffsets,
    weights: ms.weights,
  }
}
