import { Body } from 'cannon-es'
import type { RagdollInstance } from './ragdoll.ts'
import { RagdollJoint } from './joint.ts'
import { anchorTarget, placeBody, steerBody } from './partial.ts'
import { conjugateQuat, multiplyQuat, normalizeQuat } from '../math/quat.ts'
import { angularVelocity, WORLD_STRIDE } from './kinematics.ts'

/**
 * Powered ragdolls: every joint drives its child body towards the rotation the animation gives it relative to
 * its parent body (PD control at the velocity level, solved by cannon-es with everything else). Per joint, three
 * cannon-es RotationalMotorEquations (world x, y, z; RagdollJoint.motors) get, before each physics step, the
 * relative angular velocity that would close the whole error in that step — the error between the child's
 * orientation and where the animation puts it relative to the parent's current orientation, and so the
 * animation's own motion in that step too — and an impulse budget of `strength` times the joint's capacity.
 * The joint's limits are centred on the same animated rotation (RagdollJoint.reference), so a motor never
 * pulls against a limit measured from the activation pose; a joint whose strength goes to 0 keeps the last
 * centre. Strength 0 everywhere is the limp ragdoll (the equations are disabled).
 *
 * Capacity: a torque of MOTOR_TORQUE × (the mass the child body carries: itself and every body below it) ×
 * |gravity| × (the ragdoll's longest body), i.e. holding that mass at MOTOR_TORQUE body lengths; per step, that
 * torque × dt. (Gravity below MIN_MOTOR_ACCELERATION longest bodies per s² counts as that much.) Everything
 * here is + − × / and √ (the error's angle: kinematics.ts angularVelocity, not exact).
 */

/** A joint motor's torque at strength 1, in carried-mass·|g|·longest-body units (see above). */
export const MOTOR_TORQUE = 16

/** The least acceleration motors are sized by, in the ragdoll's longest bodies per second² (see attachMotors). */
export const MIN_MOTOR_ACCELERATION = 20

/** What a powered ragdoll's motors do (RagdollRuntime.motors). */
export interface RagdollMotors {
  /** Per joint of the character: the strength of the motor driving the body on that joint, ≥ 0. */
  readonly strength: Float64Array
  /** The root body follows the animation kinematically (a balance aid: see the README). */
  holdRoot: boolean
  /** Some strength is above 0 (kept with `strength`). */
  active: boolean
}

/**
 * Gives every joint of a ragdoll its motor, with its capacity at strength 1 for steps of dt seconds under
 * gravity of magnitude g (per joint, into `capacity`, one per constraint). Allocates (at a spawn).
 */
export function attachMotors(r: RagdollInstance, g: number, dt: number): Float64Array {
  const n = r.bodies.length
  const carried = new Float64Array(n)
  for (let b = 0; b < n; b++) carried[b] = r.bodies[b]!.mass
  // Constraints follow their child bodies, parents first: backwards, every child's total reaches its parent.
  for (let k = r.constraints.length - 1; k >= 0; k--) {
    const a = r.parentIndex[k]!
    if (a >= 0) carried[a]! += carried[r.childBody[k]!]!
  }
  if (targetScratch.length < 4 * n) targetScratch = new Float64Array(4 * n)
  const longest = r.longest
  // Sized by gravity, but never by less than 20 longest bodies per s² (a world without gravity still has motors).
  const weight = g > MIN_MOTOR_ACCELERATION * longest ? g : MIN_MOTOR_ACCELERATION * longest
  const capacity = new Float64Array(r.constraints.length)
  const parentConstraint = new Int32Array(n).fill(-1)
  for (let k = 0; k < r.constraints.length; k++) parentConstraint[r.childBody[k]!] = k
  for (let k = 0; k < r.constraints.length; k++) {
    const joint = r.constraints[k]!
    if (!(joint instanceof RagdollJoint)) continue
    // The body the motor turns against: the ragdoll's root body, or the anchor of the part it hangs in.
    let root = r.parentIndex[k]!
    while (root >= 0 && parentConstraint[root]! >= 0) root = r.parentIndex[parentConstraint[root]!]!
    joint.addMotors(root >= 0 ? r.bodies[root]! : r.anchors[-1 - root]!, root)
    capacity[k] = MOTOR_TORQUE * carried[r.childBody[k]!]! * weight * longest * dt
  }
  return capacity
}

