import { AnimationError, showValue } from '../src/errors.ts'
import type { AnimationContext, RegisteredAsset } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { optionsObject, type OptionNames } from './checks.ts'
import { createRootMotionState, RM_DELTA } from '../systems/rootMotion.ts'

/**
 * What root motion takes from the root joint: 'horizontal' its travel on the ground plane (x, z) and its turn
 * about +y; 'full' all its translation and rotation; 'off' nothing (the default).
 */
export type RootMotionMode = 'horizontal' | 'full' | 'off'

/** setRootMotion's options. */
export interface RootMotionOptions {
  /** What the joint's motion gives the character (see RootMotionMode). */
  mode: RootMotionMode
  /**
   * The joint whose motion moves the character (node name or glTF node index); default the asset's root
   * motion joint: the highest skin joint its clips translate (see rootMotionJoint).
   */
  joint?: string | number
  /**
   * true (default): the character entity moves by the motion each step. false: nothing moves, and
   * rootMotionDelta gives the motion for a game that moves its own capsule.
   */
  apply?: boolean
}

const ROOT_MOTION_OPTIONS: OptionNames<RootMotionOptions> = { mode: true, joint: true, apply: true }

/**
 * One step of root motion in the character's own space (its entity's local frame before the step, in the
 * asset's units, before the entity's scale): the entity's new transform is the old one times this one. To move
 * a capsule of the game's by it: position += capsuleRotation·(scale · translation), rotation = rotation ·
 * this rotation.
 */
export interface RootMotionDelta {
  /** Translation in the character's space. */
  translation: [number, number, number]
  /** Rotation, a unit quaternion [x, y, z, w] about the character's own axes. */
  rotation: [number, number, number, number]
}

const MODES: readonly RootMotionMode[] = ['off', 'horizontal', 'full']

/**
 * Turns a character's root motion on (mode 'horizontal' or 'full') or off ('off'), from the next step. On, the
 * joint's motion leaves its pose and moves the character entity (or, with `apply: false`, only shows in
 * rootMotionDelta); off, the pose keeps it again and the entity stays where root motion left it. Either way the
 * last delta starts at the identity and the next step resamples the pose. Throws AnimationError for a bad mode,
 * joint or flag, changing nothing.
 */
export function setRootMotion(ctx: AnimationContext, eid: number, options: RootMotionOptions): void {
  const what = `setRootMotion(${showValue(eid)})`
  checkCharacter(ctx, eid, what)
  const o = optionsObject<RootMotionOptions>(options, what, ROOT_MOTION_OPTIONS)
  const mode = MODES.indexOf(o.mode as RootMotionMode)
  if (mode < 0) {
    throw new AnimationError(
      'argument',
      `${what}: mode ${showValue(o.mode)} is not one of ${MODES.join(', ')}`,
    )
  }
  const apply = o.apply ?? true
  if (typeof apply !== 'boolean') {
    throw new AnimationError('argument', `${what}: apply ${showValue(apply)} is not true or false`)
  }
  const rig = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const joint = o.joint === undefined ? rootMotionJoint(ctx, rig) : jointIndex(ctx, eid, o.joint, what)
  ctx.rootMotion[eid] = mode === 0 ? undefined : createRootMotionState(rig, mode, joint, apply)
  if (mode !== 0) ctx.uses.rootMotion = true
  // The pose shows its root motion again (off), or loses it (on), from the next step.
  ctx.stores.Sampler.lastTime[eid] = NaN
}

/**
 * The last step's root motion of a character (see RootMotionDelta): the identity while root motion is off, in
 * its first step, and while a ragdoll drives the body.
 */
export function rootMotionDelta(ctx: AnimationContext, eid: number): RootMotionDelta {
  checkCharacter(ctx, eid, 'rootMotionDelta')
  const rm = ctx.rootMotion[eid]
  if (rm === undefined) return { translation: [0, 0, 0], rotation: [0, 0, 0, 1] }
  const f = rm.f
  const d = RM_DELTA
  return {
    translation: [f[d]!, f[d + 1]!, f[d + 2]!],
    rotation: [f[d + 3]!, f[d + 4]!, f[d + 5]!, f[d + 6]!],
  }
}

/**
 * An asset's default root motion joint: among the joints of its skins (all joints when it has none), the
 * highest (fewest ancestors) that one of its clips translates; of several at that height, the one the most
 * clips translate, then the first. Without any, the skins' topmost joint. A skin's root is often not the node
 * that moves: the Fox's skin root `_rootJoint` and `b_Root_00` never move and its clips walk `b_Hip_01`;
 * RobotExpressive's clips move `Body` (under its skin root `Bone`, beside the feet's IK targets).
 */
export function rootMotionJoint(ctx: AnimationContext, rig: RegisteredAsset): number {
  const n = rig.jointNodes.length
  const skinned = rig.skinJoint.includes(1)
  const candidate = (j: number): boolean => !skinned || rig.skinJoint[j] === 1
  const clips = new Int32Array(n)
  for (const id of rig.clipIds) {
    const moved = new Set<number>()
    for (const ch of ctx.clips[id]!.clip.channels) {
      const j = ch.path === 'translation' ? (rig.nodeJoint[ch.node] ?? -1) : -1
      if (j >= 0 && candidate(j)) moved.add(j)
    }
    for (const j of moved) clips[j]!++
  }
  const depth = new Int32Array(n)
  for (let j = 0; j < n; j++) depth[j] = rig.jointParents[j]! < 0 ? 0 : depth[rig.jointParents[j]!]! + 1
  let best = -1
  for (let j = 0; j < n; j++) {
    if (clips[j] === 0) continue
    if (best < 0 || depth[j]! < depth[best]! || (depth[j] === depth[best] && clips[j]! > clips[best]!))
      best = j
  }
  if (best >= 0) return best
  for (let j = 0; j < n; j++) if (candidate(j)) return j
  return 0
}
