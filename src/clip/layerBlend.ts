import { JOINT_STRIDE, S_OFFSET, T_OFFSET } from '../math/poseLayout.ts'
import { normalizeQuat } from '../math/quat.ts'
import { BLEND_S, BLEND_T, seriesCoefficients } from './blendLayers.ts'

/**
 * Kernels of animation layers on poses in the layout of poseLayout.ts (10 floats per joint). A layer's joints
 * are given as runs: `runs[2r]` the first joint of run r, `runs[2r + 1]` its length, and `weights[r]` its
 * weight (the layer's weight times its mask weight there). A mask of whole subtrees is a few runs, since a
 * subtree is a contiguous range of the rig's parents-first order. Weights come in arrays, not as arguments
 * (V8 boxes floats that cross a call it does not inline). Nothing here allocates; only + − × ÷, √ and the
 * project's own transcendental functions, so the same bits in every engine.
 */

/** This run's slerp series coefficients (seriesCoefficients of blendLayers.ts). */
const coefficients = new Float64Array(20)
const LN2 = 0.6931471805599453

/**
 * out[o..o+3) ×= ratio^w per axis (ratio = `delta[d + k]`, w = `weights[wi]`): e^(w·ln ratio) by range reduction
 * to [√½, √2] and series (ln by atanh to y^21, e^x to x^16: errors below 1e-16, far under float32's), only
 * + − × ÷, so the same bits in every engine, and no float crosses a call (no heap number per call). A ratio
 * ≤ 0, which only a mirrored reference gives, is scaled linearly, 1 + w(ratio − 1); a ratio of 1 is exact.
 */
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
 * Turns the n-joint pose at `data[po ..]` into its difference from the reference pose `ref[ro ..]`, in place:
 * translation p − r, rotation r⁻¹·p, scale p / r (1 where r is 0). addDeltaPose applies it. The reference's
 * rotations are unit quaternions (poses only hold unit quaternions).
 */
export function toDeltaPose(data: Float32Array, po: number, ref: Float32Array, ro: number, n: number): void {
  const STRIDE = JOINT_STRIDE
  for (let j = 0; j < n; j++) {
    const p = po + j * STRIDE
    const r = ro + j * STRIDE
    data[p] = data[p]! - ref[r]!
    data[p + 1] = data[p + 1]! - ref[r + 1]!
    data[p + 2] = data[p + 2]! - ref[r + 2]!
    // r⁻¹·p with r⁻¹ the conjugate, written out (r is read first: data may alias ref).
    const rx = -ref[r + 3]!
    const ry = -ref[r + 4]!
    const rz = -ref[r + 5]!
    const rw = ref[r + 6]!
    const px = data[p + 3]!
    const py = data[p + 4]!
    const pz = data[p + 5]!
    const pw = data[p + 6]!
    data[p + 3] = rw * px + rx * pw + ry * pz - rz * py
    data[p + 4] = rw * py - rx * pz + ry * pw + rz * px
    data[p + 5] = rw * pz + rx * py - ry * px + rz * pw
    data[p + 6] = rw * pw - rx * px - ry * py - rz * pz
    normalizeQuat(data, p + 3)
    for (let k = 7; k < 10; k++) {
      const s = ref[r + k]!
      data[p + k] = s !== 0 ? data[p + k]! / s : 1
    }
  }
}

/**
 * Additive layer: for each run, out ⊕ delta by the run's weight w — translation out + w·d, rotation
 * out·d^w (d^w the shortest-arc slerp from identity to d, as blendJointLayers computes it), scale out·d^w
 * (per axis; see scalePower). w = 1 applies the delta exactly; w ≤ 0
 * leaves the run as it is. `out` and `delta` are n-joint poses at `oo` and `dOff`; runs index their joints.
 *
 * d^w comes from blendJointLayers' half-angle series (src/clip/blendLayers.ts: coefficients fixed per run, only
 * + − × ÷ and √, exact to well under float32 resolution), not slerpQuat: slerpQuat's detAcos and detSin are too
 * large for V8 to inline here, and every float crossing those calls was boxed. With a = identity the series
 * gives d^w up to the factor 2 cos(θ/2), which is divided out (off the dependency chain of the product), so d^w
 * is unit to the series' accuracy and the product with the pose's rotation is unit to float32 rounding: it is
 * normalized by 1/√(1 + e)'s series in e = |q|² − 1 (no square root or division on the chain; a product
 * further from unit, only from rotations that are not, takes normalizeQuat). test/clip/layerBlend.test.ts
 * holds it within float32 rounding of blendJointLayers' normalized slerp times the rotation. The series is
 * written out in the joint loop with the run's 20 coefficients as locals, not read from memory per joint in a
 * call V8 did not inline.
 */
