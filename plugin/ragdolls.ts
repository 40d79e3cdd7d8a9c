import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, type OptionNames, vector3 } from './checks.ts'
import { unbuildableBody } from '../src/physics/buildable.ts'
import { mergeRoots, partialBodies } from '../src/physics/subtrees.ts'
import {
  resolveRagdollDescription,
  skeletonViewOf,
  type RagdollDescription,
  type ResolvedBody,
} from '../src/physics/description.ts'
import { generateRagdollDescription } from '../src/physics/generate.ts'
import { forwardKinematics, WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { POSE_ANIM, poseOffset } from '../components/Pose.ts'
import { characterRootWorld } from '../systems/ragdollSpawn.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { subtreeRoots } from './ragdollParts.ts'
import { applyMotors, motorSettings, type RagdollMotorOptions } from './ragdollControl.ts'

/**
 * Options of ragdoll(). Checked before anything changes: AnimationError 'ragdoll' for a description that does
 * not fit the skeleton, 'argument' for a bad rate, an unknown joint or an impulse that is not three finite
 * numbers.
 */
export interface RagdollOptions {
  /** The bodies and limits; default: generated from the character's skeleton (see generateRagdollDescription). */
  description?: RagdollDescription
  /** ragdoll_weight ramp rate per second, finite and > 0. Default: the character's current rate (5 at first). */
  rate?: number
  /**
   * A partial ragdoll: the joint (node name or glTF node index), or joints, whose subtree goes physical while the
   * rest of the character keeps animating. Each subtree's top body hangs from a kinematic anchor that follows
   * its parent joint's animated world transform, so an arm goes limp at the shoulder, a head at the neck. The
   * joints must carry a body of the description at or under them. Default: the whole body. On a character
   * already ragdolling, joints not yet physical join it (its bodies are rebuilt where they lie, keeping their
   * motion); a whole-body call makes a partial ragdoll whole.
   */
  root?: string | number | readonly (string | number)[]
  /**
   * A powered ragdoll: joint motors drive the bodies towards the animated pose (see RagdollMotorOptions; the
   * same as setRagdollMotors right after this call).
   */
  motors?: RagdollMotorOptions
  /**
   * A hit at the hand-off: world impulse (N·s) at a joint (node name or glTF node index); in a partial ragdoll a
   * joint at or under its roots.
   */
  impulse?: {
    /** The joint hit: name or glTF node index of a node in the character's scene. */
    joint: string | number
    /** World-space impulse [x, y, z] in N·s (mass in kilograms, lengths in world units), finite. */
    impulse: readonly [number, number, number]
  }
}

const IMPULSE_OPTIONS: OptionNames<NonNullable<RagdollOptions['impulse']>> = { joint: true, impulse: true }
const RAGDOLL_OPTIONS: OptionNames<RagdollOptions> = {
  description: true,
  rate: true,
  root: true,
  motors: true,
  impulse: true,
}

/**
 * Hands the character to physics: bodies appear at its animated pose on the next step, moving as the animation
 * moved, and ragdoll_weight ramps 0 → 1 at the rate. Already falling: only the hit applies; getting up: it falls
 * again with the bodies it has. Throws for a bad description or option, changing nothing.
 */
export function ragdoll(ctx: AnimationContext, eid: number, options?: RagdollOptions): void {
  checkCharacter(ctx, eid, 'ragdoll')
  const { Pose, Ragdoll } = ctx.stores
  const what = `ragdoll(${eid})`
  const o = optionsObject<RagdollOptions>(options, what, RAGDOLL_OPTIONS)
  const impulse =
    o.impulse === undefined
      ? undefined
      : optionsObject<NonNullable<RagdollOptions['impulse']>>(o.impulse, what, IMPULSE_OPTIONS, 'impulse')
  const asset = ctx.assets[Pose.asset[eid]!]!
  const rate = o.rate === undefined ? Ragdoll.rate[eid]! : checkRate(what, o.rate)
  const hit = impulse
    ? {
        joint: jointIndex(ctx, eid, impulse.joint!, what),
        impulse: vector3(impulse.impulse, what, 'impulse'),
      }
    : null
  const description = o.description
    ? resolveRagdollDescription(skeletonViewOf(asset.asset), o.description)
    : defaultDescription(ctx, asset.id)
  const existing = ctx.ragdolls[eid]
  const live = existing !== undefined && Ragdoll.active[eid] !== RAGDOLL_OFF
  // A live ragdoll keeps its description; the roots are checked against the one that will be used.
  const roots = subtreeRoots(ctx, eid, o.root, live ? existing.description : description, what)
  const motors = o.motors === undefined ? null : motorSettings(ctx, eid, o.motors, what)
  startRagdoll(ctx, eid, { description, roots, rate, hit, recoverRate: 0, what })
  if (motors) applyMotors(ctx, eid, ctx.ragdolls[eid]!, motors)
}

/** What startRagdoll starts (checked): see ragdoll() and hit(). */
export interface RagdollStart {
  /** The description of a ragdoll not live yet (a live one keeps its own). */
  readonly description: readonly ResolvedBody[]
  /** Subtree roots to make physical, [] for the whole body. */
  readonly roots: readonly number[]
  readonly rate: number
  readonly hit: { joint: number; impulse: readonly [number, number, number] } | null
  /** A hit reaction's recovery rate per second (RagdollRuntime.recoverRate), 0 for none. */
  readonly recoverRate: number
  readonly what: string
}

/**
 * Starts a ragdoll, or grows a live one: a live ragdoll falling, or getting up with bodies, falls (again) with
 * what it has, grown by any subtree not yet in it (or in the replacement already under way), and takes the hit;
 * otherwise a new runtime spawns in the next step. Throws (before any change) for a hit outside the result.
 */
export function startRagdoll(ctx: AnimationContext, eid: number, start: RagdollStart): void {
  const { Pose, Ragdoll } = ctx.stores
  const { roots, rate, hit, recoverRate } = start
  const parents = ctx.assets[Pose.asset[eid]!]!.jointParents
  const existing = ctx.ragdolls[eid]
  const live = existing !== undefined && Ragdoll.active[eid] !== RAGDOLL_OFF
  const current = live ? (existing.next ?? existing) : null
  const merged = current ? mergeRoots(current.subtrees, roots, parents) : roots
  const description = existing !== undefined && live ? existing.description : start.description
  if (hit) checkHitJoint(ctx, eid, description, merged, hit.joint, start.what)
  const keeps = live && current !== null && (Ragdoll.active[eid] === RAGDOLL_FALLING || !!existing.instance)
  const grows =
    keeps && (merged.length !== current.subtrees.length || merged.some((j, i) => j !== current.subtrees[i]))
  // A runtime about to be made must be one that can be built (a hit on a live ragdoll builds nothing).
  if (grows) checkBuildable(ctx, eid, description, merged, start.what)
  else if (!keeps) checkBuildable(ctx, eid, start.description, roots, start.what)
  if (keeps && current) {
    if (Ragdoll.active[eid] !== RAGDOLL_FALLING || grows || recoverRate > 0) Ragdoll.rate[eid] = rate
    Ragdoll.active[eid] = RAGDOLL_FALLING
    existing.recoverRate = recoverRate
    current.recoverRate = recoverRate
    if (grows) {
      const next = createRagdollRuntime(ctx, eid, existing.description, merged, [], existing.reported)
      next.impulses.push(...current.impulses)
      next.recoverRate = recoverRate
      if (hit) next.impulses.push(hit)
      if (existing.instance) existing.next = next
      else ctx.ragdolls[eid] = next
      return
    }
    if (hit) queueHit(ctx, current, hit.joint, hit.impulse)
    return
  }
  Ragdoll.rate[eid] = rate
  const rt = createRagdollRuntime(
    ctx,
    eid,
    start.description,
    roots,
    hit ? [hit] : [],
    existing?.reported ?? false,
  )
  rt.recoverRate = recoverRate
  ctx.ragdolls[eid] = rt
  Ragdoll.weight[eid] = 0
  Ragdoll.active[eid] = RAGDOLL_FALLING
  Ragdoll.handle[eid] = eid
}

/**
 * Throws AnimationError('ragdoll') when the bodies of `description` that `roots` make physical could not be
 * built at the character's present animated pose (src/physics/buildable.ts unbuildableBody: degenerate or huge
 * world scales, a place not finite or too far out), so such a ragdoll is never started. The step checks again
 * at the hand-off, where the pose may have moved (stepRagdolls reports it then), as it does a character root
 * that is not finite (a game's NaN, not checked here).
 */
function checkBuildable(
  ctx: AnimationContext,
  eid: number,
  description: readonly ResolvedBody[],
  roots: readonly number[],
  what: string,
): void {
  const { Pose } = ctx.stores
  const asset = ctx.assets[Pose.asset[eid]!]!
  const n = Pose.count[eid]!
  const root = new Float64Array(WORLD_STRIDE)
  characterRootWorld(root, ctx.sceneGraph.store, eid, new Float64Array(WORLD_STRIDE), new Float32Array(10))
  let sum = 0
  for (let k = 0; k < WORLD_STRIDE; k++) sum += root[k]!
  // A root the game made not finite is its own to repair before the step, which reports it if it does not.
  if (sum - sum !== 0) return
  const anim = poseOffset(Pose.base[eid]!, n, POSE_ANIM)
  const world = new Float64Array(n * WORLD_STRIDE)
  forwardKinematics(world, ctx.pool.data, anim, asset.jointParents, n, root, 0)
  const bodies = partialBodies(description, roots, asset.nodeJoint, asset.jointParents)
  const problem = unbuildableBody(bodies, asset.nodeJoint, world)
  if (problem !== null) {
    throw new AnimationError(
      'ragdoll',
      `${what}: the ragdoll cannot be built at the character's pose: ${problem}`,
    )
  }
}

/**
 * A character's ragdoll runtime with no bodies yet (stepRagdolls spawns them): used by ragdoll() and by
 * snapshot restore, which then sets the instance and the read-back world transforms.
 */
export function createRagdollRuntime(
  ctx: AnimationContext,
  eid: number,
  description: readonly ResolvedBody[],
  subtrees: readonly number[],
  impulses: RagdollRuntime['impulses'],
  reported: boolean,
): RagdollRuntime {
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const n = asset.jointNodes.length
  return {
    description,
    subtrees,
    bodies: partialBodies(description, subtrees, asset.nodeJoint, asset.jointParents),
    parents: asset.jointParents,
    instance: null,
    impulses,
    world: new Float64Array(n * WORLD_STRIDE),
    previous: new Float64Array(n * WORLD_STRIDE),
    target: new Float64Array(n * WORLD_STRIDE),
    root: new Float64Array(WORLD_STRIDE),
    reported,
    next: null,
    jointWeights: null,
    recoverRate: 0,
    motors: null,
    motorCapacity: null,
  }
}

/** A hit on a ragdolling character: world impulse (N·s) at a joint (node name or glTF node index). */
export function applyImpulse(
  ctx: AnimationContext,
  eid: number,
  joint: string | number,
  impulse: readonly [number, number, number],
): void {
  checkCharacter(ctx, eid, 'applyImpulse')
  const what = `applyImpulse(${eid})`
  const j = jointIndex(ctx, eid, joint, what)
  const v = vector3(impulse, what, 'impulse')
  const rt = ctx.ragdolls[eid]
  if (ctx.stores.Ragdoll.active[eid] === RAGDOLL_OFF || !rt) {
    throw new AnimationError('argument', `${what}: character ${eid} is not ragdolling (call ragdoll() first)`)
  }
  // A hit while a larger ragdoll is to replace this one goes to the replacement's bodies when they spawn.
  const target = rt.next ?? rt
  checkHitJoint(ctx, eid, rt.description, target.subtrees, j, what)
  queueHit(ctx, target, j, v)
}

/**
 * A partial ragdoll takes hits only at joints with one of its bodies at or above them, or, holding the root
 * body, at joints with no body at or above them (a root offset: the root body takes those, as in a whole-body
 * ragdoll); elsewhere no body could take it. `description` is the whole one.
 */
export function checkHitJoint(
  ctx: AnimationContext,
  eid: number,
  description: readonly ResolvedBody[],
  roots: readonly number[],
  j: number,
  what: string,
) {
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  if (roots.length === 0) return
  const joints = partialBodies(description, roots, asset.nodeJoint, asset.jointParents).map(
    (b) => asset.nodeJoint[b.node]!,
  )
  for (let a = j; a >= 0; a = asset.jointParents[a]!) if (joints.includes(a)) return
  const all = description.map((b) => asset.nodeJoint[b.node]!)
  let carried = false
  for (let a = j; a >= 0 && !carried; a = asset.jointParents[a]!) carried = all.includes(a)
  if (!carried && joints.includes(all[0]!)) return
  const name = (k: number) => asset.asset.nodes[asset.jointNodes[k]!]!.name
  throw new AnimationError(
    'argument',
    `${what}: joint "${name(j)}" is not in character ${eid}'s partial ragdoll (roots: ` +
      `${roots.map((k) => `"${name(k)}"`).join(', ')}); ragdoll() it with that joint as a root, or hit() it`,
  )
}

/** Applies a hit now when the bodies exist (at the joint's last read-back position), else queues it. */
export function queueHit(
  ctx: AnimationContext,
  rt: RagdollRuntime,
  joint: number,
  impulse: readonly [number, number, number],
): void {
  if (rt.instance) ctx.physics.hit(rt.instance, rt.parents, rt.world, joint, impulse)
  else rt.impulses.push({ joint, impulse })
}

/** Removes a character's bodies and constraints from the physics world and turns its ragdoll off. */
export function dropRagdoll(ctx: AnimationContext, eid: number): void {
  const rt = ctx.ragdolls[eid]
  if (rt?.instance) ctx.physics.remove(rt.instance)
  ctx.ragdolls[eid] = undefined
  const { Ragdoll } = ctx.stores
  Ragdoll.active[eid] = RAGDOLL_OFF
  Ragdoll.weight[eid] = 0
  Ragdoll.handle[eid] = -1
}

/** The generated ragdoll description of an asset, resolved once and cached in the context. */
export function defaultDescription(ctx: AnimationContext, assetId: number): readonly ResolvedBody[] {
  let resolved = ctx.ragdollDescriptions[assetId]
  if (!resolved) {
    const view = skeletonViewOf(ctx.assets[assetId]!.asset)
    resolved = resolveRagdollDescription(view, generateRagdollDescription(view))
    ctx.ragdollDescriptions[assetId] = resolved
  }
  return resolved
}

export function checkRate(what: string, rate: number): number {
  if (!(typeof rate === 'number' && Number.isFinite(rate) && rate > 0)) {
    throw new AnimationError(
      'argument',
      `${what}: rate ${showValue(rate)} per second must be a finite number > 0`,
    )
  }
  return rate
}
