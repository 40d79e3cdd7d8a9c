import { Body, Vec3, type ConeTwistConstraint, type World } from 'cannon-es'
import { dropsRagdollLinks } from './broadphase.ts'
import { ragdollBodyClass, type DampedRagdollBody } from './damping.ts'
import type { RagdollBodies } from './api.ts'
import type { ResolvedBody } from './description.ts'
import type { LimbColliders } from './limbColliders.ts'
import { RagdollJoint } from './joint.ts'
import { angularVelocity, rotateVector, WORLD_STRIDE } from './kinematics.ts'
import { addRidingSpheres, addShape } from './shapes.ts'

/**
 * One character's live ragdoll: cannon-es bodies, the cone-twist constraints between them, and the fixed offsets
 * that map each body back to its joint.
 *
 * Body frames: at activation every body is placed with the identity orientation at the centre of its bone, so
 * the parent and child frames agree and each constraint starts exactly at its neutral pose (no limit is
 * violated at the hand-off, nothing snaps). Per body we keep, in the body frame:
 *   jointOffset  | dx dy dz | ox oy oz ow |   joint position = body position + q_body·d,
 *                                            joint rotation = q_body·o
 */
export interface RagdollInstance extends RagdollBodies {
  readonly bodies: Body[]
  readonly constraints: ConeTwistConstraint[]
  /** Joint index (in the character's joint list) of each body. */
  readonly bodyJoint: Int32Array
  /** Body index of each joint, -1 for joints that follow their animation. */
  readonly jointBody: Int32Array
  /** 7 doubles per body, see above. */
  readonly jointOffset: Float64Array
  /** Per body: the first constraint hanging a child body from it, -1 for none (see linkRagdoll). */
  readonly firstChild: Int32Array
  /** Per constraint: the next constraint hanging a child from the same body, -1 for none. */
  readonly nextSibling: Int32Array
  /** Per constraint: the index of its child body (bodyB). */
  readonly childBody: Int32Array
  /** Per constraint: the index of its parent body (bodyA), or −1 − k for anchor k. */
  readonly parentIndex: Int32Array
  /** The largest bounding diameter of its bodies (world units): the ragdoll's longest body. */
  readonly longest: number
  /**
   * A partial ragdoll's anchors (src/physics/partial.ts): one kinematic, shapeless body per top body, which
   * that body hangs from; empty for a whole-body ragdoll. Not in `bodies`.
   */
  readonly anchors: Body[]
  /** Per anchor: the joint whose animated world transform it follows, -1 for the character root. */
  readonly anchorJoint: Int32Array
  /** Per anchor, 4 doubles: o, the rotation offset of its joint in its frame (joint rotation = q_anchor·o). */
  readonly anchorOffset: Float64Array
  /** A partial ragdoll's limb colliders (src/physics/limbColliders.ts), made on first use; null until then. */
  colliders: LimbColliders | null
}

/**
 * The links of a ragdoll's bodies (firstChild, nextSibling, childBody, parentIndex), from its constraints, and
 * its longest body (after its shapes are added). Allocates.
 */
export function linkRagdoll(
  bodies: readonly Body[],
  constraints: readonly ConeTwistConstraint[],
  anchors: readonly Body[],
): Pick<RagdollInstance, 'firstChild' | 'nextSibling' | 'childBody' | 'parentIndex' | 'longest'> {
  const firstChild = new Int32Array(bodies.length).fill(-1)
  const nextSibling = new Int32Array(constraints.length).fill(-1)
  const childBody = new Int32Array(constraints.length)
  const parentIndex = new Int32Array(constraints.length)
  const index = new Map<Body, number>()
  bodies.forEach((b, i) => index.set(b, i))
  anchors.forEach((b, i) => index.set(b, -1 - i))
  for (let k = constraints.length - 1; k >= 0; k--) {
    childBody[k] = index.get(constraints[k]!.bodyB) ?? -1
    const a = index.get(constraints[k]!.bodyA) ?? -1
    parentIndex[k] = a
    if (a < 0) continue
    nextSibling[k] = firstChild[a]!
    firstChild[a] = k
  }
  let longest = 0
  for (const b of bodies) if (2 * b.boundingRadius > longest) longest = 2 * b.boundingRadius
  return { firstChild, nextSibling, childBody, parentIndex, longest }
}

