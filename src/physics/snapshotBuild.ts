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
import type { ResolvedBody } from './description.ts'
import type { RagdollInstance } from './ragdoll.ts'
import { DampedRagdollBody } from './damping.ts'
import { RagdollJoint } from './joint.ts'

import {
  type BodyData,
  type Entry,
  type InstanceData,
  JOINT_REPAIRED,
  type PhysicsPlan,
  SHAPE_SPHERE,
} from './snapshotFormat.ts'
import type { OwnPhysics } from './snapshotRead.ts'

/** The cannon-es half of a snapshot: rebuilding bodies, constraints and the world from a checked plan (layout and rationale: src/physics/snapshotFormat.ts). */

/**
 * Makes the instance's cannon-es bodies and constraints (not yet in a world). Joint ↔ body maps follow from
 * the description through `nodeJoint`, as spawnRagdoll builds them.
 */
export function buildInstance(
  data: InstanceData,
  description: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  jointCount: number,
): RagdollInstance {
  const bodies = data.bodies.map(buildBody)
  data.bodies.forEach((d, b) => (bodies[b]!.ragdollParent = d.parent < 0 ? null : bodies[d.parent]!))
  const constraints = data.constraints.map(({ kind, a, b, collideConnected, values: v }) => {
    const vec = (k: number) => new Vec3(v[k], v[k + 1], v[k + 2])
    const Joint = kind === JOINT_REPAIRED ? RagdollJoint : ConeTwistConstraint
    return new Joint(bodies[a]!, bodies[b]!, {
      pivotA: vec(0),
      pivotB: vec(3),
      axisA: vec(6),
      axisB: vec(9),
      angle: v[12],
      twistAngle: v[13],
      maxForce: v[14],
      collideConnected,
    })
  })
  const bodyJoint = new Int32Array(bodies.length)
  const jointBody = new Int32Array(jointCount).fill(-1)
  description.forEach((spec, b) => {
    const j = nodeJoint[spec.node]!
    bodyJoint[b] = j
    jointBody[j] = b
  })
  return { bodies, constraints, bodyJoint, jointBody, jointOffset: Float64Array.from(data.offsets) }
}

/** Always a DampedRagdollBody, as spawnRagdoll makes: the damping stored is applied deterministically. */
function buildBody(d: BodyData): DampedRagdollBody {
  const body = new DampedRagdollBody({
    mass: d.mass,
    linearDamping: d.damping[0],
    angularDamping: d.damping[1],
  })
  for (const s of d.shapes) {
    const [x, y, z] = s.size
    const shape = s.kind === SHAPE_SPHERE ? new Sphere(x!) : new Box(new Vec3(x, y, z))
    const o = s.orientation
    body.addShape(
      shape,
      new Vec3(s.offset[0], s.offset[1], s.offset[2]),
      o ? new Quaternion(o[0], o[1], o[2], o[3]) : undefined,
    )
  }
  return body
}

/** The body's dynamic state, written last: addBody and addShape's mass properties overwrite some of it. */
function setBodyState(body: Body, d: BodyData): void {
  const m = d.motion
  const i = d.inertia
  body.type = d.type as typeof body.type
  body.collisionFilterGroup = d.group
  body.collisionFilterMask = d.mask
  body.position.set(m[0]!, m[1]!, m[2]!)
  body.quaternion.set(m[3]!, m[4]!, m[5]!, m[6]!)
  body.velocity.set(m[7]!, m[8]!, m[9]!)
  body.angularVelocity.set(m[10]!, m[11]!, m[12]!)
  body.force.set(m[13]!, m[14]!, m[15]!)
  body.torque.set(m[16]!, m[17]!, m[18]!)
  body.inertia.set(i[0]!, i[1]!, i[2]!)
  body.invInertia.set(i[3]!, i[4]!, i[5]!)
  for (let k = 0; k < 9; k++) body.invInertiaWorld.elements[k] = i[6 + k]!
  body.sleepState = d.sleepState as typeof body.sleepState
  body.timeLastSleepy = d.timeLastSleepy
  body.previousPosition.copy(body.position)
  body.previousQuaternion.copy(body.quaternion)
  body.aabbNeedsUpdate = true
}

/**
 * Whether a live instance is the one `data` describes but for its motion: the same bodies (type, mass,
 * damping, filters, shapes, parents, inertia, joint offsets) and constraints (class, bodies, pivots, axes,
 * angles, force), so a restore can set its bodies' state in place rather than build it again.
 */
