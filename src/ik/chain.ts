import { multiplyQuat } from '../math/quat.ts'
import { composeMatrix, multiplyMatrices } from '../math/transform.ts'
import { identityQuat, invertMatrix, quatFromVectors, transformVector, weightQuat } from './ikMath.ts'

/**
 * Chain IK over any number of joints (a tail, an arm, a tentacle): the rotations of a chain's joints that put
 * its last joint on a target, by FABRIK (forward and backward reaching: positions, then the rotations that
 * give them) or CCD (cyclic coordinate descent, each joint from the tip's parent to the root turned to point
 * the tip at the target, as three.js's CCDIKSolver does). Bone lengths never change: only rotations are
 * written.
 *
 * Inputs:
 *   joints       model matrices of the chain's joints, root first, 16 doubles column-major each; joint i + 1 is
 *                a child of joint i (the bone from i to i + 1 is i + 1's translation)
 *   count        joints in the chain, ≥ 2
 *   target       the point the last joint reaches for, model space
 *   method       CHAIN_FABRIK or CHAIN_CCD
 *   iterations   at most this many passes (≥ 1)
 *   tolerance    a pass that leaves the tip this close to the target (model units) ends the solve; 0 runs every
 *                pass (CCD also stops after a pass that turned nothing, as three.js does)
 *   weight       in [0, 1] (clamped): each correction lerped from the identity
 * Outputs (caller-owned): `corrections`, 4 doubles per joint (the last one's the identity), local-space
 * corrections (`local · correction`), w ≥ 0; `reached`, whether the tip ended within `tolerance` (weight 1).
 * `scratch`: chainScratchLength(count) doubles of the caller's, for the working matrices and positions.
 *
 * FABRIK with a target beyond the chain's reach lays the chain straight, pointing at it. A zero-length bone
 * keeps its direction. runChainJob returns false, writing nothing, for a job validateChainJob refuses.
 * Allocates nothing.
 */
export interface ChainJob {
  /** The chain's model matrices, root first, 16 doubles each; null: the job is refused. */
  joints: Float64Array | null
  /** Joints in the chain, ≥ 2. */
  count: number
  /** The point the last joint reaches for, model space. */
  readonly target: Float64Array
  /** CHAIN_FABRIK or CHAIN_CCD. */
  method: number
  /** Passes at most, an integer ≥ 1. */
  iterations: number
  /** Model units: a pass ending this close to the target ends the solve (0: every pass). */
  tolerance: number
  /** In [0, 1], clamped. */
  weight: number
  /** Output: each joint's local correction, 4 doubles each (the last one's the identity). */
  corrections: Float64Array | null
  /** Working memory of the caller's: chainScratchLength(count) doubles. */
  scratch: Float64Array | null
  /** Output: whether the tip ended within the tolerance (weight 1). */
  reached: boolean
}

/** ChainJob.method: forward and backward reaching. */
export const CHAIN_FABRIK = 0
/** ChainJob.method: cyclic coordinate descent. */
export const CHAIN_CCD = 1

/** A job with no chain yet: FABRIK, 10 passes, tolerance 0, weight 1. */
export function createChainJob(): ChainJob {
  return {
    joints: null,
    count: 0,
    target: new Float64Array(3),
    method: CHAIN_FABRIK,
    iterations: 10,
    tolerance: 0,
    weight: 1,
    corrections: null,
    scratch: null,
    reached: false,
  }
}

/** Doubles of scratch a chain of `count` joints needs: working matrices, positions, lengths, one matrix more. */
export function chainScratchLength(count: number): number {
  return 16 * count + 3 * count + count + 48
}

/** Whether the job can run: ≥ 2 joints, arrays that hold them, a known method, ≥ 1 pass, a tolerance ≥ 0. */
export function validateChainJob(job: ChainJob): boolean {
  const n = job.count
  return (
    Number.isInteger(n) &&
    n >= 2 &&
    job.joints !== null &&
    job.joints.length >= 16 * n &&
    job.corrections !== null &&
    job.corrections.length >= 4 * n &&
    job.scratch !== null &&
    job.scratch.length >= chainScratchLength(n) &&
    (job.method === CHAIN_FABRIK || job.method === CHAIN_CCD) &&
    Number.isInteger(job.iterations) &&
    job.iterations >= 1 &&
    job.tolerance >= 0
  )
}

