import { entityExists, hasComponent } from 'bitecs'
import { stepRamp } from '../src/clip/ramp.ts'
import { createTwoBoneJob, runTwoBoneJob } from '../src/ik/twoBone.ts'
import { createAimJob, runAimJob } from '../src/ik/aim.ts'
import { chainScratchLength, createChainJob, runChainJob } from '../src/ik/chain.ts'
import { cross, invertMatrix, transformPoint, transformVector } from '../src/ik/ikMath.ts'
import { multiplyQuat, normalizeQuat } from '../src/math/quat.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../components/Pose.ts'
import type { StepState } from './state.ts'
import { beginEdit, jointWorld, type PoseEditInput } from './poseEdits.ts'
import { solveFeet } from './ikFeet.ts'
import {
  F_AXIS,
  F_CHAIN_WEIGHTS,
  F_PITCH,
  F_PITCH_COS,
  F_POLE,
  F_RAMP_DURATION,
  F_REST_AXIS,
  F_SOFTEN,
  F_TARGET,
  F_TOLERANCE,
  F_TWIST,
  F_UP,
  F_WEIGHT,
  F_WEIGHT_FROM,
  F_WEIGHT_TO,
  F_YAW,
  F_YAW_COS,
  I_ITERATIONS,
  I_METHOD,
  I_POLE_ENTITY,
  I_TARGET_ENTITY,
  IK_AIM,
  IK_CHAIN,
  IK_FEET,
  IK_TWO_BONE,
  type IKCharacter,
  type IKSolver,
} from './ikState.ts'

/**
 * The built-in IK solvers, run by runPoseStages after the game's stages: per character with solvers, each
 * solver's weight ramp one step on, then each solver of weight above 0 in run order (ikState.ts), on the pose
 * as it is then, its edits logged like a stage's (poseEdits.ts). Model space is world space: targets and poles
 * are world points. The math is the jobs' (src/ik/): two-bone and aim are ozz-animation's, chain FABRIK or CCD.
 * Throws only what a game's ground function throws (runPoseStages catches it). Allocation-free.
 */
export type IKInput = PoseEditInput & Pick<StepState, 'world' | 'dt' | 'timeScale' | 'physics'>

export function solveCharacterIK(ctx: IKInput, eid: number, ik: IKCharacter): void {
  const solvers = ik.solvers
  for (let k = 0; k < solvers.length; k++) stepWeight(ctx, solvers[k]!)
  for (let k = 0; k < solvers.length; k++) {
    const s = solvers[k]!
    if (!(s.f[F_WEIGHT]! > 0)) continue
    if (s.kind === IK_FEET) solveFeet(ctx, eid, s)
    else if (s.kind === IK_TWO_BONE) solveTwoBone(ctx, eid, s)
    else if (s.kind === IK_CHAIN) solveChain(ctx, eid, s)
    else if (s.kind === IK_AIM) solveAim(ctx, eid, s)
  }
}

/** One step of a solver's weight ramp (as a layer's: src/clip/ramp.ts). */
function stepWeight(ctx: IKInput, s: IKSolver): void {
  const f = s.f
  if (f[F_RAMP_DURATION] === 0) return
  if (stepRamp(ctx, s.steps, f, 0, fraction, 0)) {
    f[F_WEIGHT] = f[F_WEIGHT_TO]!
    f[F_RAMP_DURATION] = 0
  } else f[F_WEIGHT] = f[F_WEIGHT_FROM]! + (f[F_WEIGHT_TO]! - f[F_WEIGHT_FROM]!) * fraction[0]!
}

const fraction = new Float64Array(1)

/**
 * A solver's target or pole into `out[o..o+3)`: the scene node it follows (its parent's last world matrix times
 * its local translation now) or its point. False when it follows a node that is no longer one (the solver then
 * rests) or, for a pole, when it has none.
 */
export function worldPoint(
  ctx: IKInput,
  s: IKSolver,
  fo: number,
  io: number,
  out: Float64Array,
  o: number,
): boolean {
  const e = s.i[io]!
  if (e === 0) {
    if (s.f[fo]! - s.f[fo]! !== 0) return false
    for (let k = 0; k < 3; k++) out[o + k] = s.f[fo + k]!
    return true
  }
  const nodes = ctx.sceneGraph.store
  if (!entityExists(ctx.world, e) || !hasComponent(ctx.world, e, nodes)) return false
  const p = nodes.parent[e]!
  if (p === 0) for (let k = 0; k < 3; k++) out[o + k] = nodes.translation[3 * e + k]!
  else transformPoint(out, o, nodes.world, 16 * p, nodes.translation, 3 * e)
  return true
}

