import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollBodies, ReadBodies } from '../src/physics/api.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { copyInto } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import type { AnimationContext, RagdollRuntime } from '../plugin/context.ts'
import { createRagdollRuntime, defaultDescription } from '../plugin/ragdolls.ts'
import {
  BODY_NUMBER_COUNT,
  bodyNumbers,
  FLAG_REPORTED,
  RAGDOLL_SHAPES,
  ragdollFlags,
  sameDescription,
} from './ragdollFields.ts'
import { markSelfCollisions } from '../systems/ragdollSpawn.ts'
import type { CharactersData } from './readCharacters.ts'
import type { RagdollData } from './readRagdolls.ts'

/**
 * The snapshot's "ragdolls" section (read and checked by readRagdolls.ts): u32 count; per runtime (in the
 * characters section's order): u32 eid, u8 flags (FLAG_REPORTED explosion reported, FLAG_DEFAULT_DESCRIPTION,
 * FLAG_BODIES bodies exist, FLAG_PARTIAL, FLAG_REPLACED, FLAG_JOINT_WEIGHTS, FLAG_RECOVERS, FLAG_MOTORS),
 *   [not default] u16 bodies × (i32 node, u8 shape, i32 parent body, f64×8 radius, length, axis, mass, cone,
 *     twist)
 *   [partial] u16 subtree roots × u16 joint (ascending, none under another)
 *   u16 queued hits × (u16 joint, f64×3 impulse)
 *   zero bytes to a multiple of 8, then
 *   [joint weights] f64[n] weights, f64[n] targets (each in [0, 1])
 *   [recovers] f64 recovery rate per second (> 0)
 *   [motors] f64[n] strength per joint (in [0, 100]), u8 hold root (0, 1), zero bytes to a multiple of 8
 *   [bodies exist] f64[8·n] the last read-back joint world transforms, then the instance (bodies, anchors,
 *     joint offsets, constraints: src/physics/snapshotFormat.ts);
 *     [motors] per constraint f64×4 the rotation its limits are centred on, u8 centred (0, 1), zeros to 8
 *   [replaced] u16 its subtree roots × u16 joint (none: the whole body), u16 its queued hits × (u16 joint,
 *     f64×3 impulse), zeros to 8, f64 its recovery rate (0: none)
 */

/** Doubles on their way to the writer: through a typed array they are not boxed (see Writer.vec3). */
const D = new Float64Array(BODY_NUMBER_COUNT)

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
  const isDefault = rt.description === defaultDescription(ctx, ctx.stores.Pose.asset[eid]!)
  const partial = rt.subtrees.length > 0
  const r = rt.instance
  const n = ctx.stores.Pose.count[eid]!
  w.u32(eid)
  w.u8(ragdollFlags(rt, isDefault))
  if (!isDefault) {
    const description = rt.description
    w.u16(description.length)
    for (let k = 0; k < description.length; k++) {
      const b = description[k]!
      w.i32(b.node)
      w.u8(RAGDOLL_SHAPES.indexOf(b.shape))
      w.i32(b.parentBody)
      bodyNumbers(D, b)
      w.raw(D, 0, BODY_NUMBER_COUNT)
    }
  }
  if (partial) writeRoots(w, rt.subtrees)
  writeHits(w, rt)
  w.align(8)
  if (rt.jointWeights) {
    w.raw(rt.jointWeights.weights, 0, n)
    w.raw(rt.jointWeights.targets, 0, n)
  }
  if (rt.recoverRate > 0) {
    D[0] = rt.recoverRate
    w.raw(D, 0, 1)
  }
  if (rt.motors) {
    w.raw(rt.motors.strength, 0, n)
    w.u8(rt.motors.holdRoot ? 1 : 0)
    w.align(8)
  }
  if (!r) return
  w.raw(rt.world, 0, n * WORLD_STRIDE)
  ctx.physics.writeBodies(w, r, eid)
  if (rt.motors) ctx.physics.writeMotorCentres(w, r)
  const next = rt.next
  if (next === null) return
  writeRoots(w, next.subtrees)
  writeHits(w, next)
  w.align(8)
  D[0] = next.recoverRate
  w.raw(D, 0, 1)
}