export interface RagdollSpawnInput {
  /** Resolved body specs (parents first); `node` is mapped to a joint through `nodeJoint`. */
  readonly bodies: readonly ResolvedBody[]
  readonly nodeJoint: Int32Array
  readonly jointCount: number
  /** Joint world transforms now, and one fixed step earlier (8 doubles per joint, kinematics.ts layout). */
  readonly world: Float64Array
  readonly previous: Float64Array | null
  /** Seconds between `previous` and `world`. */
  readonly dt: number
  /**
   * Parent joint of each joint (-1 for roots). With it, a joint that rides on a body but lies outside it (a
   * finger past a palm's capsule, a toe past a foot's) gets a sphere of that body's radius on the body where
   * it is at the hand-off, so it cannot sink into the ground further than that.
   */
  readonly parents?: Int32Array
  /** Collision group of this ragdoll's bodies (they collide with everything except directly linked bodies). */
  readonly collisionGroup?: number
  /**
   * Hang every top body (parentBody -1) from an anchor that follows its joint's parent joint (or `root`, the
   * character root's world transform, for a root joint): a partial ragdoll. Default false: top bodies are free.
   */
  readonly anchored?: boolean
  readonly root?: Float64Array
  /**
   * Per joint, 6 doubles: the linear and angular velocity a body on that joint starts with, NaN where the
   * animation's applies (a ragdoll replaced by a larger one keeps its bodies' motion).
   */
  readonly velocities?: Float64Array | null
}

/**
 * Velocity damping of every ragdoll body: the fraction of linear and of angular velocity lost per second
 * (cannon-es's meaning; applied deterministically by DampedRagdollBody, see damping.ts).
 */
export const RAGDOLL_LINEAR_DAMPING = 0.05
export const RAGDOLL_ANGULAR_DAMPING = 0.1

/**
 * The instance behind a handle (every RagdollBodies is one: spawnRagdoll and buildInstance make them), for the
 * modules of src/physics/ and for tests and tools that read its cannon-es bodies.
 */
export function ragdollInstance(r: RagdollBodies): RagdollInstance
export function ragdollInstance(r: RagdollBodies | null | undefined): RagdollInstance | null
export function ragdollInstance(r: RagdollBodies | null | undefined): RagdollInstance | null {
  return (r ?? null) as RagdollInstance | null
}

/**
 * Builds the bodies and constraints at the animated pose, gives every body the velocity the animation had
 * (finite differences between `previous` and `world`), and adds them to `physics`. Allocates (a hand-off, not a
 * per-frame call).
 */
