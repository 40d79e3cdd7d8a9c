import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, vector3 } from './checks.ts'
import { applyRagdollHit } from '../src/physics/ragdoll.ts'
import {
  generateRagdollDescription,
  resolveRagdollDescription,
  skeletonViewOf,
  type RagdollDescription,
  type ResolvedBody,
} from '../src/physics/description.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { RAGDOLL_FALLING, RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { crossFade, type PlayOptions } from './playback.ts'

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
  /** A hit at the hand-off: world impulse (N·s) at a joint (node name or glTF node index). */
  impulse?: {
    /** The joint hit: name or glTF node index of a node in the character's scene. */
    joint: string | number
    /** World-space impulse [x, y, z] in N·s (mass in kilograms, lengths in world units), finite. */
    impulse: readonly [number, number, number]
  }
}

/**
 * Options of getUp(). Checked before anything changes: AnimationError 'argument' for a bad rate, fade length
 * or play option, or an unknown clip.
 */
export interface GetUpOptions {
  /** A clip to cross-fade into while the ragdoll weight ramps back to 0. */
  clip?: string | number
  /** Seconds for that cross-fade, finite and ≥ 0 (0 cuts). Default 0.3. */
  fadeSeconds?: number
  /** Ramp rate back to 0, per second, finite and > 0. Default: the current rate. */
  rate?: number
  /** Play options of the clip (default loop 'once'). */
  play?: PlayOptions
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
  const o = optionsObject<RagdollOptions>(options, what)
  const impulse =
    o.impulse === undefined
      ? undefined
      : optionsObject<NonNullable<RagdollOptions['impulse']>>(o.impulse, what, 'impulse')
  const asset = ctx.assets[Pose.asset[eid]!]!
  const rate = o.rate === undefined ? Ragdoll.rate[eid]! : checkRate(what, o.rate)
  const hit = impulse
    ? {
        joint: jointIndex(ctx, eid, impulse.joint!, what),
        impulse: vector3(impulse.impulse, what, 'impulse'),
      }
    : null
  const bodies = o.description
    ? resolveRagdollDescription(skeletonViewOf(asset.asset), o.description)
    : defaultDescription(ctx, asset.id)
  const existing = ctx.ragdolls[eid]
  if (Ragdoll.active[eid] === RAGDOLL_FALLING) {
    if (hit) applyImpulse(ctx, eid, impulse!.joint!, hit.impulse)
    return
  }
  Ragdoll.rate[eid] = rate
  if (Ragdoll.active[eid] === RAGDOLL_GETTING_UP && existing?.instance) {
    Ragdoll.active[eid] = RAGDOLL_FALLING
    // The bodies exist, so the hit applies now (queued hits are only drained when bodies spawn).
    if (hit) applyImpulse(ctx, eid, impulse!.joint!, hit.impulse)
    return
  }
  ctx.ragdolls[eid] = createRagdollRuntime(ctx, eid, bodies, hit ? [hit] : [], existing?.reported ?? false)
  Ragdoll.weight[eid] = 0
  Ragdoll.active[eid] = RAGDOLL_FALLING
  Ragdoll.handle[eid] = eid
}

/**
 * A character's ragdoll runtime with no bodies yet (stepRagdolls spawns them): used by ragdoll() and by
 * snapshot restore, which then sets the instance and the read-back world transforms.
 */
export function createRagdollRuntime(
  ctx: AnimationContext,
  eid: number,
  bodies: readonly ResolvedBody[],
  impulses: RagdollRuntime['impulses'],
  reported: boolean,
): RagdollRuntime {
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const n = asset.jointNodes.length
  return {
    bodies,
    parents: asset.jointParents,
    instance: null,
    impulses,
    world: new Float64Array(n * WORLD_STRIDE),
    previous: new Float64Array(n * WORLD_STRIDE),
    root: new Float64Array(WORLD_STRIDE),
    reported,
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
  rt.impulses.push({ joint: j, impulse: v })
  if (rt.instance) {
    // Bodies exist: apply now, at the joint's last read-back world position.
    applyRagdollHit(rt.instance, rt.parents, rt.world, j, v)
    rt.impulses.length = 0
  }
}

/** Blends back from physics to animation (optionally cross-fading into a get-up clip); bodies leave at weight 0. */
export function getUp(ctx: AnimationContext, eid: number, options?: GetUpOptions): void {
  checkCharacter(ctx, eid, 'getUp')
  const { Ragdoll } = ctx.stores
  const what = `getUp(${eid})`
  const o = optionsObject<GetUpOptions>(options, what)
  const play = optionsObject<PlayOptions>(o.play, what, 'play')
  const rate = o.rate === undefined ? Ragdoll.rate[eid]! : checkRate(what, o.rate)
  const fade = o.fadeSeconds ?? 0.3
  if (Ragdoll.active[eid] === RAGDOLL_OFF) {
    throw new AnimationError('argument', `${what}: character ${eid} is not ragdolling`)
  }
  if (o.clip !== undefined) crossFade(ctx, eid, o.clip, fade, { loop: 'once', ...play })
  Ragdoll.rate[eid] = rate
  Ragdoll.active[eid] = RAGDOLL_GETTING_UP
}

/** Removes a character's bodies and constraints from the physics world and turns its ragdoll off. */
export function dropRagdoll(ctx: AnimationContext, eid: number): void {
  const rt = ctx.ragdolls[eid]
  if (rt?.instance) {
    for (const c of rt.instance.constraints) ctx.physics.removeConstraint(c)
    for (const b of rt.instance.bodies) ctx.physics.removeBody(b)
  }
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

function checkRate(what: string, rate: number): number {
  if (!(typeof rate === 'number' && Number.isFinite(rate) && rate > 0)) {
    throw new AnimationError(
      'argument',
      `${what}: rate ${showValue(rate)} per second must be a finite number > 0`,
    )
  }
  return rate
}
