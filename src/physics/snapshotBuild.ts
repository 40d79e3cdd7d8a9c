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
import type { RagdollBodies } from './api.ts'
import type { ResolvedBody } from './description.ts'
import { linkRagdoll, type RagdollInstance } from './ragdoll.ts'
import { pushShape, shapesAdded } from './shapes.ts'
import { ragdollBodyClass, type DampedRagdollBody } from './damping.ts'
import { RagdollJoint } from './joint.ts'

import {
  type BodyData,
  DYNAMIC_DOUBLES,
  type Entry,
  type InstanceData,
  JOINT_REPAIRED,
  type PhysicsPlan,
  SHAPE_SPHERE,
} from './snapshotFormat.ts'
import { readStatic, type OwnPhysics } from './snapshotRead.ts'
import { bodyAt, staticBlocks } from './snapshotWrite.ts'

/** The cannon-es half of a snapshot: rebuilding bodies, constraints and the world from a checked plan (layout and rationale: src/physics/snapshotFormat.ts). */

/**
 * Makes the instance's cannon-es bodies and constraints (not yet in a world) from its static block (parsed if
 * the read kept it as bytes), and keeps those bytes as the new instance's. Joint ↔ body maps follow from the
 * description through `nodeJoint`, as spawnRagdoll builds them.
 */
export function buildInstance(
  world: PhysicsWorld,
  bytes: Uint8Array,
  data: InstanceData,
  description: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  jointCount: number,
): RagdollInstance {
  const statics =
    data.statics ??
    readStatic(bytes, data.staticAt, data.staticLength, 'ragdoll', description, anchorJoints(data))
  const RagdollBodyClass = ragdollBodyClass(world)
  const bodies = statics.bodies.map((d) => buildBody(RagdollBodyClass, d))
  const anchors = statics.anchors.map((a) => buildBody(RagdollBodyClass, a.body))
  // Bodies, then anchors: a top body of a partial ragdoll hangs from its anchor.
  const all = anchors.length > 0 ? [...bodies, ...anchors] : bodies
  statics.bodies.forEach((d, b) => (bodies[b]!.ragdollParent = d.parent < 0 ? null : all[d.parent]!))
  const constraints = statics.constraints.map(({ kind, a, b, collideConnected, values: v }) => {
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
  bodies.forEach((body, b) => setStatic(body, statics.bodies[b]!))
  anchors.forEach((body, k) => setStatic(body, statics.anchors[k]!.body))
  const instance = {
    bodies,
    constraints,
    bodyJoint,
    jointBody,
    jointOffset: Float64Array.from(statics.offsets),
    ...linkRagdoll(bodies, constraints, anchors),
    anchors,
    anchorJoint: Int32Array.from(statics.anchors, (a) => a.joint),
    anchorOffset: Float64Array.from(statics.anchors.flatMap((a) => a.offset)),
    colliders: null,
  } as Omit<RagdollInstance, keyof RagdollBodies> as RagdollInstance
  staticBlocks.set(instance.bodies, bytes.slice(data.staticAt, data.staticAt + data.staticLength))
  return instance
}

/** Always a DampedRagdollBody, as spawnRagdoll makes: the damping stored is applied deterministically. */
function buildBody(RagdollBodyClass: typeof DampedRagdollBody, d: BodyData): DampedRagdollBody {
  const body = new RagdollBodyClass({
    mass: d.mass,
    linearDamping: d.damping[0],
    angularDamping: d.damping[1],
  })
  // pushShape and one shapesAdded (src/physics/shapes.ts): addShape recomputes the mass properties per shape.
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

/**
 * The joints a partial ragdoll's anchors follow, for re-parsing a static block that was read as the same bytes
 * as live instance `reuse`'s (so its anchors follow the same joints); null for a whole-body ragdoll.
 */
function anchorJoints(data: InstanceData): number[] | null {
  return data.anchorCount > 0 && data.reuse ? Array.from(data.reuse.anchorJoint) : null
}

/** A built body's static state, written after addShape (whose mass properties overwrite the inertia). */
function setStatic(body: Body, d: BodyData): void {
  const i = d.inertia
  body.type = d.type as typeof body.type
  body.collisionFilterGroup = d.group
  body.collisionFilterMask = d.mask
  body.inertia.set(i[0]!, i[1]!, i[2]!)
  body.invInertia.set(i[3]!, i[4]!, i[5]!)
}

/** A body's dynamic state from the snapshot's doubles at `o` (DYNAMIC_DOUBLES of them), its sleep state and type. */
function setDynamic(body: Body, d: Float64Array, o: number, sleep: number, type: number): void {
  body.type = type as typeof body.type
  body.position.set(d[o]!, d[o + 1]!, d[o + 2]!)
  body.quaternion.set(d[o + 3]!, d[o + 4]!, d[o + 5]!, d[o + 6]!)
  body.velocity.set(d[o + 7]!, d[o + 8]!, d[o + 9]!)
  body.angularVelocity.set(d[o + 10]!, d[o + 11]!, d[o + 12]!)
  body.force.set(d[o + 13]!, d[o + 14]!, d[o + 15]!)
  body.torque.set(d[o + 16]!, d[o + 17]!, d[o + 18]!)
  const m = body.invInertiaWorld.elements
  for (let k = 0; k < 9; k++) m[k] = d[o + 19 + k]!
  body.timeLastSleepy = d[o + 28]!
  body.sleepState = sleep as typeof body.sleepState
  body.previousPosition.copy(body.position)
  body.previousQuaternion.copy(body.quaternion)
  body.aabbNeedsUpdate = true
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
  bytes: Uint8Array,
): void {
  const order = <T extends Body | Constraint>(
    entries: readonly Entry[],
    mine: readonly T[],
    of: (r: RagdollInstance, index: number) => T,
  ) => {
    let k = 0
    return entries.map((e) => (e.eid === 0 ? mine[k++]! : of(instances.get(e.eid)!, e.index)))
  }
  // An instance's body i (its anchors after its bodies), looked up per entry: a list of both made per entry
  // was a copy of every body per body.
  const bodies = order<Body>(plan.bodies, own.bodies, bodyAt)
  let first = 0
  while (first < bodies.length && physics.bodies[first] === bodies[first]) first++
  if (first < bodies.length || physics.bodies.length !== bodies.length) {
    for (let i = physics.bodies.length - 1; i >= first; i--) physics.removeBody(physics.bodies[i]!)
    for (let i = first; i < bodies.length; i++) physics.addBody(bodies[i]!)
  }
  const constraints = order<Constraint>(plan.constraints, own.constraints, (r, i) => r.constraints[i]!)
  first = 0
  while (first < constraints.length && physics.constraints[first] === constraints[first]) first++
  if (first < constraints.length || physics.constraints.length !== constraints.length) {
    for (let i = physics.constraints.length - 1; i >= first; i--)
      physics.removeConstraint(physics.constraints[i]!)
    for (let i = first; i < constraints.length; i++) physics.addConstraint(constraints[i]!)
  }
  const doubles = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 3)
  for (const [eid, r] of instances) {
    const d = data.get(eid)!
    const count = r.bodies.length + r.anchors.length
    for (let b = 0; b < count; b++) {
      const o = (d.dynamicAt >>> 3) + b * DYNAMIC_DOUBLES
      setDynamic(bodyAt(r, b), doubles, o, bytes[d.sleepAt + b]!, bytes[d.typeAt + b]!)
    }
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