export function spawnRagdoll(physics: World, input: RagdollSpawnInput): RagdollInstance {
  const RagdollBodyClass = ragdollBodyClass(physics)
  const n = input.bodies.length
  const bodies: DampedRagdollBody[] = []
  const constraints: ConeTwistConstraint[] = []
  const bodyJoint = new Int32Array(n)
  const jointBody = new Int32Array(input.jointCount).fill(-1)
  const jointOffset = new Float64Array(n * 7)
  const centers = new Float64Array(n * 3)
  const prevCenter = new Float64Array(3)
  const tmp = new Float64Array(3)
  const w = input.world
  for (let b = 0; b < n; b++) {
    const spec = input.bodies[b]!
    const j = input.nodeJoint[spec.node]!
    bodyJoint[b] = j
    jointBody[j] = b
    const o = j * WORLD_STRIDE
    // A mirrored joint has a negative world scale: the body sits on the mirrored side, sized by |s|.
    const s = w[o + 7]!
    const length = spec.length * s
    const radius = Math.abs(spec.radius * s)
    // World direction of the bone and the body centre half-way along it.
    rotateVector(tmp, 0, w, o + 3, spec.axis[0], spec.axis[1], spec.axis[2])
    const dx = tmp[0]!
    const dy = tmp[1]!
    const dz = tmp[2]!
    const cx = w[o]! + dx * length * 0.5
    const cy = w[o + 1]! + dy * length * 0.5
    const cz = w[o + 2]! + dz * length * 0.5
    centers[b * 3] = cx
    centers[b * 3 + 1] = cy
    centers[b * 3 + 2] = cz
    const body = new RagdollBodyClass({
      mass: spec.mass,
      position: new Vec3(cx, cy, cz),
      linearDamping: RAGDOLL_LINEAR_DAMPING,
      angularDamping: RAGDOLL_ANGULAR_DAMPING,
    })
    body.quaternion.set(0, 0, 0, 1)
    addShape(body, spec, radius, Math.abs(length), dx, dy, dz)
    if (input.collisionGroup !== undefined) body.collisionFilterGroup = input.collisionGroup
    // Joint relative to the body: position offset and rotation offset (the body starts unrotated).
    jointOffset[b * 7] = w[o]! - cx
    jointOffset[b * 7 + 1] = w[o + 1]! - cy
    jointOffset[b * 7 + 2] = w[o + 2]! - cz
    for (let k = 0; k < 4; k++) jointOffset[b * 7 + 3 + k] = w[o + 3 + k]!
    const carried = input.velocities ? input.velocities[j * 6]! : NaN
    if (carried === carried) {
      const v = input.velocities!
      body.velocity.set(v[j * 6]!, v[j * 6 + 1]!, v[j * 6 + 2]!)
      body.angularVelocity.set(v[j * 6 + 3]!, v[j * 6 + 4]!, v[j * 6 + 5]!)
    } else if (input.previous) {
      const p = input.previous
      rotateVector(prevCenter, 0, p, o + 3, spec.axis[0], spec.axis[1], spec.axis[2])
      const ps = p[o + 7]! * spec.length * 0.5
      const inv = 1 / input.dt
      body.velocity.set(
        (cx - (p[o]! + prevCenter[0]! * ps)) * inv,
        (cy - (p[o + 1]! + prevCenter[1]! * ps)) * inv,
        (cz - (p[o + 2]! + prevCenter[2]! * ps)) * inv,
      )
      angularVelocity(tmp, p, o + 3, w, o + 3, input.dt)
      body.angularVelocity.set(tmp[0]!, tmp[1]!, tmp[2]!)
    }
    bodies.push(body)
  }
  if (input.parents) addRidingSpheres(bodies, input.parents, w, input.jointCount, jointBody, centers)
  const anchors: Body[] = []
  const anchorJoint: number[] = []
  const anchorOffset: number[] = []
  // Linked bodies never collide. A RagdollBroadphase drops their pairs itself (cheap); any other broadphase
  // leaves it to cannon-es's collideConnected filter (O(constraints × pairs) per step, see broadphase.ts).
  const filteredByBroadphase = dropsRagdollLinks(physics.broadphase)
  for (let b = 0; b < n; b++) {
    const spec = input.bodies[b]!
    const child = bodies[b]!
    const jo = bodyJoint[b]! * WORLD_STRIDE
    let parent: Body
    let pivotA: Vec3
    if (spec.parentBody >= 0) {
      parent = bodies[spec.parentBody]!
      const pb = spec.parentBody * 3
      pivotA = new Vec3(w[jo]! - centers[pb]!, w[jo + 1]! - centers[pb + 1]!, w[jo + 2]! - centers[pb + 2]!)
    } else if (input.anchored) {
      // The anchor starts unrotated at the parent joint (its rotation offset is that joint's rotation now).
      const a = input.parents ? input.parents[bodyJoint[b]!]! : -1
      const src = a < 0 ? input.root! : w
      const ao = a < 0 ? 0 : a * WORLD_STRIDE
      parent = createAnchor(RagdollBodyClass, src[ao]!, src[ao + 1]!, src[ao + 2]!)
      anchors.push(parent)
      anchorJoint.push(a)
      for (let k = 0; k < 4; k++) anchorOffset.push(src[ao + 3 + k]!)
      pivotA = new Vec3(w[jo]! - src[ao]!, w[jo + 1]! - src[ao + 1]!, w[jo + 2]! - src[ao + 2]!)
    } else continue
    child.ragdollParent = parent
    // Pivot at the child joint's origin; the axis is the child's bone direction now (identical in both frames).
    rotateVector(tmp, 0, w, jo + 3, spec.axis[0], spec.axis[1], spec.axis[2])
    const axis = new Vec3(tmp[0], tmp[1], tmp[2])
    const constraint = new RagdollJoint(parent, child, {
      pivotA,
      pivotB: new Vec3(
        w[jo]! - centers[b * 3]!,
        w[jo + 1]! - centers[b * 3 + 1]!,
        w[jo + 2]! - centers[b * 3 + 2]!,
      ),
      axisA: axis,
      axisB: axis.clone(),
      angle: spec.coneAngle,
      twistAngle: spec.twistAngle,
      collideConnected: filteredByBroadphase,
    })
    constraints.push(constraint)
  }
  for (const body of bodies) physics.addBody(body)
  for (const anchor of anchors) physics.addBody(anchor)
  for (const c of constraints) physics.addConstraint(c)
  return {
    bodies,
    constraints,
    bodyJoint,
    jointBody,
    jointOffset,
    ...linkRagdoll(bodies, constraints, anchors),
    anchors,
    anchorJoint: Int32Array.from(anchorJoint),
    anchorOffset: Float64Array.from(anchorOffset),
    colliders: null,
  } as Omit<RagdollInstance, keyof RagdollBodies> as RagdollInstance
}

/**
 * A partial ragdoll's anchor (src/physics/partial.ts): kinematic, shapeless, in no collision group, unrotated at
 * the given point. A DampedRagdollBody like the others, so a snapshot rebuilds it the same way.
 */
export function createAnchor(
  RagdollBodyClass: typeof DampedRagdollBody,
  x: number,
  y: number,
  z: number,
): DampedRagdollBody {
  const anchor = new RagdollBodyClass({ mass: 0, type: Body.KINEMATIC, position: new Vec3(x, y, z) })
  anchor.quaternion.set(0, 0, 0, 1)
  anchor.collisionFilterGroup = 0
  anchor.collisionFilterMask = 0
  return anchor
}

/** Removes the ragdoll's constraints, bodies and anchors from the world. */
export function despawnRagdoll(physics: World, r: RagdollInstance): void {
  for (const c of r.constraints) physics.removeConstraint(c)
  for (const b of r.bodies) physics.removeBody(b)
  for (const a of r.anchors) physics.removeBody(a)
}
