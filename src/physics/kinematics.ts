import { JOINT_STRIDE, R_OFFSET, S_OFFSET } from '../math/poseLayout.ts'
import { conjugateQuat, multiplyQuat } from '../math/quat.ts'
import { detAtan2 } from '../math/detmath.ts'

/**
 * World transforms as position + rotation + uniform scale, in doubles, 8 per joint:
 *
 *   | px py pz | qx qy qz qw | s |
 *     0          3             7
 *
 * Ragdoll math works in this form (rigid bodies have no scale). Scale is taken as uniform: a joint's world
 * scale is its parent's times its local scale's x component. Only + - * / and sqrt: the same bits everywhere.
 */
export const WORLD_STRIDE = 8

/**
 * Forward kinematics of n joints of a pose layer (`pose[poseOffset + j·10 ..]`, parents before children,
 * `parents[j]` = parent joint or -1) under a root transform (`root[rootOffset ..]`, 8 doubles) into `out`.
 */
export function forwardKinematics(
  out: Float64Array,
  pose: Float32Array,
  poseOffset: number,
  parents: Int32Array,
  n: number,
  root: Float64Array,
  rootOffset: number,
): Float64Array {
  for (let j = 0; j < n; j++) {
    const p = parents[j]!
    const src = p < 0 ? root : out
    const po = p < 0 ? rootOffset : p * WORLD_STRIDE
    composeWorld(out, j * WORLD_STRIDE, src, po, pose, poseOffset + j * JOINT_STRIDE)
  }
  return out
}

/** out = parent ∘ local, where local is a 10-float pose joint. out may not alias parent. */
export function composeWorld(
  out: Float64Array,
  o: number,
  parent: Float64Array,
  po: number,
  pose: Float32Array,
  lo: number,
): void {
  const qx = parent[po + 3]!
  const qy = parent[po + 4]!
  const qz = parent[po + 5]!
  const qw = parent[po + 6]!
  const s = parent[po + 7]!
  // Rotate the scaled local translation by the parent's rotation.
  const vx = pose[lo]! * s
  const vy = pose[lo + 1]! * s
  const vz = pose[lo + 2]! * s
  const tx = 2 * (qy * vz - qz * vy)
  const ty = 2 * (qz * vx - qx * vz)
  const tz = 2 * (qx * vy - qy * vx)
  out[o] = parent[po]! + vx + qw * tx + (qy * tz - qz * ty)
  out[o + 1] = parent[po + 1]! + vy + qw * ty + (qz * tx - qx * tz)
  out[o + 2] = parent[po + 2]! + vz + qw * tz + (qx * ty - qy * tx)
  const r = lo + R_OFFSET
  const bx = pose[r]!
  const by = pose[r + 1]!
  const bz = pose[r + 2]!
  const bw = pose[r + 3]!
  out[o + 3] = qw * bx + qx * bw + qy * bz - qz * by
  out[o + 4] = qw * by - qx * bz + qy * bw + qz * bx
  out[o + 5] = qw * bz + qx * by - qy * bx + qz * bw
  out[o + 6] = qw * bw - qx * bx - qy * by - qz * bz
  out[o + 7] = s * pose[lo + S_OFFSET]!
}

/**
 * Writes the joint-local transform that puts a child at world `child` under world `parent` into a pose joint:
 * translation = parent⁻¹(position), rotation = conj(q_parent)·q_child (normalized); scale is left as it is.
 */
export function localFromWorld(
  pose: Float32Array,
  lo: number,
  parent: Float64Array,
  po: number,
  child: Float64Array,
  co: number,
): void {
  const qx = -parent[po + 3]!
  const qy = -parent[po + 4]!
  const qz = -parent[po + 5]!
  const qw = parent[po + 6]!
  const inv = 1 / parent[po + 7]!
  const vx = child[co]! - parent[po]!
  const vy = child[co + 1]! - parent[po + 1]!
  const vz = child[co + 2]! - parent[po + 2]!
  const tx = 2 * (qy * vz - qz * vy)
  const ty = 2 * (qz * vx - qx * vz)
  const tz = 2 * (qx * vy - qy * vx)
  pose[lo] = (vx + qw * tx + (qy * tz - qz * ty)) * inv
  pose[lo + 1] = (vy + qw * ty + (qz * tx - qx * tz)) * inv
  pose[lo + 2] = (vz + qw * tz + (qx * ty - qy * tx)) * inv
  const bx = child[co + 3]!
  const by = child[co + 4]!
  const bz = child[co + 5]!
  const bw = child[co + 6]!
  const x = qw * bx + qx * bw + qy * bz - qz * by
  const y = qw * by - qx * bz + qy * bw + qz * bx
  const z = qw * bz + qx * by - qy * bx + qz * bw
  const w = qw * bw - qx * bx - qy * by - qz * bz
  const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
  const r = lo + R_OFFSET
  pose[r] = x * n
  pose[r + 1] = y * n
  pose[r + 2] = z * n
  pose[r + 3] = w * n
}

