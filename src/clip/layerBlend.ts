import { JOINT_STRIDE, R_OFFSET, S_OFFSET, T_OFFSET } from '../math/poseLayout.ts'
import { multiplyQuat, normalizeQuat } from '../math/quat.ts'
import { nearUnitInverseLength, seriesPower, slerpSeriesCoefficients } from '../math/slerpSeries.ts'
import { BLEND_S, BLEND_T } from './blendPoses.ts'

/**
 * Kernels of animation layers on poses in the layout of poseLayout.ts (10 floats per joint): an additive layer's
 * difference from its reference (toDeltaPose) and its application (addDeltaPose), a blend space's weighted mix
 * (blendWeightedPoses, gradientBandWeights); override layers blend with overridePose (blendPoses.ts). Nothing
 * here allocates; only + − × ÷, √ and the project's own series, so the same bits in every engine.
 */

/**
 * Turns the n-joint pose at `data[po ..]` into its difference from the reference pose `ref[ro ..]`, in place:
 * translation p − r, rotation r⁻¹·p, scale p / r (1 where r is 0). addDeltaPose applies it. The reference's
 * rotations are unit quaternions (poses only hold unit quaternions).
 */
export function toDeltaPose(data: Float32Array, po: number, ref: Float32Array, ro: number, n: number): void {
  for (let j = 0; j < n; j++) {
    const p = po + j * JOINT_STRIDE
    const r = ro + j * JOINT_STRIDE
    for (let k = 0; k < 3; k++) data[p + k] = data[p + k]! - ref[r + k]!
    // r⁻¹·p with r⁻¹ the conjugate (r read first: data may alias ref).
    inverse[0] = -ref[r + 3]!
    inverse[1] = -ref[r + 4]!
    inverse[2] = -ref[r + 5]!
    inverse[3] = ref[r + 6]!
    multiplyQuat(data, p + R_OFFSET, inverse, 0, data, p + R_OFFSET)
    normalizeQuat(data, p + R_OFFSET)
    for (let k = 7; k < 10; k++) {
      const s = ref[r + k]!
      data[p + k] = s !== 0 ? data[p + k]! / s : 1
    }
  }
}

/**
 * Additive layer: n joints of `out` ⊕ the delta pose at `delta[dOff ..]` (toDeltaPose's) by `weight` w —
 * translation out + w·d, rotation out·d^w (d^w the shortest-arc slerp from identity to d, seriesPower), scale
 * out·d^w per axis (scalePower). w ≥ 1 applies the delta exactly; w ≤ 0 leaves out as it is.
 *
 * d^w comes from the slerp series (src/math/slerpSeries.ts), exact to well under float32 resolution, unit to
 * the series' accuracy, so the product with the pose's rotation is unit to float32 rounding and is normalized
 * by nearUnitInverseLength (no square root on the chain); a product further from unit (only from rotations that
 * are not) is stored and normalized by normalizeQuat.
 */
export function addDeltaPose(
  out: Float32Array,
  oo: number,
  delta: Float32Array,
  dOff: number,
  n: number,
  weight: number,
): Float32Array {
  if (!(weight > 0)) return out
  const full = weight >= 1
  const w = full ? 1 : weight
  slerpSeriesCoefficients(coefficients, w, 2)
  for (let j = 0; j < n; j++) {
    const o = oo + j * JOINT_STRIDE
    const d = dOff + j * JOINT_STRIDE
    for (let k = 0; k < 3; k++) out[o + k] = out[o + k]! + w * delta[d + k]!
    if (full) for (let k = 0; k < 4; k++) power[k] = delta[d + R_OFFSET + k]!
    else seriesPower(power, 0, delta, d + R_OFFSET, coefficients)
    multiplyQuat(product, 0, out, o + R_OFFSET, power, 0)
    const e =
      product[0]! * product[0]! +
      product[1]! * product[1]! +
      product[2]! * product[2]! +
      product[3]! * product[3]! -
      1
    if (e > -NEAR_UNIT && e < NEAR_UNIT) {
      const inv = nearUnitInverseLength(e)
      for (let k = 0; k < 4; k++) out[o + R_OFFSET + k] = product[k]! * inv
    } else {
      for (let k = 0; k < 4; k++) out[o + R_OFFSET + k] = product[k]!
      normalizeQuat(out, o + R_OFFSET)
    }
    if (full)
      for (let k = 0; k < 3; k++) out[o + S_OFFSET + k] = out[o + S_OFFSET + k]! * delta[d + S_OFFSET + k]!
    else
      for (let k = 0; k < 3; k++)
        out[o + S_OFFSET + k] = scalePower(out[o + S_OFFSET + k]!, delta[d + S_OFFSET + k]!, w)
  }
  return out
}

