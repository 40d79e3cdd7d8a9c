import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, vector3 } from './checks.ts'
import { applyRagdollHit } from '../src/physics/ragdollHits.ts'
import {
  createGetUpPlacement,
  getUpJoints,
  placeForGetUp,
  type GetUpPlacement,
} from '../src/physics/getUp.ts'
import { groundHeight } from '../src/physics/world.ts'
import { despawnRagdoll } from '../src/physics/ragdoll.ts'
import { mergeRoots, partialBodies } from '../src/physics/partial.ts'
import {
  generateRagdollDescription,
  resolveRagdollDescription,
  skeletonViewOf,
  type RagdollDescription,
  type ResolvedBody,
} from '../src/physics/description.ts'
import {
  decomposeMatrix,
  forwardKinematics,
  localFromWorld,
  WORLD_STRIDE,
} from '../src/physics/kinematics.ts'
import { LAYER_ANIM, layerOffset } from '../components/Pose.ts'
import { characterRootWorld } from '../systems/stepRagdolls.ts'
import { RAGDOLL_FALLING, RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { crossFade, playSettings, type PlayOptions } from './playback.ts'
import { findClip } from './assets.ts'
import { setTransform } from './placement.ts'
import { subtreeRoots } from './ragdollParts.ts'

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

/**
 * Options of getUp(). Checked before anything changes: AnimationError 'argument' for a bad rate, fade length
 * or play option, or an unknown clip (each clip given is checked, the one chosen or not).
 */
export interface GetUpOptions {
  /**
   * A clip to cross-fade into while the ragdoll weight ramps back to 0; with `prone` or `supine`, the clip for
   * the way of lying that has none.
   */
  clip?: string | number
  /** The clip for a character lying face-down (its chest's belly side towards the ground). Default: `clip`. */
  prone?: string | number
  /** The clip for a character lying face-up. Default: `clip`. */
  supine?: string | number
  /** Seconds for that cross-fade, finite and ≥ 0 (0 cuts). Default 0.3. */
  fadeSeconds?: number
  /** Ramp rate back to 0, per second, finite and > 0. Default: the current rate. */
  rate?: number
  /** Play options of the clip (default loop 'once'); checked against every clip given. */
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
  const description = o.description
    ? resolveRagdollDescription(skeletonViewOf(asset.asset), o.description)
    : defaultDescription(ctx, asset.id)
  const existing = ctx.ragdolls[eid]
  const live = existing !== undefined && Ragdoll.active[eid] !== RAGDOLL_OFF
  // A live ragdoll keeps its description; the roots are checked against the one that will be used.
  const roots = subtreeRoots(ctx, eid, o.root, live ? existing.description : description, what)
  startRagdoll(ctx, eid, { description, roots, rate, hit, recoverRate: 0, what })
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
  if (live && current && (Ragdoll.active[eid] === RAGDOLL_FALLING || existing.instance)) {
    const grows =
      merged.length !== current.subtrees.length || merged.some((j, i) => j !== current.subtrees[i])
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
    if (hit) queueHit(current, hit.joint, hit.impulse)
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
  queueHit(target, j, v)
}

/**
 * A partial ragdoll takes hits only at joints with one of its bodies at or above them (elsewhere, no body could
 * take it); `description` is the whole one.
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
  const name = (k: number) => asset.asset.nodes[asset.jointNodes[k]!]!.name
  throw new AnimationError(
    'argument',
    `${what}: joint "${name(j)}" is not in character ${eid}'s partial ragdoll (roots: ` +
      `${roots.map((k) => `"${name(k)}"`).join(', ')}); ragdoll() it with that joint as a root, or hit() it`,
  )
}

/** Applies a hit now when the bodies exist (at the joint's last read-back position), else queues it. */
export function queueHit(
  rt: RagdollRuntime,
  joint: number,
  impulse: readonly [number, number, number],
): void {
  if (rt.instance) applyRagdollHit(rt.instance, rt.parents, rt.world, joint, impulse)
  else rt.impulses.push({ joint, impulse })
}

/**
 * Gets a ragdolling character up where it lies. The character entity moves under the ragdoll's pelvis, on the
 * ground (the physics world's highest +y plane; none: the entity keeps its height), turned to the body's
 * heading (src/physics/getUp.ts), which the ragdoll's pose does not notice (its joints are read back relative
 * to the entity). Then the pose blends from the ragdoll's into the animation as ragdoll_weight ramps back to 0,
 * cross-fading into the clip for the way it lies (`prone`, `supine`, else `clip`). Reports a 'ragdoll-get-up'
 * event with the choice. A ragdoll whose bodies are not spawned yet (ragdoll() this frame) has not moved: the
 * entity stays, and the facing is read from the animated pose. The bodies leave at weight 0. A partial ragdoll
 * blends back where it stands (cross-fading into `clip` when given), with no placement and no event.
 */
export function getUp(ctx: AnimationContext, eid: number, options?: GetUpOptions): void {
  checkCharacter(ctx, eid, 'getUp')
  const { Ragdoll, Pose } = ctx.stores
  const what = `getUp(${eid})`
  const o = optionsObject<GetUpOptions>(options, what)
  const play = { loop: 'once' as const, ...optionsObject<PlayOptions>(o.play, what, 'play') }
  const rateOption = o.rate
  const rate = rateOption === undefined ? Ragdoll.rate[eid]! : checkRate(what, rateOption)
  const fade = o.fadeSeconds ?? 0.3
  if (!(typeof fade === 'number' && Number.isFinite(fade) && fade >= 0)) {
    throw new AnimationError(
      'argument',
      `${what}: fadeSeconds ${showValue(fade)} s must be a finite number ≥ 0`,
    )
  }
  const asset = ctx.assets[Pose.asset[eid]!]!
  const clipOf = (ref: string | number | undefined, name: string): number => {
    if (ref === undefined) return -1
    const id = findClip(ctx, asset, ref, `${what}: ${name}`)
    playSettings(what, ctx.clips[id]!, play)
    return id
  }
  // Each option is read once (a getter could answer differently the second time).
  const refs = { clip: o.clip, prone: o.prone, supine: o.supine }
  const clips = {
    clip: clipOf(refs.clip, 'clip'),
    prone: clipOf(refs.prone, 'prone'),
    supine: clipOf(refs.supine, 'supine'),
  }
  const rt = ctx.ragdolls[eid]
  if (Ragdoll.active[eid] === RAGDOLL_OFF || !rt) {
    throw new AnimationError('argument', `${what}: character ${eid} is not ragdolling`)
  }
  if (rt.subtrees.length > 0) {
    // A partial ragdoll never left its feet: it blends back where it stands, into `clip` if given.
    if (clips.clip >= 0) crossFade(ctx, eid, refs.clip!, fade, play)
    Ragdoll.rate[eid] = rate
    Ragdoll.active[eid] = RAGDOLL_GETTING_UP
    return
  }
  const lying = lyingPlacement(ctx, eid, rt)
  const chosen = clips[lying.facing] >= 0 ? clips[lying.facing] : clips.clip
  const place = rt.instance ? rootLocal(ctx, eid, lying) : null
  const placed = place !== null && place.every((x) => Number.isFinite(x))
  // Everything is checked: from here on nothing throws.
  if (chosen >= 0)
    crossFade(ctx, eid, clips[lying.facing] >= 0 ? refs[lying.facing]! : refs.clip!, fade, play)
  if (placed) {
    const [x, y, z, qx, qy, qz, qw] = place
    setTransform(ctx, eid, { position: [x!, y!, z!], rotation: [qx!, qy!, qz!, qw!] })
  }
  Ragdoll.rate[eid] = rate
  Ragdoll.active[eid] = RAGDOLL_GETTING_UP
  const way = lying.facing === 'prone' ? 'face-down' : 'face-up'
  const clipText = chosen >= 0 ? `clip "${ctx.clips[chosen]!.clip.name}"` : 'no clip'
  ctx.events.push({
    step: ctx.step,
    entity: eid,
    character: eid,
    kind: 'ragdoll-get-up',
    message:
      `character ${eid} lies ${way} (its chest's belly side points ${lying.belly.toFixed(2)} down); ` +
      `getting up with ${clipText}${placed ? '' : ' where it stands (no bodies yet)'}`,
    facing: lying.facing,
    clipId: chosen,
    clip: chosen >= 0 ? ctx.clips[chosen]!.clip.name : '',
  })
}

/**
 * Where the character would stand up and how it lies, from the ragdoll's last read-back (its bodies), or from
 * the animated pose when the bodies are not spawned yet. Allocates (a public call).
 */
function lyingPlacement(ctx: AnimationContext, eid: number, rt: RagdollRuntime): GetUpPlacement {
  const { Pose } = ctx.stores
  const asset = ctx.assets[Pose.asset[eid]!]!
  const n = Pose.count[eid]!
  const parents = asset.jointParents
  const root = new Float64Array(WORLD_STRIDE)
  characterRootWorld(root, ctx.sceneGraph.store, eid, new Float64Array(WORLD_STRIDE), new Float32Array(10))
  const identity = new Float64Array(WORLD_STRIDE)
  identity[6] = 1
  identity[7] = 1
  const rest = forwardKinematics(new Float64Array(n * WORLD_STRIDE), asset.rest, 0, parents, n, identity, 0)
  let world = rt.world
  if (!rt.instance) {
    const base = Pose.base[eid]!
    world = forwardKinematics(
      new Float64Array(n * WORLD_STRIDE),
      ctx.pool.data,
      layerOffset(base, n, LAYER_ANIM),
      parents,
      n,
      root,
      0,
    )
  }
  const { pelvis, chest } = getUpJoints(
    rt.bodies.map((b) => b.parentBody),
    rt.bodies.map((b) => asset.nodeJoint[b.node]!),
  )
  return placeForGetUp(createGetUpPlacement(), world, rest, pelvis, chest, root, 0, groundHeight(ctx.physics))
}

/**
 * The entity's local transform (7 numbers: position, rotation) that puts it at the placement's world transform
 * under its parent (a root: the world). Keeps its scale.
 */
function rootLocal(ctx: AnimationContext, eid: number, at: GetUpPlacement): number[] {
  const nodes = ctx.sceneGraph.store
  const target = new Float64Array(WORLD_STRIDE)
  target.set(at.position, 0)
  target.set(at.rotation, 3)
  target[7] = 1
  const parent = new Float64Array(WORLD_STRIDE)
  const p = nodes.parent[eid]!
  if (p === 0) {
    parent[6] = 1
    parent[7] = 1
  } else decomposeMatrix(parent, 0, nodes.world, p * 16)
  const local = new Float32Array(10)
  localFromWorld(local, 0, parent, 0, target, 0)
  return Array.from(local.subarray(0, 7))
}

/** Removes a character's bodies and constraints from the physics world and turns its ragdoll off. */
export function dropRagdoll(ctx: AnimationContext, eid: number): void {
  const rt = ctx.ragdolls[eid]
  if (rt?.instance) despawnRagdoll(ctx.physics, rt.instance)
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