export function sameInstance(live: RagdollInstance, data: InstanceData): boolean {
  if (live.bodies.length !== data.bodies.length || live.constraints.length !== data.constraints.length)
    return false
  for (let b = 0; b < live.bodies.length; b++) {
    const body = live.bodies[b]!
    const d = data.bodies[b]!
    if (!(body instanceof DampedRagdollBody)) return false
    if (
      body.mass !== d.mass ||
      body.detLinearDamping !== d.damping[0] ||
      body.detAngularDamping !== d.damping[1] ||
      body.collisionFilterGroup !== d.group ||
      body.collisionFilterMask !== d.mask ||
      body.shapes.length !== d.shapes.length ||
      (body.ragdollParent ?? null) !== (d.parent < 0 ? null : live.bodies[d.parent]!)
    ) {
      return false
    }
    const i = d.inertia
    if (!sameVec(body.inertia, i, 0) || !sameVec(body.invInertia, i, 3)) return false
    for (let k = 0; k < 7; k++)
      if (!Object.is(live.jointOffset[7 * b + k], data.offsets[7 * b + k])) return false
    for (let k = 0; k < d.shapes.length; k++) {
      const shape = body.shapes[k]!
      const ds = d.shapes[k]!
      const o = body.shapeOrientations[k]!
      const q = ds.orientation ?? [0, 0, 0, 1]
      if (!sameVec(body.shapeOffsets[k]!, ds.offset, 0)) return false
      if (!(Object.is(o.x, q[0]) && Object.is(o.y, q[1]) && Object.is(o.z, q[2]) && Object.is(o.w, q[3])))
        return false
      if (ds.kind === SHAPE_SPHERE) {
        if (!(shape instanceof Sphere) || !Object.is(shape.radius, ds.size[0])) return false
      } else if (!(shape instanceof Box) || !sameVec(shape.halfExtents, ds.size, 0)) return false
    }
  }
  for (let k = 0; k < live.constraints.length; k++) {
    const c = live.constraints[k]!
    const d = data.constraints[k]!
    const v = d.values
    if (
      c instanceof RagdollJoint !== (d.kind === JOINT_REPAIRED) ||
      c.bodyA !== live.bodies[d.a] ||
      c.bodyB !== live.bodies[d.b] ||
      c.collideConnected !== d.collideConnected ||
      !sameVec(c.pivotA, v, 0) ||
      !sameVec(c.pivotB, v, 3) ||
      !sameVec(c.axisA, v, 6) ||
      !sameVec(c.axisB, v, 9) ||
      !Object.is(c.angle, v[12]) ||
      !Object.is(c.twistAngle, v[13]) ||
      !Object.is(c.equationX.maxForce, v[14])
    ) {
      return false
    }
  }
  return true
}

function sameVec(v: Vec3, a: readonly number[], o: number): boolean {
  return Object.is(v.x, a[o]) && Object.is(v.y, a[o + 1]) && Object.is(v.z, a[o + 2])
}

/**
 * Puts the ragdolls' bodies and constraints in the physics world at their snapshot places among the world's own
 * (`own`: its non-ragdoll ones, in order): from the first place where the world differs from the snapshot, its
 * bodies are taken out and the snapshot's added back in order (nothing moves when it is already in order; a
 * body of no instance here must have been removed before). Then sets every instance's body states, the
 * broadphase order and the world's clock.
 */
export function rebuildPhysicsWorld(
  physics: PhysicsWorld,
  plan: PhysicsPlan,
  instances: ReadonlyMap<number, RagdollInstance>,
  data: ReadonlyMap<number, InstanceData>,
  own: OwnPhysics,
): void {
  const order = <T extends Body | Constraint>(
    entries: readonly Entry[],
    mine: readonly T[],
    of: (r: RagdollInstance) => readonly T[],
  ) => {
    let k = 0
    return entries.map((e) => (e.eid === 0 ? mine[k++]! : of(instances.get(e.eid)!)[e.index]!))
  }
  const bodies = order(plan.bodies, own.bodies, (r) => r.bodies)
  let first = 0
  while (first < bodies.length && physics.bodies[first] === bodies[first]) first++
  if (first < bodies.length || physics.bodies.length !== bodies.length) {
    for (let i = physics.bodies.length - 1; i >= first; i--) physics.removeBody(physics.bodies[i]!)
    for (let i = first; i < bodies.length; i++) physics.addBody(bodies[i]!)
  }
  const constraints = order<Constraint>(plan.constraints, own.constraints, (r) => r.constraints)
  first = 0
  while (first < constraints.length && physics.constraints[first] === constraints[first]) first++
  if (first < constraints.length || physics.constraints.length !== constraints.length) {
    for (let i = physics.constraints.length - 1; i >= first; i--)
      physics.removeConstraint(physics.constraints[i]!)
    for (let i = first; i < constraints.length; i++) physics.addConstraint(constraints[i]!)
  }
  for (const [eid, r] of instances) r.bodies.forEach((b, i) => setBodyState(b, data.get(eid)!.bodies[i]!))
  const broadphase = physics.broadphase as { dirty: boolean; axisList?: Body[] }
  if (plan.axisList && broadphase.axisList) {
    const list = broadphase.axisList
    list.length = 0
    for (const i of plan.axisList) list.push(physics.bodies[i]!)
  }
  broadphase.dirty = plan.dirty
  physics.time = plan.time
  physics.stepnumber = plan.stepnumber
}