/**
 * v·ratio^w: e^(w·ln ratio) by range reduction to [√½, √2] and series (ln by atanh to y^21, e^x to x^16: errors
 * below 1e-16, far under float32's), only + − × ÷, so the same bits in every engine. A ratio ≤ 0, which only a
 * mirrored reference gives, scales linearly, v·(1 + w(ratio − 1)); a ratio of 1 leaves v exactly.
 */
function scalePower(v: number, ratio: number, w: number): number {
  if (ratio === 1) return v
  if (!(ratio > 0)) return v * (1 + w * (ratio - 1))
  let s = ratio
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
  let k = Math.round(z / LN2)
  const x = z - k * LN2
  let term = 1
  let sum = 1
  for (let t = 1; t <= 16; t++) {
    term *= x / t
    sum += term
  }
  for (; k > 0; k--) sum *= 2
  for (; k < 0; k++) sum *= 0.5
  return v * sum
}

const LN2 = 0.6931471805599453

/**
 * Blend-space mix: out = the normalized weighted sum of `count` n-joint poses at `data[offsets[i] ..]` with
 * weights `weights[i]` (≥ 0, summing to 1): translation and scale Σ wᵢ·vᵢ, rotation Σ wᵢ·sᵢ·qᵢ normalized, with
 * sᵢ = ±1 putting each quaternion in the first one's hemisphere (ozz-animation's BlendingJob does the same).
 * The result does not depend on the order of the poses beyond which comes first. Points of weight 0 are
 * skipped; a single point of weight 1 is copied exactly; no point of weight above 0 leaves out as it is.
 *
 * `paths` (optional, blendPointPaths): with exactly two points of nonzero weight, a joint's translation
 * (scale) is summed only where its BLEND_T (BLEND_S) bit is set, and copied from the first point elsewhere —
 * the same bits, where both points hold the same finite value that is not −0 (w₀·v + w₁·v with w₀ + w₁ = 1
 * rounds back to v in float32), which blendPointPaths' clear bits promise.
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
  let live = 0
  for (let i = 0; i < count; i++) {
    if (!(weights[i]! > 0)) continue
    if (first < 0) first = i
    live++
  }
  if (first < 0) return
  const f = offsets[first]!
  if (live === 1) {
    if (out !== data || oo !== f) for (let i = 0; i < n * JOINT_STRIDE; i++) out[oo + i] = data[f + i]!
    return
  }
  for (let j = 0; j < n; j++) {
    const o = oo + j * JOINT_STRIDE
    const m = live === 2 && paths !== null ? paths[j]! : BLEND_T | BLEND_S
    sum.fill(0)
    for (let i = first; i < count; i++) {
      const w = weights[i]!
      if (!(w > 0)) continue
      const p = offsets[i]! + j * JOINT_STRIDE
      const q = f + j * JOINT_STRIDE + R_OFFSET
      const sign =
        data[p + 3]! * data[q]! +
          data[p + 4]! * data[q + 1]! +
          data[p + 5]! * data[q + 2]! +
          data[p + 6]! * data[q + 3]! <
        0
          ? -w
          : w
      for (let k = 0; k < JOINT_STRIDE; k++)
        sum[k] = sum[k]! + (k >= R_OFFSET && k < S_OFFSET ? sign : w) * data[p + k]!
    }
    const first3 = f + j * JOINT_STRIDE
    for (let k = 0; k < JOINT_STRIDE; k++) {
      const summed = k < R_OFFSET ? (m & BLEND_T) !== 0 : k >= S_OFFSET ? (m & BLEND_S) !== 0 : true
      out[o + k] = summed ? sum[k]! : data[first3 + k]!
    }
    normalizeQuat(out, o + R_OFFSET)
  }
}

/** Working memory: a conjugate, d^w and a product; the coefficients of one weight; a joint's sums. */
const inverse = new Float64Array(4)
const power = new Float64Array(4)
const product = new Float64Array(4)
const coefficients = new Float64Array(20)
const sum = new Float64Array(JOINT_STRIDE)
const NEAR_UNIT = 0.0009765625

