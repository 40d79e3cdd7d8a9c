import { AnimationError, showValue } from '../errors.ts'
import { buildSlerpSegmentsOnly } from './rotationCache.ts'
import { packSegments } from './segments.ts'
import { KIND_CUBIC, KIND_CUBIC_ROTATION, KIND_LINEAR, KIND_SLERP, KIND_STEP } from './kinds.ts'

/** `Channel.kind` values (src/clip/kinds.ts). */
export { KIND_CUBIC, KIND_CUBIC_ROTATION, KIND_LINEAR, KIND_SLERP, KIND_STEP } from './kinds.ts'

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
}

const PATH_COMPONENTS: Record<Exclude<ChannelPath, 'weights'>, number> = {
  translation: 3,
  rotation: 4,
  scale: 3,
}

/** Rotations closer than this cosine fall back from slerp to normalized lerp. */
export const NLERP_COS_THRESHOLD = 0.9995

/**
 * Validates raw data and builds an immutable clip. Throws `AnimationError` (kind 'clip') naming the clip,
 * channel, node and key for: unknown path or interpolation, value counts that do not match the key count,
 * times not strictly increasing / negative / non-finite, non-finite values, zero-length rotation keys, a node
 * index out of range. Rotation keys that are merely not unit length are normalized silently.
 * The input is never modified.
 */
export function buildClip(raw: RawClip, options: BuildClipOptions = {}): Clip {
  const name = String(raw.name)
  if (!Array.isArray(raw.channels)) {
    throw new AnimationError('clip', `clip "${name}": channels must be an array`)
  }
  // One time track per distinct key-time array; channels with equal times share the first one's array.
  const tracks: { times: Float32Array; index: number }[] = []
  const parts = raw.channels.map((ch, i) => buildChannel(name, i, ch, options, tracks))
  packSegments(parts)
  const channels = parts.map(freezeChannel)
  let duration = 0
  for (const ch of channels) duration = Math.max(duration, ch.times[ch.times.length - 1]!)
  const markers = buildMarkers(name, raw.markers, duration)
  const clip: Clip = Object.freeze({
    name,
    duration,
    channels: Object.freeze(channels),
    frameChannels: channels.slice(),
    markers,
  })
  for (const ch of channels) owners.set(ch, clip)
  return clip
}

/**
 * A marker time as a clip keeps it: `time` when in [0, duration]; the duration for a time just past it that
 * rounds to it as a float32 (key times, and so durations, are float32 values); NaN for anything else (not a
 * finite number, negative, later).
 */
export function markerTime(time: unknown, duration: number): number {
  if (typeof time !== 'number' || !(time >= 0)) return NaN
  if (time <= duration) return time
  return Math.fround(time) <= duration ? duration : NaN
}

/** RawClip.markers checked, sorted by time (stable) and frozen. Throws AnimationError('clip') naming the marker. */
function buildMarkers(clipName: string, raw: unknown, duration: number): readonly ClipMarker[] {
  if (raw === undefined) return EMPTY_MARKERS
  if (!Array.isArray(raw)) throw new AnimationError('clip', `clip "${clipName}": markers must be an array`)
  const markers = raw.map((m: unknown, i): ClipMarker => {
    const where = `clip "${clipName}" marker ${i}`
    if (typeof m !== 'object' || m === null) throw new AnimationError('clip', `${where} is not an object`)
    const { name, time } = m as { name?: unknown; time?: unknown }
    if (typeof name !== 'string' || name === '') {
      throw new AnimationError('clip', `${where}: name ${showValue(name)} is not a non-empty string`)
    }
    const t = markerTime(time, duration)
    if (Number.isNaN(t)) {
      throw new AnimationError(
        'clip',
        `${where} ${showValue(name)}: time ${showValue(time)} s is not a number in [0, ${duration}] (the clip's duration)`,
      )
    }
    return Object.freeze({ name, time: t })
  })
  // Array.prototype.sort is stable: equal times keep the given order.
  return Object.freeze(markers.sort((a, b) => a.time - b.time))
}

