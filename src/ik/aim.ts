import { multiplyQuat } from '../math/quat.ts'
import {
  cross,
  identityQuat,
  invertMatrix,
  quatFromAxisCos,
  quatFromVectors,
  rotateVector,
  transformPoint,
  transformVector,
  weightQuat,
} from './ikMath.ts'
import { halfTwist, twist, UNIT_TOLERANCE_SQ } from './twoBone.ts'

/**
 * Aim IK, ozz-animation's IKAimJob ported: the rotation of one joint that points a direction fixed in it
 * (`forward`, from `offset`: a head's eyes) at a target, keeping its `up` on the side of `pole`.
 *
 * Inputs:
 *   joint        the joint's model matrix, 16 doubles column-major from jointOffset (default 0); any affine
 *                transform (a singular one gives the identity)
 *   target       the point to aim at, model space (3 doubles)
 *   forward      the aiming direction, joint-local, unit length (default +x)
 *   offset       where the aim starts, joint-local (default the joint's origin)
 *   up           joint-local; its turn about the aim line is chosen so it lies in the plane of `pole` and the
 *                aim line (default +y; zero: no such turn)
 *   pole         model space (default +y); the result flips where target and pole are aligned
 *   twistAngle   radians about the aim line (default 0)
 *   weight       in [0, 1] (clamped; default 1): normalized lerp from the identity
 * Outputs (caller-owned): `correction`, 4 doubles, w ≥ 0, the local-space correction (`local · correction`);
 * `reached`, false when the target lies inside the offset's sphere (then the correction is the identity).
 *
 * runAimJob returns false, writing nothing, for a job validateAimJob refuses. Deviation from ozz: a weight
 * below 1 lerps from the w ≥ 0 form (ozz lerps the unflipped one, the long way round when its w < 0). Doubles,
 * exact reciprocals, no arc cosine. Allocates nothing.
 */
export interface AimJob {
  /** The joint's model matrix (16 doubles from jointOffset); null: the job is refused. */
  joint: Float64Array | null
  /** Where `joint`'s 16 doubles begin (default 0). */
  jointOffset: number
  /** The point to aim at, model space. */
  readonly target: Float64Array
  /** The aiming direction, joint-local, unit length (default +x). */
  readonly forward: Float64Array
  /** Where the aim starts, joint-local (default the joint's origin). */
  readonly offset: Float64Array
  /** Joint-local; kept in the plane of `pole` and the aim line (default +y; zero: not kept). */
  readonly up: Float64Array
  /** Model space (default +y). */
  readonly pole: Float64Array
  /** Radians about the aim line (default 0). */
  twistAngle: number
  /** In [0, 1], clamped (default 1). */
  weight: number
  /** Output: the joint's local correction, 4 doubles [x, y, z, w]. */
  correction: Float64Array | null
  /** Output: false when the target lies inside the offset's sphere. */
  reached: boolean
}

/** A job with ozz's defaults: forward +x, up +y, pole +y, no offset, twist or matrix, weight 1. */
export function createAimJob(): AimJob {
  return {
    joint: null,
    jointOffset: 0,
    target: new Float64Array(3),
    forward: Float64Array.of(1, 0, 0),
    offset: new Float64Array(3),
    up: Float64Array.of(0, 1, 0),
    pole: Float64Array.of(0, 1, 0),
    twistAngle: 0,
    weight: 1,
    correction: null,
    reached: false,
  }
}

/** Whether the job can run: a matrix of 16, an output of 4, a unit forward (ozz's Validate). */
export function validateAimJob(job: AimJob): boolean {
  const f = job.forward
  const len2 = f[0]! * f[0]! + f[1]! * f[1]! + f[2]! * f[2]!
  return (
    job.joint !== null &&
    Number.isInteger(job.jointOffset) &&
    job.jointOffset >= 0 &&
    job.joint.length >= job.jointOffset + 16 &&
    job.correction !== null &&
    job.correction.length >= 4 &&
    Math.abs(len2 - 1) < UNIT_TOLERANCE_SQ
  )
}