/** local(j) ← normalize(local(j) · q[qo..]): a job's local-space correction applied to ANIM, logged first. */
export function applyCorrection(ctx: IKInput, eid: number, j: number, q: Float64Array, qo: number): void {
  if (q[qo] === 0 && q[qo + 1] === 0 && q[qo + 2] === 0) return
  beginEdit(ctx, eid, j)
  const { Pose } = ctx.stores
  const r = poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM) + j * JOINT_STRIDE + 3
  const data = ctx.pool.data
  for (let k = 0; k < 4; k++) rot[k] = data[r + k]!
  multiplyQuat(rot, 0, rot, 0, q, qo)
  normalizeQuat(rot, 0)
  for (let k = 0; k < 4; k++) data[r + k] = rot[k]!
}

const rot = new Float64Array(4)

/** Copies joint j's world matrix (the memo's) into `out` (16 doubles). */
export function worldInto(ctx: IKInput, eid: number, j: number, out: Float64Array): void {
  const at = jointWorld(ctx, eid, j)
  const m = ctx.poseEdits.world.matrices
  for (let k = 0; k < 16; k++) out[k] = m[at + k]!
}

const twoBone = createTwoBoneJob()
twoBone.startCorrection = new Float64Array(4)
twoBone.midCorrection = new Float64Array(4)
/** reachTwoBone's inputs and scratch (floats through memory: see stepRamp). */
const v = new Float64Array(27)
const SOFTEN = 24
const TWIST = 25
const WEIGHT = 26
const inverse = new Float64Array(16)

/**
 * Runs the two-bone job on joints start, mid, end of character `eid` towards `target` (world, v[0..3)) and
 * applies its corrections. The bend: the middle joint's hinge is the animated chain's plane, or where that is
 * straight the rest pose's (`restAxis` at f[ro], NaN for none), or else the plane of the pole; the pole is
 * `pole` (a world point, when `hasPole`) or the hinge's own side, so with no pole the knee bends as animated.
 * Soften, twist and weight come from TWO_BONE_TARGET[24..27).
 */
export function reachTwoBone(
  ctx: IKInput,
  eid: number,
  joints: Int32Array,
  jo: number,
  f: Float64Array,
  ro: number,
  hasPole: boolean,
): void {
  const job = twoBone
  const a = joints[jo]!
  const b = joints[jo + 1]!
  const c = joints[jo + 2]!
  // The memo's matrices in place, as (array, offset) pairs.
  const w = ctx.poseEdits.world.matrices
  const so = jointWorld(ctx, eid, a)
  const mo = jointWorld(ctx, eid, b)
  const eo = jointWorld(ctx, eid, c)
  job.start = w
  job.mid = w
  job.end = w
  job.startOffset = so
  job.midOffset = mo
  job.endOffset = eo
  // v: 0 target, 3 pole point, 6 start−mid, 9 end−mid, 12 hinge (world), 15 end−start, 18 pole vector
  for (let k = 0; k < 3; k++) {
    v[6 + k] = w[so + 12 + k]! - w[mo + 12 + k]!
    v[9 + k] = w[eo + 12 + k]! - w[mo + 12 + k]!
    v[15 + k] = w[eo + 12 + k]! - w[so + 12 + k]!
  }
  cross(v, 12, v, 6, v, 9)
  const bend2 = v[12]! ** 2 + v[13]! ** 2 + v[14]! ** 2
  const l2 = (v[6]! ** 2 + v[7]! ** 2 + v[8]! ** 2) * (v[9]! ** 2 + v[10]! ** 2 + v[11]! ** 2)
  if (!(bend2 > 1e-8 * l2)) {
    if (f[ro]! - f[ro]! === 0) transformVector(v, 12, w, mo, f, ro)
    else {
      // Straight now and at rest: the plane of the pole (given, or the character's forward, +z).
      if (hasPole) for (let k = 0; k < 3; k++) v[18 + k] = v[3 + k]! - w[so + 12 + k]!
      else {
        const root = ctx.poseEdits.world.root
        for (let k = 0; k < 3; k++) v[18 + k] = root[8 + k]!
      }
      cross(v, 12, v, 15, v, 18)
    }
  }
  invertMatrix(inverse, 0, w, mo)
  transformVector(job.midAxis, 0, inverse, 0, v, 12)
  const axis2 = job.midAxis[0]! ** 2 + job.midAxis[1]! ** 2 + job.midAxis[2]! ** 2
  if (!(axis2 > 0)) return
  const inv = 1 / Math.sqrt(axis2)
  for (let k = 0; k < 3; k++) job.midAxis[k] = job.midAxis[k]! * inv
  if (hasPole) for (let k = 0; k < 3; k++) job.pole[k] = v[3 + k]! - w[so + 12 + k]!
  else cross(job.pole, 0, v, 12, v, 15)
  for (let k = 0; k < 3; k++) job.target[k] = v[k]!
  job.soften = v[SOFTEN]!
  job.twistAngle = v[TWIST]!
  job.weight = v[WEIGHT]!
  if (!runTwoBoneJob(job)) return
  applyCorrection(ctx, eid, a, job.startCorrection!, 0)
  applyCorrection(ctx, eid, b, job.midCorrection!, 0)
}

