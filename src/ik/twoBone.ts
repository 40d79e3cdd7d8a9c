import { detSinCos } from '../math/detmath.ts'
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

/**
 * Two-bone IK, ozz-animation's IKTwoBoneJob ported: the rotations of a chain's start and middle joints (hip and
 * knee, shoulder and elbow) that put its end joint (foot, hand) on a target, analytically (law of cosines), the
 * middle joint bending the way `midAxis` says and the chain's plane turned towards `pole`.
 *
 * Inputs (model space: whatever space the three matrices share, e.g. world):
 *   start, mid, end   the joints' model matrices, 16 doubles column-major each from startOffset, midOffset,
 *                     endOffset (default 0; ozz's pointers as (array, offset) pairs); any affine transform
 *                     (scaled, mirrored; a singular one gives identity corrections). The three are ancestors in
 *                     this order, not necessarily direct ones (joints between them keep their local transforms).
 *   target            the point the end joint reaches for (3 doubles)
 *   pole              the direction the middle joint points to (3 doubles, model space; default +y). The result
 *                     flips where target and pole are aligned: the caller keeps them apart.
 *   midAxis           the middle joint's bend axis in its local space, unit length (default +z): a positive turn
 *                     about it opens the angle between the two bones
 *   twistAngle        radians about the start-to-target line (default 0)
 *   soften            in [0, 1] (clamped; default 1, none): the chain starts falling behind a target further than
 *                     soften × its length, so it never snaps straight
 *   weight            in [0, 1] (clamped; default 1): normalized lerp of both corrections from the identity
 * Outputs (caller-owned, written whole; 4 doubles each, w ≥ 0):
 *   startCorrection, midCorrection   local-space corrections: multiply each joint's local rotation by its
 *                                    own (`local · correction`)
 *   reached           whether the end joint reaches the target (within soften's reach, weight 1)
 *
 * runTwoBoneJob returns false, writing nothing, for a job validateTwoBoneJob refuses. Deviation from ozz: where
 * the target lies on the pole line or a plane normal is zero (ozz's result is undefined there, NaN in floats),
 * the plane turn is skipped. Doubles throughout, exact reciprocals in place of ozz's estimates, no arc cosine
 * (half angles from half-angle formulas). Allocates nothing.
 */
export interface TwoBoneJob {
  /** The start joint's model matrix (16 doubles from startOffset); null: the job is refused. */
  start: Float64Array | null
  /** The middle joint's model matrix (from midOffset). */
  mid: Float64Array | null
  /** The end joint's model matrix (from endOffset). */
  end: Float64Array | null
  /** Where `start`'s 16 doubles begin (default 0). */
  startOffset: number
  /** Where `mid`'s 16 doubles begin (default 0). */
  midOffset: number
  /** Where `end`'s 16 doubles begin (default 0). */
  endOffset: number
  /** The point the end joint reaches for, model space. */
  readonly target: Float64Array
  /** The direction the middle joint points to, model space (default +y). */
  readonly pole: Float64Array
  /** The middle joint's bend axis, its local space, unit length (default +z). */
  readonly midAxis: Float64Array
  /** Radians about the start-to-target line (default 0). */
  twistAngle: number
  /** In [0, 1], clamped (default 1: no softening). */
  soften: number
  /** In [0, 1], clamped (default 1). */
  weight: number
  /** Output: the start joint's local correction, 4 doubles [x, y, z, w]. */
  startCorrection: Float64Array | null
  /** Output: the middle joint's local correction. */
  midCorrection: Float64Array | null
  /** Output: whether the end joint reaches the target (weight 1). */
  reached: boolean
}

