import type { FloatArray } from './quat.ts'

/**
 * Slerp by a power series: the pose blends' rotations (src/clip/blendPoses.ts, layerBlend.ts) and squad's outer
 * slerp (src/clip/squad.ts), exact to well under float32 resolution at every angle, with no arc cosine, no
 * sine and no branch on the angle; only + − × ÷ and √, so the same bits in every engine.
 *
 * slerp's weights sin((1 − w)θ)/sin θ and sin(wθ)/sin θ come from the half angle φ = θ/2 (θ ≤ π/2 after the
 * short-arc flip, so φ ≤ π/4): sin(wθ)/sin θ = f(2w, cos φ) / (2 cos φ) with f(t, x) = sin(tφ)/sin φ, whose
 * power series in y = x − 1 has coefficients c_0 = t, c_i = c_{i−1}·(t² − i²)/(i(2i + 1)), fixed for one
 * weight (so made once for all the joints a weight blends). cos φ = √((1 + cos θ)/2). At φ ≤ π/4, |y| ≤ 0.293
 * and SERIES_TERMS = 10 terms leave a truncation error below 6e-10 (float32 resolution is 6e-8); the series has
 * no division by sin θ, so equal keys need no nlerp fallback. The polynomial is evaluated by Estrin's scheme
 * (short dependency chains): the fast forms in src/engine/ write out the very same expression.
 */
export const SERIES_TERMS = 10

/** 1/(i(2i + 1)), the constant part of the series' coefficient ratio. */
export const SERIES_K = Float64Array.from({ length: SERIES_TERMS }, (_, i) =>
  i === 0 ? 0 : 1 / (i * (2 * i + 1)),
)

/**
 * The coefficients of sin(tθ)/sin θ's series for t = scale·(1 − w) into out[0, 10) and t = scale·w into
 * out[10, 20). Scale 2 gives the half-angle series above (f(2w, ·) in cos(θ/2) − 1); scale 1 the series in
 * cos θ − 1 (squad uses both). Returns out.
 */
export function slerpSeriesCoefficients(out: Float64Array, w: number, scale: number): Float64Array {
  let ca = scale * (1 - w)
  let cb = scale * w
  const ta2 = ca * ca
  const tb2 = cb * cb
  out[0] = ca
  out[SERIES_TERMS] = cb
  for (let i = 1; i < SERIES_TERMS; i++) {
    const ii = i * i
    ca *= (ta2 - ii) * SERIES_K[i]!
    cb *= (tb2 - ii) * SERIES_K[i]!
    out[i] = ca
    out[SERIES_TERMS + i] = cb
  }
  return out
}

/** The series with coefficients `c[at .. at + 10)` at y, by Estrin's scheme. */
export function slerpSeries(c: Float64Array, at: number, y: number): number {
  const y2 = y * y
  const y4 = y2 * y2
  const y8 = y4 * y4
  return (
    c[at]! +
    c[at + 1]! * y +
    (c[at + 2]! + c[at + 3]! * y) * y2 +
    (c[at + 4]! + c[at + 5]! * y + (c[at + 6]! + c[at + 7]! * y) * y2) * y4 +
    (c[at + 8]! + c[at + 9]! * y) * y8
  )
}

/**
 * out = slerp(a, b, w), the short way round, unnormalized and without the factor 1/(2 cos φ): the series'
 * weights (`c` from slerpSeriesCoefficients(c, w, 2)) applied to a and to b flipped into a's hemisphere. Returns
 * cos φ, the factor's half (normalize the result, or multiply it by 0.5 / cos φ). `out` may alias a or b.
 */
export function seriesSlerp(
  out: FloatArray,
  oo: number,
  a: FloatArray,
  ao: number,
  b: FloatArray,
  bo: number,
  c: Float64Array,
): number {
  const ax = a[ao]!
  const ay = a[ao + 1]!
  const az = a[ao + 2]!
  const aw = a[ao + 3]!
  let bx = b[bo]!
  let by = b[bo + 1]!
  let bz = b[bo + 2]!
  let bw = b[bo + 3]!
  let cos = ax * bx + ay * by + az * bz + aw * bw
  const sg = cos < 0 ? -1 : 1
  cos *= sg
  bx *= sg
  by *= sg
  bz *= sg
  bw *= sg
  const y = Math.sqrt((1 + cos) * 0.5) - 1
  const s0 = slerpSeries(c, 0, y)
  const s1 = slerpSeries(c, SERIES_TERMS, y)
  out[oo] = s0 * ax + s1 * bx
  out[oo + 1] = s0 * ay + s1 * by
  out[oo + 2] = s0 * az + s1 * bz
  out[oo + 3] = s0 * aw + s1 * bw
  return y + 1
}

/**
 * 1/√(1 + e) for a quaternion whose squared length is 1 + e: for |e| < 2⁻¹⁰ its series 1 − e/2 + 3e²/8 − 5e³/16
 * (to 3e-13; exact to double at the |e| ≈ 1e-7 of a product of unit rotations stored as float32), else a
 * square root. Lets a rotation that is unit to rounding be normalized without a square root on its chain.
 */
export function nearUnitInverseLength(e: number): number {
  return e > -NEAR_UNIT && e < NEAR_UNIT ? 1 + e * (-0.5 + e * (0.375 - e * 0.3125)) : 1 / Math.sqrt(1 + e)
}

/** |len² − 1| below which nearUnitInverseLength uses its series (2⁻¹⁰). */
export const NEAR_UNIT = 0.0009765625

/**
 * out = q^w, the slerp from the identity to q by w the short way, unit to the series' accuracy: the series'
 * weights (`c` from slerpSeriesCoefficients(c, w, 2)) with the identity's terms written out and the factor
 * 1/(2 cos φ) applied. An additive layer's partial rotation (layerBlend.ts addDeltaPose).
 */
export function seriesPower(
  out: Float64Array,
  oo: number,
  q: FloatArray,
  qo: number,
  c: Float64Array,
): Float64Array {
  const sg = q[qo + 3]! < 0 ? -1 : 1
  const bx = q[qo]! * sg
  const by = q[qo + 1]! * sg
  const bz = q[qo + 2]! * sg
  const bw = q[qo + 3]! * sg
  const cosHalf = Math.sqrt((1 + bw) * 0.5)
  const y = cosHalf - 1
  const k = 0.5 / cosHalf
  const s0 = slerpSeries(c, 0, y) * k
  const s1 = slerpSeries(c, SERIES_TERMS, y) * k
  out[oo] = s1 * bx
  out[oo + 1] = s1 * by
  out[oo + 2] = s1 * bz
  out[oo + 3] = s0 + s1 * bw
  return out
}
