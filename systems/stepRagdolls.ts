import type { World } from 'bitecs'
import { commitRemovals, registerQuery } from 'bitecs'
import { Vec3 } from 'cannon-es'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import { LAYER_ANIM, LAYER_PHYS, LAYER_PREV, layerOffset } from '../components/Pose.ts'
import { RAGDOLL_FALLING, RAGDOLL_GETTING_UP, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { decomposeMatrix, forwardKinematics } from '../src/physics/kinematics.ts'
import { despawnRagdoll, ragdollExploded, readRagdollPose, spawnRagdoll } from '../src/physics/ragdoll.ts'

/**
 * A body faster than this (world units per second, and at least RAGDOLL_MAX_FALL_SECONDS of free fall, so a
 * world in centimetres with gravity 982 gets 19640 cm/s, not 200 cm/s) or spinning faster (radians per second)
 * has exploded.
 */
export const RAGDOLL_MAX_SPEED = 200
export const RAGDOLL_MAX_FALL_SECONDS = 20
export const RAGDOLL_MAX_SPIN = 200

/**
 * stepRagdolls: the physics hand-off, once per fixed step, after sampleClips and before blendPoses.
 *
 * 1. The cannon-es world advances by `world.step(dt)`, exactly once (never `fixedStep()` or the 3-argument form,
 *    which read the wall clock).
 * 2. A character whose ragdoll was just activated gets its bodies now, after the step, placed at the animated
 *    world pose of this step (forward kinematics of the ANIM layer under the character's world transform) with
 *    the velocity the animation had (from the PREV layer, when the pose changed this step; otherwise at rest),
 *    and any hit impulses queued with the activation; they first move in the next step.
 * 3. Every live ragdoll is read back into the PHYS layer in joint-local space, and `ragdoll_weight` ramps toward
 *    1 (falling) or 0 (getting up) by rate·dt. At 0 the bodies leave the world.
 * A ragdoll that explodes (non-finite or absurd velocities) is removed at once, the character shows its animated
 * pose again, and the event is reported once in `ctx.events`. Never throws; allocates only at a hand-off.
 */
export function createStepRagdollsSystem(ctx: AnimationContext) {
  const { Pose, Ragdoll } = ctx.stores
  const nodes = ctx.sceneGraph.store
  const characters = registerQuery(ctx.world, [Ragdoll, Pose])

  function spawn(eid: number, rt: RagdollRuntime): void {
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const asset = ctx.assets[Pose.asset[eid]!]!
    const data = ctx.pool.data
    decomposeMatrix(rt.root, 0, nodes.world, eid * 16)
    forwardKinematics(rt.world, data, layerOffset(base, n, LAYER_ANIM), asset.jointParents, n, rt.root, 0)
    const moved = Pose.changedStep[eid] === ctx.step && ctx.step > 0
    if (moved)
      forwardKinematics(
        rt.previous,
        data,
        layerOffset(base, n, LAYER_PREV),
        asset.jointParents,
        n,
        rt.root,
        0,
      )
    rt.instance = spawnRagdoll(ctx.physics, {
      bodies: rt.bodies,
      nodeJoint: asset.nodeJoint,
      jointCount: n,
      world: rt.world,
      previous: moved ? rt.previous : null,
      dt: ctx.dt,
    })
    for (const hit of rt.impulses.splice(0)) applyHit(rt, hit.joint, hit.impulse)
  }

  function despawn(eid: number, rt: RagdollRuntime): void {
    if (rt.instance) despawnRagdoll(ctx.physics, rt.instance)
    rt.instance = null
    Ragdoll.active[eid] = RAGDOLL_OFF
    Ragdoll.weight[eid] = 0
    // The animated pose must be written out again even if the animation itself did not move this step.
    Pose.changed[eid] = 1
  }

  return function stepRagdolls(_world: World): void {
    commitRemovals(ctx.world)
    const dense = characters.dense
    ctx.physics.step(ctx.dt)

    // Spawn after the step: new bodies hold exactly this step's animated pose, so this step reads back
    // PHYS = ANIM and the hand-off starts from zero difference. (Spawned before the step, they were one step of
    // motion ahead of the animation they were blended with: 3.5 mm off at weight 1/12 for a walking Fox.)
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      if (Ragdoll.active[eid] === RAGDOLL_OFF) continue
      const rt = ctx.ragdolls[eid]
      if (rt && rt.instance === null) spawn(eid, rt)
    }

    const data = ctx.pool.data
    const dt = ctx.dt
    const g = ctx.physics.gravity
    const fall = RAGDOLL_MAX_FALL_SECONDS * Math.sqrt(g.x * g.x + g.y * g.y + g.z * g.z)
    const maxSpeed = fall > RAGDOLL_MAX_SPEED ? fall : RAGDOLL_MAX_SPEED
    for (let i = 0; i < dense.length; i++) {
      const eid = dense[i]!
      const state = Ragdoll.active[eid]!
      if (state === RAGDOLL_OFF) continue
      const rt = ctx.ragdolls[eid]!
      const r = rt.instance!
      // Weight 0 while falling means spawned this step: the animation's state plus its hits, not yet solved.
      const spawned = state === RAGDOLL_FALLING && Ragdoll.weight[eid] === 0
      if (!spawned && ragdollExploded(r, maxSpeed, RAGDOLL_MAX_SPIN)) {
        despawn(eid, rt)
        if (!rt.reported) {
          rt.reported = true
          ctx.events.push({
            step: ctx.step,
            entity: eid,
            kind: 'ragdoll-exploded',
            message: `character ${eid}: ragdoll bodies reached non-finite or absurd velocities; back to animation`,
          })
        }
        continue
      }
      const n = Pose.count[eid]!
      const base = Pose.base[eid]!
      decomposeMatrix(rt.root, 0, nodes.world, eid * 16)
      readRagdollPose(
        r,
        data,
        layerOffset(base, n, LAYER_PHYS),
        data,
        layerOffset(base, n, LAYER_ANIM),
        ctx.assets[Pose.asset[eid]!]!.jointParents,
        n,
        rt.root,
        0,
        rt.world,
      )
      const step = Ragdoll.rate[eid]! * dt
      if (state === RAGDOLL_FALLING) {
        const w = Ragdoll.weight[eid]! + step
        Ragdoll.weight[eid] = w > 1 ? 1 : w
      } else if (state === RAGDOLL_GETTING_UP) {
        const w = Ragdoll.weight[eid]! - step
        if (w > 0) Ragdoll.weight[eid] = w
        else despawn(eid, rt)
      }
    }
  }
}

function applyHit(rt: RagdollRuntime, joint: number, impulse: readonly [number, number, number]): void {
  const r = rt.instance!
  let b = r.jointBody[joint]!
  // A joint without a body passes the hit to the nearest body above it (or the root body).
  for (let j = joint; b < 0 && j >= 0; j = rt.parents[j]!) b = r.jointBody[j]!
  const body = r.bodies[b < 0 ? 0 : b]!
  const o = joint * 8
  const point = new Vec3(
    rt.world[o]! - body.position.x,
    rt.world[o + 1]! - body.position.y,
    rt.world[o + 2]! - body.position.z,
  )
  body.applyImpulse(new Vec3(impulse[0], impulse[1], impulse[2]), point)
}
