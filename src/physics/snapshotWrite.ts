import {
  Body,
  Box,
  ConeTwistConstraint,
  Quaternion,
  Sphere,
  Vec3,
  type Constraint,
  type World as PhysicsWorld,
} from 'cannon-es'
import { AnimationError } from '../errors.ts'
import type { RagdollInstance } from './ragdoll.ts'
import type { RagdollBody } from './broadphase.ts'
import { DampedRagdollBody } from './damping.ts'
import { RagdollJoint } from './joint.ts'
import { writeVec3, type Writer } from '../sim/byteStream.ts'

import {
  BODY_FORCES,
  BODY_PARENT,
  BROADPHASE_AXIS_LIST,
  BROADPHASE_DIRTY,
  HAS_ORIENTATION,
  JOINT_CONE_TWIST,
  JOINT_REPAIRED,
  SHAPE_BOX,
  SHAPE_SPHERE,
} from './snapshotFormat.ts'

/** The cannon-es half of a snapshot: writing (layout and rationale: src/physics/snapshotFormat.ts). */

/** A ragdoll's bodies and then its anchors: what body indices in the snapshot count. */
export function instanceBodies(r: RagdollInstance): Body[] {
  return [...r.bodies, ...r.anchors]
}

/** An instance; `partial` (the ragdoll section's flag) says whether its anchors follow. */
export function writeInstance(w: Writer, r: RagdollInstance, what: string, partial: boolean): void {
  const all = instanceBodies(r)
  w.u16(r.bodies.length)
  r.bodies.forEach((body, b) => {
    writeBody(w, body, all, `${what} body ${b}`)
    w.raw(r.jointOffset, b * 7, 7)
  })
  w.u16(r.constraints.length)
  for (const c of r.constraints) {
    const a = all.indexOf(c.bodyA)
    const b = r.bodies.indexOf(c.bodyB)
    if (!(c instanceof ConeTwistConstraint) || a < 0 || b < 0) {
      throw new Error(`snapshot: ${what} has a constraint that is not its own cone-twist`)
    }
    w.u8(c instanceof RagdollJoint ? JOINT_REPAIRED : JOINT_CONE_TWIST)
    w.u16(a)
    w.u16(b)
    w.u8(c.collideConnected ? 1 : 0)
    for (const v of [c.pivotA, c.pivotB, c.axisA, c.axisB]) writeVec3(w, v)
    w.f64(c.angle)
    w.f64(c.twistAngle)
    w.f64(c.equationX.maxForce)
  }
  if (!partial) {
    if (r.anchors.length > 0) throw new Error(`snapshot: ${what} has anchors but is not partial`)
    return
  }
  w.u16(r.anchors.length)
  r.anchors.forEach((anchor, k) => {
    writeBody(w, anchor, all, `${what} anchor ${k}`)
    w.i32(r.anchorJoint[k]!)
    w.raw(r.anchorOffset, k * 4, 4)
  })
}

