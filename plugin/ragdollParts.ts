import { AnimationError, showValue } from '../src/errors.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import { partialBodies } from '../src/physics/subtrees.ts'
import type { AnimationContext } from './context.ts'
import { jointIndex } from './characters.ts'

/** Partial ragdolls at the plugin's calls. */

/**
 * The subtree roots a `root` option names (one joint reference or a list of them; undefined: the whole body,
 * []), as joint indices, each checked to carry at least one body of `description`. Throws AnimationError.
 */
export function subtreeRoots(
  ctx: AnimationContext,
  eid: number,
  root: unknown,
  description: readonly ResolvedBody[],
  what: string,
): number[] {
  if (root === undefined) return []
  const list = Array.isArray(root) ? [...(root as unknown[])] : [root]
  if (list.length === 0) {
    throw new AnimationError('argument', `${what}: root [] names no joint (leave it out for the whole body)`)
  }
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const roots: number[] = []
  for (const ref of list) {
    if (typeof ref !== 'string' && typeof ref !== 'number') {
      throw new AnimationError(
        'argument',
        `${what}: root ${showValue(ref)} is not a joint name or node index`,
      )
    }
    const j = jointIndex(ctx, eid, ref, `${what}: root`)
    if (partialBodies(description, [j], asset.nodeJoint, asset.jointParents).length === 0) {
      throw new AnimationError(
        'argument',
        `${what}: root ${showValue(ref)} has no ragdoll body at or under it (name a joint above a limb's bodies)`,
      )
    }
    roots.push(j)
  }
  return roots
}
