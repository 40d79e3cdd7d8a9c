/**
 * The fast form of a joint's world matrix from its local pose: composeMatrix then multiplyAffine
 * (src/math/transform.ts, the clean forms: `local = T·R·S`, `world = parent · local`), written out in one
 * function with the local matrix in locals, for the pose stages' world-matrix memo (systems/poseEdits.ts), which
 * computes ~20 joints a character for IK each step. test/engine/composeWorld.test.ts holds it to the clean form
 * bit for bit.
 */

/**
 * m[o..o+16) ← a[ao..ao+16) · local, local composed from the pose's T, R, S at pose[at..at+10) (poseLayout's
 * order); a is affine (its last row is neither read nor assumed written), m's last row written 0 0 0 1. `a` may
 * be `m` at another offset. Allocation-free.
 */
export function composeWorld(
  m: Float64Array,
  o: number,
  pose: Float32Array,
  at: number,
  a: Float64Array,
  ao: number,
): void {
  const x = pose[at + 3]!
  const y = pose[at + 4]!
  const z = pose[at + 5]!
  const w = pose[at + 6]!
  const x2 = x + x
  const y2 = y + y
  const z2 = z + z
  const xx = x * x2
  const xy = x * y2
  const xz = x * z2
  const yy = y * y2
  const yz = y * z2
  const zz = z * z2
  const wx = w * x2
  const wy = w * y2
  const wz = w * z2
  const sx = pose[at + 7]!
  const sy = pose[at + 8]!
  const sz = pose[at + 9]!
  const a00 = a[ao]!
  const a01 = a[ao + 1]!
  const a02 = a[ao + 2]!
  const a10 = a[ao + 4]!
  const a11 = a[ao + 5]!
  const a12 = a[ao + 6]!
  const a20 = a[ao + 8]!
  const a21 = a[ao + 9]!
  const a22 = a[ao + 10]!
  // Each column of local (b0, b1, b2), then its product with a's upper 3×3 (multiplyAffine's order).
  let b0 = (1 - (yy + zz)) * sx
  let b1 = (xy + wz) * sx
  let b2 = (xz - wy) * sx
  m[o] = a00 * b0 + a10 * b1 + a20 * b2
  m[o + 1] = a01 * b0 + a11 * b1 + a21 * b2
  m[o + 2] = a02 * b0 + a12 * b1 + a22 * b2
  m[o + 3] = 0
  b0 = (xy - wz) * sy
  b1 = (1 - (xx + zz)) * sy
  b2 = (yz + wx) * sy
  m[o + 4] = a00 * b0 + a10 * b1 + a20 * b2
  m[o + 5] = a01 * b0 + a11 * b1 + a21 * b2
  m[o + 6] = a02 * b0 + a12 * b1 + a22 * b2
  m[o + 7] = 0
  b0 = (xz + wy) * sz
  b1 = (yz - wx) * sz
  b2 = (1 - (xx + yy)) * sz
  m[o + 8] = a00 * b0 + a10 * b1 + a20 * b2
  m[o + 9] = a01 * b0 + a11 * b1 + a21 * b2
  m[o + 10] = a02 * b0 + a12 * b1 + a22 * b2
  m[o + 11] = 0
  b0 = pose[at]!
  b1 = pose[at + 1]!
  b2 = pose[at + 2]!
  m[o + 12] = a00 * b0 + a10 * b1 + a20 * b2 + a[ao + 12]!
  m[o + 13] = a01 * b0 + a11 * b1 + a21 * b2 + a[ao + 13]!
  m[o + 14] = a02 * b0 + a12 * b1 + a22 * b2 + a[ao + 14]!
  m[o + 15] = 1
}
