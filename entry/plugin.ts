import type { World } from 'bitecs'
import { observe, onRemove } from 'bitecs'
import type { World as PhysicsWorld } from 'cannon-es'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { AnimationError, showValue } from '../src/errors.ts'
import type { SceneGraph, SceneNodeStore } from '../components/SceneNode.ts'
import { createScheduleLodSystem } from '../systems/scheduleLod.ts'
import { createAdvanceCrossFadesSystem } from '../systems/advanceCrossFades.ts'
import { createSampleClipsSystem } from '../systems/sampleClips.ts'
import { createSampleLayersSystem } from '../systems/sampleLayers.ts'
import { createSampleMorphWeightsSystem } from '../systems/sampleMorphWeights.ts'
import { createExtractRootMotionSystem } from '../systems/extractRootMotion.ts'
import { createStepRagdollsSystem } from '../systems/stepRagdolls.ts'
import { createBlendPosesSystem } from '../systems/blendPoses.ts'
import { createPropagateTransformsSystem } from '../systems/propagateTransforms.ts'
import { createReportWorldFaultsSystem } from '../systems/reportWorldFaults.ts'
import { createAdvanceClockSystem } from '../systems/advanceClock.ts'
import type { AnimationContext, AnimationEvent, AnimationStores, AssetHandle } from '../plugin/context.ts'
import { checkLive, createContext, type AnimationPluginOptions } from '../plugin/options.ts'
import { addAsset, addMarker } from '../plugin/assets.ts'
import {
  addCharacter,
  characterIds,
  forgetJoint,
  jointEntity,
  joints,
  releaseCharacter,
  removeCharacter,
} from '../plugin/characters.ts'
import { clipId, crossFade, play, type PlayOptions } from '../plugin/playback.ts'
import { applyImpulse, ragdoll, type RagdollOptions } from '../plugin/ragdolls.ts'
import { getUp, type GetUpOptions } from '../plugin/getUp.ts'
import { hashAnimationState } from '../plugin/hash.ts'
import {
  setRagdollMotors,
  setRagdollWeight,
  type RagdollMotorOptions,
  type RagdollWeightOptions,
} from '../plugin/ragdollControl.ts'
import { hit, type HitOptions } from '../plugin/hitReactions.ts'
import {
  setLayer,
  stopLayer,
  type LayerOptions,
  type LayerReference,
  type LayerSelector,
  type MaskEntry,
} from '../plugin/layers.ts'
import {
  playBlendSpace,
  setBlendParameter,
  type BlendSpaceOptions,
  type BlendSpacePoint,
} from '../plugin/blendSpaces.ts'
import {
  getLayer,
  getLayers,
  pause,
  resume,
  setSpeed,
  setTime,
  type LayerInfo,
} from '../plugin/layerControl.ts'
import type { LayerMode } from '../systems/layerState.ts'
import { getMorphWeights, morphWeights, setMorphWeights, type MorphWeightsView } from '../plugin/morphs.ts'
import { getTransform, setTransform, type CharacterTransform } from '../plugin/placement.ts'
import {
  rootMotionDelta,
  setRootMotion,
  type RootMotionDelta,
  type RootMotionMode,
  type RootMotionOptions,
} from '../plugin/rootMotion.ts'
import { paletteLayout, writePalette, type PaletteLayout, type PaletteSkin } from '../plugin/palette.ts'
import { lodRate, setLod, setLodCamera, type LodOptions } from '../plugin/lod.ts'
import { snapshotAnimation, snapshotAnimationInto } from '../snapshot/write.ts'
import { restoreAnimation } from '../snapshot/apply.ts'

export type {
  LodOptions,
  PaletteLayout,
  PaletteSkin,
  MorphWeightsView,
  BlendSpaceOptions,
  BlendSpacePoint,
  LayerInfo,
  LayerMode,
  LayerOptions,
  LayerReference,
  LayerSelector,
  MaskEntry,
  AnimationPluginOptions,
  AssetHandle,
  CharacterTransform,
  PlayOptions,
  RagdollOptions,
  RagdollWeightOptions,
  RagdollMotorOptions,
  HitOptions,
  GetUpOptions,
  RootMotionDelta,
  RootMotionMode,
  RootMotionOptions,
}

/**
 * What createAnimationPlugin returns: the calls, the stores, and the systems of one fixed step. Entity ids are
 * bitecs ids of the plugin's world. Every call checks its arguments and throws AnimationError before changing
 * anything; after dispose() every call but hash() and dispose() throws 'argument'. Times are in seconds,
 * rotations unit quaternions [x, y, z, w].
 */
