import type { RagdollInstance } from '../src/physics/ragdoll.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import type { Writer } from '../src/sim/byteStream.ts'
import { writeInstance } from '../src/physics/snapshot.ts'
import type { AnimationContext, RagdollRuntime } from '../plugin/context.ts'
import { defaultDescription } from '../plugin/ragdolls.ts'
import { FLAG_BODIES, FLAG_DEFAULT_DESCRIPTION, FLAG_REPORTED } from './format.ts'
import { FLAG_JOINT_WEIGHTS, FLAG_MOTORS, FLAG_PARTIAL, FLAG_RECOVERS, FLAG_REPLACED } from './format.ts'
import { RAGDOLL_SHAPES } from './format.ts'
import { RagdollJoint } from '../src/physics/joint.ts'

/** The snapshot's ragdolls section (layout: snapshot/format.ts; read by snapshot/readRagdolls.ts). */

/** Writes the section for `characters`; returns their live instances, which the physics section places. */
export function writeRagdolls(
  ctx: AnimationContext,
  w: Writer,
  characters: readonly number[],
): Map<number, RagdollInstance> {
  const runtimes = characters.filter((e) => ctx.ragdolls[e] !== undefined).sort((a, b) => a - b)
  const instances = new Map<number, RagdollInstance>()
  w.u32(runtimes.length)
  for (const eid of runtimes) {
    const rt = ctx.ragdolls[eid]!
    writeRagdoll(ctx, w, eid, rt)
    if (rt.instance) instances.set(eid, rt.instance)
  }
  return instances
}

function writeRagdoll(ctx: AnimationContext, w: Writer, eid: number, rt: RagdollRuntime) {
  const isDefault = rt.description === defaultDescription(ctx, ctx.stores.Pose.asset[eid]!)
  const partial = rt.subtrees.length > 0
  const r = rt.instance
  w.u32(eid)
  w.u8(
    (rt.reported ? FLAG_REPORTED : 0) |
      (isDefault ? FLAG_DEFAULT_DESCRIPTION : 0) |
      (r ? FLAG_BODIES : 0) |
      (partial ? FLAG_PARTIAL : 0) |
      (r && rt.next ? FLAG_REPLACED : 0) |
      (rt.jointWeights ? FLAG_JOINT_WEIGHTS : 0) |
      (rt.recoverRate > 0 ? FLAG_RECOVERS : 0) |
      (rt.motors ? FLAG_MOTORS : 0),
  )
  if (!isDefault) {
    w.u16(rt.description.length)
    for (const b of rt.description) {
      w.i32(b.node)
      w.u8(RAGDOLL_SHAPES.indexOf(b.shape))
      w.i32(b.parentBody)
      for (const x of [b.radius, b.length, ...b.axis, b.mass, b.coneAngle, b.twistAngle]) w.f64(x)
    }
  }
  if (partial) {
    w.u16(rt.subtrees.length)
    for (const j of rt.subtrees) w.u16(j)
  }
  writeHits(w, rt)
  if (rt.jointWeights) {
    w.raw(rt.jointWeights.weights, 0, rt.jointWeights.weights.length)
    w.raw(rt.jointWeights.targets, 0, rt.jointWeights.targets.length)
  }
  if (rt.recoverRate > 0) w.f64(rt.recoverRate)
  if (rt.motors) {
    w.u8(rt.motors.holdRoot ? 1 : 0)
    w.raw(rt.motors.strength, 0, rt.motors.strength.length)
  }
  if (!r) return
  w.raw(rt.world, 0, ctx.stores.Pose.count[eid]! * WORLD_STRIDE)
  writeInstance(w, r, `character ${eid}'s ragdoll`, partial)
  if (rt.motors) {
    for (const c of r.constraints) {
      const q = c instanceof RagdollJoint ? c.reference : null
      w.u8(c instanceof RagdollJoint && c.centred ? 1 : 0)
      for (const x of q ? [q.x, q.y, q.z, q.w] : [0, 0, 0, 1]) w.f64(x)
    }
  }
  if (!rt.next) return
  w.u16(rt.next.subtrees.length)
  for (const j of rt.next.subtrees) w.u16(j)
  writeHits(w, rt.next)
  w.f64(rt.next.recoverRate)
}

function writeHits(w: Writer, rt: RagdollRuntime): void {
  w.u16(rt.impulses.length)
  for (const hit of rt.impulses) {
    w.u16(hit.joint)
    for (const x of hit.impulse) w.f64(x)
  }
}
