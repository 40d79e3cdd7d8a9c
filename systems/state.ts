import type { World } from 'bitecs'
import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollBodies, RagdollMotors, RagdollPhysics } from '../src/physics/api.ts'
import type { Clip } from '../src/clip/clip.ts'
import type { DeltaClip } from '../src/clip/additiveClip.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { Rig } from '../src/skeleton/rig.ts'
import type { PosePool, PoseStore } from '../components/Pose.ts'
import type { SamplerStore } from '../components/Sampler.ts'
import type { CrossFadeStore } from '../components/CrossFade.ts'
import type { AnimLayerStore } from '../components/AnimLayer.ts'
import { RAGDOLL_OFF, type RagdollStore } from '../components/Ragdoll.ts'
import type { SceneGraph } from '../components/SceneNode.ts'
import type { LayerSlots, LayerStack } from './layerState.ts'
import type { ClipEventPool, EventPool } from './clipEvents.ts'
import type { GraphEventRecord } from './graphEvents.ts'
import type { GraphRun } from './graphState.ts'
import type { RootMotionState } from './rootMotion.ts'
import type { LodState } from './scheduleLod.ts'
import type { PoseEditState } from './poseEdits.ts'
import type { Parallel } from './workers/pool.ts'
import type { FusedCharacters } from './fusedCharacters.ts'

/**
 * An asset registered with a plugin: its rig (joints parents first, rest pose: src/skeleton/rig.ts) and the clips
 * it brought. Characters made from it share all of this.
 */
export interface RegisteredAsset extends Rig {
  readonly id: number
  readonly asset: AnimationAsset
  /**
   * Ids of the asset's clips: those that came with it, in file order (`asset.clips.length` of them), then
   * those addClip added and retarget made for it (plugin/addClip.ts, plugin/retarget.ts), in the order they
   * came. Only appended to.
   */
  readonly clipIds: number[]
}

/**
 * A clip registered with a plugin. `bindings[assetId]` maps each channel to its float offset inside a pose
 * layer (joint·10 + path offset), or -1 when the channel has nothing to drive on that asset (a missing node, or
 * morph weights, which poses do not carry). Bound to the owning asset at registration, to others (by node name)
 * the first time they play it.
 */
export interface RegisteredClip {
  readonly id: number
  readonly clip: Clip
  readonly asset: number
  readonly bindings: (Int32Array | undefined)[]
  /**
   * Per asset id: channel → offset in a character's morph weights (MorphState), -1 for channels that drive
   * no morph weights there; null when the clip drives none on that asset. Made on first use, like `bindings`.
   */
  readonly morphBindings: (Int32Array | null | undefined)[]
  /**
   * Additive differences of the clip (src/clip/additiveClip.ts) by `asset id/reference clip id/reference time`,
   * made on first use (plugin/layers.ts); null where one could not be made.
   */
  readonly deltas: Map<string, DeltaClip | null>
  /** Its markers in this plugin: the clip's own (from the file), then addMarker's. Replaced whole, never edited. */
  markers: ClipMarkers
}

/**
 * A clip's markers as a plugin has them, sorted by time (equal times: the clip's own in their order, then in
 * the order addMarker added them). `times[i]` (seconds, in [0, duration]) is `names[i]`'s; the step reads
 * `times` (src/clip/timeline.ts). Made outside the step; a change replaces the whole object.
 */
export interface ClipMarkers {
  readonly times: Float64Array
  readonly names: readonly string[]
}

/**
 * A character's morph weights (characters of an asset with morph targets): every mesh node's weights, nodes in
 * joint order (the rig's morphJoints and morphOffsets). `weights` is this step's result (sampleMorphWeights):
 * the file's defaults, each layer's clip-driven weights blended over them, then the game's own (`game`, set by
 * setMorphWeights; NaN where the game set none) over everything. `scratch` holds 4 working copies.
 */
export interface MorphState {
  readonly game: Float32Array
  readonly weights: Float32Array
  readonly scratch: Float32Array
}

