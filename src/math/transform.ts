import type { FloatArray } from './quat.ts'

/**
 * 4×4 matrix kernels on `(array, offset)` pairs, for SoA stores where many matrices share one typed array.
 *
 * Hand-written rather than gl-matrix because gl-matrix's `mat4` functions take whole arrays: using them on a
 * store would need a `subarray` view per call, which allocates. The arithmetic is the same as gl-matrix's,
 * term for term and in the same order, so results match `mat4.fromRotationTranslationScale` and
 * `mat4.multiply` bit for bit. Only `+ - *` are used, so results are deterministic across engines.
 *
 * Matrices are column-major, as in gl-matrix, three.js and glTF (element (row r, column c) at `o + 4c + r`):
 *
 *   | m0  m4  m8   m12 |      m12 m13 m14 = translation
 *   | m1  m5  m9   m13 |
 *   | m2  m6  m10  m14 |
 *   | m3  m7  m11  m15 |
 *
 * Nothing here allocates.
 */

/** Writes the identity matrix at `out[oo..oo+16)`. */
export function identityMatrix(out: FloatArray, oo: number): FloatArray {
  for (let i = 0; i < 16; i++) out[oo + i] = i % 5 === 0 ? 1 : 0
  return out
}

/**
 * out = T · R · S: translation `t[to..to+3)`, rotation quaternion `r[ro..ro+4)` as `[x, y, z, w]`, scale
 * `s[so..so+3)`. The quaternion must be unit (not normalized here; a non-unit q also scales by |q|²).
 * Every input is read before the first write, so `out` may overlap any of them.
 */
export function composeMatrix(
  out: FloatArray | number[],
  oo: number,
  t: FloatArray,
  to: number,
  r: FloatArray,
  ro: number,
  s: FloatArray,
  so: number,
): FloatArray | number[] {
  const x = r[ro]!
  const y = r[ro + 1]!
  const z = r[ro + 2]!
  const w = r[ro + 3]!
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
  const sx = s[so]!
  const sy = s[so + 1]!
  const sz = s[so + 2]!
  const tx = t[to]!
  const ty = t[to + 1]!
  const tz = t[to + 2]!
  out[oo] = (1 - (yy + zz)) * sx
  out[oo + 1] = (xy + wz) * sx
  out[oo + 2] = (xz - wy) * sx
  out[oo + 3] = 0
  out[oo + 4] = (xy - wz) * sy
  out[oo + 5] = (1 - (xx + zz)) * sy
  out[oo + 6] = (yz + wx) * sy
  out[oo + 7] = 0
  out[oo + 8] = (xz + wy) * sz
  out[oo + 9] = (yz - wx) * sz
  out[oo + 10] = (1 - (xx + yy)) * sz
  out[oo + 11] = 0
  out[oo + 12] = tx
  out[oo + 13] = ty
  out[oo + 14] = tz
  out[oo + 15] = 1
  return out
}

/**
 * out = a · b (apply b first, then a; for the scene graph: world = parentWorld · local).
 * `out` may be the same matrix as `a` or `b` (same array and offset): all of `a` is read into locals first,
 * and each column of `b` is read before the same column of `out` is written. Partially overlapping ranges
 * are not supported.
 */
export function multiplyMatrices(
  out: FloatArray,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
): FloatArray {
  const a00 = a[ao]!
  const a01 = a[ao + 1]!
  const a02 = a[ao + 2]!
  const a03 = a[ao + 3]!
  const a10 = a[ao + 4]!
  const a11 = a[ao + 5]!
  const a12 = a[ao + 6]!
  const a13 = a[ao + 7]!
  const a20 = a[ao + 8]!
  const a21 = a[ao + 9]!
  const a22 = a[ao + 10]!
  const a23 = a[ao + 11]!
  const a30 = a[ao + 12]!
  const a31 = a[ao + 13]!
  const a32 = a[ao + 14]!
  const a33 = a[ao + 15]!
  for (let c = 0; c < 16; c += 4) {
    const b0 = b[bo + c]!
    const b1 = b[bo + c + 1]!
    const b2 = b[bo + c + 2]!
    const b3 = b[bo + c + 3]!
    out[oo + c] = b0 * a00 + b1 * a10 + b2 * a20 + b3 * a30
    out[oo + c + 1] = b0 * a01 + b1 * a11 + b2 * a21 + b3 * a31
    out[oo + c + 2] = b0 * a02 + b1 * a12 + b2 * a22 + b3 * a32
    out[oo + c + 3] = b0 * a03 + b1 * a13 + b2 * a23 + b3 * a33
  }
  return out
}

/**
 * out = a · b for affine matrices (last rows 0 0 0 1): the 12 affine elements of out, from those of a and b (the
 * last rows are neither read nor written). `out` may be `b` (each column of b is read before it is written), not
 * `a`. world = parentWorld · local, as propagation computes it.
 */
export function multiplyAffine(
  out: FloatArray,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
): FloatArray {
  for (let c = 0; c < 16; c += 4) {
    const b0 = b[bo + c]!
    const b1 = b[bo + c + 1]!
    const b2 = b[bo + c + 2]!
    for (let r = 0; r < 3; r++) {
      const v = a[ao + r]! * b0 + a[ao + 4 + r]! * b1 + a[ao + 8 + r]! * b2
      out[oo + c + r] = c === 12 ? v + a[ao + 12 + r]! : v
    }
  }
  return out
}