/**
 * Where reachTwoBone reads its inputs: the target at [0, 3), the pole point at [3, 6), soften, twist and weight
 * at [24, 27) (the caller writes them first).
 */
export const TWO_BONE_TARGET = v

function solveTwoBone(ctx: IKInput, eid: number, s: IKSolver): void {
  if (!worldPoint(ctx, s, F_TARGET, I_TARGET_ENTITY, v, 0)) return
  const hasPole = worldPoint(ctx, s, F_POLE, I_POLE_ENTITY, v, 3)
  v[SOFTEN] = s.f[F_SOFTEN]!
  v[TWIST] = s.f[F_TWIST]!
  v[WEIGHT] = s.f[F_WEIGHT]!
  reachTwoBone(ctx, eid, s.joints, 0, s.f, F_REST_AXIS, hasPole)
}

const chain = createChainJob()
chain.joints = new Float64Array(0)
chain.corrections = new Float64Array(0)
chain.scratch = new Float64Array(0)

/** Room for a chain of `n` joints in the chain solver's scratch (at setIK and restore: outside the step). */
export function growChainScratch(n: number): void {
  if (chain.joints!.length >= 16 * n) return
  chain.joints = new Float64Array(16 * n)
  chain.corrections = new Float64Array(4 * n)
  chain.scratch = new Float64Array(chainScratchLength(n))
}

function solveChain(ctx: IKInput, eid: number, s: IKSolver): void {
  const job = chain
  if (!worldPoint(ctx, s, F_TARGET, I_TARGET_ENTITY, job.target, 0)) return
  const joints = s.joints
  const n = joints.length
  const m = ctx.poseEdits.world.matrices
  let length = 0
  for (let i = 0; i < n; i++) {
    const at = jointWorld(ctx, eid, joints[i]!)
    for (let k = 0; k < 16; k++) job.joints![16 * i + k] = m[at + k]!
    if (i > 0) {
      const o = 16 * i + 12
      const p = o - 16
      const w = job.joints!
      length += Math.sqrt((w[o]! - w[p]!) ** 2 + (w[o + 1]! - w[p + 1]!) ** 2 + (w[o + 2]! - w[p + 2]!) ** 2)
    }
  }
  job.count = n
  job.method = s.i[I_METHOD]!
  job.iterations = s.i[I_ITERATIONS]!
  const tolerance = s.f[F_TOLERANCE]!
  job.tolerance = tolerance - tolerance === 0 ? tolerance : 1e-4 * length
  job.weight = s.f[F_WEIGHT]!
  if (!runChainJob(job)) return
  for (let i = 0; i < n - 1; i++) applyCorrection(ctx, eid, joints[i]!, job.corrections!, 4 * i)
}

const aim = createAimJob()
aim.joint = new Float64Array(16)
aim.correction = new Float64Array(4)
/** a: 0 target (clamped), 3 eye (the aiming joint's position now), 6 animated aim direction, 9 scratch, 12 head. */
const a = new Float64Array(16)
const head = new Float64Array(16)

/**
 * Aim: the target clamped to the yaw and pitch limits about the animated aim direction; each chain joint (parent
 * first) turns the head's aim towards it by its share, then the joint itself finishes the turn. Every turn
 * keeps the joint's `up` on the world +y side (when `up` is given).
 */