/**
 * A plugin's stores (`plugin.stores`), each a bitecs component holding typed arrays, live and never replaced:
 * read them, and leave writing to the plugin's calls. Pose and Ragdoll are indexed by entity id, sized to the
 * plugin's capacity. Sampler, CrossFade and AnimLayer are indexed by layer slot: a character's layer 0 is its
 * entity id (so `Sampler.clip[eid]` is the clip it plays), its other layers' rows lie past the capacity
 * (systems/layerState.ts).
 */
export interface AnimationStores {
  /** Where each character's pose lives in the pose pool. */
  Pose: PoseStore
  /** Each layer's clip, and where it is in it (components/Sampler.ts: the track store). */
  Sampler: SamplerStore
  /** The fade inside each layer, while one runs, and the clip it leaves. */
  CrossFade: CrossFadeStore
  /** Each layer's weight and its ramp, mode, what it shows, pause and additive reference. */
  AnimLayer: AnimLayerStore
  /** Each character's ragdoll state and weight. */
  Ragdoll: RagdollStore
}
/**
 * The state one fixed step reads and writes: a plugin's stores, pools and registries. Systems take slices of it
 * (each declares its own input); the plugin's context (plugin/context.ts) extends it. Nothing is global.
 */
export interface StepState {
  readonly world: World
  /** Fixed step, seconds. */
  readonly dt: number
  /**
   * The animation clock's rate (setTimeScale): each step moves clips, fades and layer weight ramps by
   * timeScale · dt seconds; 1 normal, 0 frozen. Ragdoll physics and the step counter keep the fixed step.
   */
  timeScale: number
  /** Store length: every entity id the plugin touches must be below it. */
  readonly capacity: number
  readonly stores: AnimationStores
  readonly sceneGraph: SceneGraph
  readonly pool: PosePool
  readonly assets: RegisteredAsset[]
  readonly clips: RegisteredClip[]
  /**
   * Per layer slot (a character's id for its layer 0): key cursors of its tracks, `| its clip's channels | the
   * channels of the clip its fade leaves |` (one live slot per time track).
   */
  readonly cursors: (Uint32Array | undefined)[]
  /** Per layer slot: the channel bindings of its clip and of the clip its fade leaves (see RegisteredClip). */
  readonly binding: (Int32Array | undefined)[]
  readonly fromBinding: (Int32Array | undefined)[]
  /** The slots of layers other than 0 (systems/layerState.ts). */
  readonly layerSlots: LayerSlots
  /**
   * Per character, one byte per joint: which translations and scales its cross-fade blends (blendPoses'
   * `paths`, made by planFadePaths when a fade starts or a snapshot is restored; all set before a character's
   * first fade and after a repair).
   */
  readonly fadePaths: (Uint8Array | undefined)[]
  /**
   * Per character: bit B set when its pose buffer B (PREV, PHYS, FROM, TO; ANIM's bit is not used) may differ
   * from its asset's rest pose. Whatever writes one of those buffers sets its bit (sampleTracks, stepRagdolls,
   * crossFade, a restore); a clear bit promises the rest pose, so a snapshot need not compare the buffer and a
   * restore need not rewrite it. Not simulation state: it changes no step and no hash.
   */
  readonly posesUsed: Uint8Array
  /**
   * Per character with layers in use (a layer other than 0, or layer 0 configured): its layer stack
   * (systems/layerState.ts); undefined for the others, whose layer 0 is their rows alone.
   */
  readonly layers: (LayerStack | undefined)[]
  /** Per character with morph targets: its morph weights (see MorphState). */
  readonly morphs: (MorphState | undefined)[]
  /** Per character with root motion on (setRootMotion): its mode, joint and last delta (systems/rootMotion.ts). */
  readonly rootMotion: (RootMotionState | undefined)[]
  /**
   * Pose stages and IK: the game's stages, the edits they and the IK solvers made to each character's ANIM this
   * step (with what they covered), the solvers (systems/poseEdits.ts, systems/ikState.ts).
   */
  readonly poseEdits: PoseEditState
  /** Per character a state machine drives (setGraph): its run of the graph (systems/graphState.ts). */
  readonly graphs: (GraphRun | undefined)[]
  /** Whether `layers`, `rootMotion` and `graphs` ever held a character (see FeatureUse). */
  readonly uses: FeatureUse
  /**
   * The bitecs tag of characters with morph targets (added by attachCharacter): sampleMorphWeights' query, so
   * characters without morph targets cost it nothing.
   */
  readonly morphed: object
  /**
   * Key cursors sampleMorphWeights shares between characters (a cursor is a search hint; any value gives the
   * same sample): one per channel of the plugin's largest clip, grown by addAsset.
   */
  morphCursors: Uint32Array
  /** Fixed steps run so far; the simulation clock. */
  step: number
  /** Ragdoll physics (src/physics/api.ts): the cannon-es world ragdolls live in, stepped once per fixed step. */
  readonly physics: RagdollPhysics
  /** Per character with a ragdoll description in use: its runtime state. */
  readonly ragdolls: (RagdollRuntime | undefined)[]
  /**
   * What the step reports, oldest first: clip events and the problems it caught and handled (AnimationEvent);
   * the game reads and clears it. Clip events beyond MAX_QUEUED_EVENTS queued are counted in droppedEvents.
   */
  readonly events: AnimationEvent[]
  /** Clip events not queued because `events` already held MAX_QUEUED_EVENTS (a game that never clears it). */
  droppedEvents: number
  /** Clip event records for reuse once the game has removed them from `events` (systems/clipEvents.ts). */
  readonly eventPool: ClipEventPool
  /** State machine event records for reuse (systems/graphEvents.ts). */
  readonly graphEventPool: EventPool<GraphEventRecord>
  /** 1 once a character's non-finite pose was reported (blendPoses); cleared when it is removed and when one is added. */
  readonly poseReported: Uint8Array
  /** 1 once a world-matrix fault of the character (or of a node under none) was reported (reportWorldFaults). */
  readonly worldReported: Uint8Array
  /** Update-rate levels of detail: the settings and this step's schedule (systems/scheduleLod.ts). */
  readonly lod: LodState
  /** blendPoses' output scratch: 10 floats per joint of the largest character (grown outside the step). */
  blendScratch: Float32Array
  /**
   * The worker threads of the `workers` option (systems/workers/pool.ts), or null (0 workers, the default): then
   * every system runs as it always did, on this thread alone.
   */
  readonly parallel: Parallel | null
  /** The characters this step leaves to the fused pass, and where they sit in the scene order. */
  readonly fused: FusedCharacters
}