const rotation = new Float64Array(4)
const parent = new Float64Array(4)
const child = new Float64Array(4)
const spin = new Float64Array(3)
const spinA = new Float64Array(3)
const spinB = new Float64Array(3)
const current = new Float64Array(4)
const position = new Float64Array(3)

/** out = the angular velocity that turns orientation q into target[to..] over dt. */
function bodySpin(
  out: Float64Array,
  q: { x: number; y: number; z: number; w: number },
  target: Float64Array,
  to: number,
  dt: number,
): void {
  copyQuaternion(current, 0, q)
  angularVelocity(out, current, 0, target, to, dt, false)
}

/** out[o..] = q. */
function copyQuaternion(
  out: Float64Array,
  o: number,
  q: { x: number; y: number; z: number; w: number },
): void {
  out[o] = q.x
  out[o + 1] = q.y
  out[o + 2] = q.z
  out[o + 3] = q.w
}

/** Each body's target orientation (driveMotors), 4 per body; grown by attachMotors. */
let targetScratch = new Float64Array(128)

/**
 * Before the physics step: sets every motor's target and budget, and every limit's centre, from this step's
 * animated world transforms (`world`, 8 doubles per joint; `root` for an anchor of a root joint) and the
 * bodies' current orientations. `strength` per joint (RagdollMotors), `capacity` per constraint
 * (attachMotors). With `holdRoot`, steers the root bodies to their animated place (kinematic; placed exactly
 * by holdRootBodies after the step). Allocation-free.
 */
export function driveMotors(
  r: RagdollInstance,
  motors: RagdollMotors,
  capacity: Float64Array,
  world: Float64Array,
  rootWorld: Float64Array,
  dt: number,
  maxSpeed: number,
): void {
  // Each body's target orientation, parents first: a root body's is where it is; a child's is its parent's target
  // (or, below a parent without a motor, where that parent is; below an anchor, the anchor's target) turned by
  // the animated rotation between them. A fully powered chain so aims at the animated pose carried by the root.
  const targets = targetScratch
  for (let b = 0; b < r.bodies.length; b++) copyQuaternion(targets, b * 4, r.bodies[b]!.quaternion)
  for (let k = 0; k < r.constraints.length; k++) {
    const joint = r.constraints[k]!
    if (!(joint instanceof RagdollJoint) || joint.motors === null) continue
    const b = r.childBody[k]!
    const s = motors.strength[r.bodyJoint[b]!]!
    const on = s > 0
    const m = joint.motors
    m[0]!.enabled = on
    m[1]!.enabled = on
    m[2]!.enabled = on
    // Animated orientations of both bodies (joint rotation · o⁻¹) and the child's relative to the parent's.
    bodyTarget(child, world, r.bodyJoint[b]!, r.jointOffset, b * 7 + 3)
    const a = r.parentIndex[k]!
    if (a >= 0) bodyTarget(parent, world, r.bodyJoint[a]!, r.jointOffset, a * 7 + 3)
    else normalizeQuat(anchorTarget(null, parent, r, -1 - a, world, rootWorld), 0)
    conjugateTimes(rotation, parent, child)
    // (Below an anchor, `parent` already holds the anchor's target; a root body's target is where it is.)
    if (a >= 0 && motors.strength[r.bodyJoint[a]!]! > 0) {
      for (let i = 0; i < 4; i++) parent[i] = targets[a * 4 + i]!
    } else if (a >= 0) copyQuaternion(parent, 0, r.bodies[a]!.quaternion)
    times(child, parent, rotation)
    targets.set(child, b * 4)
    if (!on) continue
    const ref = joint.reference!
    ref.set(rotation[0]!, rotation[1]!, rotation[2]!, rotation[3]!)
    joint.centred = true
    // The child's spin towards its target relative to the root's (zero for a root body, the anchor's own motion
    // for an anchor): a motor turns its body against the root, so errors are not handed down a chain (against
    // the parent, a light pelvis between a held root and a heavy trunk ended 35° off).
    bodySpin(spinB, joint.bodyB.quaternion, targets, b * 4, dt)
    const root = joint.motorRoot
    if (root >= 0) bodySpin(spinA, r.bodies[root]!.quaternion, targets, root * 4, dt)
    else {
      normalizeQuat(anchorTarget(null, parent, r, -1 - root, world, rootWorld), 0)
      bodySpin(spinA, r.anchors[-1 - root]!.quaternion, parent, 0, dt)
    }
    spin[0] = spinB[0]! - spinA[0]!
    spin[1] = spinB[1]! - spinA[1]!
    spin[2] = spinB[2]! - spinA[2]!
    const budget = s * capacity[k]!
    for (let i = 0; i < 3; i++) {
      const eq = m[i]!
      // The equation drives ω_A − ω_B along its axis to the target: the child turns by +spin relative.
      eq.targetVelocity = -spin[i]!
      eq.maxForce = budget
      eq.minForce = -budget
    }
  }
  if (!motors.holdRoot) return
  for (let b = 0; b < r.bodies.length; b++) {
    const body = r.bodies[b]!
    if (body.type !== Body.KINEMATIC) continue
    rootTarget(r, b, world)
    steerBody(r, body, position, rotation, dt, maxSpeed)
  }
}

