import { ARC_SERIES, ARC_TERMS, HALF_PI_HI, PI_HI, PI_LO } from '../clip/arcKernels.ts'
import { ANGLE, reg, W0, W1, WEIGHT } from './sampleScratch.ts'

/**
 * The fast squad's arc functions (squad.ts), taking and returning floats through `reg`: detSinArc's and
 * detAcosArc's series (src/math/detmath.ts), the same operations, so the same bits
 * (test/engine/sample.test.ts compares them).
 */

/**
 * reg[W0], reg[W1] ← sin((1 − t)·θ), sin(t·θ) for θ = reg[ANGLE] in [0, π], t = reg[WEIGHT]: detSinArc's series
 * and reflection, the same operations, so the same bits (squad's outer slerp on a wide arc).
 */
export function longArcWeights(): void {
  const theta = reg[ANGLE]!
  const t = reg[WEIGHT]!
  const x0 = (1 - t) * theta
  const x1 = t * theta
  const y0 = x0 > HALF_PI_HI ? PI_HI - x0 + PI_LO : x0
  const y1 = x1 > HALF_PI_HI ? PI_HI - x1 + PI_LO : x1
  const z0 = y0 * y0
  const z1 = y1 * y1
  let p0 = ARC_SERIES[ARC_TERMS - 1]!
  let p1 = p0
  for (let i = ARC_TERMS - 2; i >= 0; i--) {
    p0 = ARC_SERIES[i]! + z0 * p0
    p1 = ARC_SERIES[i]! + z1 * p1
  }
  reg[W0] = y0 + y0 * z0 * p0
  reg[W1] = y1 + y1 * z1 * p1
}

// detAcosArc's constants (detmath.ts): tan(π/16), tan(3π/16), tan(π/8); π/8 and π/4 split into hi + lo.
const TAN_PI_16 = 0.198912367379658
const TAN_3PI_16 = 0.6681786379192989
const TAN_PI_8 = 0.41421356237309503
const EIGHTH_PI_HI = 0.39269908169872414
const EIGHTH_PI_LO = 1.5308084989341915e-17
const QUARTER_PI_HI = 0.7853981633974483
const QUARTER_PI_LO = 3.061616997868383e-17
/** The atan series' coefficients −1/3, 1/5, …, −1/23 (its last term, w/25, is a division, kept as one). */
const ATAN_SERIES = Float64Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? -1 : 1) / (2 * i + 3))

/** reg[ANGLE] ← detAcosArc(reg[ANGLE]), by the same operations (so the same bits), without a float argument. */
export function acosArc(): void {
  const c = reg[ANGLE]!
  const a = c < 0 ? (c < -1 ? 1 : -c) : c > 1 ? 1 : c
  const t = Math.sqrt((1 - a) / (1 + a))
  let base = 0
  let baseLo = 0
  let z = t
  if (t > TAN_3PI_16) {
    base = QUARTER_PI_HI
    baseLo = QUARTER_PI_LO
    z = (t - 1) / (1 + t)
  } else if (t > TAN_PI_16) {
    base = EIGHTH_PI_HI
    baseLo = EIGHTH_PI_LO
    z = (t - TAN_PI_8) / (1 + t * TAN_PI_8)
  }
  const w = z * z
  let poly = ATAN_SERIES[10]! + w / 25
  for (let i = 9; i >= 0; i--) poly = ATAN_SERIES[i]! + w * poly
  const theta = 2 * (base + (z + z * w * poly + baseLo))
  reg[ANGLE] = c < 0 ? PI_HI - theta + PI_LO : theta
}

/** Test hook: acosArc as a plain function (for comparison with detmath.ts). */
export function acosArcByKernel(c: number): number {
  reg[ANGLE] = c
  acosArc()
  return reg[ANGLE]!
}
