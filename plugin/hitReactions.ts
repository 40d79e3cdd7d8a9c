import { AnimationError, showValue } from '../src/errors.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { optionsObject, type OptionNames, vector3 } from './checks.ts'
import { defaultDescription, queueHit, startRagdoll } from './ragdolls.ts'
import { subtreeRoots } from './ragdollParts.ts'

/** Hit reactions: a part of the character goes physical with a hit and blends back on its own. */

/** Options of hit(). Checked before anything changes. */
export interface HitOptions {
  /**
   * Seconds over which the hit part blends back to the animation once the hit has taken it over (0.1 s), after
   * which its bodies leave; finite and > 0. Default 0.6.
   */
  recoverSeconds?: number
  /**
   * The joint (node name or glTF node index) whose subtree reacts. Default: the limb the joint hit belongs to —
   * from the body at or above it, up the chain of bodies until the next body up is one where limbs branch (a
   * hand hit moves the arm from the shoulder, a head hit the neck and head, a chest hit the trunk from above
   * the hips; a hit on the root body, the whole ragdoll pinned where the animation holds its root).
   */
  root?: string | number
}

const HIT_OPTIONS: OptionNames<HitOptions> = { recoverSeconds: true, root: true }

/** How fast a hit takes its part over: ragdoll_weight per second (0.1 s from 0 to 1). */
export const RAGDOLL_HIT_RATE = 10
/** Default seconds a hit reaction takes to blend back (HitOptions.recoverSeconds). */
export const DEFAULT_RECOVER_SECONDS = 0.6

/**
 * A hit reaction: world impulse (N·s) at a joint. On a character not ragdolling, the part of it that reacts
 * (HitOptions.root) goes physical at its animated pose — a partial ragdoll pinned to the animated parent —
 * with the impulse, takes the pose over in 0.1 s, then blends back to the animation over `recoverSeconds` and
 * its bodies leave. Another hit during a hit reaction applies to it (joining its part if it is elsewhere) and
 * starts its recovery over. On a character ragdolling otherwise (ragdoll(): the game's to end with getUp) the
 * hit joins the ragdoll's part to it if needed and applies, with no recovery. Throws AnimationError for a bad
 * joint, impulse or option, changing nothing.
 */
export function hit(
  ctx: AnimationContext,
  eid: number,
  joint: string | number,
  impulse: readonly [number, number, number],
  options?: HitOptions,
): void {
  checkCharacter(ctx, eid, 'hit')
  const what = `hit(${eid})`
  const j = jointIndex(ctx, eid, joint, what)
  const v = vector3(impulse, what, 'impulse')
  const o = optionsObject<HitOptions>(options, what, HIT_OPTIONS)
  const seconds = o.recoverSeconds ?? DEFAULT_RECOVER_SECONDS
  if (!(typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0)) {
    throw new AnimationError(
      'argument',
      `${what}: recoverSeconds ${showValue(seconds)} s must be a finite number > 0`,
    )
  }
  const rootRef = o.root
  const { Pose, Ragdoll } = ctx.stores
  const asset = ctx.assets[Pose.asset[eid]!]!
  const existing = ctx.ragdolls[eid]
  const live = existing !== undefined && Ragdoll.active[eid] !== RAGDOLL_OFF
  const description = live ? existing.description : defaultDescription(ctx, asset.id)
  const roots =
    rootRef === undefined
      ? [limbOf(description, asset.nodeJoint, asset.jointParents, j)]
      : subtreeRoots(ctx, eid, rootRef, description, what)
  if (live && (existing.next ?? existing).subtrees.length === 0) {
    // A whole-body ragdoll: the hit applies, nothing else changes.
    queueHit(ctx, existing.next ?? existing, j, v)
    return
  }
  const reaction = !live || existing.recoverRate > 0
  startRagdoll(ctx, eid, {
    description,
    roots,
    rate: reaction ? RAGDOLL_HIT_RATE : Ragdoll.rate[eid]!,
    hit: { joint: j, impulse: v },
    recoverRate: reaction ? 1 / seconds : 0,
    what,
  })
}

/**
 * The joint whose subtree is the limb joint j belongs to (HitOptions.root's default): the body at or above j
 * (the root body when there is none), then up the chain of bodies until the parent body is one where limbs
 * branch — two or more of its child bodies carry a body of their own (a torso with its arms and neck; not a
 * forearm with three finger bodies).
 */
export function limbOf(
  description: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  parents: Int32Array,
  j: number,
): number {
  const bodyOf = new Map(description.map((b, i) => [nodeJoint[b.node]!, i]))
  let b = -1
  for (let a = j; a >= 0 && b < 0; a = parents[a]!) b = bodyOf.get(a) ?? -1
  if (b < 0) b = 0
  // Bodies each body carries (itself and all below it), then its child bodies that carry more than themselves.
  const carried = description.map(() => 1)
  for (let i = description.length - 1; i >= 0; i--) {
    const p = description[i]!.parentBody
    if (p >= 0) carried[p]! += carried[i]!
  }
  const limbs = description.map(() => 0)
  description.forEach((body, i) => body.parentBody >= 0 && carried[i]! >= 2 && limbs[body.parentBody]!++)
  for (let p = description[b]!.parentBody; p >= 0 && limbs[p]! < 2; p = description[b]!.parentBody) b = p
  return nodeJoint[description[b]!.node]!
}