/**
 * Decomposes a column-major 4×4 world matrix (rotation·uniform scale + translation) into the 8-double form.
 * Scale is the length of the first column; the rotation comes from the normalized 3×3 (Shepperd's method).
 */
export function decomposeMatrix(out: Float64Array, o: number, m: Float32Array, mo: number): Float64Array {
  const s = Math.sqrt(m[mo]! ** 2 + m[mo + 1]! ** 2 + m[mo + 2]! ** 2)
  const inv = s > 0 ? 1 / s : 0
  const m00 = m[mo]! * inv
  const m10 = m[mo + 1]! * inv
  const m20 = m[mo + 2]! * inv
  const m01 = m[mo + 4]! * inv
  const m11 = m[mo + 5]! * inv
  const m21 = m[mo + 6]! * inv
  const m02 = m[mo + 8]! * inv
  const m12 = m[mo + 9]! * inv
  const m22 = m[mo + 10]! * inv
  const trace = m00 + m11 + m22
  let x: number
  let y: number
  let z: number
  let w: number
  if (trace > 0) {
    const k = 0.5 / Math.sqrt(trace + 1)
    w = 0.25 / k
    x = (m21 - m12) * k
    y = (m02 - m20) * k
    z = (m10 - m01) * k
  } else if (m00 > m11 && m00 > m22) {
    const k = 2 * Math.sqrt(1 + m00 - m11 - m22)
    w = (m21 - m12) / k
    x = 0.25 * k
    y = (m01 + m10) / k
    z = (m02 + m20) / k
  } else if (m11 > m22) {
    const k = 2 * Math.sqrt(1 + m11 - m00 - m22)
    w = (m02 - m20) / k
    x = (m01 + m10) / k
    y = 0.25 * k
    z = (m12 + m21) / k
  } else {
    const k = 2 * Math.sqrt(1 + m22 - m00 - m11)
    w = (m10 - m01) / k
    x = (m02 + m20) / k
    y = (m12 + m21) / k
    z = 0.25 * k
  }
  const n = 1 / Math.sqrt(x * x + y * y + z * z + w * w)
  out[o] = m[mo + 12]!
  out[o + 1] = m[mo + 13]!
  out[o + 2] = m[mo + 14]!
  out[o + 3] = x * n
  out[o + 4] = y * n
  out[o + 5] = z * n
  out[o + 6] = w * n
  out[o + 7] = s
  return out
}

/** Rotates vector (vx, vy, vz) by the unit quaternion at q[qo..] and writes it to out[oo..]. */
export function rotateVector(
  out: Float64Array,
  oo: number,
  q: Float64Array,
  qo: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const qx = q[qo]!
  const qy = q[qo + 1]!
  const qz = q[qo + 2]!
  const qw = q[qo + 3]!
  const tx = 2 * (qy * vz - qz * vy)
  const ty = 2 * (qz * vx - qx * vz)
  const tz = 2 * (qx * vy - qy * vx)
  out[oo] = vx + qw * tx + (qy * tz - qz * ty)
  out[oo + 1] = vy + qw * ty + (qz * tx - qx * tz)
  out[oo + 2] = vz + qw * tz + (qx * ty - qy * tx)
}

/**
 * Angular velocity (world frame, radians per second) that turns unit quaternion a into b over dt seconds along
 * the short arc: ω = 2·log(b·a⁻¹)/dt, with d = b·a⁻¹ = (v, w) taken with w ≥ 0. `exact` false, for the per-step
 * drives (anchors, held roots, motors): 2·asin|v| in place of the angle 2·atan2(|v|, w), asin x / x as
 * 1 + x²/6 + 3x⁴/40 (within 1 % up to a 90° turn, 20 % short at 180°, where a drive only converges a step later):
 * atan2's double result, returned across a call V8 does not inline, was boxed on every call (1.4 KB a step for
 * two powered ragdolls). Allocation-free either way.
 */
export function angularVelocity(
  out: Float64Array,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
  dt: number,
  exact = true,
): Float64Array {
  relativeRotation(relative, a, ao, b, bo)
  const sign = relative[3]! < 0 ? -1 : 1
  const x = sign * relative[0]!
  const y = sign * relative[1]!
  const z = sign * relative[2]!
  const w = sign * relative[3]!
  const s2 = x * x + y * y + z * z
  let scale: number
  if (exact) {
    const len = Math.sqrt(s2)
    scale = len > 1e-12 ? (2 * detAtan2(len, w)) / (len * dt) : 2 / dt
  } else scale = (2 * (1 + s2 / 6 + (3 * s2 * s2) / 40)) / dt
  out[0] = x * scale
  out[1] = y * scale
  out[2] = z * scale
  return out
}

const relative = new Float64Array(4)
const inverse = new Float64Array(4)

/** out = b · a⁻¹ for unit quaternions at a[ao..] and b[bo..]: the rotation that turns a into b. */
export function relativeRotation(
  out: Float64Array,
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
): Float64Array {
  conjugateQuat(inverse, 0, a, ao)
  multiplyQuat(out, 0, b, bo, inverse, 0)
  return out
}