/** A job with ozz's defaults: no matrices or outputs yet, pole +y, mid axis +z, no twist, soften 1, weight 1. */
export function createTwoBoneJob(): TwoBoneJob {
  return {
    start: null,
    mid: null,
    end: null,
    startOffset: 0,
    midOffset: 0,
    endOffset: 0,
    target: new Float64Array(3),
    pole: Float64Array.of(0, 1, 0),
    midAxis: Float64Array.of(0, 0, 1),
    twistAngle: 0,
    soften: 1,
    weight: 1,
    startCorrection: null,
    midCorrection: null,
    reached: false,
  }
}

/** Squared-length tolerance of a "unit" axis (ozz's IsNormalizedEst: 2e-3). */
export const UNIT_TOLERANCE_SQ = 2e-3

/** Whether the job can run: three matrices of 16, two outputs of 4, a unit mid axis (ozz's Validate). */
export function validateTwoBoneJob(job: TwoBoneJob): boolean {
  const a = job.midAxis
  const len2 = a[0]! * a[0]! + a[1]! * a[1]! + a[2]! * a[2]!
  return (
    matrix(job.start, job.startOffset) &&
    matrix(job.mid, job.midOffset) &&
    matrix(job.end, job.endOffset) &&
    quat(job.startCorrection) &&
    quat(job.midCorrection) &&
    Math.abs(len2 - 1) < UNIT_TOLERANCE_SQ
  )
}

const matrix = (m: Float64Array | null, o: number): boolean =>
  m !== null && Number.isInteger(o) && o >= 0 && m.length >= o + 16
const quat = (q: Float64Array | null): boolean => q !== null && q.length >= 4

/** Scratch, in one array: inverses, vectors in start (ss) and mid (ms) space, quaternions, numbers. */
const INV_START = 0
const INV_MID = 16
const START_MS = 32
const END_MS = 35
const MID_SS = 38
const END_SS = 41
const START_MID_MS = 44
const MID_END_SS = 47
const TARGET_SS = 50
const POLE_SS = 53
const V1 = 56
const V2 = 59
const MID_ROT = 62
const START_ROT = 66
const PLANE = 70
const TWIST = 74
/** Numbers, through memory (V8 boxes a double passed to or returned from a call it does not inline). */
const TARGET2 = 78
const WEIGHT = 79
const COS_PLANE = 80
const START_MID2 = 81
const MID_END2 = 82
const START_END2 = 83
const s = new Float64Array(84)

/** Runs the job: writes its corrections and `reached`; false, writing nothing, for a job it refuses. */
export function runTwoBoneJob(job: TwoBoneJob): boolean {
  if (!validateTwoBoneJob(job)) return false
  const startCorrection = job.startCorrection!
  const midCorrection = job.midCorrection!
  if (!(job.weight > 0)) {
    identityQuat(startCorrection, 0)
    identityQuat(midCorrection, 0)
    job.reached = false
    return true
  }
  const start = job.start!
  const mid = job.mid!
  const end = job.end!
  const so = job.startOffset
  const mo = job.midOffset
  const eo = job.endOffset
  invertMatrix(s, INV_START, start, so)
  invertMatrix(s, INV_MID, mid, mo)
  transformPoint(s, START_MS, s, INV_MID, start, so + 12)
  transformPoint(s, END_MS, s, INV_MID, end, eo + 12)
  transformPoint(s, MID_SS, s, INV_START, mid, mo + 12)
  transformPoint(s, END_SS, s, INV_START, end, eo + 12)
  for (let k = 0; k < 3; k++) {
    s[START_MID_MS + k] = -s[START_MS + k]!
    s[MID_END_SS + k] = s[END_SS + k]! - s[MID_SS + k]!
  }
  s[START_MID2] = s[MID_SS]! ** 2 + s[MID_SS + 1]! ** 2 + s[MID_SS + 2]! ** 2
  s[MID_END2] = s[MID_END_SS]! ** 2 + s[MID_END_SS + 1]! ** 2 + s[MID_END_SS + 2]! ** 2
  s[START_END2] = s[END_SS]! ** 2 + s[END_SS + 1]! ** 2 + s[END_SS + 2]! ** 2
  const reached = softenTarget(job)
  job.reached = reached && job.weight >= 1
  if (!midJoint(job)) {
    // A bone of zero length: nothing to bend.
    identityQuat(startCorrection, 0)
    identityQuat(midCorrection, 0)
    return true
  }
  startJoint(job)
  s[WEIGHT] = job.weight
  weightQuat(startCorrection, 0, s, START_ROT, s, WEIGHT)
  weightQuat(midCorrection, 0, s, MID_ROT, s, WEIGHT)
  return true
}

