import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import type { StepState, AnimationStores } from './state.ts'
import type { SceneNodeStore } from '../components/SceneNode.ts'
import { BLEND_S, BLEND_T, blendJointLayers } from '../src/clip/blendLayers.ts'
import {
  JOINT_STRIDE,
  LAYER_ANIM,
  LAYER_FROM,
  LAYER_PHYS,
  LAYER_PREV,
  LAYER_TO,
  layerOffset,
} from '../components/Pose.ts'
import { RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { primeWriter } from '../src/engine/v8.ts'

/**
 * Writes a pose into the scene graph: joint j's 10 floats (`pose[poseOffset + j·10 ..]`, layout of
 * src/math/poseLayout.ts) become the local T/R/S of SceneNode entity `jointIndices[jointStart + j]`, for
 * j < count. A node is written and marked dirty only when a value actually changed (compared by value as
 * float32), so still joints cost no world-matrix work downstream. Returns how many nodes changed.
 *
 * The last line of defence against non-finite values: a joint whose 10 floats are not all finite is not written
 * (its node keeps its last good local transform) and is counted in `nonFinite[0]` when that is given (set, not
 * added to). Entity 0 (bitecs never issues it) marks a joint whose entity is gone and is skipped.
 * Allocation-free; otherwise trusts its arguments (entities are SceneNodes, offsets in range).
 */
export function applyPoseToSceneGraph(
  nodes: SceneNodeStore,
  pose: Float32Array,
  jointIndices: ArrayLike<number>,
  poseOffset = 0,
  jointStart = 0,
  count = jointIndices.length - jointStart,
  nonFinite: Uint32Array | null = null,
): number {
  return poseWriter(nodes)(pose, jointIndices, poseOffset, jointStart, count, nonFinite)
}

/** applyPoseToSceneGraph bound to one scene graph's store (all arguments required). */
export type PoseWriter = (
  pose: Float32Array,
  jointIndices: ArrayLike<number>,
  poseOffset: number,
  jointStart: number,
  count: number,
  nonFinite: Uint32Array | null,
) => number

const writers = new WeakMap<SceneNodeStore, PoseWriter>()

/**
 * The one PoseWriter of a scene graph's store (made on first use). A closure over the store's arrays rather
 * than a function taking them: with one plugin in the process V8 specializes a closure's code to the arrays it
 * closed over (about a tenth of this loop; see propagateTransforms).
 */
export function poseWriter(nodes: SceneNodeStore): PoseWriter {
  let writer = writers.get(nodes)
  if (!writer) {
    writer = createPoseWriter(nodes)
    primeWriter(writer, nodes)
    writers.set(nodes, writer)
  }
  return writer
}

function createPoseWriter(nodes: SceneNodeStore): PoseWriter {
  const { translation: tr, rotation: rot, scale: sc, dirty } = nodes
  return function writePose(pose, jointIndices, poseOffset, jointStart, count, nonFinite) {
    // Read once into a local: V8 11 reads an imported binding from the module context, with a check, at every
    // use (8% of this loop).
    const STRIDE = JOINT_STRIDE
    let changed = 0
    let rejected = 0
    for (let j = 0; j < count; j++) {
      const e = jointIndices[jointStart + j]!
      if (e === 0) continue
      const p = poseOffset + j * STRIDE
      const t = e * 3
      const r = e * 4
      const tx = pose[p]!
      const ty = pose[p + 1]!
      const tz = pose[p + 2]!
      const rx = pose[p + 3]!
      const ry = pose[p + 4]!
      const rz = pose[p + 5]!
      const rw = pose[p + 6]!
      const sx = pose[p + 7]!
      const sy = pose[p + 8]!
      const sz = pose[p + 9]!
      // Rotation first: of an animated joint's paths it is the one that changes nearly every step.
      if (
        rot[r] !== rx ||
        rot[r + 1] !== ry ||
        rot[r + 2] !== rz ||
        rot[r + 3] !== rw ||
        tr[t] !== tx ||
        tr[t + 1] !== ty ||
        tr[t + 2] !== tz ||
        sc[t] !== sx ||
        sc[t + 1] !== sy ||
        sc[t + 2] !== sz
      ) {
        // One test for all ten: the sum is NaN when any value is NaN or infinite (∞ − ∞), and ten float32 values
        // cannot overflow a double. A NaN never equals the stored value, so a bad joint always gets here.
        const sum = tx + ty + tz + rx + ry + rz + rw + sx + sy + sz
        if (sum - sum !== 0) {
          rejected++
          continue
        }
        tr[t] = tx
        tr[t + 1] = ty
        tr[t + 2] = tz
        rot[r] = rx
        rot[r + 1] = ry
        rot[r + 2] = rz
        rot[r + 3] = rw
        sc[t] = sx
        sc[t + 1] = sy
        sc[t + 2] = sz
        dirty[e] = 1
        changed++
      }
    }
    if (nonFinite !== null) nonFinite[0] = rejected
    return changed
  }
}

/** What blendPoses reads and writes: a slice of the plugin's context (tests may pass just this). */
export type BlendPosesInput = Pick<
  StepState,
  | 'world'
  | 'step'
  | 'pool'
  | 'assets'
  | 'sceneGraph'
  | 'fadePaths'
  | 'events'
  | 'poseReported'
  | 'blendScratch'
  | 'ragdolls'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Ragdoll' | 'Sampler'>
}

