import type { World } from 'bitecs'
import { registerQuery } from 'bitecs'
import { multiplyRigid, RIGID } from '../src/math/rigid.ts'
import { normalizeQuat } from '../src/math/quat.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../components/Pose.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationStores, StepState } from './state.ts'
import { extractRootPose, finishRootMotionStep, RM_APPLY, RM_DELTA, RM_JOINT } from './rootMotion.ts'

/** What extractRootMotion reads and writes: a slice of the plugin's context. */
export type ExtractRootMotionInput = Pick<
  StepState,
  'world' | 'pool' | 'assets' | 'layers' | 'rootMotion' | 'uses' | 'sceneGraph'
> & {
  readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'AnimLayer' | 'Ragdoll'>
}

/**
 * extractRootMotion: for every character with root motion (setRootMotion), after its pose is composed
 * (advanceTracks, sampleTracks, composeLayers) and before a ragdoll reads it (stepRagdolls). Turns the motion the clips summed
 * this step (systems/rootMotion.ts) into the entity's delta, in the character's own space (its local frame
 * before the step, in its asset's units), kept for rootMotionDelta; with `apply` it moves the character
 * entity by it (position += rotation·(scale ⊙ Δt), rotation = rotation·Δq, normalized; exact for a uniform
 * scale) and marks it dirty. A pose sampled this step gets the joint's root part taken out, so it stays over
 * the entity. While a ragdoll drives the body (Ragdoll.active not off) the delta is the identity: nothing
 * moves, and the pose is still taken out, so the hand-off and the get-up see it where it was. Never throws;
 * allocates nothing.
 */
export function createExtractRootMotionSystem(ctx: ExtractRootMotionInput) {
  const { Pose, Sampler, Ragdoll } = ctx.stores
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  const nodes = ctx.sceneGraph.store
  /** The entity's transform and the delta scaled by it, as rigid transforms. */
  const place = new Float64Array(2 * RIGID)

  /** Moves entity `eid` by the delta at f[RM_DELTA]; nothing for the identity. */
  function moveEntity(eid: number, f: Float64Array): void {
    const d = RM_DELTA
    if (f[d] === 0 && f[d + 1] === 0 && f[d + 2] === 0 && f[d + 6] === 1) return
    const { translation: t, rotation: r, scale: s } = nodes
    for (let k = 0; k < 3; k++) {
      place[k] = t[eid * 3 + k]!
      place[RIGID + k] = s[eid * 3 + k]! * f[d + k]!
    }
    for (let k = 0; k < 4; k++) {
      place[3 + k] = r[eid * 4 + k]!
      place[RIGID + 3 + k] = f[d + 3 + k]!
    }
    multiplyRigid(place, 0, place, 0, place, RIGID)
    normalizeQuat(place, 3)
    for (let k = 0; k < 3; k++) t[eid * 3 + k] = place[k]!
    for (let k = 0; k < 4; k++) r[eid * 4 + k] = place[3 + k]!
    nodes.dirty[eid] = 1
  }

  return function extractRootMotion(_world: World): void {
    if (!ctx.uses.rootMotion) return
    const dense = characters.dense
    for (let c = 0; c < dense.length; c++) {
      const eid = dense[c]!
      const rm = ctx.rootMotion[eid]
      if (rm === undefined) continue
      const paused = Ragdoll.active[eid] !== RAGDOLL_OFF
      finishRootMotionStep(rm, ctx.stores.AnimLayer, ctx.layers[eid] !== undefined, paused)
      if (rm.i[RM_APPLY] === 1 && !paused) moveEntity(eid, rm.f)
      if (Pose.changed[eid] !== 1) continue
      const n = Pose.count[eid]!
      const anim = poseOffset(Pose.base[eid]!, n, POSE_ANIM)
      const rest = ctx.assets[Pose.asset[eid]!]!.rest
      extractRootPose(rm, ctx.pool.data, anim + rm.i[RM_JOINT]! * JOINT_STRIDE, rest)
    }
  }
}