/**
 * Whether any character ever had a layer stack, root motion or a graph: set where one is made (plugin/layers.ts,
 * plugin/rootMotion.ts, plugin/graphs.ts, and their snapshot halves), never cleared. While a flag is false the systems skip that
 * look-up per character: a sparse array indexed by entity id costs a cache miss per character in a crowd that
 * uses neither. Not simulation state: it changes no step and no hash.
 */
export interface FeatureUse {
  layers: boolean
  rootMotion: boolean
  graphs: boolean
}

/** The kinds of the problem reports (ProblemEvent). */
export const PROBLEM_EVENT_KINDS = [
  'ragdoll-exploded',
  'pose-non-finite',
  'world-non-finite',
  'ragdoll-limited',
  'pose-stage-error',
] as const
/** The kinds of the clip events (ClipEvent), in the order src/clip/timeline.ts numbers its crossings. */
export const CLIP_EVENT_KINDS = ['marker', 'loop', 'finished'] as const
/** The kinds of a state machine's events (GraphEvent). */
export const GRAPH_EVENT_KINDS = ['state-enter', 'state-exit', 'transition-start', 'transition-end'] as const
/** Every kind of AnimationEvent (the snapshot reader checks against this list). */
export const ANIMATION_EVENT_KINDS = [
  ...PROBLEM_EVENT_KINDS,
  'ragdoll-get-up',
  ...CLIP_EVENT_KINDS,
  ...GRAPH_EVENT_KINDS,
] as const
/** What a problem report reports (see AnimationEvent). */
export type ProblemEventKind = (typeof PROBLEM_EVENT_KINDS)[number]
/** What a clip event reports (see AnimationEvent). */
export type ClipEventKind = (typeof CLIP_EVENT_KINDS)[number]
/** What a state machine's event reports (see AnimationEvent). */
export type GraphEventKind = (typeof GRAPH_EVENT_KINDS)[number]
/** What an AnimationEvent reports (see AnimationEvent). */
export type AnimationEventKind = (typeof ANIMATION_EVENT_KINDS)[number]