export interface AnimationPlugin {
  /** The bitecs world the plugin was created on. */
  readonly world: World
  /** Fixed step, seconds (the `dt` option, default 1/60): what one step() simulates. */
  readonly dt: number
  /**
   * The plugin's stores, and the scene graph's SceneNode store (world matrices to read, local transforms of the
   * game's own nodes to write). Live arrays indexed by entity id, never replaced.
   */
  readonly stores: AnimationStores & {
    /** The SceneNode store: the same object as `sceneGraph.store`. */
    SceneNode: SceneNodeStore
  }
  /** The scene graph every character's nodes live in; add the game's own nodes with addSceneNode. */
  readonly sceneGraph: SceneGraph
  /** The systems in the order one fixed step runs them; each takes the world. */
  readonly systems: readonly ((world: World) => void)[]
  /** Runs one fixed step: every system in order. */
  step(): void
  /** Registers an asset's skeleton and clips (once per asset; registering the same object again returns it). */
  addAsset(asset: AnimationAsset): AssetHandle
  /**
   * Puts a marker named `name` at `seconds` on a clip (name or asset clip index, looked up as play does) of an
   * added asset, for every character that plays it: the step reports a 'marker' event each time the play head
   * meets it (see AnimationEvent). `seconds` is in [0, duration]. Markers are part of the asset as snapshots
   * see it: restore needs the same markers added. Throws AnimationError 'argument' for an asset not added, an
   * unknown clip, a time off the clip or a name that is not a non-empty string, changing nothing.
   */
  addMarker(asset: AnimationAsset | AssetHandle, clip: string | number, seconds: number, name: string): void
  /** Creates a character entity (a SceneNode root) and one SceneNode entity per asset node; returns its id. */
  addCharacter(asset: AnimationAsset | AssetHandle, options?: { parent?: number }): number
  /** Joint entity ids of a character, in joint order (parents first). */
  joints(character: number): Int32Array
  /** Joint entity of a character's glTF node, by node index or name. */
  jointEntity(character: number, node: number | string): number
  /** Clip id by name or asset clip index, looked up among the character's (or asset's) clips, then all. */
  clipId(characterOrAsset: number | AssetHandle, clip: string | number): number
  /**
   * Cuts to `clip` (name or asset clip index): no fade, sampling restarts from the rest pose, and the next step
   * shows the clip at its start time. Throws AnimationError 'argument' for an entity that is not a character, an
   * unknown clip or a bad option.
   */
  play(character: number, clip: string | number, options?: PlayOptions): void
  /**
   * Fades from what the character shows now into `clip` over `durationSeconds` (finite, ≥ 0; 0 is a cut).
   * A no-op when the character already plays or fades to `clip`, whatever the duration and options.
   */
  crossFade(character: number, clip: string | number, durationSeconds: number, options?: PlayOptions): void
  /**
   * Configures layer `layer` (an integer in [0, 8)) of a character: weight (ramped over fadeSeconds), mode
   * ('override' or 'additive'), mask (joints with their subtrees, or null for the whole body) and an additive
   * layer's reference pose. Layers apply in index order over the layers below; a layer may be configured before
   * it plays anything. Throws AnimationError for a bad value, changing nothing.
   */
  setLayer(character: number, layer: number, options: LayerOptions): void
  /** Fades a layer (not 0) out over `fadeSeconds` (default 0) and empties it; its mode and mask stay. */
  stopLayer(character: number, layer: number, fadeSeconds?: number): void
  /**
   * Plays a blend space on a layer (default 0): clips at points in 1D (`at` a number) or 2D ([x, y]), blended by
   * the parameter (gradient-band weights), phase-locked unless `sync: false`.
   */
  playBlendSpace(character: number, points: readonly BlendSpacePoint[], options: BlendSpaceOptions): void
  /** Moves a blend space's parameter (a number, or [x, y]); the weights change from the next step. */
  setBlendParameter(
    character: number,
    value: number | readonly [number, number],
    options?: LayerSelector,
  ): void
  /** Sets a layer's playback rate (default layer 0), keeping its time. */
  setSpeed(character: number, speed: number, options?: LayerSelector): void
  /** Moves a layer's clip time (default layer 0) to `seconds`; the next step shows it. */
  setTime(character: number, seconds: number, options?: LayerSelector): void
  /** Holds a layer's time (default layer 0); resume lets it run again at its speed. */
  pause(character: number, options?: LayerSelector): void
  /** Lets a paused layer's time run again. */
  resume(character: number, options?: LayerSelector): void
  /** What a layer shows: clip, time, speed, weight, mode, fade, blend space (a copy). */
  getLayer(character: number, layer: number): LayerInfo
  /** Layer 0 and every other layer the character has used, in index order. */
  getLayers(character: number): LayerInfo[]
  /**
   * Sets the morph weights the game gives a mesh node (node name or glTF node index; one finite number per
   * morph target), e.g. expression sliders, shown over what the clips do; null gives the node back to its clips.
   */
  setMorphWeights(character: number, node: string | number, weights: readonly number[] | null): void
  /** A mesh node's morph weights this step (a copy). */
  getMorphWeights(character: number, node: string | number): number[]
  /** The character's morph weights as live arrays for a renderer, or null when its asset has no morph targets. */
  morphWeights(character: number): MorphWeightsView | null
  /**
   * Where each skin's matrices sit in a character's skinning palette (see writePalette): a character, or an
   * asset already added (or its handle). Throws AnimationError 'argument' for anything else.
   */
  paletteLayout(owner: number | AnimationAsset | AssetHandle): PaletteLayout
  /**
   * Writes a character's skinning palette into `out` from float `offset` (default 0): for every skin of its
   * asset (asset order), each joint in the file's `skin.joints` order (three.js's `Skeleton.bones` order), the
   * joint's world matrix (the last step's) times its inverse bind matrix, 16 floats column-major, ready for GPU
   * skinning: three's `Skeleton.boneMatrices` for the same pose. World space (the character's placement
   * included). A call for the renderer after the step; allocation-free. Throws AnimationError 'argument' for an
   * `out` that is not a Float32Array with `16 × paletteLayout(character).matrices` floats of room at `offset`,
   * or an entity that is not a character, writing nothing.
   */
  writePalette(out: Float32Array, character: number, offset?: number): void
  /**
   * Update-rate levels of detail: characters nearer than `near` (world units) to the LOD camera are sampled
   * every step, those up to `far` every 2nd step and the rest every 4th, holding their pose in between; their
   * clip time, fades and events advance every step, so each sampled step shows exactly what a full-rate run
   * shows. The steps a character samples are spread by a hash of its entity id. Characters with layers or an
   * active ragdoll always run at full rate. null turns it off. Part of the simulation (hash(), snapshots).
   * Throws AnimationError 'argument' for a near that is not finite and ≥ 0, a far below near, or a camera that
   * is not three finite numbers, changing nothing.
   */
  setLod(options: LodOptions | null): void
  /**
   * Moves the camera levels of detail measure distances from, for the next step on: an input of the
   * simulation like any call (hash(), snapshots). Allocation-free, for a call every frame. Throws
   * AnimationError 'argument' for a position that is not three finite numbers.
   */
  setLodCamera(position: readonly [number, number, number]): void
  /** The rate the last step gave a character: 1 (sampled every step), 2 or 4; 1 with levels of detail off. */
  lodRate(character: number): number
  /**
   * Removes the character entity and its joint entities, frees its pose slots and its ragdoll bodies (bitecs's
   * removeEntity on the character does the same). Throws AnimationError 'argument' for an entity that is not a
   * character of this plugin.
   */
  removeCharacter(character: number): void
  /**
   * Places a character: the given parts of its entity's local transform (position in world units, rotation a
   * quaternion [x, y, z, w], normalized; scale), applied by the next step. Throws AnimationError for values
   * that are not finite in float32 (past ±3.4e38), a zero rotation or a zero scale, changing nothing.
   */
  setTransform(character: number, transform: Partial<CharacterTransform>): void
  /** A character's placement (copies): its entity's local position, rotation and scale. */
  getTransform(character: number): CharacterTransform
  /**
   * Root motion, from the next step: with mode 'horizontal' (ground-plane travel and turn) or 'full', the
   * joint's motion (default: the asset's root motion joint, the highest skin joint its clips translate, e.g. the
   * Fox's b_Hip_01) is taken out of its pose and moves the character entity each step, summed by weight over
   * cross-fades, layers and blend spaces, without a snap back at loop wraps, paused while a ragdoll drives the
   * body; `apply: false` moves nothing and leaves the motion to rootMotionDelta. 'off' (the default) gives the
   * pose its motion back. Throws AnimationError for a bad mode, joint or flag, changing nothing.
   */
  setRootMotion(character: number, options: RootMotionOptions): void
  /** The last step's root motion, in the character's own space (see RootMotionDelta); identity when off. */
  rootMotionDelta(character: number): RootMotionDelta
  /**
   * Hands the character to physics: bodies appear at its animated pose on the next step, moving as the animation
   * moved, and ragdoll_weight ramps 0 → 1 at the rate. With `root`, only that subtree goes physical, pinned to
   * its animated parent (a partial ragdoll). Throws for a bad description or option, changing nothing.
   */
  ragdoll(character: number, options?: RagdollOptions): void
  /**
   * A hit on a ragdolling character: world impulse (N·s) at a joint (node name or glTF node index). Throws
   * AnimationError 'argument' when the character is not ragdolling, or for a joint no body of its partial ragdoll
   * carries (hit() makes such a joint's limb physical instead).
   */
  applyImpulse(character: number, joint: string | number, impulse: readonly [number, number, number]): void
  /**
   * Gets a ragdolling character up where it lies: its entity moves under the fallen pelvis, on the ground, with
   * the body's heading; the pose blends from the ragdoll's into the animation, cross-fading into the clip for
   * the way it lies (`prone`, `supine`, else `clip`), and a 'ragdoll-get-up' event reports the choice. Bodies
   * leave at weight 0. Throws AnimationError 'argument' when the character is not ragdolling or for a bad
   * option, changing nothing.
   */
  getUp(character: number, options?: GetUpOptions): void
  /**
   * Sets the physics weight of some joints (their subtrees; default all) of a ragdolling character: each joint
   * ramps to its own weight at the character's rate, and ragdoll_weight reports the largest. Throws
   * AnimationError 'argument' for a bad weight or joint or a character not ragdolling, changing nothing.
   */
  setRagdollWeight(character: number, options: RagdollWeightOptions): void
  /**
   * Powers a ragdolling character's joints: each joint's motor drives its body towards the animated pose at the
   * strength given (0 limp, 1 tracks the clip), for the bodies under `joints` (default all); `holdRoot` holds
   * the root body where the animation puts it. Throws AnimationError 'argument' for a bad option or a character
   * not ragdolling, changing nothing.
   */
  setRagdollMotors(character: number, options: RagdollMotorOptions): void
  /**
   * A hit reaction: world impulse (N·s) at a joint. Not ragdolling, the limb it belongs to (or `root`'s
   * subtree) goes physical with the hit, pinned to its animated parent, and blends back to the animation over
   * `recoverSeconds` on its own. Ragdolling, the hit applies to the ragdoll. Throws AnimationError for a bad
   * joint, impulse or option, changing nothing.
   */
  hit(
    character: number,
    joint: string | number,
    impulse: readonly [number, number, number],
    options?: HitOptions,
  ): void
  /** The cannon-es world ragdolls live in. */
  readonly physics: PhysicsWorld
  /**
   * What the steps reported, oldest first: clip events (loops, a 'once' clip's end, markers), problems the
   * step caught and handled (e.g. an exploded ragdoll) and getUp's choices; see AnimationEvent. Clear it when
   * read (`events.length = 0`). A clip event record removed from the queue may be reused by a later step for a
   * new event: copy what you keep (`{ ...e }`).
   */
  readonly events: AnimationEvent[]
  /**
   * Clip events not queued because `events` already held MAX_QUEUED_EVENTS (the game never cleared it); 0 for
   * a game that reads its events.
   */
  readonly droppedEvents: number
  /** State hash (16 hex digits) of everything the plugin simulates; equal bits give equal hashes. */
  hash(): string
  /**
   * The whole simulation state as a compact binary snapshot (layout in snapshot/format.ts): restoring it, into
   * this plugin later (a rewind) or into a fresh world and plugin (same options, same assets and markers added
   * in the same order), gives the same entity ids and the same hash after every later step.
   */
  snapshot(): Uint8Array
  /**
   * Writes the snapshot into `buffer` from its start and returns its length in bytes (restore
   * `buffer.subarray(0, length)`). Allocates nothing in steady state, so a ring of the last N steps' snapshots
   * costs only the copy. Throws AnimationError('capacity') naming the length needed when the buffer is shorter
   * (the plugin is unchanged; the buffer's bytes are then unspecified).
   */
  snapshotInto(buffer: Uint8Array): number
  /**
   * Restores a snapshot. Into a running plugin it rewinds to the snapshot's step: the plugin's characters,
   * joints, clips, layers, fades, ragdolls, morph weights and events as they were, with the same entity ids;
   * characters made since are removed, removed ones come back; the game's own entities, components and scene
   * nodes are left as they are. Into a fresh world and plugin it recreates everything, entity index included.
   * Throws AnimationError('snapshot') for another format version, other assets, markers or options, a truncated
   * or corrupt buffer, or an entity id the plugin needs that a game entity holds, changing nothing.
   */
  restore(snapshot: Uint8Array): void
  /** Removes every character, stops the worker threads and forgets everything; the plugin cannot be used afterwards. */
  dispose(): void
}

