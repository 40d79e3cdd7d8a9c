/**
 * The clip data model: what buildClip (clip.ts) makes from raw channels, and what it takes. A built clip is
 * immutable; the sampler (sample.ts) trusts it.
 */
/** What a channel animates on its target node. Rotations are unit quaternions `[x, y, z, w]`. */
export type ChannelPath = 'translation' | 'rotation' | 'scale' | 'weights'
/**
 * glTF's sampler interpolations: STEP holds each key's value, LINEAR lerps (slerps rotations), CUBICSPLINE is a
 * Hermite spline with per-key in- and out-tangents.
 */
export type Interpolation = 'STEP' | 'LINEAR' | 'CUBICSPLINE'
/** How LINEAR rotation channels are sampled: per-segment slerp (C⁰) or squad (C¹ angular velocity). */
export type RotationMode = 'slerp' | 'squad'

export const CHANNEL_PATHS: readonly ChannelPath[] = ['translation', 'rotation', 'scale', 'weights']
export const INTERPOLATIONS: readonly Interpolation[] = ['STEP', 'LINEAR', 'CUBICSPLINE']

/**
 * One animated property of one node. Immutable once built; validated once by `buildClip`, trusted after.
 *
 * `values` layout, `c = components` floats per element, `n = times.length` keys:
 *
 *   STEP / LINEAR:  | v0 (c) | v1 (c) | ... | v(n-1) (c) |                         length n*c
 *   CUBICSPLINE:    | a0 (c) | v0 (c) | b0 (c) | a1 | v1 | b1 | ... |              length 3*n*c
 *                     in-tangent, value, out-tangent per key (glTF layout); a0 and b(n-1) are never used.
 *
 * Tangents are in units per second: the sampler multiplies them by the segment duration.
 * Rotation values (all three kinds of element) are stored as given, except that LINEAR/STEP rotation keys and
 * CUBICSPLINE rotation values are normalized at build time.
 */