/**
 * The most clip events `plugin.events` holds: once it is this long, new clip events are counted in
 * `droppedEvents` instead (problem reports are always queued), so a game that never reads the queue loses
 * memory to it only up to a bound.
 */
export const MAX_QUEUED_EVENTS = 65536

/**
 * What `plugin.events` holds, oldest first: records the step (and getUp) appends and the game reads and clears. In step
 * order; within a step in the order the systems run (clip events from advanceTracks, then problem reports), and
 * per system in the order it visits characters; a character's clip's events come before those of the clip it
 * fades out of. `kind` tells the two families apart:
 *
 * Clip events (ClipEvent), from a clip's timeline (src/clip/timeline.ts; systems/clipEvents.ts), one per
 * crossing, never merged or de-duplicated:
 * - 'loop': a 'repeat' clip wrapped (its end to its start, or its start to its end playing backwards) or a
 *   'pingpong' clip turned, at either end;
 * - 'finished': a 'once' clip reached the end it plays towards (its duration, or time 0 playing backwards):
 *   exactly once per play() or crossFade() of it, also when it starts at that end;
 * - 'marker': the play head met a marker (addMarker, or the file's: src/gltf/clips.ts), passing it or landing
 *   on it, in either direction; also one at the time a clip starts from, on the step that shows the start.
 * A clip fading out (the outgoing clip of a cross-fade) reports all three too, with `fading` true and its
 * weight. A blend space's points of nonzero weight report as clips of their own (repeating; synchronized, all
 * loop at the step the shared phase wraps: systems/advanceTracks.ts). Speed 0 reports nothing; a step that wraps several times reports every wrap and marker in order (at
 * most 16 wraps per step: src/clip/timeline.ts).
 *
 * Problem reports (ProblemEvent), each at most once per character lifetime but for 'ragdoll-limited' and
 * 'pose-stage-error':
 * - 'ragdoll-exploded': a ragdoll's bodies reached non-finite or absurd velocities; it was removed
 *   (systems/stepRagdolls.ts);
 * - 'pose-non-finite': a character's output pose had non-finite values; those joints were not written into
 *   the scene graph and the pose was repaired (systems/blendPoses.ts);
 * - 'world-non-finite': finite local transforms gave a world matrix past float32's range (or a game wrote a
 *   non-finite local); those nodes kept their last world matrix (systems/reportWorldFaults.ts).
 * - 'ragdoll-limited': a limit bounded the cost of this step's ragdolls (systems/stepRagdolls.ts), not once per
 *   lifetime but once per ragdoll spawn or step it acted on: a ragdoll spawned inside others (it and they pass
 *   through each other until apart: src/physics/ghosts.ts), or ragdolls waiting for a later step because this
 *   one spawned RAGDOLL_SPAWN_BODIES bodies already (one report for them all, at the first of them);
 * - 'pose-stage-error': a pose stage (addPoseStage) threw, or a 'feet' solver's ground function did: the
 *   characters it had edited that step keep the pose the layers made (systems/poseStages.ts); one per throw,
 *   `character` the one the stage last touched (0 for none), and counted against MAX_QUEUED_EVENTS like clip
 *   events (a stage that throws every step would otherwise fill the queue).
 *
 * Get-up reports (GetUpEvent): 'ragdoll-get-up', at every getUp(), at the clock of the call: how the ragdoll
 * lies (`facing`; 'standing' for a partial ragdoll) and the clip chosen (plugin/getUp.ts).
 *
 * State machine events (GraphEvent), from a character's graph (setGraph; systems/evaluateGraphs.ts), first in
 * their step (the graph runs before the clips advance), per character in layer order:
 * - 'transition-start' when a transition starts, then 'state-enter' of the state it goes to;
 * - 'state-exit' of the state it left, then 'transition-end', when it ends (a transition of 0 s, or of one step,
 *   ends in the step it starts) or when another transition interrupts it;
 * - 'state-enter' of each layer's entry state at setGraph, and 'state-exit' of the states a graph leaves when
 *   it is replaced or removed (at the clock of the call).
 *
 * All are in `hash()` and `snapshot()`: a restored plugin holds the same queue and reports every later event
 * exactly as the original would.
 */
