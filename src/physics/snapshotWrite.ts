import { Body, Box, ConeTwistConstraint, Sphere, Vec3, type World as PhysicsWorld } from 'cannon-es'
import { AnimationError } from '../errors.ts'
import type { RagdollInstance } from './ragdoll.ts'
import type { RagdollBody } from './broadphase.ts'
import { DampedRagdollBody } from './damping.ts'
import { RagdollJoint } from './joint.ts'
import type { Writer } from '../sim/byteWriter.ts'

import {
  BODY_PARENT,
  DYNAMIC_DOUBLES,
  BROADPHASE_AXIS_LIST,
  BROADPHASE_DIRTY,
  HAS_ORIENTATION,
  JOINT_CONE_TWIST,
  JOINT_REPAIRED,
  SHAPE_BOX,
  SHAPE_SPHERE,
} from './snapshotFormat.ts'

/** Doubles on their way to the writer: through a typed array they are not boxed (see Writer.vec3). */
const D = new Float64Array(DYNAMIC_DOUBLES)
const DW = new Int32Array(D.buffer)

/** The cannon-es half of a snapshot: writing (layout and rationale: src/physics/snapshotFormat.ts). */

/**
 * Each instance's static block as written the first time (or as a restore built it from), by the instance's
 * bodies array: it stays what the instance is until something changes it (only a ghost ragdoll's collision
 * filter does: src/physics/ghosts.ts, which forgets it then), so later snapshots copy it, and a restore into the
 * same instance compares it.
 */
export const staticBlocks = new WeakMap<readonly Body[], Uint8Array>()

/**
 * A ragdoll instance (layout: snapshotFormat.ts). `eid` names it in the errors the format cannot carry.
 * Allocates nothing but the static block's copy, once per instance.
 */
export function writeInstance(w: Writer, r: RagdollInstance, eid: number): void {
  for (let b = 0; b < r.bodies.length; b++) checkBody(r.bodies[b]!, eid, b)
  for (let k = 0; k < r.anchors.length; k++) checkBody(r.anchors[k]!, eid, r.bodies.length + k)
  const known = staticBlocks.get(r.bodies)
  if (known !== undefined) {
    w.u32(known.length)
    w.u32(0)
    w.view(known)
  } else {
    const lengthAt = w.at()
    w.u32(0)
    w.u32(0)
    const from = w.at()
    writeStatic(w, r, eid)
    w.align(8)
    const length = w.at() - from
    w.setU32(lengthAt, length)
    const block = new Uint8Array(length)
    block.set(w.buffer.subarray(w.origin + from, w.origin + from + length))
    staticBlocks.set(r.bodies, block)
  }
  const count = r.bodies.length + r.anchors.length
  for (let b = 0; b < count; b++) {
    writeDynamic(bodyAt(r, b))
    w.words(DW, 0, 2 * DYNAMIC_DOUBLES)
  }
  for (let b = 0; b < count; b++) w.u8(bodyAt(r, b).sleepState)
  // Types here, not only in the static block: a powered ragdoll's held root turns kinematic and back.
  for (let b = 0; b < count; b++) w.u8(bodyAt(r, b).type)
  w.align(8)
}

/** Body `i` of an instance as the snapshot counts them: its bodies, then its anchors. */
export function bodyAt(r: RagdollInstance, i: number): Body {
  return i < r.bodies.length ? r.bodies[i]! : r.anchors[i - r.bodies.length]!
}

/** A body's dynamic doubles into D (see the layout). */
function writeDynamic(body: Body): void {
  const p = body.position
  const q = body.quaternion
  const v = body.velocity
  const a = body.angularVelocity
  const f = body.force
  const t = body.torque
  D[0] = p.x
  D[1] = p.y
  D[2] = p.z
  D[3] = q.x
  D[4] = q.y
  D[5] = q.z
  D[6] = q.w
  D[7] = v.x
  D[8] = v.y
  D[9] = v.z
  D[10] = a.x
  D[11] = a.y
  D[12] = a.z
  D[13] = f.x
  D[14] = f.y
  D[15] = f.z
  D[16] = t.x
  D[17] = t.y
  D[18] = t.z
  const m = body.invInertiaWorld.elements
  for (let k = 0; k < 9; k++) D[19 + k] = m[k]!
  D[28] = body.timeLastSleepy
}