export function addDeltaPose(
  out: Float32Array,
  oo: number,
  delta: Float32Array,
  dOff: number,
  runs: Int32Array,
  runCount: number,
  weights: Float64Array,
): void {
  const STRIDE = JOINT_STRIDE
  // |len² − 1| below which a product of unit rotations is normalized by a series (2⁻¹⁰; a literal here, not a
  // module constant, which V8 reads from the context at every use).
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
        // The series' dropped factor 1/(2 cos φ) (cos φ ≥ cos π/4), off the product's dependency chain: with
        // it d^w is unit to the series' accuracy, so the product below is unit to float32 rounding.
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
      // 1/√(1 + e) = 1 − e/2 + 3e²/8 − 5e³/16 + …: to 3e-13 for |e| < 2⁻¹⁰ and exact to double at the
      // |e| ≈ 1e-7 of a product of unit rotations stored as float32; no square root on the chain.
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
 * Blend-space mix: out = the normalized weighted sum of `count` n-joint poses at `data[offsets[i] ..]` with
 * weights `weights[i]` (≥ 0, summing to 1): translation and scale Σ wᵢ·vᵢ, rotation Σ wᵢ·sᵢ·qᵢ normalized, with
 * sᵢ = ±1 putting each quaternion in the first one's hemisphere (ozz-animation's BlendingJob does the same).
 * The result does not depend on the order of the poses beyond which comes first. Points of weight 0 are
 * skipped; a single point of weight 1 is copied exactly.
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
  const STRIDE = JOINT_STRIDE
  let first = -1
  let live = 0
  for (let i = 0; i < count; i++) {
    if (weights[i]! > 0) {
      if (first < 0) first = i
      live++
    }
  }
  if (first < 0) return
  if (live === 1) {
    const src = offsets[first]!
    if (src !== oo) out.copyWithin(oo, src, src + n * STRIDE)
    return
  }
  if (live === 2) {
    let second = first + 1
    while (!(weights[second]! > 0)) second++
    blendTwoPoses(out, oo, data, offsets[first]!, offsets[second]!, weights, first, second, n, paths)
    return
  }
  const f = offsets[first]!
  for (let j = 0; j < n; j++) {
    const o = oo + j * STRIDE
    const q = f + j * STRIDE
    const fx = data[q + 3]!
    const fy = data[q + 4]!
    const fz = data[q + 5]!
    const fw = data[q + 6]!
    let t0 = 0
    let t1 = 0
    let t2 = 0
    let rx = 0
    let ry = 0
    let rz = 0
    let rw = 0
    let s0 = 0
    let s1 = 0
    let s2 = 0
    for (let i = first; i < count; i++) {
      const w = weights[i]!
      if (!(w > 0)) continue
      const p = offsets[i]! + j * STRIDE
      t0 += w * data[p]!
      t1 += w * data[p + 1]!
      t2 += w * data[p + 2]!
      const x = data[p + 3]!
      const y = data[p + 4]!
      const z = data[p + 5]!
      const qw = data[p + 6]!
      const sw = x * fx + y * fy + z * fz + qw * fw < 0 ? -w : w
      rx += sw * x
      ry += sw * y
      rz += sw * z
      rw += sw * qw
      s0 += w * data[p + 7]!
      s1 += w * data[p + 8]!
      s2 += w * data[p + 9]!
    }
    out[o] = t0
    out[o + 1] = t1
    out[o + 2] = t2
    out[o + 3] = rx
    out[o + 4] = ry
    out[o + 5] = rz
    out[o + 6] = rw
    normalizeQuat(out, o + 3)
    out[o + 7] = s0
    out[o + 8] = s1
    out[o + 9] = s2
  }
}

/**
 * blendWeightedPoses with exactly two points of nonzero weight (a 1D blend space between two neighbours, the
 * common case): the poses at `a` and `b` with weights `weights[wa]`, `weights[wb]`. The general loop's
 * operations in its order (sums from 0, b's rotation sign-fixed into a's hemisphere, the sum stored as float32
 * and then normalized, as normalizeQuat does), so the same bits, without its per-point loop and branches; with
 * `paths`, translations and scales no point's clip drives are copied (see blendWeightedPoses).
 */
function blendTwoPoses(
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
