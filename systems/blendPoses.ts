import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import type { StepState, AnimationStores } from './state.ts'
import { BLEND_S, BLEND_T } from '../src/clip/blendPoses.ts'
import { blendPosesAt } from '../src/engine/blend.ts'
import {
  JOINT_STRIDE,
  POSE_ANIM,
  POSE_FROM,
  POSE_PHYS,
  POSE_PREV,
  POSE_TO,
  poseOffset,
} from '../components/Pose.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { poseWriter } from '../src/engine/poseWriter.ts'
import { endRagdoll } from './ragdollSpawn.ts'
import { PHASE_WRITE } from './workers/pool.ts'

export { poseWriter, type PoseWriter } from '../src/engine/poseWriter.ts'
export { applyPoseToSceneGraph } from '../src/skeleton/sceneNodes.ts'

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
  | 'parallel'
  | 'physics'
  | 'fused'
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
  /** Characters the fused pass writes out this step (systems/fusedCharacters.ts). */
  const fused = ctx.fused.flag

  function blendPoses(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    const pool = ctx.pool
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const weight = Ragdoll.weight[eid]!
      const n = Pose.count[eid]!
      const base = Pose.base[eid]!
      const anim = poseOffset(base, n, POSE_ANIM)
      if (weight > 0) {
        writeBlended(eid, n, base, anim)
        writePose(ctx.blendScratch, pool.joints, 0, base, n, refused)
      } else if (Pose.changed[eid] === 1 && fused[eid] === 0) {
        writePose(pool.data, pool.joints, anim, base, n, refused)
      } else continue
      if (refused[0] !== 0) repair(eid, refused[0]!)
    }
  }

  /**
   * blendPoses with workers: the characters without ragdoll weight are written in the parallel phase; every
   * refusal is repaired afterwards in entity order, as the loop above repairs them (each repair touches only
   * its own character, and only repairs report).
   */
  function blendPosesParallel(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    const pool = ctx.pool
    const par = ctx.parallel!
    const poseRefused = par.poseRefused
    let anyRefused = false
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      if (Ragdoll.weight[eid]! > 0) {
        const n = Pose.count[eid]!
        const base = Pose.base[eid]!
        writeBlended(eid, n, base, poseOffset(base, n, POSE_ANIM))
        writePose(ctx.blendScratch, pool.joints, 0, base, n, refused)
        poseRefused[eid] = refused[0]!
        if (refused[0] !== 0) anyRefused = true
      } else if (Pose.changed[eid] === 1) par.queue(eid)
    }
    par.run(PHASE_WRITE)
    if (!anyRefused && !par.anyRefused()) return
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const joints = poseRefused[eid]!
      if (joints === 0) continue
      poseRefused[eid] = 0
      repair(eid, joints)
    }
  }

  /** The blend of ANIM and PHYS by the ragdoll weight (each joint's, with joint weights) into blendScratch. */
  function writeBlended(eid: number, n: number, base: number, anim: number): void {
    const scratch = ctx.blendScratch
    const data = ctx.pool.data
    const phys = poseOffset(base, n, POSE_PHYS)
    const joints = ctx.ragdolls[eid]?.jointWeights ?? null
    if (joints === null) {
      blendPosesAt(scratch, 0, data, anim, data, phys, n, Ragdoll.weight, eid)
    } else {
      // Per-joint weights: one blend per run of joints with equal weight (a subtree is a run).
      const w = joints.weights
      for (let start = 0, end = 1; start < n; start = end, end = start + 1) {
        while (end < n && w[end] === w[start]) end++
        const o = start * JOINT_STRIDE
        blendPosesAt(scratch, o, data, anim + o, data, phys + o, end - start, w, start)
      }
    }
  }

  /**
   * A character whose output pose had non-finite joints (rare; may allocate the event):
   * - every pose layer the animation side keeps across steps (ANIM, PREV, FROM, TO) gets the rest transform on
   *   its non-finite joints, and the clip is resampled next step (`lastTime` NaN), so a one-off corruption is
   *   gone after one step; so does PHYS (no later step may read the bodies back into it, and a snapshot holding
   *   a non-finite value could not be restored);
   * - if the animation side was clean, the non-finite values came from PHYS, i.e. from the ragdoll's bodies
   *   (values too large for float32, a degenerate rotation); the ragdoll ends at once (endRagdoll: its bodies
   *   leave the world, so no snapshot holds them) and the animated pose shows.
   */
  function repair(eid: number, joints: number): void {
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const asset = ctx.assets[Pose.asset[eid]!]!
    const data = ctx.pool.data
    let first = -1
    let firstLayer = ''
    for (const [layer, name] of REPAIRED_LAYERS) {
      const j = resetNonFinite(data, poseOffset(base, n, layer), n, asset.rest)
      if (first < 0 && j >= 0) {
        first = j
        firstLayer = name
      }
    }
    Sampler.lastTime[eid] = Number.NaN
    // Repaired layers need not agree on the paths a fade skips any more: it blends them all.
    ctx.fadePaths[eid]?.fill(BLEND_T | BLEND_S)
    let endedRagdoll = false
    // PHYS's first non-finite joint names the source when the animated layers were all finite.
    const firstPhysics = resetNonFinite(data, poseOffset(base, n, POSE_PHYS), n, asset.rest)
    if (first < 0 && Ragdoll.active[eid] !== RAGDOLL_OFF) {
      first = firstPhysics
      firstLayer = 'physics'
      const rt = ctx.ragdolls[eid]
      if (rt !== undefined) endRagdoll(ctx.physics, Ragdoll, Pose, eid, rt)
      else {
        Ragdoll.weight[eid] = 0
        Ragdoll.active[eid] = RAGDOLL_OFF
      }
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

  ctx.fused.repair = repair
  return ctx.parallel === null ? blendPoses : blendPosesParallel
}

const REPAIRED_LAYERS: readonly (readonly [number, string])[] = [
  [POSE_ANIM, 'animation'],
  [POSE_PREV, 'previous animation'],
  [POSE_FROM, 'fade-from'],
  [POSE_TO, 'fade-to'],
]

/** Gives the `n` joints at `data[o ..]` that are not finite the rest pose's values; returns the first such joint, or -1. */
function resetNonFinite(data: Float32Array, o: number, n: number, rest: Float32Array): number {
  let first = -1
  for (let j = 0; j < n; j++) {
    if (jointFinite(data, o + j * JOINT_STRIDE)) continue
    data.set(rest.subarray(j * JOINT_STRIDE, (j + 1) * JOINT_STRIDE), o + j * JOINT_STRIDE)
    if (first < 0) first = j
  }
  return first
}

function jointFinite(data: Float32Array, o: number): boolean {
  let sum = 0
  for (let k = 0; k < JOINT_STRIDE; k++) sum += data[o + k]!
  return sum - sum === 0
}