function writeBody(w: Writer, body: Body, siblings: readonly Body[], what: string): void {
  const one = (v: Vec3): boolean => v.x === 1 && v.y === 1 && v.z === 1
  if (
    body.material !== null ||
    body.fixedRotation ||
    body.isTrigger ||
    !body.collisionResponse ||
    !one(body.linearFactor) ||
    !one(body.angularFactor)
  ) {
    throw new AnimationError(
      'snapshot',
      `snapshot: ${what} has a material, fixed rotation, trigger flag, disabled response or axis factors, ` +
        'which the snapshot format does not carry',
    )
  }
  const forces = !isZero(body.force) || !isZero(body.torque)
  const parent = (body as Partial<RagdollBody>).ragdollParent ?? null
  const parentIndex = parent ? siblings.indexOf(parent) : -1
  w.u8(body.type)
  w.u8((forces ? BODY_FORCES : 0) | (parentIndex >= 0 ? BODY_PARENT : 0))
  w.u8(body.sleepState)
  w.u8(body.shapes.length)
  // A DampedRagdollBody (every body spawnRagdoll makes) applies its damping itself; cannon-es's is 0 there.
  const damped = body instanceof DampedRagdollBody
  const linear = damped ? body.detLinearDamping : body.linearDamping
  const angular = damped ? body.detAngularDamping : body.angularDamping
  for (const x of [body.mass, linear, angular]) w.f64(x)
  w.i32(body.collisionFilterGroup)
  w.i32(body.collisionFilterMask)
  writeVec3(w, body.position)
  writeQuaternion(w, body.quaternion)
  writeVec3(w, body.velocity)
  writeVec3(w, body.angularVelocity)
  if (forces) {
    writeVec3(w, body.force)
    writeVec3(w, body.torque)
  }
  writeVec3(w, body.inertia)
  writeVec3(w, body.invInertia)
  for (const x of body.invInertiaWorld.elements) w.f64(x)
  w.f64(body.timeLastSleepy)
  if (parentIndex >= 0) w.u16(parentIndex)
  body.shapes.forEach((shape, i) => {
    const o = body.shapeOrientations[i]!
    const oriented = o.x !== 0 || o.y !== 0 || o.z !== 0 || o.w !== 1
    if (shape instanceof Sphere) {
      w.u8(SHAPE_SPHERE | (oriented ? HAS_ORIENTATION : 0))
      w.f64(shape.radius)
    } else if (shape instanceof Box) {
      w.u8(SHAPE_BOX | (oriented ? HAS_ORIENTATION : 0))
      writeVec3(w, shape.halfExtents)
    } else {
      throw new AnimationError(
        'snapshot',
        `snapshot: ${what} shape ${i} is a ${shape.constructor.name}; ragdolls use spheres and boxes only`,
      )
    }
    writeVec3(w, body.shapeOffsets[i]!)
    if (oriented) writeQuaternion(w, o)
  })
}

/**
 * Where the ragdolls' bodies and constraints sit in the physics world (`owners` maps each to its character and
 * index), the world's clock, and the broadphase's order.
 */
export function writePhysicsWorld(
  w: Writer,
  physics: PhysicsWorld,
  instances: ReadonlyMap<number, RagdollInstance>,
): void {
  const bodyOwner = new Map<Body, [number, number]>()
  const constraintOwner = new Map<Constraint, [number, number]>()
  for (const [eid, r] of instances) {
    instanceBodies(r).forEach((b, i) => bodyOwner.set(b, [eid, i]))
    r.constraints.forEach((c, i) => constraintOwner.set(c, [eid, i]))
  }
  w.f64(physics.time)
  w.f64(physics.stepnumber)
  writeVec3(w, physics.gravity)
  w.u32(physics.bodies.length)
  for (const body of physics.bodies) {
    const owner = bodyOwner.get(body)
    w.i32(owner ? owner[0] : 0)
    w.u16(owner ? owner[1] : 0)
    if (owner) continue
    w.u8(body.type)
    if (body.type === Body.STATIC) {
      writeVec3(w, body.position)
      writeQuaternion(w, body.quaternion)
    }
  }
  w.u32(physics.constraints.length)
  for (const c of physics.constraints) {
    const owner = constraintOwner.get(c)
    w.i32(owner ? owner[0] : 0)
    w.u16(owner ? owner[1] : 0)
  }
  const broadphase = physics.broadphase as { dirty: boolean; axisList?: Body[] }
  const axis = Array.isArray(broadphase.axisList) ? broadphase.axisList : null
  w.u8((broadphase.dirty ? BROADPHASE_DIRTY : 0) | (axis ? BROADPHASE_AXIS_LIST : 0))
  if (axis) {
    const index = new Map(physics.bodies.map((b, i) => [b, i]))
    w.u32(axis.length)
    for (const b of axis) w.u32(index.get(b) ?? 0xffffffff)
  }
}

function writeQuaternion(w: Writer, q: Quaternion): void {
  for (const x of [q.x, q.y, q.z, q.w]) w.f64(x)
}

/** Zero, and not -0 (whose bits a restore must keep too). */
function isZero(v: Vec3): boolean {
  return Object.is(v.x, 0) && Object.is(v.y, 0) && Object.is(v.z, 0)
}
