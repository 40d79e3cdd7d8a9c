/**
 * The public face of the plugin: the AnimationPlugin interface createAnimationPlugin returns (entry/plugin.ts),
 * and the option and result types its calls take.
 */
import type { World } from 'bitecs'
import type { PhysicsWorld } from '../src/physics/api.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { Clip, ClipMarker } from '../src/clip/clip.ts'
import type { SceneGraph, SceneNodeStore } from '../components/SceneNode.ts'
import type { AnimationEvent, AnimationStores, AssetHandle } from '../plugin/context.ts'
import type { AnimationPluginOptions } from '../plugin/options.ts'
import type { PlayOptions } from '../plugin/playback.ts'
import type { RagdollOptions } from '../plugin/ragdolls.ts'
import type { GetUpOptions } from '../plugin/getUp.ts'
import type { RagdollMotorOptions, RagdollWeightOptions } from '../plugin/ragdollControl.ts'
import type { HitOptions } from '../plugin/hitReactions.ts'
import type { LayerOptions, LayerReference, LayerSelector, MaskEntry } from '../plugin/layers.ts'
import type { BlendSpaceOptions, BlendSpacePoint } from '../plugin/blendSpaces.ts'
import type { LayerInfo } from '../plugin/layerControl.ts'
import type { LayerMode } from '../systems/layerState.ts'
import type { MorphWeightsView } from '../plugin/morphs.ts'
import type { CharacterTransform } from '../plugin/placement.ts'
import type { RootMotionDelta, RootMotionMode, RootMotionOptions } from '../plugin/rootMotion.ts'
import type { PaletteLayout, PaletteSkin } from '../plugin/palette.ts'
import type { LodOptions } from '../plugin/lod.ts'
import type { RetargetOptions } from '../plugin/retarget.ts'
import type { TranslationMode } from '../src/retarget/plan.ts'
import type { PoseAccess, PoseStage } from '../systems/poseEdits.ts'
import type {
  AimIKOptions,
  ChainIKOptions,
  FeetIKOptions,
  IKOptions,
  IKTarget,
  IKWeightOptions,
  TwoBoneIKOptions,
} from '../plugin/ik.ts'

import type {
  AnimationGraph,
  GraphBlendSpaceState,
  GraphClipState,
  GraphCondition,
  GraphLayer,
  GraphParameter,
  GraphState,
  GraphTransition,
} from '../plugin/graphTypes.ts'
import type { GraphStateInfo } from '../plugin/graphs.ts'

