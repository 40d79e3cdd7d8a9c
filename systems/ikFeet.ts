import { conjugateQuat, multiplyQuat } from '../src/math/quat.ts'
import {
  invertMatrix,
  quatFromMatrix,
  quatFromVectors,
  transformVector,
  weightQuat,
} from '../src/ik/ikMath.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../components/Pose.ts'
import { jointWorld, logJoint, moveWorldBelow } from './poseEdits.ts'
import { applyCorrection, reachTwoBone, TWO_BONE_TARGET, worldInto, type IKInput } from './ik.ts'
import {
  F_LEFT_REST_AXIS,
  F_RIGHT_REST_AXIS,
  F_WEIGHT,
  GROUND_FUNCTION,
  I_GROUND,
  type IKSolver,
} from './ikState.ts'

/**
 * Foot placement ('feet'): each foot to the ground under it, the pelvis lowered so both reach, each foot turned
 * to the ground's slope. The ground is world +y up: under each foot's animated position (x, z), its height and
 * normal come from a ray down the plugin's cannon-es world (from a leg's length above the character's origin to
 * a leg's length below; every body counts) or from the game's height function (the normal by central
 * differences a twentieth of the leg apart). The animated feet stand on the character's ground plane (its
 * entity's height): each foot rises or sinks by the ground's height there above that plane; the pelvis sinks by
 * the lower of the two (never rises); then each leg reaches its foot's place by two-bone IK (bending as
 * animated), and the foot turns by the shortest arc from +y to the normal (not on slopes over 45°). The
 * solver's weight scales the heights and the turn. A foot with no ground (a ray that hits nothing, a height
 * that is not finite) stays as animated. Throws only what the game's function throws.
 */
export function solveFeet(ctx: IKInput, eid: number, s: IKSolver): void {
  // A restored solver whose ground function the game has not given again rests.
  if (s.i[I_GROUND] === GROUND_FUNCTION && s.ground === null) return
  const weight = s.f[F_WEIGHT]!
  const joints = s.joints
  jointWorld(ctx, eid, joints[0]!)
  const rootY = ctx.poseEdits.world.root[13]!
  for (let leg = 0; leg < 2; leg++) {
    const o = 3 * leg
    const hip = jointWorld(ctx, eid, joints[o]!)
    const knee = jointWorld(ctx, eid, joints[o + 1]!)
    const foot = jointWorld(ctx, eid, joints[o + 2]!)
    const m = ctx.poseEdits.world.matrices
    let thigh = 0
    let shin = 0
    for (let k = 12; k < 15; k++) {
      thigh += (m[hip + k]! - m[knee + k]!) ** 2
      shin += (m[knee + k]! - m[foot + k]!) ** 2
    }
    const length = Math.sqrt(thigh) + Math.sqrt(shin)
    for (let k = 0; k < 3; k++) feet[8 * leg + k] = m[foot + 12 + k]!
    quatFromMatrix(feet, 8 * leg + 3, m, foot)
    numbers[ROOT_Y] = rootY
    numbers[LENGTH] = length
    ground(ctx, s, leg)
  }
  const drop = Math.min(0, heights[0]!, heights[1]!) * weight
  numbers[WEIGHT] = weight
  numbers[DROP] = drop
  if (drop < 0) lowerPelvis(ctx, eid, joints[6]!)
  for (let leg = 0; leg < 2; leg++) {
    const rise = heights[leg]! * weight
    if (rise === 0 && drop === 0 && normals[4 * leg + 1] === 1) continue
    const t = TWO_BONE_TARGET
    t[0] = feet[8 * leg]!
    t[1] = feet[8 * leg + 1]! + rise
    t[2] = feet[8 * leg + 2]!
    const rest = leg === 0 ? F_LEFT_REST_AXIS : F_RIGHT_REST_AXIS
    t[24] = 1
    t[25] = 0
    t[26] = 1
    reachTwoBone(ctx, eid, joints, 3 * leg, s.f, rest, false)
    // The leg turned the foot with it: its world rotation is the animated one, turned to the slope.
    alignFoot(ctx, eid, joints[3 * leg + 2]!, leg)
  }
}

/** Per foot (8 each): its animated world position and world rotation. */
const feet = new Float64Array(16)
/** Per foot: the ground's height above the character's plane (0 for none). */
const heights = new Float64Array(2)
/** Per foot (4 each): the normal the foot turns to: the ground's, or +y (none, or steeper than 45°). */
const normals = new Float64Array(8)
const UP = Float64Array.of(0, 1, 0)
/** cos 45°: steeper ground does not turn the foot. */
const MAX_TILT_COS = Math.SQRT1_2