export type AnimationEvent = ClipEvent | ProblemEvent | GetUpEvent | GraphEvent

/** The fields every AnimationEvent has. */
export interface AnimationEventFields {
  /** The plugin's step counter at the step it happened: steps completed before that step (0 in the first). */
  readonly step: number
  /** The character it happened to; 0 for a 'world-non-finite' of a node under no character. */
  readonly character: number
  /** The character, or for 'world-non-finite' on a node under no character, that node's entity. */
  readonly entity: number
  /** What happened (see AnimationEvent). */
  readonly kind: AnimationEventKind
  /** One line for a log: the character (or node), what happened, and for a problem what was done about it. */
  readonly message: string
}

/** A clip event (see AnimationEvent): a loop, a 'once' clip's end, or a marker. */
export interface ClipEvent extends AnimationEventFields {
  readonly kind: ClipEventKind
  /** The layer that plays the clip: 0 for the character's clip (its Sampler) and the clip it fades out of. */
  readonly layer: number
  /** The clip's name. */
  readonly clip: string
  /** The clip's id in the plugin (as `plugin.clipId` gives it). */
  readonly clipId: number
  /** The marker's name for 'marker'; '' for the other kinds. */
  readonly name: string
  /** Clip-local time, seconds, of what was met: the marker's time, or the end reached (0 or the duration). */
  readonly time: number
  /**
   * How much of the pose the clip made at that step: 1 playing alone, the fade's blend for the clip faded
   * into, 1 − blend for the clip faded out of; on a layer other than 0, × the layer's weight; a blend-space
   * point's weight × its layer's.
   */
  readonly weight: number
  /** True for the clip a cross-fade fades out of (its markers still fire; a game may ignore them). */
  readonly fading: boolean
}

/** A problem report (see AnimationEvent): something the step caught and handled, for the game to log. */
export interface ProblemEvent extends AnimationEventFields {
  readonly kind: ProblemEventKind
}

/** How a character was at getUp(): lying face-down or face-up, or standing (a partial ragdoll). */
export type GetUpFacing = (typeof GET_UP_FACINGS)[number]
/** The facings in the order hash() and snapshots number them (from 1). */
export const GET_UP_FACINGS = ['prone', 'supine', 'standing'] as const

/** A get-up report (see AnimationEvent): how a ragdoll lay at getUp() and the clip chosen. */
export interface GetUpEvent extends AnimationEventFields {
  readonly kind: 'ragdoll-get-up'
  /** 'prone' (lying face-down), 'supine' (face-up), or 'standing' for a partial ragdoll (it never fell). */
  readonly facing: GetUpFacing
  /** The clip chosen (an id as clipId() returns), -1 for none. */
  readonly clipId: number
  /** Its name, '' for none. */
  readonly clip: string
}

/** A state machine's event (see AnimationEvent): a transition or a state of a graph layer. */
export interface GraphEvent extends AnimationEventFields {
  readonly kind: GraphEventKind
  /** The plugin layer the graph layer drives. */
  readonly layer: number
  /** The graph layer's name. */
  readonly layerName: string
  /** The state entered ('state-enter'), left ('state-exit'), or gone to (the transitions'). */
  readonly state: string
  /** The state the layer leaves ('' for setGraph's entry state). */
  readonly from: string
  /** The state the layer goes to ('' when the graph is replaced or removed). */
  readonly to: string
}