/**
 * blendPoses: the character's output pose — the ANIM layer, or, while `ragdoll_weight` > 0, the blend of ANIM
 * and PHYS by that weight (lerp T/S, shortest-arc slerp R; with per-joint weights, each joint's own, see
 * RagdollRuntime.jointWeights) — written into its joints' SceneNodes via
 * applyPoseToSceneGraph. Characters whose animation did not change and that have no ragdoll weight are skipped.
 *
 * Non-finite poses (a game writing NaN into a pose layer or a body, or a bug upstream) stop here: the joints
 * they hit keep their last good transform, other characters are unaffected, and the character is repaired for
 * the next step (see `repair`) and reported with one 'pose-non-finite' event per character lifetime (a
 * recycled id starts afresh), so a source that keeps producing NaN cannot flood `ctx.events`.
 * Never throws; allocates nothing (one scratch pose, grown only when a bigger character appears at setup),
 * except the event and its message, once per character.
 */
export function createBlendPosesSystem(ctx: BlendPosesInput) {
  const { Pose, Ragdoll, Sampler } = ctx.stores
  const writePose = poseWriter(ctx.sceneGraph.store)
  const characters = registerQuery(ctx.world, [Pose])
  /** Joints the last write-out refused (see applyPoseToSceneGraph). */
  const refused = new Uint32Array(1)
  const reported = ctx.poseReported

  function blendPoses(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    const pool = ctx.pool
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const weight = Ragdoll.weight[eid]!
      const n = Pose.count[eid]!
      const base = Pose.base[eid]!
      const anim = layerOffset(base, n, LAYER_ANIM)
      if (weight > 0) {
        const scratch = ctx.blendScratch
        const phys = layerOffset(base, n, LAYER_PHYS)
        const joints = ctx.ragdolls[eid]?.jointWeights ?? null
        if (joints === null) {
          blendJointLayers(scratch, 0, pool.data, anim, pool.data, phys, n, Ragdoll.weight, eid)
        } else {
          // Per-joint weights: one blend per run of joints with equal weight (a subtree is a run).
          const w = joints.weights
          for (let start = 0, end = 1; start < n; start = end, end = start + 1) {
            while (end < n && w[end] === w[start]) end++
            const o = start * JOINT_STRIDE
            blendJointLayers(scratch, o, pool.data, anim + o, pool.data, phys + o, end - start, w, start)
          }
        }
        writePose(scratch, pool.joints, 0, base, n, refused)
      } else if (Pose.changed[eid] === 1) {
        writePose(pool.data, pool.joints, anim, base, n, refused)
      } else continue
      if (refused[0] !== 0) repair(eid, refused[0]!)
    }
  }

  /**
   * A character whose output pose had non-finite joints (rare; may allocate the event):
   * - every pose layer the animation side keeps across steps (ANIM, PREV, FROM, TO) gets the rest transform on
   *   its non-finite joints, and the clip is resampled next step (`lastTime` NaN), so a one-off corruption is
   *   gone after one step;
   * - if the animation side was clean, the non-finite values came from PHYS, i.e. from the ragdoll's bodies
   *   (values too large for float32, a degenerate rotation); the ragdoll is ended: weight 0 and getting up, so
   *   stepRagdolls removes its bodies on the next step and the animated pose shows.
   */
  function repair(eid: number, joints: number): void {
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const asset = ctx.assets[Pose.asset[eid]!]!
    const data = ctx.pool.data
    let first = -1
    let firstLayer = ''
    for (const [layer, name] of REPAIRED_LAYERS) {
      const o = layerOffset(base, n, layer)
      for (let j = 0; j < n; j++) {
        if (jointFinite(data, o + j * JOINT_STRIDE)) continue
        data.set(asset.rest.subarray(j * JOINT_STRIDE, (j + 1) * JOINT_STRIDE), o + j * JOINT_STRIDE)
        if (first < 0) {
          first = j
          firstLayer = name
        }
      }
    }
    Sampler.lastTime[eid] = Number.NaN
    // Repaired layers need not agree on the paths a fade skips any more: it blends them all.
    ctx.fadePaths[eid]?.fill(BLEND_T | BLEND_S)
    let endedRagdoll = false
    if (first < 0 && Ragdoll.active[eid] !== RAGDOLL_OFF) {
      const o = layerOffset(base, n, LAYER_PHYS)
      for (let j = 0; j < n && first < 0; j++) if (!jointFinite(data, o + j * JOINT_STRIDE)) first = j
      firstLayer = 'physics'
      Ragdoll.weight[eid] = 0
      Ragdoll.active[eid] = RAGDOLL_GETTING_UP
      endedRagdoll = true
    }
    if (reported[eid] === 1) return
    reported[eid] = 1
    const node = first >= 0 ? asset.asset.nodes[asset.jointNodes[first]!] : undefined
    const where = node ? `first: joint ${first} "${node.name}" in the ${firstLayer} pose` : 'source not found'
    ctx.events.push({
      step: ctx.step,
      character: eid,
      entity: eid,
      kind: 'pose-non-finite',
      message:
        `character ${eid}: ${joints} joint(s) with non-finite pose values were not written (${where}); ` +
        (endedRagdoll
          ? 'the ragdoll was ended and the animated pose shows again'
          : 'they keep their last transform and were reset to rest for the next step'),
    })
  }

  return blendPoses
}

const REPAIRED_LAYERS: readonly (readonly [number, string])[] = [
  [LAYER_ANIM, 'animation'],
  [LAYER_PREV, 'previous animation'],
  [LAYER_FROM, 'fade-from'],
  [LAYER_TO, 'fade-to'],
]

function jointFinite(data: Float32Array, o: number): boolean {
  let sum = 0
  for (let k = 0; k < JOINT_STRIDE; k++) sum += data[o + k]!
  return sum - sum === 0
}
