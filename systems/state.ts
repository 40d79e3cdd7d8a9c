import type { World } from 'bitecs'
import type { World as PhysicsWorld } from 'cannon-es'
import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollInstance } from '../src/physics/ragdoll.ts'
import type { Clip } from '../src/clip/clip.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { Rig } from '../src/skeleton/rig.ts'
import type { PosePool, PoseStore } from '../components/Pose.ts'
import type { SamplerStore } from '../components/Sampler.ts'
import type { CrossFadeStore } from '../components/CrossFade.ts'
import { RAGDOLL_OFF, type RagdollStore } from '../components/Ragdoll.ts'
import type { SceneGraph } from '../components/SceneNode.ts'
import type { LayerStack } from './layerState.ts'

/**
 * An asset registered with a plugin: its rig (joints parents first, rest pose: src/skeleton/rig.ts) and the clips
 * it brought. Characters made from it share all of this.
 */
export interface RegisteredAsset extends Rig {
  readonly id: number
  readonly asset: AnimationAsset
  /** Ids of the clips that came with the asset, in file order. */
  readonly clipIds: readonly number[]
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
 * A plugin's per-character stores (`plugin.stores`), each a bitecs component holding typed arrays indexed by
 * entity id, sized to the plugin's capacity. The arrays are the plugin's own, live and never replaced: read
 * them, and leave writing to the plugin's calls.
 */
export interface AnimationStores {
  /** Where each character's pose lives in the pose pool. */
  Pose: PoseStore
  /** The clip each character plays, and where it is in it. */
  Sampler: SamplerStore
  /** Each character's cross-fade, while one runs. */
  CrossFade: CrossFadeStore
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
  /** Store length: every entity id the plugin touches must be below it. */
  readonly capacity: number
  readonly stores: AnimationStores
  readonly sceneGraph: SceneGraph
  readonly pool: PosePool
  readonly assets: RegisteredAsset[]
  readonly clips: RegisteredClip[]
  /** Per character: key cursors, `| current clip's channels | outgoing clip's channels |` (one live slot per time track). */
  readonly cursors: (Uint32Array | undefined)[]
  /** Per character: the channel bindings of the current and the outgoing clip (see RegisteredClip). */
  readonly binding: (Int32Array | undefined)[]
  readonly fromBinding: (Int32Array | undefined)[]
  /**
   * Per character, one byte per joint: which translations and scales its cross-fade blends (blendJointLayers'
   * `paths`, made by planFadePaths when a fade starts or a snapshot is restored; all set before a character's
   * first fade and after a repair).
   */
  readonly fadePaths: (Uint8Array | undefined)[]
  /**
   * Per character with layers in use (a layer other than 0, or layer 0 configured): its layer stack
   * (systems/layerState.ts); undefined for the others, which sampleLayers leaves alone.
   */
  readonly layers: (LayerStack | undefined)[]
  /** Per character with morph targets: its morph weights (see MorphState). */
  readonly morphs: (MorphState | undefined)[]
  /**
   * Key cursors sampleMorphWeights shares between characters (a cursor is a search hint; any value gives the
   * same sample): one per channel of the plugin's largest clip, grown by addAsset.
   */
  morphCursors: Uint32Array
  /** Fixed steps run so far; the simulation clock. */
  step: number
  /** The cannon-es world ragdolls live in (the plugin's own, or the game's). Stepped once per fixed step. */
  readonly physics: PhysicsWorld
  /** True when the plugin made `physics` itself (so it may skip stepping a world with nothing to move). */
  readonly physicsOwned: boolean
  /** Per character with a ragdoll description in use: its runtime state. */
  readonly ragdolls: (RagdollRuntime | undefined)[]
  /** Things the step caught and handled (reported once per entity and kind); the game may read and clear it. */
  readonly events: AnimationEvent[]
  /** 1 once a character's non-finite pose was reported (blendPoses); cleared when a character is added on the id. */
  readonly poseReported: Uint8Array
  /** 1 once a world-matrix fault of the character (or of a node under none) was reported (reportWorldFaults). */
  readonly worldReported: Uint8Array
  /** blendPoses' output scratch: 10 floats per joint of the largest character (grown outside the step). */
  blendScratch: Float32Array
}

/** Every kind of AnimationEvent (the snapshot reader checks against this list). */
export const ANIMATION_EVENT_KINDS = [
  'ragdoll-exploded',
  'pose-non-finite',
  'world-non-finite',
  'ragdoll-get-up',
] as const
/** What an AnimationEvent reports (see AnimationEvent). */
export type AnimationEventKind = (typeof ANIMATION_EVENT_KINDS)[number]

/**
 * Something the step caught and handled, or a choice the plugin made, for the game to log or act on:
 * - 'ragdoll-exploded': a ragdoll's bodies reached non-finite or absurd velocities; it was removed
 *   (systems/stepRagdolls.ts);
 * - 'pose-non-finite': a character's output pose had non-finite values; those joints were not written into
 *   the scene graph and the pose was repaired (systems/blendPoses.ts);
 * - 'world-non-finite': finite local transforms gave a world matrix past float32's range (or a game wrote a
 *   non-finite local); those nodes kept their last world matrix (systems/reportWorldFaults.ts);
 * - 'ragdoll-get-up': getUp() read how the ragdoll lies and chose a clip; `facing` and `clip` say which
 *   (plugin/ragdolls.ts). Reported at every getUp, at the clock of the call.
 * Each of the first three kinds is reported at most once per character lifetime.
 */
export interface AnimationEvent {
  /** The clock when it was caught: steps completed before the step that caught it (0 in the first). */
  readonly step: number
  /** The character, or for 'world-non-finite' on a node under no character, that node's entity. */
  readonly entity: number
  /** What was caught (see above). */
  readonly kind: AnimationEventKind
  /** One line for a log: the character (or node), what was wrong and what was done about it. */
  readonly message: string
  /** 'ragdoll-get-up' only: 'prone' (lying face-down) or 'supine' (face-up). */
  readonly facing?: 'prone' | 'supine'
  /** 'ragdoll-get-up' only: the clip chosen (an id as clipId() returns), -1 for none. */
  readonly clip?: number
}

/** A character's ragdoll: its resolved description, live bodies (null until the next step spawns them), scratch. */
export interface RagdollRuntime {
  readonly bodies: readonly ResolvedBody[]
  /** Joint parents of the character's asset (for passing hits up to the nearest body). */
  readonly parents: Int32Array
  instance: RagdollInstance | null
  /** Hits queued until the bodies exist: joint index and world impulse (N·s). */
  readonly impulses: { joint: number; impulse: readonly [number, number, number] }[]
  /** Scratch world transforms, 8 doubles per joint (src/physics/kinematics.ts), and the root's. */
  readonly world: Float64Array
  readonly previous: Float64Array
  readonly root: Float64Array
  /** An explosion was already reported for this character. */
  reported: boolean
}

/**
 * Whether a character's ragdoll is active and waiting for its bodies: stepRagdolls spawns them this step, and
 * sampleClips keeps the previous pose for it (the hand-off's velocity).
 */
export function awaitingBodies(
  ctx: Pick<StepState, 'ragdolls'> & { readonly stores: Pick<AnimationStores, 'Ragdoll'> },
  eid: number,
): boolean {
  return ctx.stores.Ragdoll.active[eid] !== RAGDOLL_OFF && ctx.ragdolls[eid]?.instance === null
}
