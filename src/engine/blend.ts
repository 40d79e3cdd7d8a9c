import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { SERIES_TERMS, slerpSeriesCoefficients } from '../math/slerpSeries.ts'
import { BLEND_S, BLEND_T } from '../clip/blendPoses.ts'

/**
 * The fast forms of the pose blends of src/clip/blendPoses.ts, shaped for V8 as src/engine/v8.ts explains (the
 * weight read from `weights[wi]`, module constants in locals, the series written out with its coefficients as
 * locals). test/engine/blend.test.ts holds each to its clean form bit for bit.
 */

/** This call's series coefficients (slerpSeriesCoefficients of src/math/slerpSeries.ts, for `w[wi]`). */
const coefficients = new Float64Array(2 * SERIES_TERMS)

/** slerpSeriesCoefficients(out, w[wi], scale), the weight read from an array (small enough to be inlined). */
export function seriesCoefficients(
  out: Float64Array,
  w: Float64Array,
  wi: number,
  scale: number,
): Float64Array {
  return slerpSeriesCoefficients(out, w[wi]!, scale)
}

/**
 * blendPoses (src/clip/blendPoses.ts) by the weight `weights[wi]`; with `nearUnit`, overridePose's
 * normalization (out = a there). The same bits as those.
 */
export function blendPosesAt(
  out: Float32Array,
  oo: number,
  a: Float32Array,
  ao: number,
  b: Float32Array,
  bo: number,
  n: number,
  weights: Float64Array,
  wi: number,
  paths: Uint8Array | null = null,
  nearUnit = false,
): Float32Array {
  const w = weights[wi]!
  const len = n * JOINT_STRIDE
  if (!(w > 0)) {
    if (out !== a || oo !== ao) copyRange(out, oo, a, ao, len)
    return out
  }
  if (w >= 1) {
    if (out !== b || oo !== bo) copyRange(out, oo, b, bo, len)
    return out
  }
  const STRIDE = JOINT_STRIDE
  const T_BIT = BLEND_T
  const S_BIT = BLEND_S
  const BLEND_TS = T_BIT | S_BIT
  const c = seriesCoefficients(coefficients, weights, wi, 2)
  const a0 = c[0]!
  const a1 = c[1]!
  const a2 = c[2]!
  const a3 = c[3]!
  const a4 = c[4]!
  const a5 = c[5]!
  const a6 = c[6]!
  const a7 = c[7]!
  const a8 = c[8]!
  const a9 = c[9]!
  const b0 = c[10]!
  const b1 = c[11]!
  const b2 = c[12]!
  const b3 = c[13]!
  const b4 = c[14]!
  const b5 = c[15]!
  const b6 = c[16]!
  const b7 = c[17]!
  const b8 = c[18]!
  const b9 = c[19]!
  for (let j = 0; j < n; j++) {
    const o = oo + j * STRIDE
    const pa = ao + j * STRIDE
    const pb = bo + j * STRIDE
    const m = paths === null ? BLEND_TS : paths[j]!
    // Each group loaded before it is stored (out may alias a or b); rotation, always blended, first.
    const ax = a[pa + 3]!
    const ay = a[pa + 4]!
    const az = a[pa + 5]!
    const aw = a[pa + 6]!
    let bx = b[pb + 3]!
    let by = b[pb + 4]!
    let bz = b[pb + 5]!
    let bw = b[pb + 6]!
    let cos = ax * bx + ay * by + az * bz + aw * bw
    const sg = cos < 0 ? -1 : 1
    cos *= sg
    bx *= sg
    by *= sg
    bz *= sg
    bw *= sg
    // y = cos φ − 1, and its powers for Estrin's scheme.
    const y = Math.sqrt((1 + cos) * 0.5) - 1
    const y2 = y * y
    const y4 = y2 * y2
    const y8 = y4 * y4
    const s0 = a0 + a1 * y + (a2 + a3 * y) * y2 + (a4 + a5 * y + (a6 + a7 * y) * y2) * y4 + (a8 + a9 * y) * y8
    const s1 = b0 + b1 * y + (b2 + b3 * y) * y2 + (b4 + b5 * y + (b6 + b7 * y) * y2) * y4 + (b8 + b9 * y) * y8
    if (nearUnit) {
      // y + 1 = cos φ ≥ cos π/4.
      const k = 0.5 / (y + 1)
      const x = (s0 * ax + s1 * bx) * k
      const qy = (s0 * ay + s1 * by) * k
      const z = (s0 * az + s1 * bz) * k
      const qw = (s0 * aw + s1 * bw) * k
      const e = x * x + qy * qy + z * z + qw * qw - 1
      const inv =
        e > -0.0009765625 && e < 0.0009765625
          ? 1 + e * (-0.5 + e * (0.375 - e * 0.3125))
          : 1 / Math.sqrt(1 + e)
      out[o + 3] = x * inv
      out[o + 4] = qy * inv
      out[o + 5] = z * inv
      out[o + 6] = qw * inv
    } else {
      const x = s0 * ax + s1 * bx
      const qy = s0 * ay + s1 * by
      const z = s0 * az + s1 * bz
      const qw = s0 * aw + s1 * bw
      const inv = 1 / Math.sqrt(x * x + qy * qy + z * z + qw * qw)
      out[o + 3] = x * inv
      out[o + 4] = qy * inv
      out[o + 5] = z * inv
      out[o + 6] = qw * inv
    }
    if ((m & T_BIT) !== 0) {
      const at0 = a[pa]!
      const at1 = a[pa + 1]!
      const at2 = a[pa + 2]!
      out[o] = at0 + (b[pb]! - at0) * w
      out[o + 1] = at1 + (b[pb + 1]! - at1) * w
      out[o + 2] = at2 + (b[pb + 2]! - at2) * w
    }
    if ((m & S_BIT) !== 0) {
      const as0 = a[pa + 7]!
      const as1 = a[pa + 8]!
      const as2 = a[pa + 9]!
      out[o + 7] = as0 + (b[pb + 7]! - as0) * w
      out[o + 8] = as1 + (b[pb + 8]! - as1) * w
      out[o + 9] = as2 + (b[pb + 9]! - as2) * w
    }
  }
  return out
}

function copyRange(out: Float32Array, oo: number, src: Float32Array, so: number, len: number): void {
  if (out === src) out.copyWithin(oo, so, so + len)
  else for (let i = 0; i < len; i++) out[oo + i] = src[so + i]!
}
