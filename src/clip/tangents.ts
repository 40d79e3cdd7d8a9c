import { AnimationError } from '../errors.ts'

/**
 * Tangent tools for authoring CUBICSPLINE channels in code. Tangents are in units per second (the glTF
 * convention: the sampler multiplies them by the segment duration). Load-time helpers: they allocate.
 *
 * Layouts: `values` is key-major, `c` floats per key; tangent arrays have the same layout.
 */

/**
 * Catmull-Rom tangents for keys at any spacing: at an interior key the slopes of the two neighbouring segments,
 * d₀ = (p_k − p_{k−1})/h₀ and d₁ = (p_{k+1} − p_k)/h₁, averaged with the *other* segment's duration as weight,
 *   m_k = (h₁·d₀ + h₀·d₁) / (h₀ + h₁)
 * which is the derivative at t_k of the parabola through the three keys (exact for quadratics, any spacing;
 * for even spacing it is the usual central difference (p_{k+1} − p_{k−1}) / 2h). The plain central difference
 * is wrong on uneven keys: for p = t² it gives t_{k−1} + t_{k+1} instead of 2·t_k. The end keys get the slope
 * of their one segment; a single key gets a zero tangent. Use the result as both in- and out-tangent for a C¹
 * curve through the keys. Throws AnimationError ('argument') unless the times strictly increase.
 */
export function catmullRomTangents(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  c: number,
): Float32Array {
  const n = times.length
  checkLayout('catmullRomTangents', n, values.length, c)
  for (let k = 1; k < n; k++) {
    if (!(times[k]! > times[k - 1]!)) {
      throw new AnimationError(
        'argument',
        `catmullRomTangents: key ${k} time ${times[k]} is not after key ${k - 1} time ${times[k - 1]}`,
      )
    }
  }
  const out = new Float32Array(n * c)
  if (n < 2) return out
  for (let k = 0; k < n; k++) {
    const lo = k === 0 ? 0 : k - 1
    const hi = k === n - 1 ? n - 1 : k + 1
    const h0 = times[k]! - times[lo]! // 0 at the first key
    const h1 = times[hi]! - times[k]! // 0 at the last key
    for (let j = 0; j < c; j++) {
      const p = values[k * c + j]!
      const d0 = h0 > 0 ? (p - values[lo * c + j]!) / h0 : 0
      const d1 = h1 > 0 ? (values[hi * c + j]! - p) / h1 : 0
      out[k * c + j] = h0 === 0 ? d1 : h1 === 0 ? d0 : (h1 * d0 + h0 * d1) / (h0 + h1)
    }
  }
  return out
}

/**
 * Converts one cubic Bézier segment (control points P0..P3 spanning `dt` seconds) to Hermite tangents:
 *   out-tangent of the start key  b_k     = 3(P1 − P0)/Δt
 *   in-tangent of the end key     a_{k+1} = 3(P3 − P2)/Δt
 * Each point is `c` floats at the given offsets of `points`. Writes `outTangent` and `inTangent` (c floats each).
 * Throws AnimationError ('argument') for a bad component count, short outputs or points, or a duration that is
 * not a positive finite number.
 */
export function bezierToHermite(
  outTangent: Float32Array,
  inTangent: Float32Array,
  points: ArrayLike<number>,
  c: number,
  dt: number,
): void {
  if (!Number.isInteger(c) || c < 1) {
    throw new AnimationError('argument', `bezierToHermite: component count ${c} is invalid`)
  }
  if (outTangent.length < c || inTangent.length < c) {
    throw new AnimationError(
      'argument',
      `bezierToHermite: tangent outputs need ${c} floats each, got ${outTangent.length} and ${inTangent.length}`,
    )
  }
  if (!(dt > 0) || !Number.isFinite(dt)) {
    throw new AnimationError('argument', `bezierToHermite: segment duration ${dt} must be a positive number`)
  }
  if (points.length < 4 * c) {
    throw new AnimationError(
      'argument',
      `bezierToHermite: needs 4 control points × ${c} floats, got ${points.length}`,
    )
  }
  for (let j = 0; j < c; j++) {
    outTangent[j] = (3 * (points[c + j]! - points[j]!)) / dt
    inTangent[j] = (3 * (points[3 * c + j]! - points[2 * c + j]!)) / dt
  }
}

/**
 * Interleaves keys and tangents into the glTF CUBICSPLINE layout `| a_k | v_k | b_k |` per key, ready for a
 * RawChannel with interpolation 'CUBICSPLINE'.
 */
export function toCubicSplineValues(
  values: ArrayLike<number>,
  inTangents: ArrayLike<number>,
  outTangents: ArrayLike<number>,
  c: number,
): Float32Array {
  const n = values.length / c
  checkLayout('toCubicSplineValues', n, values.length, c)
  if (inTangents.length !== values.length || outTangents.length !== values.length) {
    throw new AnimationError(
      'argument',
      `toCubicSplineValues: ${values.length} values need as many in- and out-tangent floats ` +
        `(got ${inTangents.length} and ${outTangents.length})`,
    )
  }
  const out = new Float32Array(values.length * 3)
  for (let k = 0; k < n; k++) {
    for (let j = 0; j < c; j++) {
      out[k * 3 * c + j] = inTangents[k * c + j]!
      out[k * 3 * c + c + j] = values[k * c + j]!
      out[k * 3 * c + 2 * c + j] = outTangents[k * c + j]!
    }
  }
  return out
}

function checkLayout(fn: string, keys: number, valueCount: number, c: number): void {
  if (!Number.isInteger(c) || c < 1)
    throw new AnimationError('argument', `${fn}: component count ${c} is invalid`)
  if (!Number.isInteger(keys)) {
    throw new AnimationError(
      'argument',
      `${fn}: ${valueCount} floats are not a whole number of ${c}-component keys`,
    )
  }
  if (keys * c !== valueCount) {
    throw new AnimationError('argument', `${fn}: ${valueCount} floats are not ${keys} keys × ${c} components`)
  }
}