function writeRoots(w: Writer, roots: readonly number[]): void {
  w.u16(roots.length)
  for (let k = 0; k < roots.length; k++) w.u16(roots[k]!)
}

function writeHits(w: Writer, rt: RagdollRuntime): void {
  w.u16(rt.impulses.length)
  for (let k = 0; k < rt.impulses.length; k++) {
    const hit = rt.impulses[k]!
    w.u16(hit.joint)
    D[0] = hit.impulse[0]
    D[1] = hit.impulse[1]
    D[2] = hit.impulse[2]
    w.raw(D, 0, 3)
  }
}

// --------------------------------------------------------------------------------------------------- apply

/** What the physics section's apply needs: each restored instance and the body states to give it. */
export interface RestoredInstances {
  readonly instances: Map<number, RagdollBodies>
  readonly data: Map<number, ReadBodies>
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
  const instances = new Map<number, RagdollBodies>()
  const data = new Map<number, ReadBodies>()
  for (let i = 0; i < characters.count; i++) {
    const eid = characters.eids[i]!
    const assetId = characters.asset[i]!
    const current = ctx.ragdolls[eid]
    const rd = byEid.get(eid)
    if (rd === undefined) {
      if (current?.instance) ctx.physics.remove(current.instance)
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
        ? rt.description === fallback
        : rt.description !== fallback && sameDescription(rt.description, description)) &&
      sameRoots(rt.subtrees, rd.subtrees)
    if (rt === undefined || !same) {
      if (rt?.instance) ctx.physics.remove(rt.instance)
      rt = createRagdollRuntime(ctx, eid, description, rd.subtrees, [], false)
    }
    rt.impulses.length = 0
    for (const hit of rd.impulses) rt.impulses.push(hit)
    rt.reported = (rd.flags & FLAG_REPORTED) !== 0
    const n = characters.n[i]!
    const asset = ctx.assets[assetId]!
    if (rd.world >= 0) copyInto(rt.world, 0, bytes, rd.world, n * WORLD_STRIDE)
    const wasPowered = rt.motors !== null && rt.motors.active
    rt.motors = rd.motors && {
      holdRoot: rd.motors.holdRoot,
      strength: Float64Array.from(rd.motors.strength),
      active: rd.motors.strength.some((x) => x > 0),
    }
    rt.jointWeights = rd.jointWeights && {
      weights: Float64Array.from(rd.jointWeights.weights),
      targets: Float64Array.from(rd.jointWeights.targets),
    }
    rt.recoverRate = rd.recoverRate
    rt.next = null
    if (rd.next) {
      rt.next = createRagdollRuntime(ctx, eid, description, rd.next.subtrees, rd.next.impulses, rt.reported)
      rt.next.recoverRate = rd.next.recoverRate
      // A replacement shares the motors (as setRagdollMotors gives them).
      rt.next.motors = rt.motors
    }
    if (rd.instance) {
      // The same instance (its static bytes are the snapshot's): only its bodies' motion is set (physics apply).
      const reused = rt.instance !== null && rt.instance === rd.instance.reuse
      if (!reused) {
        if (rt.instance) ctx.physics.remove(rt.instance)
        rt.instance = ctx.physics.buildBodies(bytes, rd.instance, rt.bodies, asset.nodeJoint, n)
      }
      const r = rt.instance!
      // Which bodies may touch follows from the description and whether motors are on (stepRagdolls).
      if (!reused || wasPowered !== (rt.motors !== null && rt.motors.active))
        markSelfCollisions(ctx.physics, rt, asset)
      // Motors as the snapshot had them; a held root's body type comes with the bodies' states.
      rt.motorCapacity = null
      const references = rd.motors?.references
      if (references) {
        // addMotors keeps a joint's motors when it has them; the capacity follows from the instance.
        rt.motorCapacity = ctx.physics.attachMotors(r, ctx.dt)
        ctx.physics.restoreMotorCentres(r, references)
      }
      instances.set(eid, r)
      data.set(eid, rd.instance)
    } else if (rt.instance) {
      ctx.physics.remove(rt.instance)
      rt.instance = null
      rt.motorCapacity = null
    }
    ctx.ragdolls[eid] = rt
  }
  return { instances, data }
}

function sameRoots(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k])
}