function writeStatic(w: Writer, r: RagdollInstance, eid: number): void {
  // Written once per instance (then copied): the list of bodies and anchors is allocated here only.
  const all = r.anchors.length > 0 ? [...r.bodies, ...r.anchors] : r.bodies
  w.u16(r.bodies.length)
  w.u16(r.constraints.length)
  w.u16(r.anchors.length)
  for (let b = 0; b < r.bodies.length; b++) {
    writeBody(w, r.bodies[b]!, all, eid, b)
    w.raw(r.jointOffset, b * 7, 7)
  }
  for (let k = 0; k < r.constraints.length; k++) {
    const c = r.constraints[k]!
    const a = all.indexOf(c.bodyA)
    const b = r.bodies.indexOf(c.bodyB)
    if (!(c instanceof ConeTwistConstraint) || a < 0 || b < 0) {
      throw new Error(`snapshot: character ${eid}'s ragdoll has a constraint that is not its own cone-twist`)
    }
    w.u8(c instanceof RagdollJoint ? JOINT_REPAIRED : JOINT_CONE_TWIST)
    w.u16(a)
    w.u16(b)
    w.u8(c.collideConnected ? 1 : 0)
    w.vec3(c.pivotA)
    w.vec3(c.pivotB)
    w.vec3(c.axisA)
    w.vec3(c.axisB)
    D[0] = c.angle
    D[1] = c.twistAngle
    D[2] = c.equationX.maxForce
    w.raw(D, 0, 3)
  }
  for (let k = 0; k < r.anchors.length; k++) {
    writeBody(w, r.anchors[k]!, all, eid, r.bodies.length + k)
    w.i32(r.anchorJoint[k]!)
    w.raw(r.anchorOffset, 4 * k, 4)
  }
}

/** Refuses a body changed in a way the format does not carry (checked at every snapshot: a game could). */
function checkBody(body: Body, eid: number, index: number): void {
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
      `snapshot: character ${eid}'s ragdoll body ${index} has a material, fixed rotation, trigger flag, disabled response or axis factors, ` +
        'which the snapshot format does not carry',
    )
  }
}

function writeBody(w: Writer, body: Body, siblings: readonly Body[], eid: number, index: number): void {
  const parent = (body as Partial<RagdollBody>).ragdollParent ?? null
  const parentIndex = parent ? siblings.indexOf(parent) : -1
  w.u8(body.type)
  w.u8(parentIndex >= 0 ? BODY_PARENT : 0)
  w.u8(body.shapes.length)
  w.u8(0)
  // A DampedRagdollBody (every body spawnRagdoll makes) applies its damping itself; cannon-es's is 0 there.
  const damped = body instanceof DampedRagdollBody
  const linear = damped ? body.detLinearDamping : body.linearDamping
  const angular = damped ? body.detAngularDamping : body.angularDamping
  D[0] = body.mass
  D[1] = linear
  D[2] = angular
  w.raw(D, 0, 3)
  w.i32(body.collisionFilterGroup)
  w.i32(body.collisionFilterMask)
  w.vec3(body.inertia)
  w.vec3(body.invInertia)
  if (parentIndex >= 0) w.u16(parentIndex)
  for (let i = 0; i < body.shapes.length; i++) {
    const shape = body.shapes[i]!
    const o = body.shapeOrientations[i]!
    const oriented = o.x !== 0 || o.y !== 0 || o.z !== 0 || o.w !== 1
    if (shape instanceof Sphere) {
      w.u8(SHAPE_SPHERE | (oriented ? HAS_ORIENTATION : 0))
      D[0] = shape.radius
      w.raw(D, 0, 1)
    } else if (shape instanceof Box) {
      w.u8(SHAPE_BOX | (oriented ? HAS_ORIENTATION : 0))
      w.vec3(shape.halfExtents)
    } else {
      throw new AnimationError(
        'snapshot',
        `snapshot: character ${eid}'s ragdoll body ${index} shape ${i} is a ${shape.constructor.name}; ragdolls use spheres and boxes only`,
      )
    }
    w.vec3(body.shapeOffsets[i]!)
    if (oriented) w.quat(o)
  }
}