export type {
  AimIKOptions,
  ChainIKOptions,
  FeetIKOptions,
  IKOptions,
  IKTarget,
  IKWeightOptions,
  PoseAccess,
  PoseStage,
  TwoBoneIKOptions,
  AnimationGraph,
  GraphBlendSpaceState,
  GraphClipState,
  GraphCondition,
  GraphLayer,
  GraphParameter,
  GraphState,
  GraphStateInfo,
  GraphTransition,
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
  RetargetOptions,
  TranslationMode,
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
  /**
   * A clip's markers (name or asset clip index, looked up as addMarker does) on an added asset: the file's
   * (`extras.markers`) and those addMarker put there, in time order (equal times: the file's first, then in the
   * order they were added), as new objects. Throws AnimationError 'argument' for an asset not added or an
   * unknown clip.
   */
  markers(asset: AnimationAsset | AssetHandle, clip: string | number): ClipMarker[]
  /**
   * Adds a clip made in code or converted from another loader's (`buildClip`, `clipFromThree` from
   * 'ecs-anim/three') to an added asset's clips, after the file's; returns its clip id. Characters play it by
   * name like the file's clips. Part of the asset as snapshots see it: restore needs the same clips added in the
   * same order. Throws AnimationError 'argument', changing nothing, for an asset not added, a value buildClip
   * did not make, a clip added before or named as one of the asset's, channels that target nodes the asset does
   * not have (by index and name), or a clip that drives none of its joints and morph weights.
   */
  addClip(asset: AnimationAsset | AssetHandle, clip: Clip): number
  /**
   * Bakes clips of `source` onto `target` (added assets or their handles) and returns their names, now clips of
   * `target` that every character of it plays like its own (play, crossFade, layers, blend spaces, events,
   * root motion). For every mapped joint, its world rotation relative to its rest pose follows the source
   * joint's; unmapped joints keep their rest pose; translations by `translation`. Baked once, here: the step is
   * unchanged. The clips carry the source clips' markers and are part of the target as snapshots see it:
   * restore needs the same retarget calls. Throws AnimationError 'argument', changing nothing, for a bad
   * argument, a name clash, an 'auto' map that leaves the hips or more than a third of the source's animated
   * joints unmatched (naming them). docs/guides/retargeting.md.
   */
  retarget(
    source: AnimationAsset | AssetHandle,
    target: AnimationAsset | AssetHandle,
    options?: RetargetOptions,
  ): string[]
  /** The map `retarget(source, target, { map: 'auto' })` would use, `{ [targetJoint]: sourceJoint }` by name. */
  retargetMap(
    source: AnimationAsset | AssetHandle,
    target: AnimationAsset | AssetHandle,
  ): Record<string, string>
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
   * A no-op when the character already plays or fades to `clip`, whatever the duration and options, except a
   * 'once' clip that has finished: that one is faded into again from its start (an emote replayed). On a layer
   * (`{ layer }` > 0) that shows nothing (never used, or stopped), the layer fades in from the layers below: its
   * weight ramps from 0 to the weight it is set to (1 unless setLayer said otherwise).
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
  /**
   * Moves a layer's clip time (default layer 0) to `seconds`; the next step shows it. A jump, not playback: the
   * markers and clip ends between the old time and the new one report no events (`markers` lists them for a
   * game that wants to); the steps after report the play head's motion from the new time on.
   */
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
   * Sets the animation clock's rate, as three.js's `mixer.timeScale`: from the next step, every clip, cross-fade,
   * layer fade and weight ramp moves by `scale` × dt seconds a step (root motion and events follow the clips); 0
   * freezes them, 1 (the default) is the normal rate. Ragdoll physics, levels of detail and the step counter keep
   * the fixed step. In hash() and snapshots. Throws AnimationError 'argument', changing nothing, for a scale that
   * is not a finite number ≥ 0.
   */
  setTimeScale(scale: number): void
  /** The animation clock's rate (setTimeScale); 1 by default. */
  readonly timeScale: number
  /**
   * Gives a character a state machine (`graph`, plain JSON: AnimationGraph), or with null takes it away (its
   * layers play on as they are, for play and crossFade again). Graph layer i drives plugin layer i, configured
   * as setLayer takes its mode, mask and weight, and each layer cuts to its entry state ('state-enter'). Each
   * step, before anything advances, every graph layer in turn takes the first transition in list order whose
   * `from` is its state or 'any' (never to the state it is in or heading to from 'any' unless
   * canTransitionToSelf), whose conditions all hold and whose exit time (the normalized time of the state it
   * leaves, ≥) is reached; a running transition may be interrupted only as its `interruption` says ('none',
   * the default; 'current' or 'next': transitions from the state it leaves or goes to, and from 'any'; 'both'),
   * by a transition to another state than the one it goes to (unless canTransitionToSelf).
   * A transition is the layer call a game would make at that step: a crossFade into a clip state (with its play
   * options), a fading playBlendSpace into a blend-space state (its parameter follows the graph's from then on),
   * a stopLayer into an empty state, over its duration; on a layer other than 0 the weight fades to the graph
   * layer's. Triggers it uses are used up; triggers left are cleared when the step ends. It reports
   * 'transition-start', 'state-enter', and when its fade ends 'state-exit', 'transition-end' (GraphEvent). One
   * graph object may drive any number of characters (compiled once per asset). Part of the simulation (hash(),
   * snapshots). Throws AnimationError 'argument' naming the path of any mistake (`layers[0].transitions[3].when[0]:
   * no parameter "sped"`): an unknown key, clip, joint, parameter, state, type or operator, a value out of range,
   * an empty state or additive mode on layer 0; 'capacity' when the layers do not fit; changing nothing.
   */
  setGraph(character: number, graph: AnimationGraph | null): void
  /**
   * Sets a parameter of the character's graph (a finite number for 'float', an integer for 'int', true or false
   * for 'bool'); the next step reads it. Allocation-free, for a call every frame. Throws AnimationError
   * 'argument' for a character without a graph, an unknown name, a trigger or a value of the wrong type.
   */
  setParameter(character: number, name: string, value: number | boolean): void
  /**
   * Sets a trigger of the character's graph: the next step's first transition that needs it uses it up; if none
   * does, it is cleared when that step ends. Throws AnimationError 'argument' for a character without a graph or
   * a name that is not a trigger.
   */
  trigger(character: number, name: string): void
  /** Where a graph layer (by name) of the character is: its state, time, normalized time and transition (a copy). */
  getState(character: number, layer: string): GraphStateInfo
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
  /**
   * Adds a pose stage: `stage(pose)` runs once every step, after the stages added before it, on the freshly
   * composed animated pose (after layers, morph weights and root motion; before the ragdoll and the world
   * matrices), also for a paused clip or a pose levels of detail hold, so edits never build up (see PoseAccess).
   * Its edits are what the ragdoll hand-off and motors see, and are in hash() and snapshots. A stage that throws
   * is caught and reported ('pose-stage-error'); the characters it edited keep the pose the layers made. It may
   * not call step, restore, addCharacter, removeCharacter or dispose. Returns the function that removes it.
   * Stages are the game's code: a snapshot does not hold them, so a restore needs the same stages added.
   */
  addPoseStage(stage: PoseStage): () => void
  /**
   * Sets (null removes) a character's built-in IK solver `name`, from the next step, run after the game's pose
   * stages: 'two-bone' (a hand or foot reaches a target, its parent and grandparent bending towards an optional
   * pole), 'aim' (a joint's axis turns to a target, spread over a chain of ancestors, within yaw and pitch
   * limits), 'chain' (FABRIK or CCD over any chain) or 'feet' (each foot on the ground under it, aligned to its
   * slope, the pelvis lowered so both reach). Targets are world points or scene nodes ({ entity }). The weight
   * ramps like a layer's; everything is deterministic and in hash() and snapshots, but a 'feet' ground
   * function (a restore needs the same setIK call). Throws AnimationError for a bad value, changing nothing.
   */
  setIK(character: number, name: string, options: IKOptions | null): void
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
