import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { normalizeQuat } from '../math/quat.ts'
import { BLEND_S, BLEND_T } from '../clip/blendPoses.ts'
import { blendWeightedPoses as blendWeightedPosesClean } from '../clip/layerBlend.ts'
import { seriesCoefficients } from './blend.ts'

/**
 * The fast forms of the layer kernels of src/clip/layerBlend.ts, shaped for V8 as v8.ts explains (weights read
 * from arrays, a layer's runs in one call, the series written out with its coefficients as locals, constants in
 * locals). test/engine/layerBlend.test.ts holds each to its clean form bit for bit.
 */

/** This run's slerp series coefficients (seriesCoefficients of blend.ts). */
const coefficients = new Float64Array(20)
const LN2 = 0.6931471805599453

/** scalePower of src/clip/layerBlend.ts, w = `weights[wi]`. */
function scalePower(
  out: Float32Array,
  o: number,
  delta: Float32Array,
  d: number,
  weights: Float64Array,
  wi: number,
): void {
  const w = weights[wi]!
  for (let k = 0; k < 3; k++) {
    let s = delta[d + k]!
    if (s === 1) continue
    if (!(s > 0)) {
      out[o + k] = out[o + k]! * (1 + w * (s - 1))
      continue
    }
    let e = 0
    while (s > 1.4142135623730951) {
      s *= 0.5
      e++
    }
    while (s < 0.7071067811865476) {
      s *= 2
      e--
    }
    const y = (s - 1) / (s + 1)
    const y2 = y * y
    let series = 1 / 21
    for (let t = 19; t >= 1; t -= 2) series = 1 / t + y2 * series
    const z = w * (e * LN2 + 2 * y * series)
    let n = Math.round(z / LN2)
    const x = z - n * LN2
    let term = 1
    let sum = 1
    for (let t = 1; t <= 16; t++) {
      term *= x / t
      sum += term
    }
    while (n > 0) {
      sum *= 2
      n--
    }
    while (n < 0) {
      sum *= 0.5
      n++
    }
    out[o + k] = out[o + k]! * sum
  }
}

/**
 * addDeltaPose (src/clip/layerBlend.ts) over runs of joints: for run r, joints runs[2r] .. runs[2r] + runs[2r + 1]
 * by the weight weights[r]. The same bits as addDeltaPose run by run.
 */
export function addDeltaPoseRuns(
  out: Float32Array,
  oo: number,
  delta: Float32Array,
  dOff: number,
  runs: Int32Array,
  runCount: number,
  weights: Float64Array,
): void {
  const STRIDE = JOINT_STRIDE
  // |len² − 1| below which a product of unit rotations is normalized by a series (NEAR_UNIT, as a literal).
  const NEAR_UNIT = 0.0009765625
  for (let r = 0; r < runCount; r++) {
    const w = weights[r]!
    if (!(w > 0)) continue
    const first = runs[2 * r]!
    const end = first + runs[2 * r + 1]!
    // At w ≥ 1 the delta applies exactly: translation + d (1·d is d), rotation × d, scale × d.
    const full = w >= 1
    const wt = full ? 1 : w
    // This run's series: c0… the identity's weight, c10… the delta's (unused when full).
    const c = seriesCoefficients(coefficients, weights, r, 2)
    const c0 = c[0]!
    const c1 = c[1]!
    const c2 = c[2]!
    const c3 = c[3]!
    const c4 = c[4]!
    const c5 = c[5]!
    const c6 = c[6]!
    const c7 = c[7]!
    const c8 = c[8]!
    const c9 = c[9]!
    const c10 = c[10]!
    const c11 = c[11]!
    const c12 = c[12]!
    const c13 = c[13]!
    const c14 = c[14]!
    const c15 = c[15]!
    const c16 = c[16]!
    const c17 = c[17]!
    const c18 = c[18]!
    const c19 = c[19]!
    for (let j = first; j < end; j++) {
      const o = oo + j * STRIDE
      const d = dOff + j * STRIDE
      out[o] = out[o]! + wt * delta[d]!
      out[o + 1] = out[o + 1]! + wt * delta[d + 1]!
      out[o + 2] = out[o + 2]! + wt * delta[d + 2]!
      let qx = delta[d + 3]!
      let qy = delta[d + 4]!
      let qz = delta[d + 5]!
      let qw = delta[d + 6]!
      if (!full) {
        // d^w: cos θ with a = identity is d.w; the short arc flips d.
        const sg = qw < 0 ? -1 : 1
        const bx = qx * sg
        const by = qy * sg
        const bz = qz * sg
        const bw = qw * sg
        const cosHalf = Math.sqrt((1 + bw) * 0.5)
        const y = cosHalf - 1
        const y2 = y * y
        const y4 = y2 * y2
        const y8 = y4 * y4
        // seriesPower (src/math/slerpSeries.ts), written out.
        const k = 0.5 / cosHalf
        const s0 =
          (c0 + c1 * y + (c2 + c3 * y) * y2 + (c4 + c5 * y + (c6 + c7 * y) * y2) * y4 + (c8 + c9 * y) * y8) *
          k
        const s1 =
          (c10 +
            c11 * y +
            (c12 + c13 * y) * y2 +
            (c14 + c15 * y + (c16 + c17 * y) * y2) * y4 +
            (c18 + c19 * y) * y8) *
          k
        qx = s1 * bx
        qy = s1 * by
        qz = s1 * bz
        qw = s0 + s1 * bw
      }
      const ax = out[o + 3]!
      const ay = out[o + 4]!
      const az = out[o + 5]!
      const aw = out[o + 6]!
      const x = aw * qx + ax * qw + ay * qz - az * qy
      const y = aw * qy - ax * qz + ay * qw + az * qx
      const z = aw * qz + ax * qy - ay * qx + az * qw
      const ww = aw * qw - ax * qx - ay * qy - az * qz
      const e = x * x + y * y + z * z + ww * ww - 1
      if (e > -NEAR_UNIT && e < NEAR_UNIT) {
        const inv = 1 + e * (-0.5 + e * (0.375 - e * 0.3125))
        out[o + 3] = x * inv
        out[o + 4] = y * inv
        out[o + 5] = z * inv
        out[o + 6] = ww * inv
      } else {
        out[o + 3] = x
        out[o + 4] = y
        out[o + 5] = z
        out[o + 6] = ww
        normalizeQuat(out, o + 3)
      }
      if (full) {
        out[o + 7] = out[o + 7]! * delta[d + 7]!
        out[o + 8] = out[o + 8]! * delta[d + 8]!
        out[o + 9] = out[o + 9]! * delta[d + 9]!
      } else if (delta[d + 7] !== 1 || delta[d + 8] !== 1 || delta[d + 9] !== 1) {
        scalePower(out, o + 7, delta, d + 7, weights, r)
      }
    }
  }
}