/** After the physics step: puts held root bodies (kinematic) exactly at their animated place. */
export function holdRootBodies(r: RagdollInstance, world: Float64Array): void {
  for (let b = 0; b < r.bodies.length; b++) {
    const body = r.bodies[b]!
    if (body.type !== Body.KINEMATIC) continue
    rootTarget(r, b, world)
    placeBody(body, position, rotation)
  }
}

/**
 * Makes every root body of the ragdoll (one that hangs from nothing) kinematic, following its animated place
 * (hold), or dynamic again.
 */
export function setRootsHeld(r: RagdollInstance, hold: boolean): void {
  for (const body of r.bodies) {
    if ((body as { ragdollParent?: Body | null }).ragdollParent !== null) continue
    body.type = hold ? Body.KINEMATIC : Body.DYNAMIC
    if (!hold) body.wakeUp()
  }
}

/** Body b's animated place: rotation = R_joint·o⁻¹ into `rotation`, position = p_joint − rotation·d. */
function rootTarget(r: RagdollInstance, b: number, world: Float64Array): void {
  const o = r.bodyJoint[b]! * WORLD_STRIDE
  bodyTarget(rotation, world, r.bodyJoint[b]!, r.jointOffset, b * 7 + 3)
  const dx = r.jointOffset[b * 7]!
  const dy = r.jointOffset[b * 7 + 1]!
  const dz = r.jointOffset[b * 7 + 2]!
  const qx = rotation[0]!
  const qy = rotation[1]!
  const qz = rotation[2]!
  const qw = rotation[3]!
  const tx = 2 * (qy * dz - qz * dy)
  const ty = 2 * (qz * dx - qx * dz)
  const tz = 2 * (qx * dy - qy * dx)
  position[0] = world[o]! - (dx + qw * tx + (qy * tz - qz * ty))
  position[1] = world[o + 1]! - (dy + qw * ty + (qz * tx - qx * tz))
  position[2] = world[o + 2]! - (dz + qw * tz + (qx * ty - qy * tx))
}

/** out = R_j · o⁻¹: the orientation of the body whose joint j has world rotation R_j (o at offsets[oo]). */
function bodyTarget(
  out: Float64Array,
  world: Float64Array,
  j: number,
  offsets: Float64Array,
  oo: number,
): void {
  const w = j * WORLD_STRIDE + 3
  timesConjugate(out, world, w, offsets, oo)
}

/** out = a · b⁻¹ (a at a[ao..], b at b[bo..]), normalized. */
function timesConjugate(out: Float64Array, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  conjugateQuat(inverse, 0, b, bo)
  normalizeQuat(multiplyQuat(out, 0, a, ao, inverse, 0), 0)
}

/** out = a⁻¹ · b, normalized. */
function conjugateTimes(out: Float64Array, a: Float64Array, b: Float64Array): void {
  conjugateQuat(inverse, 0, a, 0)
  normalizeQuat(multiplyQuat(out, 0, inverse, 0, b, 0), 0)
}

/** out = a · b, normalized. */
function times(out: Float64Array, a: Float64Array, b: Float64Array): void {
  normalizeQuat(multiplyQuat(out, 0, a, 0, b, 0), 0)
}

const inverse = new Float64Array(4)
