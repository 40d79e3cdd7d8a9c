import type { RagdollRuntime, RegisteredAsset } from './state.ts'
import type { SceneNodeStore } from '../components/SceneNode.ts'
import { composeWorld, decomposeMatrix } from '../src/physics/kinematics.ts'
import type { RagdollPhysics } from '../src/physics/api.ts'
import { RAGDOLL_OFF, type RagdollStore } from '../components/Ragdoll.ts'
import type { PoseStore } from '../components/Pose.ts'
import {
  POWERED_REST_CONTACT_MARGIN,
  REST_CONTACT_MARGIN,
  restOverlaps,
} from '../src/physics/selfCollision.ts'

/**
 * What stepRagdolls and the public calls share to start a ragdoll: the character root's world transform, the
 * bodies of a runtime spawned with their hits, motors and self-collision pairs, and whether it may sleep.
 */

/**
 * A character root's world transform now (8 doubles, kinematics.ts), from its parent's world matrix (settled in
 * the last step) and its own local transform (which the game may have changed since, e.g. a character added or
 * moved this frame). `parentScratch` (8 doubles) and `localScratch` (10 floats) are the caller's scratch.
 */
export function characterRootWorld(
  out: Float64Array,
  nodes: SceneNodeStore,
  eid: number,
  parentScratch: Float64Array,
  localScratch: Float32Array,
): void {
  const p = nodes.parent[eid]!
  if (p === 0) {
    parentScratch.fill(0)
    parentScratch[6] = 1
    parentScratch[7] = 1
  } else decomposeMatrix(parentScratch, 0, nodes.world, p * 16)
  for (let k = 0; k < 3; k++) {
    localScratch[k] = nodes.translation[eid * 3 + k]!
    localScratch[7 + k] = nodes.scale[eid * 3 + k]!
  }
  for (let k = 0; k < 4; k++) localScratch[3 + k] = nodes.rotation[eid * 4 + k]!
  composeWorld(out, 0, parentScratch, 0, localScratch, 0)
}

/**
 * Spawns a runtime's bodies at the joint world transforms in rt.world (rt.previous one step earlier when
 * `moved`, for the animation's velocity; `velocities` per joint where bodies keep theirs, see spawnRagdoll),
 * anchored at rt.root's character for a partial ragdoll, and applies the hits queued on it. Returns how many
 * other ragdolls the new bodies overlap (they then pass through each other until apart: RagdollPhysics
 * depenetrate).
 */
export function spawnRuntime(
  physics: RagdollPhysics,
  rt: RagdollRuntime,
  asset: RegisteredAsset,
  n: number,
  dt: number,
  moved: boolean,
  velocities: Float64Array | null,
): number {
  rt.instance = physics.spawn({
    bodies: rt.bodies,
    nodeJoint: asset.nodeJoint,
    jointCount: n,
    world: rt.world,
    previous: moved ? rt.previous : null,
    dt,
    parents: asset.jointParents,
    anchored: rt.subtrees.length > 0,
    root: rt.root,
    velocities,
  })
  markSelfCollisions(physics, rt, asset)
  if (rt.motors) poweredRagdoll(physics, rt, asset, dt)
  const inside = physics.depenetrate(rt.instance)
  for (const hit of rt.impulses.splice(0))
    physics.hit(rt.instance, rt.parents, rt.world, hit.joint, hit.impulse)
  return inside
}

/**
 * Gives a live ragdoll the motors of its runtime (RagdollRuntime.motors), the self-collision pairs of a
 * powered one, and holds its root if asked.
 */
export function poweredRagdoll(
  physics: RagdollPhysics,
  rt: RagdollRuntime,
  asset: RegisteredAsset,
  dt: number,
): void {
  const r = rt.instance!
  rt.motorCapacity = physics.attachMotors(r, dt)
  markSelfCollisions(physics, rt, asset)
  physics.setRootsHeld(r, rt.motors!.holdRoot)
}

/** Whether a ragdoll may sleep at rest: whole-body, limp, its root free (src/physics/sleep.ts). */
export function mayRest(rt: RagdollRuntime): boolean {
  return rt.subtrees.length === 0 && (rt.motors === null || (!rt.motors.active && !rt.motors.holdRoot))
}

/** Marks a live ragdoll's bodies with the pairs that never collide (src/physics/selfCollision.ts). */
export function markSelfCollisions(
  physics: RagdollPhysics,
  rt: RagdollRuntime,
  asset: RegisteredAsset,
): void {
  const powered = rt.motors !== null && rt.motors.active
  const margin = powered ? POWERED_REST_CONTACT_MARGIN : REST_CONTACT_MARGIN
  const overlaps = restOverlaps(rt.bodies, asset.nodeJoint, asset.rest, asset.jointParents, margin)
  physics.ignorePairs(rt.instance!, overlaps)
}

/**
 * Ends a character's ragdoll now: its bodies leave the physics world, the character is off the ragdoll (weight
 * 0), and its animated pose is written out again even if the animation itself did not move this step.
 */
export function endRagdoll(
  physics: RagdollPhysics,
  Ragdoll: RagdollStore,
  Pose: PoseStore,
  eid: number,
  rt: RagdollRuntime,
): void {
  if (rt.instance) physics.remove(rt.instance)
  rt.instance = null
  Ragdoll.active[eid] = RAGDOLL_OFF
  Ragdoll.weight[eid] = 0
  Pose.changed[eid] = 1
}