/**
 * Each ragdoll body's and constraint's owner, as `eid · 65536 + index` (made when a snapshot first meets it;
 * an instance belongs to one character for its life), so writing the world's order allocates nothing.
 */
const owners = new WeakMap<object, number>()

/** Records the owner of every body and constraint of character `eid`'s instance (see `owners`). */
export function noteInstance(eid: number, r: RagdollInstance): void {
  const count = r.bodies.length + r.anchors.length
  for (let i = 0; i < count; i++) {
    const body = bodyAt(r, i)
    if (!owners.has(body)) owners.set(body, eid * 65536 + i)
  }
  for (let i = 0; i < r.constraints.length; i++) {
    if (!owners.has(r.constraints[i]!)) owners.set(r.constraints[i]!, eid * 65536 + i)
  }
}

/**
 * Where the ragdolls' bodies and constraints sit in the physics world (every live instance noted by
 * noteInstance; `instances[eid]` is character eid's), the world's clock, and the broadphase's order.
 */
export function writePhysicsWorld(
  w: Writer,
  physics: PhysicsWorld,
  instances: readonly ({ readonly instance: RagdollInstance | null } | undefined)[],
): void {
  D[0] = physics.time
  D[1] = physics.stepnumber
  w.raw(D, 0, 2)
  w.vec3(physics.gravity)
  w.u32(physics.bodies.length)
  for (let i = 0; i < physics.bodies.length; i++) {
    const body = physics.bodies[i]!
    if (writeBodyOwner(w, body, instances[ownerOf(body)]?.instance ?? null)) continue
    w.u8(body.type)
    if (body.type === Body.STATIC) {
      w.vec3(body.position)
      w.quat(body.quaternion)
    }
  }
  w.u32(physics.constraints.length)
  for (let i = 0; i < physics.constraints.length; i++) {
    const c = physics.constraints[i]!
    writeOwner(w, c, instances[ownerOf(c)]?.instance?.constraints)
  }
  const broadphase = physics.broadphase as { dirty: boolean; axisList?: Body[] }
  const axis = Array.isArray(broadphase.axisList) ? broadphase.axisList : null
  w.u8((broadphase.dirty ? BROADPHASE_DIRTY : 0) | (axis ? BROADPHASE_AXIS_LIST : 0))
  if (axis) {
    w.u32(axis.length)
    for (let i = 0; i < axis.length; i++) {
      const b = axis[i]!
      // cannon-es keeps body.index at the body's place in world.bodies.
      w.u32(physics.bodies[b.index] === b ? b.index : 0xffffffff)
    }
  }
}

/** The character a body or constraint was noted for (0 for none). */
function ownerOf(item: object): number {
  return Math.floor((owners.get(item) ?? 0) / 65536)
}

/**
 * i32 owner and u16 index of `item` when it is still its noted owner's (`list`: that owner's instance's bodies
 * or constraints), else 0 and 0; returns whether it was.
 */
function writeOwner(w: Writer, item: object, list: readonly object[] | undefined): boolean {
  const code = owners.get(item) ?? 0
  const owned = list !== undefined && list[code % 65536] === item
  w.i32(owned ? Math.floor(code / 65536) : 0)
  w.u16(owned ? code % 65536 : 0)
  return owned
}

/** writeOwner for a body, among its instance's bodies and then anchors. */
function writeBodyOwner(w: Writer, body: Body, r: RagdollInstance | null): boolean {
  const code = owners.get(body) ?? 0
  const i = code % 65536
  const owned = r !== null && i < r.bodies.length + r.anchors.length && bodyAt(r, i) === body
  w.i32(owned ? Math.floor(code / 65536) : 0)
  w.u16(owned ? i : 0)
  return owned
}

function one(v: Vec3): boolean {
  return v.x === 1 && v.y === 1 && v.z === 1
}
