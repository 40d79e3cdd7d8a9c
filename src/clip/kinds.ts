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
 * Compact clips' channels (compactClip.ts; sampled by sampleCompact.ts, never by the exact sampler). A rotation
 * as its four components quantized to 16 bits each over the channel's range (`Channel.packed`, `.dequant`).
 */
export const KIND_COMPACT_ROTATION = 5
/** A compact rotation kept as float32 keys (`values`), where 16 bits cannot meet the tolerance. */
export const KIND_COMPACT_FLOAT_ROTATION = 6
/** A compact translation, scale or weights: each component quantized to 16 bits, lerped. */
export const KIND_COMPACT_VECTOR = 7
