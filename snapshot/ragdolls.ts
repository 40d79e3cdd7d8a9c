import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollInstance } from '../src/physics/ragdoll.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { buildInstance, noteInstance, writeInstance, type InstanceData } from '../src/physics/snapshot.ts'
import { copyInto } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import type { AnimationContext, RagdollRuntime } from '../plugin/context.ts'
import { createRagdollRuntime, defaultDescription } from '../plugin/ragdolls.ts'
import { FLAG_BODIES, FLAG_DEFAULT_DESCRIPTION, FLAG_REPORTED, RAGDOLL_SHAPES } from './format.ts'
import type { CharactersData } from './readCharacters.ts'
import type { RagdollData } from './readRagdolls.ts'

/**
 * The snapshot's "ragdolls" section (read and checked by readRagdolls.ts): u32 count; per runtime (in the
 * characters section's order): u32 eid, u8 flags (FLAG_REPORTED explosion reported, FLAG_DEFAULT_DESCRIPTION,
 * FLAG_BODIES bodies exist),
 *   [not default] u16 bodies × (i32 node, u8 shape, i32 parent body, f64×8 radius, length, axis, mass, cone,
 *     twist)
 *   u16 queued hits × (u16 joint, f64×3 impulse)
 *   [bodies exist] zero bytes to a multiple of 8, f64[8·n] the last read-back joint world transforms, then the
 *     instance (bodies, joint offsets, constraints: src/physics/snapshotFormat.ts)
 */

/** Doubles on their way to the writer: through a typed array they are not boxed (see Writer.vec3). */
const D = new Float64Array(8)

export function writeRagdolls(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const countAt = w.at()
  w.u32(0)
  let count = 0
  for (let i = 0; i < characters.length; i++) {
    const eid = characters[i]!
    const rt = ctx.ragdolls[eid]
    if (rt === undefined) continue
    count++
    writeRagdoll(ctx, w, eid, rt)
  }
  w.setU32(countAt, count)
}

function writeRagdoll(ctx: AnimationContext, w: Writer, eid: number, rt: RagdollRuntime): void {
  const isDefault = rt.bodies === defaultDescription(ctx, ctx.stores.Pose.asset[eid]!)
  const r = rt.instance
  w.u32(eid)
  w.u8((rt.reported ? FLAG_REPORTED : 0) | (isDefault ? FLAG_DEFAULT_DESCRIPTION : 0) | (r ? FLAG_BODIES : 0))
  if (!isDefault) {
    w.u16(rt.bodies.length)
    for (let k = 0; k < rt.bodies.length; k++) {
      const b = rt.bodies[k]!
      w.i32(b.node)
      w.u8(RAGDOLL_SHAPES.indexOf(b.shape))
      w.i32(b.parentBody)
      D[0] = b.radius
      D[1] = b.length
      D[2] = b.axis[0]
      D[3] = b.axis[1]
      D[4] = b.axis[2]
      D[5] = b.mass
      D[6] = b.coneAngle
      D[7] = b.twistAngle
      w.raw(D, 0, 8)
    }
  }
  w.u16(rt.impulses.length)
  for (let k = 0; k < rt.impulses.length; k++) {
    const hit = rt.impulses[k]!
    w.u16(hit.joint)
    D[0] = hit.impulse[0]
    D[1] = hit.impulse[1]
    D[2] = hit.impulse[2]
    w.raw(D, 0, 3)
  }
  if (!r) return
  w.align(8)
  w.raw(rt.world, 0, ctx.stores.Pose.count[eid]! * WORLD_STRIDE)
  writeInstance(w, r, eid)
  noteInstance(eid, r)
}

// --------------------------------------------------------------------------------------------------- apply

/** What the physics section's apply needs: each restored instance and the body states to give it. */
export interface RestoredInstances {
  readonly instances: Map<number, RagdollInstance>
  readonly data: Map<number, InstanceData>
}

/**
 * Gives every character of the snapshot the ragdoll runtime it had: kept when its description is the same,
 * made otherwise; its instance kept when the read found it the same but for motion (InstanceData.reuse),
 * built otherwise, or removed. Bodies and constraints that leave are taken out of the physics world here; the physics section's
 * apply puts the rest in order and sets their state. Cannot throw for a checked plan.
 */
export function applyRagdolls(
  ctx: AnimationContext,
  bytes: Uint8Array,
  characters: CharactersData,
  ragdolls: readonly RagdollData[],
): RestoredInstances {
  const byEid = new Map(ragdolls.map((rd) => [rd.eid, rd]))
  const instances = new Map<number, RagdollInstance>()
  const data = new Map<number, InstanceData>()
  for (let i = 0; i < characters.count; i++) {
    const eid = characters.eids[i]!
    const assetId = characters.asset[i]!
    const current = ctx.ragdolls[eid]
    const rd = byEid.get(eid)
    if (rd === undefined) {
      if (current?.instance) removeInstance(ctx, current.instance)
      ctx.ragdolls[eid] = undefined
      continue
    }
    const fallback = defaultDescription(ctx, assetId)
    const description = rd.bodies ?? fallback
    let rt = current
    // The default description is the asset's own object (so the next snapshot writes it as the default).
    const same =
      rt !== undefined &&
      (rd.bodies === null
        ? rt.bodies === fallback
        : rt.bodies !== fallback && sameDescription(rt.bodies, description))
    if (rt === undefined || !same) {
      if (rt?.instance) removeInstance(ctx, rt.instance)
      rt = createRagdollRuntime(ctx, eid, description, [], false)
    }
    rt.impulses.length = 0
    for (const hit of rd.impulses) rt.impulses.push(hit)
    rt.reported = (rd.flags & FLAG_REPORTED) !== 0
    const n = characters.n[i]!
    if (rd.world >= 0) copyInto(rt.world, 0, bytes, rd.world, n * WORLD_STRIDE)
    if (rd.instance) {
      // The same instance (its static bytes are the snapshot's): only its bodies' motion is set (physics apply).
      if (!(rt.instance !== null && rt.instance === rd.instance.reuse)) {
        if (rt.instance) removeInstance(ctx, rt.instance)
        rt.instance = buildInstance(bytes, rd.instance, description, ctx.assets[assetId]!.nodeJoint, n)
      }
      instances.set(eid, rt.instance)
      data.set(eid, rd.instance)
    } else if (rt.instance) {
      removeInstance(ctx, rt.instance)
      rt.instance = null
    }
    ctx.ragdolls[eid] = rt
  }
  return { instances, data }
}

function removeInstance(ctx: AnimationContext, r: RagdollInstance): void {
  for (const c of r.constraints) ctx.physics.removeConstraint(c)
  for (const b of r.bodies) ctx.physics.removeBody(b)
}

export function sameDescription(a: readonly ResolvedBody[], b: readonly ResolvedBody[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!
    const y = b[k]!
    if (
      x.node !== y.node ||
      x.shape !== y.shape ||
      x.parentBody !== y.parentBody ||
      !Object.is(x.radius, y.radius) ||
      !Object.is(x.length, y.length) ||
      !Object.is(x.axis[0], y.axis[0]) ||
      !Object.is(x.axis[1], y.axis[1]) ||
      !Object.is(x.axis[2], y.axis[2]) ||
      !Object.is(x.mass, y.mass) ||
      !Object.is(x.coneAngle, y.coneAngle) ||
      !Object.is(x.twistAngle, y.twistAngle)
    ) {
      return false
    }
  }
  return true
}
