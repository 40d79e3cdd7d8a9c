import { AnimationError } from '../errors.ts'

/**
 * Tangent tools for authoring CUBICSPLINE channels in code. Tangents are in units per second (the glTF
 * convention: the sampler multiplies them by the segment duration). Load-time helpers: they allocate.
 *
 * Layouts: `values` is key-major, `c` floats per key; tangent arrays have the same layout.
 */

/**
 * Catmull-Rom tangents by central differences: m_k = (p_{k+1} − p_{k−1}) / (t_{k+1} − t_{k−1}), one-sided at
 * the ends; a single key gets a zero tangent. Use the result as both in- and out-tangent for a C¹ curve
 * through the keys.
 */
export function catmullRomTangents(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  c: number,
): Float32Array {
  const n = times.length
  checkLayout('catmullRomTangents', n, values.length, c)
  const out = new Float32Array(n * c)
  if (n < 2) return out
  for (let k = 0; k < n; k++) {
    const lo = k === 0 ? 0 : k - 1
    const hi = k === n - 1 ? n - 1 : k + 1
    const dt = times[hi]! - times[lo]!
    if (!(dt > 0))
      throw new AnimationError('argument', `catmullRomTangents: times must increase (keys ${lo}, ${hi})`)
    for (let j = 0; j < c; j++) out[k * c + j] = (values[hi * c + j]! - values[lo * c + j]!) / dt
  }
  return out
}

/**
 * Converts one cubic Bézier segment (control points P0..P3 spanning `dt` seconds) to Hermite tangents:
 *   out-tangent of the start key  b_k     = 3(P1 − P0)/Δt
 *   in-tangent of the end key     a_{k+1} = 3(P3 − P2)/Δt
 * Each point is `c` floats at the given offsets of `points`. Writes `outTangent` and `inTangent` (c floats each).
 */
export function bezierToHermite(
  outTangent: Float32Array,
  inTangent: Float32Array,
  points: ArrayLike<number>,
  c: number,
  dt: number,
): void {
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
  if (!Number.isInteger(keys) || keys * c !== valueCount) {
    throw new AnimationError('argument', `${fn}: ${valueCount} floats are not ${keys} keys × ${c} components`)
  }
}
