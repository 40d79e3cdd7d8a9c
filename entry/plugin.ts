import type { World } from 'bitecs'
import {
  addComponent,
  addEntity,
  commitRemovals,
  entityExists,
  hasComponent,
  observe,
  onRemove,
  registerQuery,
  removeEntity,
} from 'bitecs'
import { AnimationError } from '../src/errors.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { pathOffset } from '../src/math/poseLayout.ts'
import {
  allocatePoseSlots,
  createPosePool,
  createPoseStore,
  freePoseSlots,
  JOINT_STRIDE,
  LAYER_ANIM,
  LAYER_FROM,
  LAYER_TO,
  layerOffset,
  POSE_LAYERS,
} from '../components/Pose.ts'
import {
  advancePhase,
  createSamplerStore,
  LOOP_MODES,
  LOOP_REPEAT,
  ROTATION_SLERP,
  ROTATION_SQUAD,
  SAMPLER_HOLD,
  SAMPLER_RESET_REST,
  type LoopMode,
} from '../components/Sampler.ts'
import { createCrossFadeStore } from '../components/CrossFade.ts'
import { createRagdollStore, DEFAULT_RAGDOLL_RATE } from '../components/Ragdoll.ts'
import {
  addSceneNode,
  createSceneGraph,
  type SceneGraph,
  type SceneNodeStore,
} from '../components/SceneNode.ts'
import type { AnimationContext, AnimationStores, RegisteredAsset, RegisteredClip } from '../plugin/context.ts'
import { planFadePaths } from '../plugin/context.ts'
import { BLEND_S, BLEND_T } from '../src/clip/blendLayers.ts'
import { createAdvanceCrossFadesSystem } from '../systems/advanceCrossFades.ts'
import { createSampleClipsSystem } from '../systems/sampleClips.ts'
import { createStepRagdollsSystem } from '../systems/stepRagdolls.ts'
import { applyPoseToSceneGraph, createBlendPosesSystem } from '../systems/blendPoses.ts'
import { createPropagateTransformsSystem } from '../systems/propagateTransforms.ts'
import { hashAnimationState } from '../plugin/hash.ts'
import { restoreAnimation, snapshotAnimation, type SnapshotHooks } from '../snapshot/snapshot.ts'
import { Body, Plane, Vec3, World as PhysicsWorld } from 'cannon-es'
import { applyRagdollHit } from '../src/physics/ragdoll.ts'
import {
  generateRagdollDescription,
  resolveRagdollDescription,
  type RagdollDescription,
  type RagdollSkeletonView,
  type ResolvedBody,
} from '../src/physics/description.ts'
import { RAGDOLL_FALLING, RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { RagdollBroadphase } from '../src/physics/broadphase.ts'
import { prepareSquad, type RotationMode } from '../src/clip/clip.ts'

export interface AnimationPluginOptions {
  /**
   * Length of every store: all entity ids in the world that the plugin touches (characters, joints, nodes the
   * game attaches) must be below it. Default 16384. Ids are used directly as indices, so worlds with
   * versioned entity ids need a capacity above the versioned values, or no versioning.
   */
  capacity?: number
  /** Fixed step in seconds. Default 1/60. */
  dt?: number
  /**
   * Upper bound of the shared pose pool, in joint slots (a character uses 5 per joint). Default 5·capacity: every
   * joint is an entity, so the pool cannot run out before the entity ids do. It grows on demand up to this.
   */
  maxPoseSlots?: number
  /** Ragdoll physics. */
  physics?: {
    /**
     * The game's own cannon-es world, so ragdolls collide with its bodies. The plugin steps it with
     * `world.step(dt)` once per fixed step; do not step it elsewhere. Default: a world of the plugin's own.
     */
    world?: PhysicsWorld
    /** Gravity of the plugin's own world, world units per s². Default [0, -9.82, 0]. */
    gravity?: readonly [number, number, number]
    /** Height of a static ground plane (normal +y) in the plugin's own world, or false for none. Default 0. */
    ground?: number | false
  }
}

export interface RagdollOptions {
  /** The bodies and limits; default: generated from the character's skeleton (see generateRagdollDescription). */
  description?: RagdollDescription
  /** ragdoll_weight ramp rate per second, > 0. Default: the character's current rate (5 unless changed). */
  rate?: number
  /** A hit at the hand-off: world impulse (N·s) at a joint (node name or glTF node index). */
  impulse?: { joint: string | number; impulse: readonly [number, number, number] }
}

export interface GetUpOptions {
  /** A clip to cross-fade into while the ragdoll weight ramps back to 0. */
  clip?: string | number
  /** Seconds for that cross-fade. Default 0.3. */
  fadeSeconds?: number
  /** Ramp rate back to 0, per second, > 0. Default: the current rate. */
  rate?: number
  /** Play options of the clip (default loop 'once'). */
  play?: PlayOptions
}

export interface PlayOptions {
  /** Playback rate, finite; 1 normal, 0 paused, negative plays backwards. Default 1. */
  speed?: number
  /** Default 'repeat'. */
  loop?: LoopMode
  /** Start time, seconds into the clip, finite (wrapped or clamped by the loop mode). Default 0. */
  time?: number
  /** How LINEAR rotation channels are sampled. Default 'slerp'. */
  rotation?: RotationMode
}

export interface AssetHandle {
  readonly id: number
  readonly asset: AnimationAsset
  /** Clip ids in the asset's file order; `clips[i]` is the asset's clip i. */
  readonly clips: readonly number[]
}

export interface AnimationPlugin {
  readonly world: World
  readonly dt: number
  readonly stores: AnimationStores & { SceneNode: SceneNodeStore }
  readonly sceneGraph: SceneGraph
  /** The systems in the order one fixed step runs them; each takes the world. */
  readonly systems: readonly ((world: World) => void)[]
  /** The plugin's internals, for tools and tests; treat as read-only. */
  readonly context: AnimationContext
  /** Runs one fixed step: every system in order. */
  step(): void
  /** Registers an asset's skeleton and clips (once per asset; registering the same object again returns it). */
  addAsset(asset: AnimationAsset): AssetHandle
  /** Creates a character entity (a SceneNode root) and one SceneNode entity per asset node; returns its id. */
  addCharacter(asset: AnimationAsset | AssetHandle, options?: { parent?: number }): number
  /** Joint entity ids of a character, in joint order (parents first). */
  joints(character: number): Int32Array
  /** Joint entity of a character's glTF node, by node index or name. */
  jointEntity(character: number, node: number | string): number
  /** Clip id by name or asset clip index, looked up among the character's (or asset's) clips, then all. */
  clipId(characterOrAsset: number | AssetHandle, clip: string | number): number
  play(character: number, clip: string | number, options?: PlayOptions): void
  /**
   * Fades from what the character shows now into `clip` over `durationSeconds` (finite, ≥ 0; 0 is a cut).
   * A no-op when the character already plays or fades to `clip`, whatever the duration and options.
   */
  crossFade(character: number, clip: string | number, durationSeconds: number, options?: PlayOptions): void
  removeCharacter(character: number): void
  /**
   * Hands the character to physics: bodies appear at its animated pose on the next step, moving as the animation
   * moved, and ragdoll_weight ramps 0 → 1 at the rate. Throws for a bad description or option, changing nothing.
   */
  ragdoll(character: number, options?: RagdollOptions): void
  /** A hit on a ragdolling character: world impulse (N·s) at a joint (node name or glTF node index). */
  applyImpulse(character: number, joint: string | number, impulse: readonly [number, number, number]): void
  /** Blends back from physics to animation (optionally cross-fading into a get-up clip); bodies leave at weight 0. */
  getUp(character: number, options?: GetUpOptions): void
  /** The cannon-es world ragdolls live in. */
  readonly physics: PhysicsWorld
  /** What the step caught and handled (e.g. an exploded ragdoll), oldest first; clear it when read. */
  readonly events: AnimationContext['events']
  /** State hash (16 hex digits) of everything the plugin simulates; equal bits give equal hashes. */
  hash(): string
  /**
   * The whole simulation state as a compact binary snapshot (layout in snapshot/snapshot.ts): restoring it into a
   * fresh world and plugin (same options, same assets added in the same order) gives the same entity ids and
   * the same hash after every later step.
   */
  snapshot(): Uint8Array
  /**
   * Restores a snapshot into this plugin, which must be fresh, on a world in which no entity was ever created.
   * Throws AnimationError('snapshot') for another format version, other assets or options, a truncated or
   * corrupt buffer, or a used world, changing nothing.
   */
  restore(snapshot: Uint8Array): void
  /** Removes every character and forgets everything; the plugin cannot be used afterwards. */
  dispose(): void
}

const DEFAULT_CAPACITY = 16384

/**
 * Plugs the animation components and systems into an existing bitecs world. Everything it makes — stores,
 * queries, pools, registries — belongs to this call's result; two plugins on two worlds share nothing.
 */
export function createAnimationPlugin(world: World, options: AnimationPluginOptions = {}): AnimationPlugin {
  const capacity = options.capacity ?? DEFAULT_CAPACITY
  const dt = options.dt ?? 1 / 60
  if (!Number.isInteger(capacity) || capacity < 2) {
    throw new AnimationError('argument', `createAnimationPlugin: capacity ${capacity} must be an integer ≥ 2`)
  }
  if (!(Number.isFinite(dt) && dt > 0)) {
    throw new AnimationError('argument', `createAnimationPlugin: dt ${dt} s must be a finite number > 0`)
  }
  const maxPoseSlots = options.maxPoseSlots ?? capacity * POSE_LAYERS
  if (!Number.isInteger(maxPoseSlots) || maxPoseSlots < 1) {
    throw new AnimationError(
      'argument',
      `createAnimationPlugin: maxPoseSlots ${maxPoseSlots} must be an integer ≥ 1`,
    )
  }
  const stores: AnimationStores = {
    Pose: createPoseStore(capacity),
    Sampler: createSamplerStore(capacity),
    CrossFade: createCrossFadeStore(capacity),
    Ragdoll: createRagdollStore(capacity),
  }
  // Everything that can throw comes before anything that registers with the world.
  const physics = options.physics?.world ?? createPhysicsWorld(options.physics ?? {})
  const sceneGraph = createSceneGraph(world, capacity)
  const ctx: AnimationContext = {
    world,
    dt,
    capacity,
    stores,
    sceneGraph,
    pool: createPosePool(Math.min(maxPoseSlots, 1024), maxPoseSlots),
    assets: [],
    clips: [],
    cursors: [],
    binding: [],
    fromBinding: [],
    fadePaths: [],
    step: 0,
    physics,
    physicsOwned: options.physics?.world === undefined,
    ragdolls: [],
    events: [],
  }
  const descriptions = new Map<number, ResolvedBody[]>()
  const { Pose, Sampler, CrossFade, Ragdoll } = stores
  const nodes = sceneGraph.store

  const blendPoses = createBlendPosesSystem(ctx)
  const systems = [
    createAdvanceCrossFadesSystem(ctx),
    createSampleClipsSystem(ctx),
    createStepRagdollsSystem(ctx),
    blendPoses,
    endStep(ctx, createPropagateTransformsSystem(ctx)),
  ] as const
  const handles = new Map<AnimationAsset, AssetHandle>()
  let disposed = false
  /**
   * Joint entity → its character (0 for every other entity), so a joint entity the game removes behind the
   * plugin's back is noticed (forgetJoint): the plugin then neither writes to nor removes an id that bitecs may
   * since have recycled for something else.
   */
  const jointOwner = new Int32Array(capacity)
  // A character leaves through removeCharacter, through bitecs's removeEntity on it (a game's own cleanup), or
  // through removeComponent(world, eid, Pose): all three reach the first observer, which frees what the plugin
  // holds for it, so no system ever reads a freed pose slice and no body is left in the physics world.
  const unobserve = [
    observe(world, onRemove(Pose), (eid: number) => releaseCharacter(eid)),
    observe(world, onRemove(nodes), (eid: number) => {
      if (jointOwner[eid] !== 0) forgetJoint(eid)
    }),
  ]

  const live = (what: string): void => {
    if (disposed) throw new AnimationError('argument', `${what}: the animation plugin was disposed`)
  }

  function character(eid: number, what: string): number {
    live(what)
    if (
      !Number.isInteger(eid) ||
      eid <= 0 ||
      eid >= capacity ||
      !entityExists(world, eid) ||
      !hasComponent(world, eid, Pose)
    ) {
      throw new AnimationError('argument', `${what}: entity ${eid} is not a character of this plugin`)
    }
    return eid
  }

  function addAsset(asset: AnimationAsset): AssetHandle {
    live('addAsset')
    const known = handles.get(asset)
    if (known) return known
    const registered = registerAsset(ctx, asset)
    const handle: AssetHandle = Object.freeze({ id: registered.id, asset, clips: registered.clipIds })
    handles.set(asset, handle)
    return handle
  }

  function resolveAsset(asset: AnimationAsset | AssetHandle): RegisteredAsset {
    const handle = isHandle(asset) ? asset : addAsset(asset)
    const registered = ctx.assets[handle.id]
    if (!registered || registered.asset !== handle.asset) {
      throw new AnimationError('argument', `asset handle ${handle.id} does not belong to this plugin`)
    }
    return registered
  }

  function addCharacter(assetOrHandle: AnimationAsset | AssetHandle, opts: { parent?: number } = {}): number {
    live('addCharacter')
    const asset = resolveAsset(assetOrHandle)
    const parent = opts.parent ?? 0
    if (parent !== 0 && (!entityExists(world, parent) || !hasComponent(world, parent, nodes))) {
      throw new AnimationError('argument', `addCharacter: parent ${parent} is not a SceneNode entity`)
    }
    const n = asset.jointNodes.length
    // Reserve pose slots first: if the pool is full nothing has been created yet.
    const base = allocatePoseSlots(ctx.pool, POSE_LAYERS * n)
    const created: number[] = []
    try {
      for (let i = 0; i <= n; i++) {
        const e = addEntity(world)
        created.push(e)
        if (e >= capacity) {
          throw new AnimationError(
            'capacity',
            `addCharacter: entity id ${e} is beyond the plugin's capacity ${capacity} ` +
              `(a character of ${asset.asset.source} needs ${n + 1} entities; raise the capacity option)`,
          )
        }
      }
    } catch (error) {
      for (const e of created.reverse()) removeEntity(world, e)
      freePoseSlots(ctx.pool, base, POSE_LAYERS * n)
      throw error
    }
    const eid = created[0]!
    addSceneNode(sceneGraph, eid, parent)
    const jointEids = ctx.pool.joints
    for (let j = 0; j < n; j++) {
      const e = created[j + 1]!
      const pj = asset.jointParents[j]!
      addSceneNode(sceneGraph, e, pj < 0 ? eid : created[pj + 1]!)
      jointEids[base + j] = e
      jointOwner[e] = eid
    }
    Pose.base[eid] = base
    Pose.count[eid] = n
    Pose.asset[eid] = asset.id
    Pose.changed[eid] = 0
    Pose.changedStep[eid] = 0
    const data = ctx.pool.data
    for (let layer = 0; layer < POSE_LAYERS; layer++) data.set(asset.rest, layerOffset(base, n, layer))
    addComponent(world, eid, Pose)
    Sampler.clip[eid] = -1
    Sampler.time[eid] = 0
    Sampler.speed[eid] = 1
    Sampler.loop[eid] = LOOP_REPEAT
    Sampler.rotation[eid] = ROTATION_SLERP
    Sampler.lastTime[eid] = NaN
    Sampler.reset[eid] = 0
    addComponent(world, eid, Sampler)
    resetCrossFade(eid)
    addComponent(world, eid, CrossFade)
    Ragdoll.weight[eid] = 0
    Ragdoll.rate[eid] = DEFAULT_RAGDOLL_RATE
    Ragdoll.active[eid] = 0
    Ragdoll.handle[eid] = -1
    addComponent(world, eid, Ragdoll)
    ctx.cursors[eid] = new Uint32Array(2 * maxChannels(asset))
    ctx.binding[eid] = undefined
    ctx.fromBinding[eid] = undefined
    // Everything blended until a fade plans its paths (planFadePaths).
    ctx.fadePaths[eid] = new Uint8Array(n).fill(BLEND_T | BLEND_S)
    blendPoses.reserve(n)
    blendPoses.track(eid)
    // The rest pose is the character's pose until a clip plays.
    applyPoseToSceneGraph(nodes, data, jointEids, layerOffset(base, n, LAYER_ANIM), base, n)
    return eid
  }

  function resetCrossFade(eid: number): void {
    CrossFade.fromClip[eid] = -1
    CrossFade.fromTime[eid] = 0
    CrossFade.fromSpeed[eid] = 0
    CrossFade.fromLoop[eid] = 0
    CrossFade.fromRotation[eid] = 0
    CrossFade.blend[eid] = 0
    CrossFade.steps[eid] = 0
    CrossFade.duration[eid] = 0
    CrossFade.active[eid] = 0
  }

  function maxChannels(asset: RegisteredAsset): number {
    let m = 1
    for (const id of asset.clipIds) m = Math.max(m, ctx.clips[id]!.clip.channels.length)
    return m
  }

  function clipId(owner: number | AssetHandle, clip: string | number): number {
    live('clipId')
    const asset =
      typeof owner === 'number' ? ctx.assets[Pose.asset[character(owner, 'clipId')]!]! : resolveAsset(owner)
    return findClip(ctx, asset, clip, 'clipId')
  }

  /** Validates play options; returns them resolved. Throws before anything changes. */
  function playSettings(what: string, clip: RegisteredClip, o: PlayOptions) {
    const speed = o.speed ?? 1
    if (!Number.isFinite(speed))
      throw new AnimationError('argument', `${what}: speed ${speed} is not a finite number`)
    const time = o.time ?? 0
    if (!Number.isFinite(time))
      throw new AnimationError('argument', `${what}: time ${time} s is not a finite number`)
    const loopName = o.loop ?? 'repeat'
    const loop = LOOP_MODES.indexOf(loopName)
    if (loop < 0) {
      throw new AnimationError(
        'argument',
        `${what}: loop "${loopName}" is not one of ${LOOP_MODES.join(', ')}`,
      )
    }
    const rotationName = o.rotation ?? 'slerp'
    if (rotationName !== 'slerp' && rotationName !== 'squad') {
      throw new AnimationError('argument', `${what}: rotation "${rotationName}" is not slerp or squad`)
    }
    const phase = loop === 0 ? Math.min(Math.max(time, 0), clip.clip.duration) : time
    return { speed, loop, phase, rotation: rotationName === 'squad' ? ROTATION_SQUAD : ROTATION_SLERP }
  }

  function startClip(eid: number, clip: RegisteredClip, s: ReturnType<typeof playSettings>): void {
    ensureCursors(eid, clip.clip.channels.length)
    Sampler.clip[eid] = clip.id
    Sampler.speed[eid] = s.speed
    Sampler.loop[eid] = s.loop
    Sampler.rotation[eid] = s.rotation
    // Squad's per-segment data is built on a clip's first squad use: here, outside the step.
    if (s.rotation === ROTATION_SQUAD) prepareSquad(clip.clip)
    // advancePhase from 0 wraps (or clamps) the start time exactly as playback would.
    Sampler.time[eid] = advancePhase(0, s.phase, clip.clip.duration, s.loop)
    Sampler.lastTime[eid] = NaN
    // The next step samples the start time itself; time advances from the step after.
    Sampler.reset[eid] = Sampler.reset[eid]! | SAMPLER_HOLD
    ctx.binding[eid] = bindClip(ctx, clip, Pose.asset[eid]!)
  }

  /**
   * Cursors are `| current clip's channels | outgoing clip's channels |`, sized for the asset's own clips; a clip
   * of another asset (bound by node name) may have more channels. Grows (keeping the outgoing half) before the
   * clip is set, outside the step.
   */
  function ensureCursors(eid: number, channels: number): void {
    const old = ctx.cursors[eid]!
    const half = old.length >>> 1
    if (channels <= half) return
    const grown = new Uint32Array(2 * channels)
    grown.set(old.subarray(half), channels)
    ctx.cursors[eid] = grown
  }

  function play(eid: number, clipRef: string | number, o: PlayOptions = {}): void {
    character(eid, 'play')
    const clip = ctx.clips[findClip(ctx, ctx.assets[Pose.asset[eid]!]!, clipRef, 'play')]!
    playClip(eid, clip, playSettings(`play(${eid}, "${clip.clip.name}")`, clip, o))
  }

  /** Cuts to `clip` (validated settings): no fade, sampling restarts from the rest pose. */
  function playClip(eid: number, clip: RegisteredClip, s: ReturnType<typeof playSettings>): void {
    resetCrossFade(eid)
    ctx.fromBinding[eid] = undefined
    Sampler.reset[eid] = SAMPLER_RESET_REST
    startClip(eid, clip, s)
    ctx.cursors[eid]!.fill(0)
  }

  function crossFade(
    eid: number,
    clipRef: string | number,
    durationSeconds: number,
    o: PlayOptions = {},
  ): void {
    character(eid, 'crossFade')
    const clip = ctx.clips[findClip(ctx, ctx.assets[Pose.asset[eid]!]!, clipRef, 'crossFade')]!
    const what = `crossFade(${eid}, "${clip.clip.name}", ${durationSeconds})`
    if (!(Number.isFinite(durationSeconds) && durationSeconds >= 0)) {
      throw new AnimationError(
        'argument',
        `${what}: duration ${durationSeconds} s must be a finite number ≥ 0`,
      )
    }
    const s = playSettings(what, clip, o)
    const current = Sampler.clip[eid]!
    // Already playing (or already fading to) this clip: nothing to do, whatever the duration, so a game may call
    // crossFade with the clip its state wants every frame (a cut to the same clip would restart it each time).
    if (current === clip.id) return
    if (durationSeconds === 0 || current < 0) {
      playClip(eid, clip, s)
      return
    }
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const data = ctx.pool.data
    const cursors = ctx.cursors[eid]!
    const half = cursors.length >>> 1
    const from = layerOffset(base, n, LAYER_FROM)
    // The fade starts from exactly what the character shows now: the ANIM layer.
    data.copyWithin(
      from,
      layerOffset(base, n, LAYER_ANIM),
      layerOffset(base, n, LAYER_ANIM) + n * JOINT_STRIDE,
    )
    if (CrossFade.active[eid] === 1) {
      // Mid-fade: freeze the current blend as the outgoing pose (no pop; the old clips stop).
      CrossFade.fromClip[eid] = -1
      ctx.fromBinding[eid] = undefined
    } else {
      CrossFade.fromClip[eid] = current
      CrossFade.fromTime[eid] = Sampler.time[eid]!
      CrossFade.fromSpeed[eid] = Sampler.speed[eid]!
      CrossFade.fromLoop[eid] = Sampler.loop[eid]!
      CrossFade.fromRotation[eid] = Sampler.rotation[eid]!
      ctx.fromBinding[eid] = ctx.binding[eid]
      cursors.copyWithin(half, 0, half)
    }
    CrossFade.blend[eid] = 0
    CrossFade.steps[eid] = 0
    CrossFade.duration[eid] = durationSeconds
    CrossFade.active[eid] = 1
    data.set(ctx.assets[Pose.asset[eid]!]!.rest, layerOffset(base, n, LAYER_TO))
    startClip(eid, clip, s)
    const now = ctx.cursors[eid]!
    now.fill(0, 0, now.length >>> 1)
    planFadePaths(ctx, eid)
  }

  function jointIndex(eid: number, node: string | number, what: string): number {
    const asset = ctx.assets[Pose.asset[eid]!]!
    const index = typeof node === 'number' ? node : asset.asset.nodes.findIndex((x) => x.name === node)
    const j =
      Number.isInteger(index) && index >= 0 && index < asset.nodeJoint.length ? asset.nodeJoint[index]! : -1
    if (j < 0) {
      throw new AnimationError(
        'argument',
        `${what}: ${asset.asset.source} has no scene node ${JSON.stringify(node)}`,
      )
    }
    return j
  }

  function checkImpulse(what: string, impulse: readonly number[]): readonly [number, number, number] {
    if (!Array.isArray(impulse) || impulse.length !== 3 || !impulse.every((x) => Number.isFinite(x))) {
      throw new AnimationError(
        'argument',
        `${what}: impulse ${JSON.stringify(impulse)} must be three finite numbers`,
      )
    }
    return [impulse[0]!, impulse[1]!, impulse[2]!]
  }

  function checkRate(what: string, rate: number): number {
    if (!(Number.isFinite(rate) && rate > 0)) {
      throw new AnimationError('argument', `${what}: rate ${rate} per second must be a finite number > 0`)
    }
    return rate
  }

  function ragdoll(eid: number, o: RagdollOptions = {}): void {
    character(eid, 'ragdoll')
    const what = `ragdoll(${eid})`
    const assetId = Pose.asset[eid]!
    const asset = ctx.assets[assetId]!
    const rate = o.rate === undefined ? Ragdoll.rate[eid]! : checkRate(what, o.rate)
    const hit = o.impulse
      ? { joint: jointIndex(eid, o.impulse.joint, what), impulse: checkImpulse(what, o.impulse.impulse) }
      : null
    const bodies = o.description
      ? resolveRagdollDescription(skeletonView(asset), o.description)
      : defaultDescription(asset)
    const existing = ctx.ragdolls[eid]
    if (Ragdoll.active[eid] === RAGDOLL_FALLING) {
      // Already down: only the hit applies.
      if (hit) applyImpulse(eid, o.impulse!.joint, o.impulse!.impulse)
      return
    }
    Ragdoll.rate[eid] = rate
    if (Ragdoll.active[eid] === RAGDOLL_GETTING_UP && existing?.instance) {
      // Falls again while getting up: keep the bodies, ramp back toward 1.
      Ragdoll.active[eid] = RAGDOLL_FALLING
      // The bodies exist, so the hit applies now (queued hits are only drained when bodies spawn).
      if (hit) applyImpulse(eid, o.impulse!.joint, o.impulse!.impulse)
      return
    }
    const n = Pose.count[eid]!
    ctx.ragdolls[eid] = {
      bodies,
      parents: asset.jointParents,
      instance: null,
      impulses: hit ? [hit] : [],
      world: new Float64Array(n * WORLD_STRIDE),
      previous: new Float64Array(n * WORLD_STRIDE),
      root: new Float64Array(WORLD_STRIDE),
      reported: existing?.reported ?? false,
    }
    Ragdoll.weight[eid] = 0
    Ragdoll.active[eid] = RAGDOLL_FALLING
    Ragdoll.handle[eid] = eid
  }

  function applyImpulse(
    eid: number,
    joint: string | number,
    impulse: readonly [number, number, number],
  ): void {
    character(eid, 'applyImpulse')
    const what = `applyImpulse(${eid})`
    const j = jointIndex(eid, joint, what)
    const v = checkImpulse(what, impulse)
    const rt = ctx.ragdolls[eid]
    if (Ragdoll.active[eid] === RAGDOLL_OFF || !rt) {
      throw new AnimationError(
        'argument',
        `${what}: character ${eid} is not ragdolling (call ragdoll() first)`,
      )
    }
    rt.impulses.push({ joint: j, impulse: v })
    if (rt.instance) {
      // Bodies exist: apply now, at the joint's last read-back world position.
      applyRagdollHit(rt.instance, rt.parents, rt.world, j, v)
      rt.impulses.length = 0
    }
  }

  function getUp(eid: number, o: GetUpOptions = {}): void {
    character(eid, 'getUp')
    const what = `getUp(${eid})`
    const rate = o.rate === undefined ? Ragdoll.rate[eid]! : checkRate(what, o.rate)
    const fade = o.fadeSeconds ?? 0.3
    if (Ragdoll.active[eid] === RAGDOLL_OFF) {
      throw new AnimationError('argument', `${what}: character ${eid} is not ragdolling`)
    }
    if (o.clip !== undefined) crossFade(eid, o.clip, fade, { loop: 'once', ...o.play })
    Ragdoll.rate[eid] = rate
    Ragdoll.active[eid] = RAGDOLL_GETTING_UP
  }

  function skeletonView(asset: RegisteredAsset): RagdollSkeletonView {
    const skin = asset.asset.skeletons[0]
    return { source: asset.asset.source, nodes: asset.asset.nodes, skinJoints: skin?.joints }
  }

  function defaultDescription(asset: RegisteredAsset): ResolvedBody[] {
    let resolved = descriptions.get(asset.id)
    if (!resolved) {
      const view = skeletonView(asset)
      resolved = resolveRagdollDescription(view, generateRagdollDescription(view))
      descriptions.set(asset.id, resolved)
    }
    return resolved
  }

  function dropRagdoll(eid: number): void {
    const rt = ctx.ragdolls[eid]
    if (rt?.instance) {
      for (const c of rt.instance.constraints) ctx.physics.removeConstraint(c)
      for (const b of rt.instance.bodies) ctx.physics.removeBody(b)
    }
    ctx.ragdolls[eid] = undefined
    Ragdoll.active[eid] = RAGDOLL_OFF
    Ragdoll.weight[eid] = 0
    Ragdoll.handle[eid] = -1
  }

  function removeCharacter(eid: number): void {
    character(eid, 'removeCharacter')
    // The entity goes; the Pose observer (releaseCharacter) frees the rest.
    removeEntity(world, eid)
  }

  /**
   * Frees what the plugin holds for a character that is leaving (see the observers): its ragdoll bodies and
   * constraints, its joint entities (children first, so every removal leaves a valid graph; a joint the game
   * removed already is skipped), its pose slots and its per-character arrays. Runs inside bitecs's removal,
   * while the entity still exists. Never throws.
   */
  function releaseCharacter(eid: number): void {
    const n = Pose.count[eid]!
    if (n === 0) return
    dropRagdoll(eid)
    const base = Pose.base[eid]!
    const jointEids = ctx.pool.joints
    for (let j = n - 1; j >= 0; j--) {
      const e = jointEids[base + j]!
      if (e === 0) continue
      jointOwner[e] = 0
      removeEntity(world, e)
    }
    freePoseSlots(ctx.pool, base, POSE_LAYERS * n)
    Pose.count[eid] = 0
    Pose.asset[eid] = -1
    ctx.cursors[eid] = undefined
    ctx.binding[eid] = undefined
    ctx.fromBinding[eid] = undefined
    ctx.fadePaths[eid] = undefined
    Sampler.clip[eid] = -1
    resetCrossFade(eid)
  }

  /**
   * The game removed joint entity `e` of a live character (or its SceneNode): its slot now names entity 0,
   * which the write-out skips. The character keeps animating its other joints.
   */
  function forgetJoint(e: number): void {
    const owner = jointOwner[e]!
    jointOwner[e] = 0
    const base = Pose.base[owner]!
    const n = Pose.count[owner]!
    const jointEids = ctx.pool.joints
    for (let j = 0; j < n; j++) if (jointEids[base + j] === e) jointEids[base + j] = 0
  }

  /** Records the owner of every joint of every character (after a restore, which builds characters itself). */
  function indexJoints(): void {
    jointOwner.fill(0)
    for (const eid of characterIds()) {
      const base = Pose.base[eid]!
      for (let j = 0; j < Pose.count[eid]!; j++) {
        const e = ctx.pool.joints[base + j]!
        if (e !== 0) jointOwner[e] = eid
      }
    }
  }

  function joints(eid: number): Int32Array {
    character(eid, 'joints')
    const base = Pose.base[eid]!
    return ctx.pool.joints.slice(base, base + Pose.count[eid]!)
  }

  function jointEntity(eid: number, node: number | string): number {
    character(eid, 'jointEntity')
    const asset = ctx.assets[Pose.asset[eid]!]!
    const index = typeof node === 'number' ? node : asset.asset.nodes.findIndex((x) => x.name === node)
    const j =
      Number.isInteger(index) && index >= 0 && index < asset.nodeJoint.length ? asset.nodeJoint[index]! : -1
    if (j < 0) {
      throw new AnimationError(
        'argument',
        `jointEntity(${eid}): ${asset.asset.source} has no scene node ${JSON.stringify(node)}`,
      )
    }
    return ctx.pool.joints[Pose.base[eid]! + j]!
  }

  function step(): void {
    live('step')
    for (let i = 0; i < systems.length; i++) systems[i]!(world)
  }

  function dispose(): void {
    if (disposed) return
    for (const eid of [...characterIds()]) removeCharacter(eid)
    for (const off of unobserve) off()
    disposed = true
  }

  const snapshotHooks: SnapshotHooks = {
    reserveJoints: (n) => blendPoses.reserve(n),
    bindClip: (clip, asset) => bindClip(ctx, ctx.clips[clip]!, asset),
    defaultDescription: (asset) => defaultDescription(ctx.assets[asset]!),
  }

  function* characterIds(): Generator<number> {
    for (let eid = 1; eid < capacity; eid++)
      if (entityExists(world, eid) && hasComponent(world, eid, Pose)) yield eid
  }

  return {
    world,
    dt,
    stores: { ...stores, SceneNode: nodes },
    sceneGraph,
    systems,
    context: ctx,
    step,
    addAsset,
    addCharacter,
    joints,
    jointEntity,
    clipId,
    play,
    crossFade,
    removeCharacter,
    ragdoll,
    applyImpulse,
    getUp,
    physics: ctx.physics,
    events: ctx.events,
    hash: () => hashAnimationState(ctx, [...characterIds()]),
    snapshot() {
      live('snapshot')
      return snapshotAnimation(ctx, snapshotHooks)
    },
    restore(bytes) {
      live('restore')
      restoreAnimation(ctx, snapshotHooks, bytes)
      indexJoints()
    },
    dispose,
  }
}

function isHandle(x: AnimationAsset | AssetHandle): x is AssetHandle {
  return 'asset' in x && typeof (x as AssetHandle).id === 'number'
}

/** Flattens the asset's scene into joints (parents first), builds the rest pose, registers its clips. */
function registerAsset(ctx: AnimationContext, asset: AnimationAsset): RegisteredAsset {
  const id = ctx.assets.length
  const order: number[] = []
  const parents: number[] = []
  const nodeJoint = new Int32Array(asset.nodes.length).fill(-1)
  const visit = (node: number, parentJoint: number): void => {
    if (nodeJoint[node] !== -1) {
      throw new AnimationError('gltf', `${asset.source}: node ${node} is reachable twice in the scene tree`)
    }
    nodeJoint[node] = order.length
    order.push(node)
    parents.push(parentJoint)
    const j = order.length - 1
    for (const child of asset.nodes[node]!.children) visit(child, j)
  }
  for (const root of asset.roots) visit(root, -1)
  if (order.length === 0) throw new AnimationError('gltf', `${asset.source}: the scene has no nodes`)
  if (order.length > 0xffff) {
    throw new AnimationError(
      'capacity',
      `${asset.source}: ${order.length} scene nodes; a character holds at most 65535`,
    )
  }
  const rest = new Float32Array(order.length * JOINT_STRIDE)
  order.forEach((node, j) => {
    const n = asset.nodes[node]!
    rest.set(n.translation, j * JOINT_STRIDE)
    rest.set(n.rotation, j * JOINT_STRIDE + 3)
    rest.set(n.scale, j * JOINT_STRIDE + 7)
  })
  const clipIds: number[] = []
  const registered: RegisteredAsset = {
    id,
    asset,
    jointNodes: Int32Array.from(order),
    jointParents: Int32Array.from(parents),
    nodeJoint,
    rest,
    clipIds,
  }
  ctx.assets.push(registered)
  for (const clip of asset.clips) {
    const rc: RegisteredClip = { id: ctx.clips.length, clip, asset: id, bindings: [] }
    ctx.clips.push(rc)
    clipIds.push(rc.id)
    bindClip(ctx, rc, id)
  }
  return registered
}

/**
 * The channel → pose-offset table of `clip` on characters of asset `assetId`: on its own asset by node index,
 * on another asset by node name (so a clip from an animation-only file drives a character with the same rig).
 */
function bindClip(ctx: AnimationContext, clip: RegisteredClip, assetId: number): Int32Array {
  const known = clip.bindings[assetId]
  if (known) return known
  const target = ctx.assets[assetId]!
  const owner = ctx.assets[clip.asset]!
  const byName = new Map<string, number>()
  if (assetId !== clip.asset)
    target.asset.nodes.forEach((n) => byName.has(n.name) || byName.set(n.name, n.index))
  const binding = new Int32Array(clip.clip.channels.length)
  clip.clip.channels.forEach((ch, c) => {
    const node = assetId === clip.asset ? ch.node : (byName.get(owner.asset.nodes[ch.node]?.name ?? '') ?? -1)
    const joint = node >= 0 && node < target.nodeJoint.length ? target.nodeJoint[node]! : -1
    const offset = pathOffset(ch.path)
    binding[c] = joint < 0 || offset < 0 ? -1 : joint * JOINT_STRIDE + offset
  })
  clip.bindings[assetId] = binding
  return binding
}

function findClip(
  ctx: AnimationContext,
  asset: RegisteredAsset,
  clip: string | number,
  what: string,
): number {
  if (typeof clip === 'number') {
    if (Number.isInteger(clip) && clip >= 0 && clip < asset.clipIds.length) return asset.clipIds[clip]!
    throw new AnimationError(
      'argument',
      `${what}: clip index ${clip} is out of range (${asset.asset.source} has ${asset.clipIds.length} clips)`,
    )
  }
  for (const id of asset.clipIds) if (ctx.clips[id]!.clip.name === clip) return id
  for (const rc of ctx.clips) if (rc.clip.name === clip) return rc.id
  const names = asset.clipIds.map((id) => `"${ctx.clips[id]!.clip.name}"`).join(', ')
  throw new AnimationError(
    'argument',
    `${what}: no clip named "${clip}" (${asset.asset.source} has ${names || 'none'})`,
  )
}

/**
 * The last system of a step also advances the step counter (the simulation clock), so a game that runs
 * `plugin.systems` in its own pipeline gets the same clock as `plugin.step()`.
 */
function endStep(ctx: AnimationContext, propagate: (world: World) => void) {
  return function propagateTransforms(world: World): void {
    propagate(world)
    ctx.step++
  }
}

function createPhysicsWorld(o: {
  gravity?: readonly [number, number, number]
  ground?: number | false
}): PhysicsWorld {
  const g = o.gravity ?? [0, -9.82, 0]
  if (!Array.isArray(g) || g.length !== 3 || !g.every((x) => Number.isFinite(x))) {
    throw new AnimationError(
      'argument',
      `createAnimationPlugin: gravity ${JSON.stringify(g)} must be three finite numbers`,
    )
  }
  const world = new PhysicsWorld({ gravity: new Vec3(g[0], g[1], g[2]) })
  // Sweep and prune that also drops the pairs of linked ragdoll bodies (src/physics/broadphase.ts).
  world.broadphase = new RagdollBroadphase(world)
  const ground = o.ground ?? 0
  if (ground !== false) {
    if (!Number.isFinite(ground)) {
      throw new AnimationError(
        'argument',
        `createAnimationPlugin: ground height ${ground} must be a finite number`,
      )
    }
    const plane = new Body({ mass: 0, type: Body.STATIC, position: new Vec3(0, ground, 0) })
    plane.addShape(new Plane())
    // Plane normals are +z; turn it to +y (a quarter turn about x, written out to avoid trigonometry).
    plane.quaternion.set(-Math.SQRT1_2, 0, 0, Math.SQRT1_2)
    world.addBody(plane)
  }
  return world
}