/**
 * The target in start space into TARGET_SS, its squared distance into s[TARGET2], pulled in (soften) when
 * further than soften × the chain's length: the approach 1 − 3⁴/(α + 3)⁴ of the rest. Returns whether it is
 * reachable.
 */
function softenTarget(job: TwoBoneJob): boolean {
  transformPoint(s, TARGET_SS, s, INV_START, job.target, 0)
  const target2 = s[TARGET_SS]! ** 2 + s[TARGET_SS + 1]! ** 2 + s[TARGET_SS + 2]! ** 2
  const l1 = Math.sqrt(s[START_MID2]!)
  const l2 = Math.sqrt(s[MID_END2]!)
  const distance = Math.sqrt(target2)
  const diff = Math.abs(l1 - l2)
  const chain = l1 + l2
  const soften = job.soften > 1 ? 1 : job.soften > 0 ? job.soften : 0
  const da = chain * soften
  const ds = chain - da
  const beyond = distance > da
  s[TARGET2] = target2
  if (beyond && distance > 0 && ds > 0) {
    const alpha = (distance - da) / ds
    const op = alpha + 3
    const op2 = op * op
    const ratio = 81 / (op2 * op2)
    const length = da + ds - ds * ratio
    const scale = length / distance
    for (let k = 0; k < 3; k++) s[TARGET_SS + k] = s[TARGET_SS + k]! * scale
    s[TARGET2] = length * length
  }
  return !beyond && distance > diff
}

/**
 * MID_ROT: the middle joint's turn about midAxis from its angle now to the one that puts the end at the target's
 * distance (law of cosines), the angle now negative when the chain is bent against midAxis. False for a zero
 * bone length.
 */
function midJoint(job: TwoBoneJob): boolean {
  const startMid2 = s[START_MID2]!
  const midEnd2 = s[MID_END2]!
  const target2 = s[TARGET2]!
  const startEnd2 = s[START_END2]!
  const product = startMid2 * midEnd2
  if (!(product > 0)) return false
  const halfRlen = 0.5 / Math.sqrt(product)
  const sum = startMid2 + midEnd2
  let cosCorrected = (sum - target2) * halfRlen
  let cosInitial = (sum - startEnd2) * halfRlen
  cosCorrected = cosCorrected > 1 ? 1 : cosCorrected < -1 ? -1 : cosCorrected
  cosInitial = cosInitial > 1 ? 1 : cosInitial < -1 ? -1 : cosInitial
  // Half angles of θ in [0, π] from its cosine: cos θ/2 = √((1 + c)/2), sin θ/2 = √((1 − c)/2).
  const cc = Math.sqrt((1 + cosCorrected) * 0.5)
  const sc = Math.sqrt((1 - cosCorrected) * 0.5)
  const ci = Math.sqrt((1 + cosInitial) * 0.5)
  let si = Math.sqrt((1 - cosInitial) * 0.5)
  cross(s, V1, s, START_MID_MS, job.midAxis, 0)
  const bentBack = s[V1]! * s[END_MS]! + s[V1 + 1]! * s[END_MS + 1]! + s[V1 + 2]! * s[END_MS + 2]! < 0
  if (bentBack) si = -si
  // The half angle of corrected − initial: sin(a − b) and cos(a − b) of the two half angles.
  const sinHalf = sc * ci - cc * si
  const axis = job.midAxis
  s[MID_ROT] = axis[0]! * sinHalf
  s[MID_ROT + 1] = axis[1]! * sinHalf
  s[MID_ROT + 2] = axis[2]! * sinHalf
  s[MID_ROT + 3] = cc * ci + sc * si
  return true
}

