import type { World } from 'bitecs'
import type { World as PhysicsWorld } from 'cannon-es'
import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollInstance } from '../src/physics/ragdoll.ts'
import type { Clip } from '../src/clip/clip.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { LAYER_FROM, LAYER_TO, layerOffset, type PosePool, type PoseStore } from '../components/Pose.ts'
import { blendPaths } from '../src/clip/blendLayers.ts'
import type { SamplerStore } from '../components/Sampler.ts'
import type { CrossFadeStore } from '../components/CrossFade.ts'
import { RAGDOLL_OFF, type RagdollStore } from '../components/Ragdoll.ts'
import type { SceneGraph } from '../components/SceneNode.ts'

/**
 * An asset registered with a plugin: its node tree flattened into a joint list (parents before children), the
 * rest pose, and the clips it brought. Characters made from it share all of this.
 */
export interface RegisteredAsset {
  readonly id: number
  readonly asset: AnimationAsset
  /** Joint j is glTF node `jointNodes[j]`; every node of the asset's scene is a joint. */
  readonly jointNodes: Int32Array
  /** Parent joint index, -1 for the asset's roots (which hang under the character entity). */
  readonly jointParents: Int32Array
  /** glTF node index → joint index, -1 for nodes outside the scene. */
  readonly nodeJoint: Int32Array
  /** Rest pose, 10 floats per joint (layout of components/Pose.ts). */
  readonly rest: Float32Array
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
}

export interface AnimationStores {
  Pose: PoseStore
  Sampler: SamplerStore
  CrossFade: CrossFadeStore
  Ragdoll: RagdollStore
}

/** Everything a plugin owns. Systems close over it; nothing is global. */
export interface AnimationContext {
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
}

/**
 * Something the step caught and handled, for the game to log:
 * - 'ragdoll-exploded': a ragdoll's bodies reached non-finite or absurd velocities; it was removed
 *   (systems/stepRagdolls.ts);
 * - 'pose-non-finite': a character's output pose had non-finite values; those joints were not written into
 *   the scene graph and the pose was repaired (systems/blendPoses.ts).
 * Each kind is reported at most once per character lifetime.
 */
export interface AnimationEvent {
  readonly step: number
  readonly entity: number
  readonly kind: 'ragdoll-exploded' | 'pose-non-finite'
  readonly message: string
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
export function awaitingBodies(ctx: AnimationContext, eid: number): boolean {
  return ctx.stores.Ragdoll.active[eid] !== RAGDOLL_OFF && ctx.ragdolls[eid]?.instance === null
}

/**
 * Sets the character's fadePaths from its FROM and TO layers and the two clips' bindings (blendPaths): called
 * when a fade starts and when a snapshot is restored, while FROM, TO and ANIM agree on every path no clip drives.
 */
export function planFadePaths(ctx: AnimationContext, eid: number): void {
  const paths = ctx.fadePaths[eid]
  if (paths === undefined) return
  const { Pose } = ctx.stores
  const n = Pose.count[eid]!
  const base = Pose.base[eid]!
  const data = ctx.pool.data
  blendPaths(
    paths,
    data,
    layerOffset(base, n, LAYER_FROM),
    data,
    layerOffset(base, n, LAYER_TO),
    n,
    ctx.fromBinding[eid],
    ctx.binding[eid],
  )
}
