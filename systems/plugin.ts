import type { World } from 'bitecs'
import { addComponent, addEntity, entityExists, hasComponent, removeComponent, removeEntity } from 'bitecs'
import { AnimationError } from '../src/errors.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { pathOffset } from '../src/clip/poseLayout.ts'
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
import type { AnimationContext, AnimationStores, RegisteredAsset, RegisteredClip } from './context.ts'
import { createAdvanceCrossFadesSystem } from './advanceCrossFades.ts'
import { createSampleClipsSystem } from './sampleClips.ts'
import { createStepRagdollsSystem } from './stepRagdolls.ts'
import { applyPoseToSceneGraph, createBlendPosesSystem } from './blendPoses.ts'
import { createPropagateTransformsSystem } from './propagateTransforms.ts'
import { hashAnimationState } from './hashState.ts'
import type { RotationMode } from '../src/clip/clip.ts'

export interface AnimationPluginOptions {
  /**
   * Length of every store: all entity ids in the world that the plugin touches (characters, joints, nodes the
   * game attaches) must be below it. Default 16384. Ids are used directly as indices, so worlds with
   * versioned entity ids need a capacity above the versioned values, or no versioning.
   */
  capacity?: number
  /** Fixed step in seconds. Default 1/60. */
  dt?: number
  /** Upper bound of the shared pose pool, in joint slots (a character uses 5 per joint). Default 4·capacity. */
  maxPoseSlots?: number
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
  crossFade(character: number, clip: string | number, durationSeconds: number, options?: PlayOptions): void
  removeCharacter(character: number): void
  /** State hash (16 hex digits) of everything the plugin simulates; equal bits give equal hashes. */
  hash(): string
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
  const maxPoseSlots = options.maxPoseSlots ?? capacity * 4
  const stores: AnimationStores = {
    Pose: createPoseStore(capacity),
    Sampler: createSamplerStore(capacity),
    CrossFade: createCrossFadeStore(capacity),
    Ragdoll: createRagdollStore(capacity),
  }
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
    step: 0,
  }
  const { Pose, Sampler, CrossFade, Ragdoll } = stores
  const nodes = sceneGraph.store

  const blendPoses = createBlendPosesSystem(ctx)
  const systems = [
    createAdvanceCrossFadesSystem(ctx),
    createSampleClipsSystem(ctx),
    createStepRagdollsSystem(ctx),
    blendPoses,
    createPropagateTransformsSystem(ctx),
  ] as const
  const handles = new Map<AnimationAsset, AssetHandle>()
  let disposed = false

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
    blendPoses.reserve(n)
    // The rest pose is the character's pose until a clip plays.
    applyPoseToSceneGraph(nodes, data, jointEids, layerOffset(base, n, LAYER_ANIM), base, n)
    return eid
  }

  function resetCrossFade(eid: number): void {
    CrossFade.fromClip[eid] = -1
    CrossFade.fromTime[eid] = 0
    CrossFade.fromSpeed[eid] = 0
    CrossFade.fromLoop[eid] = 0
    CrossFade.blend[eid] = 0
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
    Sampler.clip[eid] = clip.id
    Sampler.speed[eid] = s.speed
    Sampler.loop[eid] = s.loop
    Sampler.rotation[eid] = s.rotation
    Sampler.time[eid] = wrapStart(s.phase, clip.clip.duration, s.loop)
    Sampler.lastTime[eid] = NaN
    // The next step samples the start time itself; time advances from the step after.
    Sampler.reset[eid] = Sampler.reset[eid]! | SAMPLER_HOLD
    ctx.binding[eid] = bindClip(ctx, clip, Pose.asset[eid]!)
  }

  function play(eid: number, clipRef: string | number, o: PlayOptions = {}): void {
    character(eid, 'play')
    const clip = ctx.clips[findClip(ctx, ctx.assets[Pose.asset[eid]!]!, clipRef, 'play')]!
    const s = playSettings(`play(${eid}, "${clip.clip.name}")`, clip, o)
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
    if (durationSeconds === 0 || current < 0) {
      play(eid, clip.id, o)
      return
    }
    if (current === clip.id && CrossFade.active[eid] === 0) return
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
      ctx.fromBinding[eid] = ctx.binding[eid]
      cursors.copyWithin(half, 0, half)
    }
    CrossFade.blend[eid] = 0
    CrossFade.duration[eid] = durationSeconds
    CrossFade.active[eid] = 1
    data.set(ctx.assets[Pose.asset[eid]!]!.rest, layerOffset(base, n, LAYER_TO))
    startClip(eid, clip, s)
    cursors.fill(0, 0, half)
  }

  function removeCharacter(eid: number): void {
    character(eid, 'removeCharacter')
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const jointEids = ctx.pool.joints
    // Children first, so every removal leaves a valid graph.
    for (let j = n - 1; j >= 0; j--) removeEntity(world, jointEids[base + j]!)
    freePoseSlots(ctx.pool, base, POSE_LAYERS * n)
    removeComponent(world, eid, Pose, Sampler, CrossFade, Ragdoll)
    removeEntity(world, eid)
    ctx.cursors[eid] = undefined
    ctx.binding[eid] = undefined
    ctx.fromBinding[eid] = undefined
    Sampler.clip[eid] = -1
    CrossFade.active[eid] = 0
    Ragdoll.weight[eid] = 0
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
    const j = index >= 0 && index < asset.nodeJoint.length ? asset.nodeJoint[index]! : -1
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
    for (const system of systems) system(world)
    ctx.step++
  }

  function dispose(): void {
    if (disposed) return
    for (const eid of [...characterIds()]) removeCharacter(eid)
    disposed = true
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
    hash: () => hashAnimationState(ctx, [...characterIds()]),
    dispose,
  }
}

function isHandle(x: AnimationAsset | AssetHandle): x is AssetHandle {
  return 'asset' in x && typeof (x as AssetHandle).id === 'number'
}

function wrapStart(phase: number, duration: number, loop: number): number {
  if (loop === 0 || !(duration > 0)) return phase
  const period = loop === 2 ? 2 * duration : duration
  return phase - Math.floor(phase / period) * period
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