/**
 * blendWeightedPoses (src/clip/layerBlend.ts), with the common case of exactly two points of nonzero weight (a 1D
 * blend space between two neighbours) in a loop of its own (blendTwoPoses). The same bits.
 */
export function blendWeightedPoses(
  out: Float32Array,
  oo: number,
  data: Float32Array,
  offsets: Int32Array,
  weights: Float64Array,
  count: number,
  n: number,
  paths: Uint8Array | null = null,
): void {
  let first = -1
  let second = -1
  let live = 0
  for (let i = 0; i < count; i++) {
    if (weights[i]! > 0) {
      if (first < 0) first = i
      else if (second < 0) second = i
      live++
    }
  }
  if (live === 2)
    blendTwoPoses(out, oo, data, offsets[first]!, offsets[second]!, weights, first, second, n, paths)
  else blendWeightedPosesClean(out, oo, data, offsets, weights, count, n, paths)
}

/**
 * blendWeightedPoses with exactly two points of nonzero weight (a 1D blend space between two neighbours, the
 * common case): the poses at `a` and `b` with weights `weights[wa]`, `weights[wb]`. The general loop's
 * operations in its order (sums from 0, b's rotation sign-fixed into a's hemisphere, the sum stored as float32
 * and then normalized, as normalizeQuat does), so the same bits, without its per-point loop and branches; with
 * `paths`, translations and scales no point's clip drives are copied (see blendWeightedPoses).
 */
export function blendTwoPoses(
  out: Float32Array,
  oo: number,
  data: Float32Array,
  a: number,
  b: number,
  weights: Float64Array,
  wa: number,
  wb: number,
  n: number,
  paths: Uint8Array | null,
): void {
  const STRIDE = JOINT_STRIDE
  const T_BIT = BLEND_T
  const S_BIT = BLEND_S
  const ALL = T_BIT | S_BIT
  const fround = Math.fround
  const w0 = weights[wa]!
  const w1 = weights[wb]!
  for (let j = 0; j < n; j++) {
    const o = oo + j * STRIDE
    const p = a + j * STRIDE
    const q = b + j * STRIDE
    const ax = data[p + 3]!
    const ay = data[p + 4]!
    const az = data[p + 5]!
    const aw = data[p + 6]!
    const bx = data[q + 3]!
    const by = data[q + 4]!
    const bz = data[q + 5]!
    const bw = data[q + 6]!
    const s1 = ax * bx + ay * by + az * bz + aw * bw < 0 ? -w1 : w1
    const m = paths === null ? ALL : paths[j]!
    // Translation and scale, each summed or (no clip drives it: both points hold one value) copied.
    if ((m & T_BIT) !== 0) {
      out[o] = 0 + w0 * data[p]! + w1 * data[q]!
      out[o + 1] = 0 + w0 * data[p + 1]! + w1 * data[q + 1]!
      out[o + 2] = 0 + w0 * data[p + 2]! + w1 * data[q + 2]!
    } else {
      out[o] = data[p]!
      out[o + 1] = data[p + 1]!
      out[o + 2] = data[p + 2]!
    }
    if ((m & S_BIT) !== 0) {
      out[o + 7] = 0 + w0 * data[p + 7]! + w1 * data[q + 7]!
      out[o + 8] = 0 + w0 * data[p + 8]! + w1 * data[q + 8]!
      out[o + 9] = 0 + w0 * data[p + 9]! + w1 * data[q + 9]!
    } else {
      out[o + 7] = data[p + 7]!
      out[o + 8] = data[p + 8]!
      out[o + 9] = data[p + 9]!
    }
    // The float32 sum normalizeQuat would read back.
    const x = fround(0 + w0 * ax + s1 * bx)
    const y = fround(0 + w0 * ay + s1 * by)
    const z = fround(0 + w0 * az + s1 * bz)
    const w = fround(0 + w0 * aw + s1 * bw)
    const len2 = x * x + y * y + z * z + w * w
    if (len2 > 0) {
      const inv = 1 / Math.sqrt(len2)
      out[o + 3] = x * inv
      out[o + 4] = y * inv
      out[o + 5] = z * inv
      out[o + 6] = w * inv
    } else {
      out[o + 3] = 0
      out[o + 4] = 0
      out[o + 5] = 0
      out[o + 6] = 1
    }
  }
}