/** Scratch: the inverse, vectors in joint space (js), quaternions, numbers. */
const INV = 0
const TARGET_JS = 16
const FORWARD = 19
const UP = 22
const POLE_JS = 25
const REF = 28
const NORMAL = 31
const AXIS = 34
const AIM = 38
const PLANE = 42
const TWIST = 46
/** Numbers, through memory (V8 boxes a double passed to or returned from a call it does not inline). */
const COS_PLANE = 50
const WEIGHT = 51
const TARGET2 = 52
const s = new Float64Array(54)

/** Runs the job: writes its correction and `reached`; false, writing nothing, for a job it refuses. */
export function runAimJob(job: AimJob): boolean {
  if (!validateAimJob(job)) return false
  const out = job.correction!
  invertMatrix(s, INV, job.joint!, job.jointOffset)
  transformPoint(s, TARGET_JS, s, INV, job.target, 0)
  const target2 = s[TARGET_JS]! ** 2 + s[TARGET_JS + 1]! ** 2 + s[TARGET_JS + 2]! ** 2
  s[TARGET2] = target2
  const reached = offsettedForward(job)
  job.reached = reached
  if (!reached || target2 === 0) {
    identityQuat(out, 0)
    return true
  }
  quatFromVectors(s, AIM, s, FORWARD, s, TARGET_JS)
  rotateVector(s, UP, s, AIM, job.up, 0)
  transformVector(s, POLE_JS, s, INV, job.pole, 0)
  cross(s, REF, s, POLE_JS, s, TARGET_JS)
  cross(s, NORMAL, s, UP, s, TARGET_JS)
  const ref2 = s[REF]! ** 2 + s[REF + 1]! ** 2 + s[REF + 2]! ** 2
  const normal2 = s[NORMAL]! ** 2 + s[NORMAL + 1]! ** 2 + s[NORMAL + 2]! ** 2
  const rt = 1 / Math.sqrt(target2)
  for (let k = 0; k < 3; k++) s[AXIS + k] = s[TARGET_JS + k]! * rt
  if (normal2 !== 0 && ref2 !== 0) {
    // Turn about the aim line that brings up's plane onto the pole's; the axis flipped by the side up is on.
    const cosine = s[NORMAL]! * s[REF]! + s[NORMAL + 1]! * s[REF + 1]! + s[NORMAL + 2]! * s[REF + 2]!
    s[COS_PLANE] = cosine / Math.sqrt(normal2 * ref2)
    const side = s[REF]! * s[UP]! + s[REF + 1]! * s[UP + 1]! + s[REF + 2]! * s[UP + 2]!
    const flip = side < 0 ? -1 : 1
    for (let k = 0; k < 3; k++) s[TWIST + k] = s[AXIS + k]! * flip
    quatFromAxisCos(s, PLANE, s, TWIST, s, COS_PLANE)
    multiplyQuat(s, AIM, s, PLANE, s, AIM)
  }
  if (job.twistAngle !== 0) {
    halfTwist(job)
    for (let k = 0; k < 3; k++) s[TWIST + k] = s[AXIS + k]! * twist[1]!
    s[TWIST + 3] = twist[2]!
    multiplyQuat(s, AIM, s, TWIST, s, AIM)
  }
  s[WEIGHT] = job.weight
  weightQuat(out, 0, s, AIM, s, WEIGHT)
  return true
}

/**
 * FORWARD: the direction from the joint to where the line from `offset` along `forward` meets the sphere through
 * the target (centred on the joint), so that aiming it at the target aims the offset's line there. False when the
 * offset's line misses that sphere (the target is too close). See ozz's media/doc/src/ik_aim_offset.svg.
 */
function offsettedForward(job: AimJob): boolean {
  const r2 = s[TARGET2]!
  const f = job.forward
  const o = job.offset
  const ao = f[0]! * o[0]! + f[1]! * o[1]! + f[2]! * o[2]!
  const ac2 = o[0]! * o[0]! + o[1]! * o[1]! + o[2]! * o[2]! - ao * ao
  if (ac2 > r2) return false
  const ai = Math.sqrt(r2 - ac2)
  for (let k = 0; k < 3; k++) s[FORWARD + k] = o[k]! + f[k]! * (ai - ao)
  return true
}
