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
/**
 * Compact clips' channels (compactClip.ts; sampled by sampleCompact.ts, never by the exact sampler): keys
 * quantized to 16 bits per component in `Channel.packed`, with per-channel ranges in `Channel.dequant`.
 * A rotation as its three components other than the one the channel drops (48 bits a key), that one
 * rebuilt as the unit quaternion's.
 */
export const KIND_COMPACT_ROTATION = 5
/** A compact rotation as all four components (when no component stays far from 0), normalized after the lerp. */
export const KIND_COMPACT_QUATERNION = 6
/** A compact translation, scale or weights: component-wise lerp of the dequantized keys. */
export const KIND_COMPACT_VECTOR = 7
