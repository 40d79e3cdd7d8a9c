import { AnimationError, showValue } from '../src/errors.ts'
import { optionsObject, type OptionNames } from './checks.ts'
import {
  createGetUpPlacement,
  getUpJoints,
  placeForGetUp,
  type GetUpPlacement,
} from '../src/physics/getUp.ts'
import {
  decomposeMatrix,
  forwardKinematics,
  localFromWorld,
  WORLD_STRIDE,
} from '../src/physics/kinematics.ts'
import { POSE_ANIM, poseOffset } from '../components/Pose.ts'
import { characterRootWorld } from '../systems/ragdollSpawn.ts'
import { RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import type { GetUpFacing } from '../systems/state.ts'
import { checkCharacter } from './characters.ts'
import { crossFade, PLAY_OPTIONS, playSettings, type PlayOptions } from './playback.ts'
import { findClip } from './assets.ts'
import { checkClipFits } from './clipRig.ts'
import { setTransform } from './placement.ts'
import { checkRate } from './ragdolls.ts'

/** Getting up from a ragdoll where it lies (src/physics/getUp.ts does the placement's maths). */

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

const GET_UP_OPTIONS: OptionNames<GetUpOptions> = {
  clip: true,
  prone: true,
  supine: true,
  fadeSeconds: true,
  rate: true,
  play: true,
}

/**
 * Gets a ragdolling character up where it lies. The character entity moves under the ragdoll's pelvis, on the
 * ground (the physics world's highest +y plane; none: the entity keeps its height), turned to the body's
 * heading (src/physics/getUp.ts), which the ragdoll's pose does not notice (its joints are read back relative
 * to the entity). Then the pose blends from the ragdoll's into the animation as ragdoll_weight ramps back to 0,
 * cross-fading into the clip for the way it lies (`prone`, `supine`, else `clip`). Reports a 'ragdoll-get-up'
 * event with the choice. A ragdoll whose bodies are not spawned yet (ragdoll() this frame) has not moved: the
 * entity stays, and the facing is read from the animated pose. The bodies leave at weight 0. A partial ragdoll
 * blends back where it stands (cross-fading into `clip` when given), with no placement; its event says
 * 'standing'. A hit reaction's own recovery is no getUp() call and reports nothing.
 */
export function getUp(ctx: AnimationContext, eid: number, options?: GetUpOptions): void {
  checkCharacter(ctx, eid, 'getUp')
  const { Ragdoll, Pose } = ctx.stores
  const what = `getUp(${eid})`
  const o = optionsObject<GetUpOptions>(options, what, GET_UP_OPTIONS)
  const play = { loop: 'once' as const, ...optionsObject<PlayOptions>(o.play, what, PLAY_OPTIONS, 'play') }
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
    checkClipFits(ctx, ctx.clips[id]!, asset.id, `${what}: ${name}`)
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
  const clipText = (id: number): string => (id >= 0 ? `clip "${ctx.clips[id]!.clip.name}"` : 'no clip')
  if (rt.subtrees.length > 0) {
    // A partial ragdoll never left its feet: it blends back where it stands, into `clip` if given, and
    // reports that it stood (`prone` and `supine` do not apply).
    if (clips.clip >= 0) crossFade(ctx, eid, refs.clip!, fade, play)
    Ragdoll.rate[eid] = rate
    Ragdoll.active[eid] = RAGDOLL_GETTING_UP
    reportGetUp(
      ctx,
      eid,
      'standing',
      clips.clip,
      `character ${eid} stands (a partial ragdoll); blending back with ${clipText(clips.clip)}`,
    )
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
  reportGetUp(
    ctx,
    eid,
    lying.facing,
    chosen,
    `character ${eid} lies ${way} (its chest's belly side points ${lying.belly.toFixed(2)} down); ` +
      `getting up with ${clipText(chosen)}${placed ? '' : ' where it stands (no bodies yet)'}`,
  )
}

/** Appends getUp's 'ragdoll-get-up' event (GetUpEvent): how the character lay and the clip chosen (-1: none). */
function reportGetUp(
  ctx: AnimationContext,
  eid: number,
  facing: GetUpFacing,
  clipId: number,
  message: string,
): void {
  ctx.events.push({
    step: ctx.step,
    entity: eid,
    character: eid,
    kind: 'ragdoll-get-up',
    message,
    facing,
    clipId,
    clip: clipId >= 0 ? ctx.clips[clipId]!.clip.name : '',
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
      poseOffset(base, n, POSE_ANIM),
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
  return placeForGetUp(
    createGetUpPlacement(),
    world,
    rest,
    pelvis,
    chest,
    root,
    0,
    ctx.physics.groundHeight(),
  )
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