/** Small vectors and a quaternion. */
const v = new Float64Array(16)
const A = 0
const B = 3
const Q = 6
const W = 10
const DIST = 11

/** Runs the job: writes its corrections and `reached`; false, writing nothing, for a job it refuses. */
export function runChainJob(job: ChainJob): boolean {
  if (!validateChainJob(job)) return false
  const n = job.count
  const out = job.corrections!
  const w = job.scratch!
  const joints = job.joints!
  for (let k = 0; k < 16 * n; k++) w[k] = joints[k]!
  for (let i = 0; i < n; i++) identityQuat(out, 4 * i)
  const pos = 16 * n
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) w[pos + 3 * i + k] = w[16 * i + 12 + k]!
  if (job.method === CHAIN_FABRIK) {
    fabrik(job, w, n)
    // The rotations that put each bone along its solved direction, root first.
    for (let i = 0; i < n - 1; i++) {
      for (let k = 0; k < 3; k++) {
        v[A + k] = w[16 * (i + 1) + 12 + k]! - w[16 * i + 12 + k]!
        v[B + k] = w[pos + 3 * (i + 1) + k]! - w[pos + 3 * i + k]!
      }
      turn(job, w, n, i)
    }
  } else ccd(job, w, n)
  const tip = 16 * (n - 1) + 12
  const dx = w[tip]! - job.target[0]!
  const dy = w[tip + 1]! - job.target[1]!
  const dz = w[tip + 2]! - job.target[2]!
  job.reached = dx * dx + dy * dy + dz * dz <= job.tolerance * job.tolerance && job.weight >= 1
  v[W] = job.weight
  for (let i = 0; i < n - 1; i++) weightQuat(out, 4 * i, out, 4 * i, v, W)
  return true
}

/**
 * Turns working joint `i` so the model direction v[A] becomes v[B] (both taken into its local space), and
 * carries its descendants along: W_k ← (W_i · R · W_i⁻¹) · W_k. Accumulates the turn into its correction.
 */
function turn(job: ChainJob, w: Float64Array, n: number, i: number): void {
  const inv = 16 * n + 4 * n
  const rot = inv + 16
  const delta = inv + 32
  invertMatrix(w, inv, w, 16 * i)
  transformVector(v, A, w, inv, v, A)
  transformVector(v, B, w, inv, v, B)
  quatFromVectors(v, Q, v, A, v, B)
  if (v[Q + 3] === 1) return
  const out = job.corrections!
  multiplyQuat(out, 4 * i, out, 4 * i, v, Q)
  composeMatrix(w, rot, ZERO, 0, v, Q, ONE, 0)
  // delta = W_i · R · W_i⁻¹; then W_i ← W_i · R and each descendant W_k ← delta · W_k.
  multiplyMatrices(w, delta, w, 16 * i, w, rot)
  multiplyMatrices(w, delta, w, delta, w, inv)
  multiplyMatrices(w, 16 * i, w, 16 * i, w, rot)
  for (let k = i + 1; k < n; k++) multiplyMatrices(w, 16 * k, w, delta, w, 16 * k)
}

const ZERO = new Float64Array(3)
const ONE = Float64Array.of(1, 1, 1)

