import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import { blendPaths } from '../src/clip/blendPoses.ts'
import { POSE_FROM, POSE_TO, poseOffset } from '../components/Pose.ts'
import type { StepState } from '../systems/state.ts'
import type { PalettePlan } from './palette.ts'
import type { CharacterDatum } from './characterData.ts'
import type { PlannedGraph } from './graphCompile.ts'

export type {
  AnimationEvent,
  AnimationStores,
  RagdollRuntime,
  RegisteredAsset,
  RegisteredClip,
} from '../systems/state.ts'

/**
 * Everything a plugin owns: the step's state (systems/state.ts) and what only the plugin's calls use. One per
 * createAnimationPlugin call; the plugin/ functions take it first.
 */
export interface AnimationContext extends StepState {
  /**
   * The kinds of per-character state besides the store rows, each declared once (plugin/characterData.ts):
   * adding, restoring and removing a character, hash() and the snapshot loop over them, in this order.
   */
  readonly characterData: readonly CharacterDatum[]
  /** The handle of each asset added (addAsset returns the same handle for the same asset object). */
  readonly handles: Map<AnimationAsset, AssetHandle>
  /** Per asset id: its generated ragdoll description, resolved once on first use. */
  readonly ragdollDescriptions: (readonly ResolvedBody[] | undefined)[]
  /**
   * Joint entity → its character (0 for every other entity), so a joint entity the game removes behind the
   * plugin's back is noticed (forgetJoint): the plugin then neither writes to nor removes an id that bitecs may
   * since have recycled for something else.
   */
  readonly jointOwner: Int32Array
  /** Graphs compiled so far (plugin/graphCompile.ts): by canonical text, then by asset id. */
  readonly graphPlans: Map<string, (PlannedGraph | undefined)[]>
  /** Per asset id: how its skinning palette is made (plugin/palette.ts), on first use. */
  readonly palettes: (PalettePlan | undefined)[]
  /**
   * Characters released so far and the last one's id (releaseCharacter counts them), so a public call that
   * throws after an argument's getter removed a character says that rather than what it then tripped on.
   */
  readonly removals: { count: number; last: number }
  /** Set by dispose(); every public call then throws. */
  disposed: boolean
}

/** What addAsset returns: the asset as this plugin registered it. */
export interface AssetHandle {
  /** The asset's id in this plugin: 0, 1, 2, … in the order assets were added (Pose.asset holds it). */
  readonly id: number
  /** The asset object added (the same object, not a copy). */
  readonly asset: AnimationAsset
  /**
   * Clip ids in the asset's file order (`clips[i]` is the asset's clip i), then the clips `retarget` made for
   * it, in the order it made them (the array grows with them).
   */
  readonly clips: readonly number[]
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
    poseOffset(base, n, POSE_FROM),
    data,
    poseOffset(base, n, POSE_TO),
    n,
    ctx.fromBinding[eid],
    ctx.binding[eid],
  )
}