/**
 * START_ROT: the start joint's turn that puts the (corrected) end on the target line, then turns the chain's
 * plane to the pole's about that line, then twists about it.
 */
function startJoint(job: TwoBoneJob): void {
  const target2 = s[TARGET2]!
  const mid = job.mid!
  const mo = job.midOffset
  transformVector(s, POLE_SS, s, INV_START, job.pole, 0)
  // The mid-to-end bone after MID_ROT, in start space.
  rotateVector(s, V1, s, MID_ROT, s, END_MS)
  transformVector(s, V2, mid, mo, s, V1)
  transformVector(s, V1, s, INV_START, s, V2)
  for (let k = 0; k < 3; k++) s[V1 + k] = s[V1 + k]! + s[MID_SS + k]!
  quatFromVectors(s, START_ROT, s, V1, s, TARGET_SS)
  if (!(target2 > 0)) return
  // The reference plane's normal (target × pole) and the chain's (its mid axis, turned), both in start space.
  cross(s, V1, s, TARGET_SS, s, POLE_SS)
  const ref2 = s[V1]! ** 2 + s[V1 + 1]! ** 2 + s[V1 + 2]! ** 2
  transformVector(s, V2, mid, mo, job.midAxis, 0)
  transformVector(s, PLANE, s, INV_START, s, V2)
  rotateVector(s, V2, s, START_ROT, s, PLANE)
  const joint2 = s[V2]! ** 2 + s[V2 + 1]! ** 2 + s[V2 + 2]! ** 2
  if (!(ref2 > 0) || !(joint2 > 0)) return
  const rt = 1 / Math.sqrt(target2)
  const rr = 1 / Math.sqrt(ref2)
  const rj = 1 / Math.sqrt(joint2)
  s[COS_PLANE] = (s[V1]! * s[V2]! + s[V1 + 1]! * s[V2 + 1]! + s[V1 + 2]! * s[V2 + 2]!) * rr * rj
  // The axis is the target line, flipped when the chain's normal points away from the pole.
  const towards = s[V2]! * s[POLE_SS]! + s[V2 + 1]! * s[POLE_SS + 1]! + s[V2 + 2]! * s[POLE_SS + 2]!
  const flip = towards < 0 ? -rt : rt
  for (let k = 0; k < 3; k++) s[V1 + k] = s[TARGET_SS + k]! * flip
  quatFromAxisCos(s, PLANE, s, V1, s, COS_PLANE)
  multiplyQuat(s, START_ROT, s, PLANE, s, START_ROT)
  if (job.twistAngle === 0) return
  // Twist about the unflipped target line: twist · plane · start.
  halfTwist(job)
  for (let k = 0; k < 3; k++) s[TWIST + k] = s[TARGET_SS + k]! * rt * twist[1]!
  s[TWIST + 3] = twist[2]!
  multiplyQuat(s, START_ROT, s, TWIST, s, START_ROT)
}

/**
 * twist[1], twist[2]: sin and cos of half the job's twist angle, computed again only when the angle changes
 * (a game's twist is usually constant: the step then calls no sine).
 */
export function halfTwist(job: { readonly twistAngle: number }): void {
  if (job.twistAngle === twist[0]) return
  twist[0] = job.twistAngle
  detSinCos(sinCos, 0.5 * twist[0]!)
  twist[1] = sinCos[0]!
  twist[2] = sinCos[1]!
}

/** [angle, sin, cos] of the last twist angle's half (see halfTwist). */
export const twist = Float64Array.of(0, 0, 1)
const sinCos = new Float64Array(2)