export interface Channel {
  /** Index of the target node in its asset (glTF node index). */
  readonly node: number
  /** Target node name, for messages and tools; may be empty. */
  readonly nodeName: string
  /** The property animated: translation, rotation (unit quaternions [x, y, z, w]), scale or morph weights. */
  readonly path: ChannelPath
  /** How values between keys are found. */
  readonly interpolation: Interpolation
  /** Floats per element: 3 (translation, scale), 4 (rotation), morph target count (weights). */
  readonly components: number
  /**
   * Key times in seconds, strictly increasing, finite, ≥ 0. Channels of one clip whose key times are equal
   * share one array (exporters write one time track per clip), so a sampler finds the segment once per track.
   */
  readonly times: Float32Array
  /**
   * Index, in its clip, of the first channel whose `times` is this channel's: the track's key cursor slot. A
   * clip sampler keeps one cursor per track, at `cursors[cursorStart + track]`; the other channels' slots are
   * left alone. The channel's own index when no earlier channel shares its times.
   */
  readonly track: number
  /** KIND_STEP | KIND_LINEAR | KIND_SLERP | KIND_CUBIC | KIND_CUBIC_ROTATION (see above). */
  readonly kind: number
  /** Key values in the layout above: n·c floats (STEP, LINEAR) or 3·n·c (CUBICSPLINE). Never modify it. */
  readonly values: Float32Array
  /**
   * LINEAR rotation channels only (else null): per segment k, 10 doubles `[theta, weight, aligned key k (4),
   * aligned key k+1 (4)]` for the slerp kernel, at `slerpSegments[k·slerpStride + slerpOffset ..]`: the keys
   * made hemisphere-consistent (σ_k · key k with σ_0 = 1 and σ_{k+1} = −σ_k when key k+1 is more than 90° from
   * key k) and normalized in double; theta the angle between them taken the short way (radians, half the
   * rotation angle) and weight σ_k / sin θ, or, for an nlerp segment (|cos| > SLERP_NLERP_COS), θ = −cos
   * (negative) and weight σ_k, so the kernel can normalize the nlerp weights without a square root. Folding σ_k
   * into the weight makes slerp of the aligned keys give the bits of slerp of the given keys with the
   * short-arc flip. Exactly unit keys make slerp's result unit to double rounding: the kernel stores it
   * without renormalizing.
   *
   * The LINEAR rotation channels of one time track share one array, segment-major: segment k of every such
   * channel side by side (`slerpStride` = 10 × their count, `slerpOffset` = 10 × the channel's place among them).
   * A character samples all its channels at one segment, so its reads run through one contiguous block instead
   * of one place per channel (memory stalls were the largest cost of the sampler in a crowd). A channel alone
   * on its track has its own array (stride 10, offset 0).
   */
  readonly slerpSegments: Float64Array | null
  /** Doubles from one segment of this channel to the next in `slerpSegments` (0 when it has none). */
  readonly slerpStride: number
  /** Index of this channel's segment 0 in `slerpSegments` (0 when it has none). */
  readonly slerpOffset: number
  /**
   * CUBICSPLINE rotation channels only (else null): per segment k, the 16 floats the Hermite kernel reads,
   * `[v_k (4), b_k (4), a_{k+1} (4), v_{k+1} (4)]` (value, out-tangent, next in-tangent, next value, copied from
   * `values`), at `hermiteSegments[k·hermiteStride + hermiteOffset ..]`, packed segment-major per time track
   * like `slerpSegments` (stride 16 × the track's CUBICSPLINE rotation channels).
   */
  readonly hermiteSegments: Float32Array | null
  /** Floats from one segment of this channel to the next in `hermiteSegments` (0 when it has none). */
  readonly hermiteStride: number
  /** Index of this channel's segment 0 in `hermiteSegments` (0 when it has none). */
  readonly hermiteOffset: number
  /**
   * LINEAR rotation channels only (else null): where squad finds this channel's data. Built for every LINEAR
   * rotation channel of the clip at once, the first time squad samples the clip (`prepareSquad`; the plugin
   * calls it when a character starts a clip in squad mode): a clip that only ever plays by slerp does not carry
   * it (160 bytes per key, more than the rest of the channel's data).
   */
  readonly squad: SquadSegments | null
  /**
   * Compact channels only (KIND_COMPACT_*, compactClip.ts; else null): the keys quantized to unsigned 16-bit
   * integers, packed key-major per time track like `slerpSegments` (key k of every packed channel of the
   * track side by side), `values` then empty. Component i of key k is `dequant[i] + packed[k·packedStride +
   * packedOffset + i] · dequant[components + i]`. Shared by the channels of the track (a float-key channel
   * holds an empty array).
   */
  readonly packed: Uint16Array | null
  /** u16s from one key to the next in `packed` (0 when it has none). */
  readonly packedStride: number
  /** Index of this channel's key 0 in `packed` (0 when it has none). */
  readonly packedOffset: number
  /**
   * Packed channels of compact clips (else null or empty): per component its minimum, then per component its
   * step, `[min0, …, step0, …]` (a rotation's four steps equal: one step for all four components).
   */
  readonly dequant: Float64Array | null
}

/**
 * A LINEAR rotation channel's squad data (see Channel.squad): per segment k the 20 doubles squad reads, `[key
 * angle, key weight, control angle, control weight, q_k (4), q_{k+1} (4), s_k (4), s_{k+1} (4)]` (from
 * rotationCache.ts's buildRotationCaches: `slerpCache`, `controlCache`, `squad`), at `segments[k·stride +
 * offset ..]`, packed segment-major per time track like `slerpSegments`. `segments` is null until built.
 */
export interface SquadSegments {
  /** The time track's packed squad data (shared by its LINEAR rotation channels); null until prepareSquad. */
  readonly segments: Float64Array | null
  /** Doubles from one segment of this channel to the next in `segments` (20 × the track's such channels). */
  readonly stride: number
  /** Index of this channel's segment 0 in `segments`. */
  readonly offset: number
}

/**
 * An animation clip, validated and built once by `buildClip` (readAsset builds one per glTF animation). Frozen
 * and read-only after that, so any number of characters and plugins may share it. Times are in seconds.
 */