const EMPTY_MARKERS: readonly ClipMarker[] = Object.freeze([])

/** The clip each channel was built in (for prepareSquad from a lone channel). */
const owners = new WeakMap<Channel, Clip>()

/** The clip `channel` belongs to. Throws for a channel buildClip did not make. */
export function clipOf(channel: Channel): Clip {
  const clip = owners.get(channel)
  if (!clip) throw new AnimationError('argument', 'clipOf: the channel was not built by buildClip')
  return clip
}

function buildChannel(
  clipName: string,
  index: number,
  raw: RawChannel,
  options: BuildClipOptions,
  tracks: { times: Float32Array; index: number }[],
): Mutable<Channel> {
  const nodeName = raw.nodeName ?? ''
  const label = `${nodeName || `node ${raw.node}`}.${raw.path}`
  const where = `clip "${clipName}" channel ${index} (${label})`
  const fail = (what: string): never => {
    throw new AnimationError('clip', `${where}: ${what}`)
  }

  if (!Number.isInteger(raw.node) || raw.node < 0) fail(`target node ${raw.node} is not a node index`)
  if (options.nodeCount !== undefined && raw.node >= options.nodeCount) {
    fail(`target node ${raw.node} does not exist (the asset has ${options.nodeCount} nodes)`)
  }
  if (!(CHANNEL_PATHS as readonly string[]).includes(raw.path)) {
    fail(`unknown path "${raw.path}" (expected one of ${CHANNEL_PATHS.join(', ')})`)
  }
  const path = raw.path as ChannelPath
  const interpolationName = raw.interpolation ?? 'LINEAR'
  if (!(INTERPOLATIONS as readonly string[]).includes(interpolationName)) {
    fail(`unknown interpolation "${interpolationName}" (expected STEP, LINEAR or CUBICSPLINE)`)
  }
  const interpolation = interpolationName as Interpolation

  const keyCount = raw.times?.length ?? 0
  if (keyCount === 0) fail('has no keys')
  const times = new Float32Array(keyCount)
  for (let k = 0; k < keyCount; k++) {
    const t = Number(raw.times[k])
    times[k] = t
    if (!Number.isFinite(t)) fail(`key ${k} time ${t} is not finite`)
    if (!Number.isFinite(times[k]!)) fail(`key ${k} time ${t} is not finite as a float32`)
    if (t < 0) fail(`key ${k} time ${t} is negative`)
    // Compared as stored (float32), reported as given: distinct doubles can round to one float32.
    if (k > 0 && !(times[k]! > times[k - 1]!)) {
      const prev = Number(raw.times[k - 1])
      const rounded = t > prev ? ` (both round to the float32 ${times[k]})` : ''
      fail(`key ${k} time ${t} is not after key ${k - 1} time ${prev}${rounded}`)
    }
  }

  const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1
  const valueCount = raw.values?.length ?? 0
  let components: number
  if (path === 'weights') {
    if (raw.components !== undefined) {
      components = raw.components
      if (!Number.isInteger(components) || components < 1)
        fail(`weights component count ${components} is invalid`)
    } else {
      components = valueCount / (keyCount * perKey)
      if (!Number.isInteger(components) || components < 1) {
        fail(
          `${valueCount} weight values do not divide into ${keyCount} keys` +
            (perKey === 3 ? ' × 3 (in-tangent, value, out-tangent)' : ''),
        )
      }
    }
  } else {
    components = PATH_COMPONENTS[path]
  }
  const expected = keyCount * perKey * components
  if (valueCount !== expected) {
    const layout = perKey === 3 ? `3 × ${keyCount} keys` : `${keyCount} keys`
    // A float count that is not a whole number of elements is reported as floats, not as a fraction.
    const got =
      valueCount % components === 0
        ? `${valueCount / components}`
        : `${valueCount} floats, not a whole number of ${components}-float elements`
    fail(`${interpolation} needs ${layout} = ${keyCount * perKey} output elements, got ${got}`)
  }

  const values = new Float32Array(expected)
  for (let i = 0; i < expected; i++) {
    const v = Number(raw.values[i])
    values[i] = v
    if (!Number.isFinite(values[i]!)) {
      const element = Math.floor(i / components)
      const why = Number.isFinite(v) ? ', not finite as a float32' : ''
      fail(`${describeElement(element, perKey)} component ${i % components} is ${v}${why}`)
    }
  }

  if (path === 'rotation') {
    // Normalize every element that is a rotation (not the cubic tangents); reject zero-length ones.
    for (let e = 0; e < keyCount * perKey; e++) {
      if (perKey === 3 && e % 3 !== 1) continue
      const o = e * 4
      const len = Math.sqrt(values[o]! ** 2 + values[o + 1]! ** 2 + values[o + 2]! ** 2 + values[o + 3]! ** 2)
      if (!(len > 1e-6)) fail(`${describeElement(e, perKey)} is a zero-length quaternion (length ${len})`)
      const inv = 1 / len
      for (let j = 0; j < 4; j++) values[o + j] = values[o + j]! * inv
    }
  }

  const slerp = path === 'rotation' && interpolation === 'LINEAR'
  const slerpSegments = slerp ? buildSlerpSegmentsOnly(values, keyCount) : null

  let track = tracks.find((tr) => sameTimes(tr.times, times))
  if (!track) {
    track = { times, index }
    tracks.push(track)
  }

  return {
    node: raw.node,
    nodeName,
    path,
    interpolation,
    components,
    times: track.times,
    track: track.index,
    kind: kindOf(path, interpolation),
    values,
    slerpSegments,
    // Strides and offsets of the per-segment arrays are set when they are packed per track (packSegments).
    slerpStride: 0,
    slerpOffset: 0,
    hermiteSegments: null,
    hermiteStride: 0,
    hermiteOffset: 0,
    squad: slerp ? squadHolder() : null,
  }
}

