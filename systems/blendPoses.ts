import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import type { AnimationContext } from './context.ts'
import type { SceneNodeStore } from '../components/SceneNode.ts'
import { blendJointLayers } from '../src/clip/blendPose.ts'
import { JOINT_STRIDE, LAYER_ANIM, LAYER_PHYS, layerOffset } from '../components/Pose.ts'

/**
 * Writes a pose into the scene graph: joint j's 10 floats (`pose[poseOffset + j·10 ..]`, layout of
 * src/clip/poseLayout.ts) become the local T/R/S of SceneNode entity `jointIndices[jointStart + j]`, for
 * j < count. A node is written and marked dirty only when a value actually changed (compared by value as
 * float32), so still joints cost no world-matrix work downstream. Returns how many nodes changed.
 * Allocation-free; trusts its arguments (entities are SceneNodes, offsets in range).
 */
export function applyPoseToSceneGraph(
  nodes: SceneNodeStore,
  pose: Float32Array,
  jointIndices: ArrayLike<number>,
  poseOffset = 0,
  jointStart = 0,
  count = jointIndices.length - jointStart,
): number {
  const { translation: tr, rotation: rot, scale: sc, dirty } = nodes
  let changed = 0
  for (let j = 0; j < count; j++) {
    const e = jointIndices[jointStart + j]!
    const p = poseOffset + j * JOINT_STRIDE
    const t = e * 3
    const r = e * 4
    if (
      tr[t] !== pose[p] ||
      tr[t + 1] !== pose[p + 1] ||
      tr[t + 2] !== pose[p + 2] ||
      rot[r] !== pose[p + 3] ||
      rot[r + 1] !== pose[p + 4] ||
      rot[r + 2] !== pose[p + 5] ||
      rot[r + 3] !== pose[p + 6] ||
      sc[t] !== pose[p + 7] ||
      sc[t + 1] !== pose[p + 8] ||
      sc[t + 2] !== pose[p + 9]
    ) {
      tr[t] = pose[p]!
      tr[t + 1] = pose[p + 1]!
      tr[t + 2] = pose[p + 2]!
      rot[r] = pose[p + 3]!
      rot[r + 1] = pose[p + 4]!
      rot[r + 2] = pose[p + 5]!
      rot[r + 3] = pose[p + 6]!
      sc[t] = pose[p + 7]!
      sc[t + 1] = pose[p + 8]!
      sc[t + 2] = pose[p + 9]!
      dirty[e] = 1
      changed++
    }
  }
  return changed
}

/**
 * blendPoses: the character's output pose — the ANIM layer, or, while `ragdoll_weight` > 0, the blend of ANIM
 * and PHYS by that weight (lerp T/S, shortest-arc slerp R) — written into its joints' SceneNodes via
 * applyPoseToSceneGraph. Characters whose animation did not change and that have no ragdoll weight are skipped.
 * Never throws; allocates nothing (one scratch pose, grown only when a bigger character appears at setup).
 */
export function createBlendPosesSystem(ctx: AnimationContext) {
  const { Pose, Ragdoll } = ctx.stores
  const nodes = ctx.sceneGraph.store
  const characters = registerQuery(ctx.world, [Pose])
  let scratch = new Float32Array(64 * JOINT_STRIDE)

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
        blendJointLayers(
          scratch,
          0,
          pool.data,
          anim,
          pool.data,
          layerOffset(base, n, LAYER_PHYS),
          n,
          Ragdoll.weight,
          eid,
        )
        applyPoseToSceneGraph(nodes, scratch, pool.joints, 0, base, n)
      } else if (Pose.changed[eid] === 1) {
        applyPoseToSceneGraph(nodes, pool.data, pool.joints, anim, base, n)
      }
    }
  }
  /** Called by the plugin when a character is added, outside the step: makes sure the scratch fits it. */
  blendPoses.reserve = (joints: number): void => {
    if (scratch.length < joints * JOINT_STRIDE) scratch = new Float32Array(joints * JOINT_STRIDE)
  }
  return blendPoses
}
