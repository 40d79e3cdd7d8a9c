import type { RagdollInstance } from './ragdoll.ts'
import { composeWorld, localFromWorld, WORLD_STRIDE } from './kinematics.ts'

/** Reading a live ragdoll: its pose in joint-local transforms, and whether its state is still sound. */

/**
 * Reads the bodies back into joint-local transforms: for each joint in order, a joint with a body takes its
 * world transform from the body (with the joint offset applied) and its local transform relative to the
 * parent's world transform from this same read; a joint without one keeps its animated local transform
 * (`anim`) and is carried by its parent. Writes `phys` (pose layer, 10 floats per joint; scale is copied from
 * anim) and leaves the world transforms in `world` (8 doubles per joint). Allocation-free.
 */
export function readRagdollPose(
  r: RagdollInstance,
  phys: Float32Array,
  physOffset: number,
  anim: Float32Array,
  animOffset: number,
  parents: Int32Array,
  n: number,
  root: Float64Array,
  rootOffset: number,
  world: Float64Array,
): void {
  for (let j = 0; j < n; j++) {
    const p = parents[j]!
    const parentWorld = p < 0 ? root : world
    const po = p < 0 ? rootOffset : p * WORLD_STRIDE
    const lo = physOffset + j * 10
    const ao = animOffset + j * 10
    for (let k = 0; k < 10; k++) phys[lo + k] = anim[ao + k]!
    const b = r.jointBody[j]!
    const o = j * WORLD_STRIDE
    if (b < 0) {
      composeWorld(world, o, parentWorld, po, phys, lo)
      continue
    }
    const body = r.bodies[b]!
    const q = body.quaternion
    const off = b * 7
    // joint position = body position + q_body · d
    const dx = r.jointOffset[off]!
    const dy = r.jointOffset[off + 1]!
    const dz = r.jointOffset[off + 2]!
    const tx = 2 * (q.y * dz - q.z * dy)
    const ty = 2 * (q.z * dx - q.x * dz)
    const tz = 2 * (q.x * dy - q.y * dx)
    world[o] = body.position.x + dx + q.w * tx + (q.y * tz - q.z * ty)
    world[o + 1] = body.position.y + dy + q.w * ty + (q.z * tx - q.x * tz)
    world[o + 2] = body.position.z + dz + q.w * tz + (q.x * ty - q.y * tx)
    // joint rotation = q_body · o
    const ox = r.jointOffset[off + 3]!
    const oy = r.jointOffset[off + 4]!
    const oz = r.jointOffset[off + 5]!
    const ow = r.jointOffset[off + 6]!
    world[o + 3] = q.w * ox + q.x * ow + q.y * oz - q.z * oy
    world[o + 4] = q.w * oy - q.x * oz + q.y * ow + q.z * ox
    world[o + 5] = q.w * oz + q.x * oy - q.y * ox + q.z * ow
    world[o + 6] = q.w * ow - q.x * ox - q.y * oy - q.z * oz
    world[o + 7] = parentWorld[po + 7]! * anim[ao + 7]!
    localFromWorld(phys, lo, parentWorld, po, world, o)
  }
}

/**
 * True when any body has a non-finite state or moves faster than `maxSpeed` (units per second) or spins faster
 * than `maxSpin` (radians per second): the ragdoll exploded.
 */
export function ragdollExploded(r: RagdollInstance, maxSpeed: number, maxSpin: number): boolean {
  const speed2 = maxSpeed * maxSpeed
  const spin2 = maxSpin * maxSpin
  for (const b of r.bodies) {
    const p = b.position
    const q = b.quaternion
    const v = b.velocity
    const w = b.angularVelocity
    const vv = v.x * v.x + v.y * v.y + v.z * v.z
    const ww = w.x * w.x + w.y * w.y + w.z * w.z
    if (!(vv <= speed2 && ww <= spin2)) return true
    if (!Number.isFinite(p.x + p.y + p.z + q.x + q.y + q.z + q.w)) return true
  }
  return false
}

/**
 * False when any body's state is not finite: position, orientation, velocities, or the force and torque queued
 * for the next step (only a game writing into bodies between steps makes one). Checked before cannon-es steps:
 * stepped, a NaN reaches every body touching the same static body (the solver adds 0·NaN to the ground's solver
 * velocity) and every ragdoll lying on the ground would explode with it.
 */
export function bodiesFinite(r: RagdollInstance): boolean {
  const bodies = r.bodies
  for (let i = 0; i < bodies.length; i++) {
    const b = bodies[i]!
    const p = b.position
    const q = b.quaternion
    const v = b.velocity
    const w = b.angularVelocity
    const f = b.force
    const t = b.torque
    // NaN or ±∞ anywhere makes the sum NaN (∞ − ∞), and so do values so large that their sum overflows.
    const pose = p.x + p.y + p.z + q.x + q.y + q.z + q.w
    const motion = v.x + v.y + v.z + w.x + w.y + w.z
    const load = f.x + f.y + f.z + t.x + t.y + t.z
    const sum = pose + motion + load
    if (sum - sum !== 0) return false
  }
  return true
}