/** A type with its readonly fields writable: channels are filled in, then frozen (freezeChannel). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** A channel's SquadSegments, empty until prepareSquad fills it. Every one is made here: one hidden class. */
function squadHolder(): SquadSegments {
  return { segments: null, stride: 0, offset: 0 }
}

/**
 * The final, frozen channel, made by this one object literal for every channel: one property order and one
 * hidden class for all of them, so the sampler's reads of channel fields stay monomorphic (channels of two
 * shapes in a clip made them polymorphic, a few percent of sampling).
 */
function freezeChannel(c: Mutable<Channel>): Channel {
  return Object.freeze({
    node: c.node,
    nodeName: c.nodeName,
    path: c.path,
    interpolation: c.interpolation,
    components: c.components,
    times: c.times,
    track: c.track,
    kind: c.kind,
    values: c.values,
    slerpSegments: c.slerpSegments,
    slerpStride: c.slerpStride,
    slerpOffset: c.slerpOffset,
    hermiteSegments: c.hermiteSegments,
    hermiteStride: c.hermiteStride,
    hermiteOffset: c.hermiteOffset,
    squad: c.squad,
  })
}

function sameTimes(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false
  return true
}

function kindOf(path: ChannelPath, interpolation: Interpolation): number {
  if (interpolation === 'STEP') return KIND_STEP
  if (interpolation === 'LINEAR') return path === 'rotation' ? KIND_SLERP : KIND_LINEAR
  return path === 'rotation' ? KIND_CUBIC_ROTATION : KIND_CUBIC
}

function describeElement(element: number, perKey: number): string {
  if (perKey === 1) return `key ${element} value`
  const key = Math.floor(element / 3)
  return `key ${key} ${['in-tangent', 'value', 'out-tangent'][element % 3]}`
}

export { prepareSquad } from './segments.ts'