/**
 * Plugs the animation components and systems into an existing bitecs world. Everything it makes — stores,
 * queries, pools, registries — belongs to this call's result; two plugins on two worlds share nothing.
 * Throws AnimationError('argument') for bad options, before anything registers with the world.
 */
export function createAnimationPlugin(world: World, options?: AnimationPluginOptions): AnimationPlugin {
  const ctx = guard('createAnimationPlugin', () => createContext(world, options))
  // Restore recomputes world matrices with the step's own pass (the same bits).
  const propagate = createPropagateTransformsSystem(ctx)
  const systems = [
    createScheduleLodSystem(ctx),
    createAdvanceCrossFadesSystem(ctx),
    createSampleClipsSystem(ctx),
    createSampleLayersSystem(ctx),
    createSampleMorphWeightsSystem(ctx),
    createExtractRootMotionSystem(ctx),
    createStepRagdollsSystem(ctx),
    createBlendPosesSystem(ctx),
    propagate,
    createReportWorldFaultsSystem(ctx),
    createAdvanceClockSystem(ctx),
  ] as const
  const { Pose } = ctx.stores
  const nodes = ctx.sceneGraph.store
  // A character leaves through removeCharacter, through bitecs's removeEntity on it (a game's own cleanup), or
  // through removeComponent(world, eid, Pose): all three reach the first observer, which frees what the plugin
  // holds for it, so no system ever reads a freed pose slice and no body is left in the physics world.
  const unobserve = [
    observe(world, onRemove(Pose), (eid: number) => releaseCharacter(ctx, eid)),
    observe(world, onRemove(nodes), (eid: number) => forgetJoint(ctx, eid)),
  ]

  const plugin: AnimationPlugin = {
    world,
    dt: ctx.dt,
    stores: { ...ctx.stores, SceneNode: nodes },
    sceneGraph: ctx.sceneGraph,
    systems,
    step() {
      checkLive(ctx, 'step')
      for (let i = 0; i < systems.length; i++) systems[i]!(world)
    },
    addAsset: (asset) => guard('addAsset', () => addAsset(ctx, asset)),
    addMarker: (asset, clip, seconds, name) =>
      guard('addMarker', () => addMarker(ctx, asset, clip, seconds, name)),
    addCharacter: (asset, o) => guard('addCharacter', () => addCharacter(ctx, asset, o)),
    joints: (eid) => guard('joints', () => joints(ctx, eid)),
    jointEntity: (eid, node) => guard('jointEntity', () => jointEntity(ctx, eid, node)),
    clipId: (owner, clip) => guard('clipId', () => clipId(ctx, owner, clip)),
    play: (eid, clip, o) => guard('play', () => play(ctx, eid, clip, o)),
    crossFade: (eid, clip, seconds, o) => guard('crossFade', () => crossFade(ctx, eid, clip, seconds, o)),
    removeCharacter: (eid) => guard('removeCharacter', () => removeCharacter(ctx, eid)),
    setLayer: (eid, k, o) => guard('setLayer', () => setLayer(ctx, eid, k, o)),
    stopLayer: (eid, k, seconds) => guard('stopLayer', () => stopLayer(ctx, eid, k, seconds)),
    playBlendSpace: (eid, points, o) => guard('playBlendSpace', () => playBlendSpace(ctx, eid, points, o)),
    setBlendParameter: (eid, v, o) => guard('setBlendParameter', () => setBlendParameter(ctx, eid, v, o)),
    setSpeed: (eid, v, o) => guard('setSpeed', () => setSpeed(ctx, eid, v, o)),
    setTime: (eid, v, o) => guard('setTime', () => setTime(ctx, eid, v, o)),
    pause: (eid, o) => guard('pause', () => pause(ctx, eid, o)),
    resume: (eid, o) => guard('resume', () => resume(ctx, eid, o)),
    getLayer: (eid, k) => guard('getLayer', () => getLayer(ctx, eid, k)),
    getLayers: (eid) => guard('getLayers', () => getLayers(ctx, eid)),
    setMorphWeights: (eid, node, w) => guard('setMorphWeights', () => setMorphWeights(ctx, eid, node, w)),
    getMorphWeights: (eid, node) => guard('getMorphWeights', () => getMorphWeights(ctx, eid, node)),
    morphWeights: (eid) => guard('morphWeights', () => morphWeights(ctx, eid)),
    setLod: (o) => guard('setLod', () => setLod(ctx, o)),
    setLodCamera(position) {
      try {
        setLodCamera(ctx, position)
      } catch (error) {
        throw asAnimationError('setLodCamera', error)
      }
    },
    lodRate: (eid) => guard('lodRate', () => lodRate(ctx, eid)),
    paletteLayout: (owner) => guard('paletteLayout', () => paletteLayout(ctx, owner)),
    writePalette(out, eid, offset) {
      // guard() without its closure: a per-frame call for every character must not allocate.
      try {
        writePalette(ctx, out, eid, offset)
      } catch (error) {
        throw asAnimationError('writePalette', error)
      }
    },
    ragdoll: (eid, o) => guard('ragdoll', () => ragdoll(ctx, eid, o)),
    applyImpulse: (eid, joint, impulse) =>
      guard('applyImpulse', () => applyImpulse(ctx, eid, joint, impulse)),
    getUp: (eid, o) => guard('getUp', () => getUp(ctx, eid, o)),
    setRagdollWeight: (eid, o) => guard('setRagdollWeight', () => setRagdollWeight(ctx, eid, o)),
    hit: (eid, joint, impulse, o) => guard('hit', () => hit(ctx, eid, joint, impulse, o)),
    setRagdollMotors: (eid, o) => guard('setRagdollMotors', () => setRagdollMotors(ctx, eid, o)),
    setTransform: (eid, t) => guard('setTransform', () => setTransform(ctx, eid, t)),
    getTransform: (eid) => guard('getTransform', () => getTransform(ctx, eid)),
    setRootMotion: (eid, o) => guard('setRootMotion', () => setRootMotion(ctx, eid, o)),
    rootMotionDelta: (eid) => guard('rootMotionDelta', () => rootMotionDelta(ctx, eid)),
    physics: ctx.physics,
    events: ctx.events,
    get droppedEvents() {
      return ctx.droppedEvents
    },
    hash: () => hashAnimationState(ctx, characterIds(ctx)),
    snapshot() {
      checkLive(ctx, 'snapshot')
      return snapshotAnimation(ctx)
    },
    snapshotInto(buffer) {
      checkLive(ctx, 'snapshotInto')
      // Not through guard: its closure would be the one allocation of a ring of snapshots.
      try {
        return snapshotAnimationInto(ctx, buffer)
      } catch (error) {
        throw asAnimationError('snapshotInto', error)
      }
    },
    restore(bytes) {
      checkLive(ctx, 'restore')
      guard('restore', () => restoreAnimation(ctx, bytes, propagate))
    },
    dispose() {
      if (ctx.disposed) return
      for (const eid of characterIds(ctx)) removeCharacter(ctx, eid)
      for (const off of unobserve) off()
      ctx.parallel?.dispose()
      ctx.disposed = true
    },
  }
  contexts.set(plugin, ctx)
  return plugin
}

/**
 * Runs a public call. The calls check every value they read and throw AnimationError before changing anything;
 * a value that throws when read (a Proxy, a throwing getter) surfaces here as AnimationError('argument') too,
 * with what it threw as `cause`.
 */
function guard<T>(what: string, call: () => T): T {
  try {
    return call()
  } catch (error) {
    throw asAnimationError(what, error)
  }
}

/** A call's error as an AnimationError: itself, or 'argument' for a throw while reading an argument. */
function asAnimationError(what: string, error: unknown): AnimationError {
  if (error instanceof AnimationError) return error
  const message = error instanceof Error ? error.message : showValue(error)
  return new AnimationError('argument', `${what}: reading an argument threw: ${message}`, { cause: error })
}

const contexts = new WeakMap<AnimationPlugin, AnimationContext>()

/**
 * A plugin's internals (stores, pools, registries), for the project's own tools and tests; not part of the
 * public entry. Throws for an object that no createAnimationPlugin call made.
 */
export function contextOf(plugin: AnimationPlugin): AnimationContext {
  const ctx = contexts.get(plugin)
  if (!ctx) throw new Error('contextOf: not an animation plugin')
  return ctx
}
