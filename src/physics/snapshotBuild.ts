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
import { linkRagdoll, type RagdollInstance } from './ragdoll.ts'
import { DampedRagdollBody } from './damping.ts'
import { RagdollJoint } from './joint.ts'
import { pushShape, shapesAdded } from './shapes.ts'

import {
  type BodyData,
  type Entry,
  type InstanceData,
  JOINT_REPAIRED,
  type PhysicsPlan,
  SHAPE_SPHERE,
} from './snapshotFormat.ts'

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
  const anchors = data.anchors.map((a) => buildBody(a.body))
  // Bodies, then anchors: a top body of a partial ragdoll hangs from its anchor.
  const all = [...bodies, ...anchors]
  data.bodies.forEach((d, b) => (bodies[b]!.ragdollParent = d.parent < 0 ? null : all[d.parent]!))
  const constraints = data.constraints.map(({ kind, a, b, collideConnected, values: v }) => {
    const vec = (k: number) => new Vec3(v[k], v[k + 1], v[k + 2])
    const Joint = kind === JOINT_REPAIRED ? RagdollJoint : ConeTwistConstraint
    return new Joint(all[a]!, bodies[b]!, {
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
  return {
    bodies,
    constraints,
    bodyJoint,
    jointBody,
    jointOffset: Float64Array.from(data.offsets),
    ...linkRagdoll(bodies, constraints, anchors),
    anchors,
    anchorJoint: Int32Array.from(data.anchors.map((a) => a.joint)),
    anchorOffset: Float64Array.from(data.anchors.flatMap((a) => a.offset)),
  }
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
    pushShape(
      body,
      shape,
      new Vec3(s.offset[0], s.offset[1], s.offset[2]),
      o ? new Quaternion(o[0], o[1], o[2], o[3]) : null,
    )
  }
  if (d.shapes.length > 0) shapesAdded(body)
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
 * Puts the built ragdolls into the physics world at their snapshot places among the world's own (non-ragdoll)
 * bodies and constraints — from the first ragdoll entry on, the world's own ones are taken out and everything
 * is added back in snapshot order —, then sets body states, the broadphase order and the world's clock.
 */
export function rebuildPhysicsWorld(
  physics: PhysicsWorld,
  plan: PhysicsPlan,
  instances: ReadonlyMap<number, RagdollInstance>,
  data: ReadonlyMap<number, InstanceData>,
): void {
  const place = <T extends Body | Constraint>(
    entries: readonly Entry[],
    own: readonly T[],
    of: (r: RagdollInstance) => readonly T[],
    remove: (x: T) => void,
    add: (x: T) => void,
  ) => {
    let k = 0
    const items = entries.map((e) => (e.eid === 0 ? own[k++]! : of(instances.get(e.eid)!)[e.index]!))
    const first = entries.findIndex((e) => e.eid !== 0)
    if (first < 0) return
    for (let i = first; i < items.length; i++) if (entries[i]!.eid === 0) remove(items[i]!)
    for (let i = first; i < items.length; i++) add(items[i]!)
  }
  place(
    plan.bodies,
    [...physics.bodies],
    (r) => [...r.bodies, ...r.anchors],
    (b) => physics.removeBody(b),
    (b) => physics.addBody(b),
  )
  place<Constraint>(
    plan.constraints,
    [...physics.constraints],
    (r) => r.constraints,
    (c) => physics.removeConstraint(c),
    (c) => physics.addConstraint(c),
  )
  for (const [eid, r] of instances) {
    const d = data.get(eid)!
    r.bodies.forEach((b, i) => setBodyState(b, d.bodies[i]!))
    r.anchors.forEach((a, k) => setBodyState(a, d.anchors[k]!.body))
  }
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
