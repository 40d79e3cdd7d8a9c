/**
 * `Channel.kind`: the sampling path, fixed at build so the per-frame loop branches on a small integer
 * instead of comparing path and interpolation strings.
 */
export const KIND_STEP = 0
/** LINEAR translation, scale, weights: component-wise lerp. */
export const KIND_LINEAR = 1
/** LINEAR rotation: slerp on `Channel.slerpSegments` (or squad on `Channel.squad`). */
export const KIND_SLERP = 2
/** CUBICSPLINE translation, scale, weights: Hermite. */
export const KIND_CUBIC = 3
/** CUBICSPLINE rotation: Hermite, then normalized. */
export const KIND_CUBIC_ROTATION = 4