function solveAim(ctx: IKInput, eid: number, s: IKSolver): void {
  if (!worldPoint(ctx, s, F_TARGET, I_TARGET_ENTITY, a, 9)) return
  const f = s.f
  const joints = s.joints
  const weight = f[F_WEIGHT]!
  worldInto(ctx, eid, joints[0]!, head)
  transformVector(a, 6, head, 0, f, F_AXIS)
  const hasUp = f[F_UP]! - f[F_UP]! === 0
  for (let c = 1; c < joints.length; c++) {
    const share = f[F_CHAIN_WEIGHTS + c - 1]! * weight
    if (!(share > 0)) continue
    worldInto(ctx, eid, joints[0]!, head)
    clampAim(f, head)
    worldInto(ctx, eid, joints[c]!, aim.joint!)
    invertMatrix(inverse, 0, aim.joint!, 0)
    transformVector(a, 12, head, 0, f, F_AXIS)
    transformVector(aim.forward, 0, inverse, 0, a, 12)
    normalize3(aim.forward)
    transformPoint(aim.offset, 0, inverse, 0, head, 12)
    if (hasUp) {
      transformVector(a, 12, head, 0, f, F_UP)
      transformVector(aim.up, 0, inverse, 0, a, 12)
    } else aim.up.fill(0)
    aim.weight = share
    aimAt(ctx, eid, joints[c]!)
  }
  worldInto(ctx, eid, joints[0]!, head)
  clampAim(f, head)
  for (let k = 0; k < 16; k++) aim.joint![k] = head[k]!
  for (let k = 0; k < 3; k++) {
    aim.forward[k] = f[F_AXIS + k]!
    aim.up[k] = hasUp ? f[F_UP + k]! : 0
  }
  aim.offset.fill(0)
  aim.weight = weight
  aimAt(ctx, eid, joints[0]!)
}

/** Runs the aim job (its weight set) at a[0..3) and applies its correction to joint j. */
function aimAt(ctx: IKInput, eid: number, j: number): void {
  aim.pole[0] = 0
  aim.pole[1] = 1
  aim.pole[2] = 0
  for (let k = 0; k < 3; k++) aim.target[k] = a[k]!
  aim.twistAngle = 0
  if (runAimJob(aim)) applyCorrection(ctx, eid, j, aim.correction!, 0)
}

function normalize3(x: Float64Array): void {
  const l = Math.sqrt(x[0]! * x[0]! + x[1]! * x[1]! + x[2]! * x[2]!)
  if (!(l > 0)) return
  x[0] = x[0]! / l
  x[1] = x[1]! / l
  x[2] = x[2]! / l
}

/**
 * a[0..3) ← the target a[9..12) moved, if needed, so that seen from the head's position now (head[12..15)) its
 * yaw about world +y and its pitch differ from the animated aim direction a[6..9)'s by at most the limits
 * (cos and sin at f[F_YAW_COS..], f[F_PITCH_COS..]); its distance kept. Only + − × ÷ and square roots.
 */
export function clampAim(f: Float64Array, h: Float64Array): void {
  const dx = a[9]! - h[12]!
  const dy = a[10]! - h[13]!
  const dz = a[11]! - h[14]!
  for (let k = 0; k < 3; k++) a[k] = a[9 + k]!
  const yawLimited = f[F_YAW]! - f[F_YAW]! === 0
  const pitchLimited = f[F_PITCH]! - f[F_PITCH]! === 0
  if (!yawLimited && !pitchLimited) return
  // The animated direction's heading f (horizontal, unit) and side s = up × f, and its elevation.
  const ax = a[6]!
  const ay = a[7]!
  const az = a[8]!
  const al = Math.sqrt(ax * ax + ay * ay + az * az)
  const hl0 = Math.sqrt(ax * ax + az * az)
  if (!(al > 0)) return
  const fx = hl0 > 1e-9 * al ? ax / hl0 : 1
  const fz = hl0 > 1e-9 * al ? az / hl0 : 0
  const sinE0 = ay / al
  const cosE0 = hl0 / al
  const dl = Math.sqrt(dx * dx + dy * dy + dz * dz)
  if (!(dl > 0)) return
  const hl = Math.sqrt(dx * dx + dz * dz)
  let hf = hl > 0 ? (dx * fx + dz * fz) / hl : 1
  let hs = hl > 0 ? (dx * fz - dz * fx) / hl : 0
  if (yawLimited && hf < f[F_YAW_COS]!) {
    hf = f[F_YAW_COS]!
    hs = hs < 0 ? -f[F_YAW_COS + 1]! : f[F_YAW_COS + 1]!
  }
  let sinE = dy / dl
  let cosE = hl / dl
  if (pitchLimited) {
    const cp = f[F_PITCH_COS]!
    const sp = f[F_PITCH_COS + 1]!
    if (cosE * cosE0 + sinE * sinE0 < cp) {
      const up = sinE * cosE0 - cosE * sinE0 >= 0 ? 1 : -1
      sinE = sinE0 * cp + up * cosE0 * sp
      cosE = cosE0 * cp - up * sinE0 * sp
      if (cosE < 0) {
        cosE = 0
        sinE = up
      }
    }
  }
  // Back to world: heading (hf, hs) in the (f, s) frame, s = (fz, 0, −fx).
  const hx = hf * fx + hs * fz
  const hz = hf * fz - hs * fx
  a[0] = h[12]! + dl * cosE * hx
  a[1] = h[13]! + dl * sinE
  a[2] = h[14]! + dl * cosE * hz
}