/** FABRIK on the positions (scratch after the matrices): lengths kept, root kept, tip towards the target. */
function fabrik(job: ChainJob, w: Float64Array, n: number): void {
  const pos = 16 * n
  const len = pos + 3 * n
  const t = job.target
  let total = 0
  for (let i = 0; i < n - 1; i++) {
    distance(w, pos + 3 * i, w, pos + 3 * (i + 1))
    w[len + i] = v[DIST]!
    total += v[DIST]!
  }
  distance(w, pos, t, 0)
  if (v[DIST]! >= total) {
    // Out of reach: straight, pointing at the target.
    for (let i = 0; i < n - 1; i++) place(w, pos + 3 * (i + 1), w, pos + 3 * i, t, 0, len + i, true)
    return
  }
  const rx = w[pos]!
  const ry = w[pos + 1]!
  const rz = w[pos + 2]!
  const tip = pos + 3 * (n - 1)
  for (let it = 0; it < job.iterations; it++) {
    distance(w, tip, t, 0)
    if (v[DIST]! <= job.tolerance) return
    for (let k = 0; k < 3; k++) w[tip + k] = t[k]!
    for (let i = n - 2; i >= 0; i--)
      place(w, pos + 3 * i, w, pos + 3 * (i + 1), w, pos + 3 * i, len + i, false)
    w[pos] = rx
    w[pos + 1] = ry
    w[pos + 2] = rz
    for (let i = 0; i < n - 1; i++)
      place(w, pos + 3 * (i + 1), w, pos + 3 * i, w, pos + 3 * (i + 1), len + i, false)
  }
}

/**
 * out = from + length · (towards − from)/|towards − from|, the length at out[li]; when that direction is zero,
 * the point stays where it is (`keep` false) or goes along the old bone direction (`keep` true: out's own
 * position minus from).
 */
function place(
  out: Float64Array,
  oo: number,
  from: Float64Array,
  fo: number,
  towards: Float64Array,
  to: number,
  li: number,
  keep: boolean,
): void {
  const length = out[li]!
  let dx = towards[to]! - from[fo]!
  let dy = towards[to + 1]! - from[fo + 1]!
  let dz = towards[to + 2]! - from[fo + 2]!
  let d2 = dx * dx + dy * dy + dz * dz
  if (!(d2 > 0) && keep) {
    dx = out[oo]! - from[fo]!
    dy = out[oo + 1]! - from[fo + 1]!
    dz = out[oo + 2]! - from[fo + 2]!
    d2 = dx * dx + dy * dy + dz * dz
  }
  if (!(d2 > 0)) return
  const k = length / Math.sqrt(d2)
  out[oo] = from[fo]! + dx * k
  out[oo + 1] = from[fo + 1]! + dy * k
  out[oo + 2] = from[fo + 2]! + dz * k
}

/** v[DIST] = |a − b| (through memory: a double returned from a call V8 does not inline is boxed). */
function distance(a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  const dx = a[ao]! - b[bo]!
  const dy = a[ao + 1]! - b[bo + 1]!
  const dz = a[ao + 2]! - b[bo + 2]!
  v[DIST] = Math.sqrt(dx * dx + dy * dy + dz * dz)
}

/**
 * CCD: each pass turns every joint from the tip's parent to the root, each by the shortest arc that points the
 * tip at the target from it (skipped under 1e-5 rad, as three.js's CCDIKSolver skips); stops after a pass that
 * turned nothing or left the tip within the tolerance.
 */
function ccd(job: ChainJob, w: Float64Array, n: number): void {
  const t = job.target
  const tip = 16 * (n - 1) + 12
  for (let it = 0; it < job.iterations; it++) {
    let turned = false
    for (let i = n - 2; i >= 0; i--) {
      const o = 16 * i + 12
      for (let k = 0; k < 3; k++) {
        v[A + k] = w[tip + k]! - w[o + k]!
        v[B + k] = t[k]! - w[o + k]!
      }
      // cos of the angle between them; below 1e-5 rad (cos > 1 − 5e-11) nothing turns.
      const la = v[A]! * v[A]! + v[A + 1]! * v[A + 1]! + v[A + 2]! * v[A + 2]!
      const lb = v[B]! * v[B]! + v[B + 1]! * v[B + 1]! + v[B + 2]! * v[B + 2]!
      const d = v[A]! * v[B]! + v[A + 1]! * v[B + 1]! + v[A + 2]! * v[B + 2]!
      if (!(la > 0 && lb > 0) || d / Math.sqrt(la * lb) > 1 - 5e-11) continue
      turn(job, w, n, i)
      turned = true
    }
    if (!turned) return
    if (job.tolerance > 0) {
      distance(w, tip, t, 0)
      if (v[DIST]! <= job.tolerance) return
    }
  }
}