/**
 * blendWeightedPoses' `paths` for a blend space's points: per joint, BLEND_T (BLEND_S) when some point's
 * binding (channel → float offset joint·10 + path offset, -1 unbound) drives its translation (scale), or when the
 * rest pose's value there is −0 or not finite (0 + w₀·v + w₁·v is not v bit for bit then). A point's slot holds
 * the rest pose wherever its clip does not write, so a clear bit means both points hold the same plain value.
 * Setup code (a blend space played or restored). Returns out (n bytes).
 */
export function blendPointPaths(
  out: Uint8Array,
  bindings: readonly Int32Array[],
  rest: Float32Array,
  n: number,
): Uint8Array {
  out.fill(0, 0, n)
  for (const binding of bindings) {
    for (let c = 0; c < binding.length; c++) {
      const offset = binding[c]!
      if (offset < 0) continue
      const path = offset % JOINT_STRIDE
      const j = (offset - path) / JOINT_STRIDE
      if (path === T_OFFSET) out[j] = out[j]! | BLEND_T
      else if (path === S_OFFSET) out[j] = out[j]! | BLEND_S
    }
  }
  const plain = (v: number): boolean => Number.isFinite(v) && !Object.is(v, -0)
  for (let j = 0; j < n; j++) {
    const t = j * JOINT_STRIDE + T_OFFSET
    const s = j * JOINT_STRIDE + S_OFFSET
    if (!(plain(rest[t]!) && plain(rest[t + 1]!) && plain(rest[t + 2]!))) out[j] = out[j]! | BLEND_T
    if (!(plain(rest[s]!) && plain(rest[s + 1]!) && plain(rest[s + 2]!))) out[j] = out[j]! | BLEND_S
  }
  return out
}

/**
 * Blend-space weights by gradient-band interpolation (what Unity's freeform blend trees use): point i gets
 * hᵢ = max(0, min over j ≠ i of 1 − (p − pᵢ)·(pⱼ − pᵢ) / |pⱼ − pᵢ|²), then the weights are h / Σh. At a point
 * its weight is 1; between two neighbours on a line it is the linear blend; outside the points' extent the
 * nearest ones take over, so any parameter gives weights summing to 1. 1D points have y = 0. `m` points at
 * (xs[i], ys[i]), distinct; the parameter is (param[0], param[1]). Writes out[0 .. m).
 */
export function gradientBandWeights(
  out: Float64Array,
  xs: Float64Array,
  ys: Float64Array,
  m: number,
  param: Float64Array,
): void {
  const px = param[0]!
  const py = param[1]!
  let sum = 0
  for (let i = 0; i < m; i++) {
    const xi = xs[i]!
    const yi = ys[i]!
    const dx = px - xi
    const dy = py - yi
    let h = 1
    for (let j = 0; j < m; j++) {
      if (j === i) continue
      const ex = xs[j]! - xi
      const ey = ys[j]! - yi
      const v = 1 - (dx * ex + dy * ey) / (ex * ex + ey * ey)
      if (v < h) h = v
    }
    if (h < 0) h = 0
    out[i] = h
    sum += h
  }
  if (m === 1) {
    out[0] = 1
    return
  }
  for (let i = 0; i < m; i++) out[i] = sum > 0 ? out[i]! / sum : i === 0 ? 1 : 0
}