/** A ray's [x, top, bottom, z] and what it hit: [height, normal]. */
const ray = new Float64Array(4)
const hit = new Float64Array(4)

/**
 * The ground under the foot of `leg` (feet[8·leg..]), from numbers[ROOT_Y] and numbers[LENGTH]: heights[leg]
 * and normals[4·leg..] (see solveFeet).
 */
function ground(ctx: IKInput, s: IKSolver, leg: number): void {
  const x = feet[8 * leg]!
  const z = feet[8 * leg + 2]!
  const rootY = numbers[ROOT_Y]!
  const length = numbers[LENGTH]!
  heights[leg] = 0
  let y: number
  const n = normals
  const o = 4 * leg
  n[o] = 0
  n[o + 1] = 1
  n[o + 2] = 0
  if (s.i[I_GROUND] === GROUND_FUNCTION) {
    const g = s.ground!
    y = g(x, z)
    const e = length > 0 ? 0.05 * length : 1e-3
    const dx = (g(x + e, z) - g(x - e, z)) / (2 * e)
    const dz = (g(x, z + e) - g(x, z - e)) / (2 * e)
    n[o] = -dx
    n[o + 1] = 1
    n[o + 2] = -dz
  } else {
    ray[0] = x
    ray[1] = rootY + length
    ray[2] = rootY - length
    ray[3] = z
    if (!ctx.physics.groundRay(hit, ray)) return
    y = hit[0]!
    n[o] = hit[1]!
    n[o + 1] = hit[2]!
    n[o + 2] = hit[3]!
  }
  const l = Math.sqrt(n[o]! * n[o]! + n[o + 1]! * n[o + 1]! + n[o + 2]! * n[o + 2]!)
  if (l > 0 && n[o + 1]! / l >= MAX_TILT_COS) for (let k = 0; k < 3; k++) n[o + k] = n[o + k]! / l
  else {
    n[o] = 0
    n[o + 1] = 1
    n[o + 2] = 0
  }
  if (typeof y !== 'number' || y - y !== 0) {
    n[o] = 0
    n[o + 1] = 1
    n[o + 2] = 0
    return
  }
  heights[leg] = y - rootY
}

const scratch = new Float64Array(32)
/** The solve's numbers, through memory (floats cross no call: V8 boxes them, see stepRamp). */
const numbers = new Float64Array(4)
const WEIGHT = 0
const DROP = 1
const ROOT_Y = 2
const LENGTH = 3

/** The pelvis moved `drop` (≤ 0) along world y: its local translation by its parent's inverse. */
function lowerPelvis(ctx: IKInput, eid: number, pelvis: number): void {
  const { Pose } = ctx.stores
  const parent = ctx.assets[Pose.asset[eid]!]!.jointParents[pelvis]!
  if (parent < 0) for (let k = 0; k < 16; k++) scratch[k] = ctx.poseEdits.world.root[k]!
  else worldInto(ctx, eid, parent, scratch)
  invertMatrix(scratch, 0, scratch, 0)
  scratch[16] = 0
  scratch[17] = numbers[DROP]!
  scratch[18] = 0
  transformVector(scratch, 19, scratch, 0, scratch, 16)
  logJoint(ctx, eid, pelvis)
  // The whole body under the pelvis moves down with it: its world matrices too.
  moveWorldBelow(ctx, eid, pelvis, scratch, 16)
  const at = poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM) + pelvis * JOINT_STRIDE
  const data = ctx.pool.data
  for (let k = 0; k < 3; k++) data[at + k] = data[at + k]! + scratch[19 + k]!
}

/**
 * The foot's world rotation made (weighted) the shortest arc from +y to the ground normal times its animated
 * one: a local correction conj(now) · wanted.
 */
function alignFoot(ctx: IKInput, eid: number, foot: number, leg: number): void {
  quatFromVectors(scratch, 0, UP, 0, normals, 4 * leg)
  weightQuat(scratch, 0, scratch, 0, numbers, WEIGHT)
  multiplyQuat(scratch, 8, scratch, 0, feet, 8 * leg + 3)
  const m = ctx.poseEdits.world.matrices
  quatFromMatrix(scratch, 12, m, jointWorld(ctx, eid, foot))
  conjugateQuat(scratch, 12, scratch, 12)
  multiplyQuat(scratch, 16, scratch, 12, scratch, 8)
  applyCorrection(ctx, eid, foot, scratch, 16)
}