export interface Clip {
  /** The clip's name (the glTF animation's, or `animation<i>` when the file gives none). */
  readonly name: string
  /** Seconds: the latest key time over all channels (0 for a clip whose keys all sit at 0). */
  readonly duration: number
  /** Every channel, in the order of the raw clip's channels; a frozen array. */
  readonly channels: readonly Channel[]
  /**
   * The same channels, in an array that is not frozen, for the frame loop (sample.ts): V8 11 reads elements of
   * a frozen (or sealed) array through a generic call, about 4 ns each, ~4× a plain array. Never modify it.
   */
  readonly frameChannels: readonly Channel[]
  /**
   * Named points on its timeline (footsteps, the frame a punch lands), sorted by time (equal times in the
   * order given); frozen. From RawClip.markers; readAsset reads them from the glTF animation's
   * `extras.markers` (src/gltf/clips.ts). A plugin reports them as 'marker' events, with those addMarker adds.
   */
  readonly markers: readonly ClipMarker[]
  /**
   * How a compact clip was made (compressClip, compress.ts), or null for an exact clip (buildClip's). A
   * compact clip's channels are sampled by sampleCompact.ts: fewer keys, quantized, within the stated error.
   */
  readonly compression: ClipCompression | null
}

/** What compressClip made of a clip: its tolerance and what it measured. */
export interface ClipCompression {
  /** World-space tolerance, in the asset's units (metres), at `distance` from each joint. */
  readonly tolerance: number
  /** The distance from each joint at which the error was measured, in the asset's units. */
  readonly distance: number
  /** The largest world-space error measured (at `distance` from a joint, at the exact clip's key times). */
  readonly error: number
  /** Keys the exact clip had, over all channels. */
  readonly keys: number
  /** Keys kept, over all channels. */
  readonly keptKeys: number
}

/** A named point on a clip's timeline. */
export interface ClipMarker {
  /** The marker's name: a non-empty string. */
  readonly name: string
  /** Seconds into the clip, in [0, duration]. */
  readonly time: number
}

/** Raw channel data, as read from a file or written by authoring code. Copied and validated by `buildClip`. */
export interface RawChannel {
  /** Target node: an integer ≥ 0, below `BuildClipOptions.nodeCount` when that is given. */
  node: number
  /** Target node name, for messages and for binding the clip to other assets by name. Default ''. */
  nodeName?: string
  /** 'translation', 'rotation', 'scale' or 'weights' (ChannelPath); anything else throws. */
  path: string
  /** 'STEP', 'LINEAR' or 'CUBICSPLINE' (Interpolation); anything else throws. Default 'LINEAR'. */
  interpolation?: string
  /** Key times in seconds: finite, ≥ 0, strictly increasing as float32, at least one. */
  times: ArrayLike<number>
  /**
   * Values finite as float32, `components` per element in Channel's layout: one element per key (STEP, LINEAR),
   * three per key (CUBICSPLINE: in-tangent, value, out-tangent; tangents in units per second). A count that does
   * not fit throws. Rotations are quaternions [x, y, z, w]; every key value (not the tangents) is normalized when
   * built, and a zero-length one throws.
   */
  values: ArrayLike<number>
  /** Required for `weights` (the morph target count); derived for the other paths. */
  components?: number
}

/** A clip before `buildClip`: a name and its raw channels, in any order (they keep it). */
export interface RawClip {
  /** The clip's name, converted with String(). */
  name: string
  /** The channels; an empty list makes a clip of duration 0 that animates nothing. */
  channels: readonly RawChannel[]
  /**
   * Named points on the timeline, in any order: a non-empty `name` and a `time` in seconds in [0, duration]
   * (a time past the duration that rounds to it as a float32, as an exporter may write the last key's time,
   * is taken as the duration). Default none.
   */
  markers?: readonly ClipMarker[]
}

/** Options of `buildClip`. */
export interface BuildClipOptions {
  /** Number of nodes in the asset; a channel whose node is outside [0, nodeCount) is rejected. */
  nodeCount?: number
  /**
   * Keep rotation keys that are unit to float32 precision (length within 1e-6 of 1) as given rather than
   * normalize them again; others are still normalized. For clips made from another built clip's keys (a
   * retargeted clip), which must keep their bits: normalizing is not idempotent in float32 (about 1 key in 70
   * moves by an ulp). Default false.
   */
  keepUnitRotations?: boolean
}