/** Whether an event is a state machine's (has a layer name and states). */
export function isGraphEvent(event: AnimationEvent): event is GraphEvent {
  return (
    event.kind === 'state-enter' ||
    event.kind === 'state-exit' ||
    event.kind === 'transition-start' ||
    event.kind === 'transition-end'
  )
}

/** Whether an event is a clip event (has a clip, a layer, …) rather than a problem report. */
export function isClipEvent(event: AnimationEvent): event is ClipEvent {
  return event.kind === 'marker' || event.kind === 'loop' || event.kind === 'finished'
}

/** A character's ragdoll: its resolved description, live bodies (null until the next step spawns them), scratch. */
export interface RagdollRuntime {
  /** The whole description (the asset's default, or the game's). */
  readonly description: readonly ResolvedBody[]
  /**
   * A partial ragdoll's subtree roots (joint indices, ascending, none under another): only the bodies at or under
   * them are physical, each top body pinned to its animated parent by an anchor (src/physics/partial.ts).
   * Empty for a whole-body ragdoll.
   */
  readonly subtrees: readonly number[]
  /** The bodies in use: `description`, or for a partial ragdoll its bodies in the subtrees (partialBodies). */
  readonly bodies: readonly ResolvedBody[]
  /** Joint parents of the character's asset (for passing hits up to the nearest body). */
  readonly parents: Int32Array
  /** Its bodies in the physics world (src/physics/api.ts), null until the next step spawns them. */
  instance: RagdollBodies | null
  /** Hits queued until the bodies exist: joint index and world impulse (N·s). */
  readonly impulses: { joint: number; impulse: readonly [number, number, number] }[]
  /** Scratch world transforms, 8 doubles per joint (src/physics/kinematics.ts), and the root's. */
  readonly world: Float64Array
  readonly previous: Float64Array
  /** This step's animated world transforms, for the anchors to follow (scratch, 8 doubles per joint). */
  readonly target: Float64Array
  readonly root: Float64Array
  /** An explosion was already reported for this character. */
  reported: boolean
  /**
   * A larger ragdoll of the same description (more subtrees, or the whole body) that replaces this one in the
   * next step: its bodies spawn where these lie, keeping their motion (stepRagdolls); null for none.
   */
  next: RagdollRuntime | null
  /**
   * Per-joint physics weights (setRagdollWeight), null while every joint follows ragdoll_weight: each joint's
   * share of physics in its pose now (`weights`, what blendPoses blends by) and what it ramps to while falling
   * (`targets`), both in [0, 1], one per joint (systems/ragdollWeights.ts).
   */
  jointWeights: { readonly weights: Float64Array; readonly targets: Float64Array } | null
  /**
   * A hit reaction's recovery (hit()): once its weight has ramped up, it gets up on its own at this rate per
   * second (systems/ragdollWeights.ts); 0 for a ragdoll that stays until getUp.
   */
  recoverRate: number
  /** A powered ragdoll's motors (src/physics/motors.ts), null for a limp one. */
  motors: RagdollMotors | null
  /** Per constraint of the live instance: its motor's capacity at strength 1 (attachMotors), null for none. */
  motorCapacity: Float64Array | null
}

/**
 * Whether a character's ragdoll is active and waiting for its bodies (or for a larger ragdoll to replace it):
 * stepRagdolls spawns them this step, and sampleTracks keeps the previous pose for it (the hand-off's velocity).
 */
export function awaitingBodies(
  ctx: Pick<StepState, 'ragdolls'> & { readonly stores: Pick<AnimationStores, 'Ragdoll'> },
  eid: number,
): boolean {
  // The store first: a crowd's characters are mostly off, and the sparse array read costs a cache miss each.
  if (ctx.stores.Ragdoll.active[eid] === RAGDOLL_OFF) return false
  const rt = ctx.ragdolls[eid]
  return rt !== undefined && (rt.instance === null || rt.next !== null)
}
