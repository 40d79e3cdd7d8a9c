import type { ResolvedBody } from './description.ts'

/**
 * A partial ragdoll's subtrees: which bodies of a description the subtree roots (joint indices) make physical,
 * and roots merged. Plain data, no physics (src/physics/partial.ts is what the anchors do).
 */

/**
 * The bodies of `description` at or under the joints `roots` (joint indices; `nodeJoint` maps a body's node to
 * its joint, `parents` gives joint parents), and the bodies hanging from those (a description's `parent` may
 * join a bone from elsewhere in the skeleton: RobotExpressive's feet hang from its shins), in the description's
 * order (parents first), with `parentBody` renumbered among them and -1 for a body whose parent body is not
 * kept. Empty `roots`: the description itself.
 */
export function partialBodies(
  description: readonly ResolvedBody[],
  roots: readonly number[],
  nodeJoint: Int32Array,
  parents: Int32Array,
): readonly ResolvedBody[] {
  if (roots.length === 0) return description
  const index = new Int32Array(description.length).fill(-1)
  const out: ResolvedBody[] = []
  description.forEach((body, b) => {
    const p = body.parentBody
    if (!underAny(nodeJoint[body.node]!, roots, parents) && !(p >= 0 && index[p]! >= 0)) return
    index[b] = out.length
    out.push({ ...body, parentBody: p >= 0 ? index[p]! : -1 })
  })
  return out
}

/** True when joint j is one of `roots` or below one of them. */
export function underAny(j: number, roots: readonly number[], parents: Int32Array): boolean {
  for (let a = j; a >= 0; a = parents[a]!) if (roots.includes(a)) return true
  return false
}

/**
 * The subtree roots covering both `a` and `b` (each a list of joint indices, [] for the whole body), without a
 * root under another, ascending. The whole body if either is.
 */
export function mergeRoots(a: readonly number[], b: readonly number[], parents: Int32Array): number[] {
  if (a.length === 0 || b.length === 0) return []
  const all = [...new Set([...a, ...b])]
  return all
    .filter(
      (j) =>
        !all.some((k) => {
          if (k === j) return false
          for (let x = parents[j]!; x >= 0; x = parents[x]!) if (x === k) return true
          return false
        }),
    )
    .sort((x, y) => x - y)
}
