/**
 * The sampler's sines of arcs in [0, π]: a short series for the small angles of a slerp between nearby keys,
 * detSinArc's series (detmath.ts) beyond (test/clip/arcKernels.test.ts compares them with detmath.ts).
 */

// Taylor coefficients of sin, (−1)^k / (2k+1)!, each rounded once from the exact rational (as in detmath.ts).
export const ARC_S3 = -1 / 6
export const ARC_S5 = 1 / 120
export const ARC_S7 = -1 / 5040
export const ARC_S9 = 1 / 362880
export const ARC_S11 = -1 / 39916800
/** All of detSinArc's coefficients, S3 … S21, for its series (Horner from the last). */
export const ARC_SERIES = Float64Array.of(
  ARC_S3,
  ARC_S5,
  ARC_S7,
  ARC_S9,
  ARC_S11,
  1 / 6227020800,
  -1 / 1307674368000,
  1 / 355687428096000,
  -1 / 121645100408832000,
  1 / 51090942171709440000,
)
export const ARC_TERMS = ARC_SERIES.length
/** π/2 and π = PI_HI + PI_LO, as in detmath.ts (detSinArc's reflection above π/2). */
export const HALF_PI_HI = 1.5707963267948966
export const PI_HI = 3.141592653589793
export const PI_LO = 1.2246467991473532e-16

/**
 * Largest slerp segment angle (radians) whose sines use the short series `shortArcSin`. Mocap keys are far
 * closer than this (a key every 1/30 s rarely turns a joint 0.5 rad).
 */
export const SHORT_ARC = 0.25

/**
 * sin x for x in [0, SHORT_ARC], the Taylor series to x¹¹: its truncation error is below x¹³/13! ≤ 2.4e-18,
 * under 0.1 ulp of the result, so it stays within one ulp of detSinArc
 * (test/clip/arcKernels.test.ts).
 */
export function shortArcSin(x: number): number {
  const z = x * x
  return x + x * z * (ARC_S3 + z * (ARC_S5 + z * (ARC_S7 + z * (ARC_S9 + z * ARC_S11))))
}

/**
 * sin x for 0 ≤ x ≤ π/2 (squad's inner slerps: their angles are at most π/2): shortArcSin's series up to
 * SHORT_ARC, detSinArc's series and reflection beyond (within an ulp of detSinArc throughout).
 */
export function arcSin(x: number): number {
  if (x <= SHORT_ARC) {
    const z = x * x
    return x + x * z * (ARC_S3 + z * (ARC_S5 + z * (ARC_S7 + z * (ARC_S9 + z * ARC_S11))))
  }
  const y = x > HALF_PI_HI ? PI_HI - x + PI_LO : x
  const z = y * y
  let p = ARC_SERIES[ARC_TERMS - 1]!
  for (let i = ARC_TERMS - 2; i >= 0; i--) p = ARC_SERIES[i]! + z * p
  return y + y * z * p
}
