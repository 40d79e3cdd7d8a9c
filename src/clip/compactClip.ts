import { adoptClip, buildClip, freezeChannel } from './clip.ts'
import type { Channel, ChannelPath, Clip, ClipCompression, RawChannel } from './clipTypes.ts'
import {
  KIND_COMPACT_FLOAT_ROTATION,
  KIND_COMPACT_ROTATION,
  KIND_COMPACT_VECTOR,
  KIND_LINEAR,
} from './kinds.ts'

/**
 * The compact clip format (made by compressClip, compress.ts; sampled by sampleCompact.ts): channels keyed at
 * the times compressClip kept, their keys quantized to 16 bits per component over each channel's own range
 * (`Channel.packed`, `Channel.dequant`): a rotation's four components (KIND_COMPACT_ROTATION, 8 bytes a key,
 * hemisphere-aligned key to key, one step for all four: the widest range's), a translation's, scale's or
 * weights' each (KIND_COMPACT_VECTOR).
 *
 * Channels kept at the same times share a time track and one packed array, key-major: key k of every channel
 * of the track side by side, so sampling a segment reads two runs of memory for all of them (the exact
 * sampler's slerp segments are packed so for the same reason):
 *
 *   packed   | key 0: ch a (4) | ch b (4) | ch c (3) | key 1: ch a | ch b | … |    u16, stride 11 here
 *   dequant  | min c0 | min c1 | … | step c0 | step c1 | … |                       float32, per channel
 *
 * The range is the keys' own (min and max over the channel), so a joint that turns 30° gets 16 bits over its
 * 30°, not over a whole revolution: ~0.5e-5 per component for it. A channel whose 16-bit grid alone would
 * exceed its tolerance (a large character in small units, a long root translation) keeps float32 keys
 * instead (floatKeys): KIND_LINEAR for a translation or scale, KIND_COMPACT_FLOAT_ROTATION for a rotation.
 */

const EMPTY = new Float32Array(0)
const NO_KEYS = new Uint16Array(0)
const NO_RANGES = new Float64Array(0)

/** Quantization levels per component. */
const LEVELS = 65535

/** One channel's keys as compressClip quantizes them: times and float values. */
export interface CompactKeys {
  readonly node: number
  readonly nodeName: string
  readonly path: ChannelPath
  readonly components: number
  readonly times: Float32Array
  /** `times.length · components` floats (rotations unit quaternions [x, y, z, w]). */
  readonly values: ArrayLike<number>
}

/**
 * A channel's stored form: its kind and packed keys with their ranges, or for KIND_LINEAR (a translation or
 * scale whose range 16 bits cannot cover within its tolerance) float keys.
 */
export interface Quantized {
  readonly kind: number
  readonly packed: Uint16Array | null
  /** u16s from one key to the next in `packed`, and the channel's first. */
  readonly stride: number
  readonly offset: number
  readonly dequant: Float64Array | null
  /** Float keys (KIND_LINEAR, KIND_COMPACT_FLOAT_ROTATION), else empty. */
  readonly values: Float32Array
}

/**
 * A channel's keys kept as float32 where 16 bits cannot meet its tolerance (see Quantized): a translation or
 * scale as KIND_LINEAR, a rotation as KIND_COMPACT_FLOAT_ROTATION (hemisphere-aligned).
 */
export function floatKeys(keys: CompactKeys): Quantized {
  const n = keys.times.length
  if (keys.path !== 'rotation') {
    return {
      kind: KIND_LINEAR,
      packed: null,
      stride: 0,
      offset: 0,
      dequant: null,
      values: Float32Array.from(keys.values),
    }
  }
  const values = Float32Array.from(aligned(keys.values, n))
  return { kind: KIND_COMPACT_FLOAT_ROTATION, packed: null, stride: 0, offset: 0, dequant: null, values }
}

/** Quantizes a channel's keys (see the header). */
export function quantize(keys: CompactKeys): Quantized {
  const n = keys.times.length
  if (keys.path !== 'rotation') return quantizeRange(KIND_COMPACT_VECTOR, keys.values, n, keys.components)
  return quantizeRange(KIND_COMPACT_ROTATION, aligned(keys.values, n), n, 4)
}

/** Rotation keys with each key in its predecessor's hemisphere (so lerping key to key takes the short way). */
function aligned(values: ArrayLike<number>, n: number): Float64Array {
  const q = Float64Array.from(values)
  for (let k = 1; k < n; k++) {
    if (dot4(q, 4 * (k - 1), q, 4 * k) < 0) for (let i = 0; i < 4; i++) q[4 * k + i] = -q[4 * k + i]!
  }
  return q
}

function quantizeRange(kind: number, values: ArrayLike<number>, n: number, c: number): Quantized {
  const dequant = new Float64Array(2 * c)
  for (let i = 0; i < c; i++) {
    let min = Infinity
    let max = -Infinity
    for (let k = 0; k < n; k++) {
      min = Math.min(min, values[k * c + i]!)
      max = Math.max(max, values[k * c + i]!)
    }
    dequant[i] = min
    dequant[c + i] = (max - dequant[i]!) / LEVELS
  }
  // A rotation's components share one step, the widest range's: the sampler reads one number for all four.
  if (kind === KIND_COMPACT_ROTATION) dequant.fill(Math.max(...dequant.subarray(4, 8)), 4, 8)
  const packed = new Uint16Array(n * c)
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < c; i++) {
      const step = dequant[c + i]!
      const u = step > 0 ? Math.round((values[k * c + i]! - dequant[i]!) / step) : 0
      packed[k * c + i] = Math.min(LEVELS, Math.max(0, u))
    }
    if (kind === KIND_COMPACT_ROTATION) unitOnGrid(packed, k * 4, values, dequant)
  }
  return { kind, packed, stride: c, offset: 0, dequant, values: EMPTY }
}

/**
 * A rotation key's grid point moved to the one, among its components' floors and ceilings, whose quaternion is
 * nearest unit length: the sampler does not renormalize a key (a non-unit quaternion scales what it rotates by
 * its length squared), and 16 independent roundings leave a length off by ~1e-5; the best of 16 neighbours is
 * off by ~1e-7, each component still within one step of the key.
 */
function unitOnGrid(packed: Uint16Array, p: number, values: ArrayLike<number>, dequant: Float64Array): void {
  let best = -1
  let bestOff = Infinity
  for (let mask = 0; mask < 16; mask++) {
    let length2 = 0
    for (let i = 0; i < 4; i++) {
      const step = dequant[4 + i]!
      const exact = step > 0 ? (values[p + i]! - dequant[i]!) / step : 0
      const u = Math.min(LEVELS, Math.max(0, (mask >> i) & 1 ? Math.ceil(exact) : Math.floor(exact)))
      const v = dequant[i]! + u * step
      length2 += v * v
    }
    if (Math.abs(length2 - 1) < bestOff) {
      bestOff = Math.abs(length2 - 1)
      best = mask
    }
  }
  for (let i = 0; i < 4; i++) {
    const step = dequant[4 + i]!
    const exact = step > 0 ? (values[p + i]! - dequant[i]!) / step : 0
    packed[p + i] = Math.min(LEVELS, Math.max(0, (best >> i) & 1 ? Math.ceil(exact) : Math.floor(exact)))
  }
}

/**
 * Key k of a stored channel as floats into `out[o ..]`, as the sampler reads it (a rotation as stored: unit to
 * ~1e-7, unitOnGrid). Setup code (compressClip, expandCompactClip).
 */
export function decodeKey(out: Float64Array, o: number, q: Quantized, components: number, k: number): void {
  if (q.packed === null) {
    for (let i = 0; i < components; i++) out[o + i] = q.values[k * components + i]!
  } else {
    const base = k * q.stride + q.offset
    const dequant = q.dequant!
    for (let i = 0; i < components; i++)
      out[o + i] = dequant[i]! + q.packed[base + i]! * dequant[components + i]!
  }
}

function dot4(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  return a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!
}

/** A time track of a compact clip: its key times and its channels' stored keys at those times. */
export interface CompactTrack {
  readonly times: Float32Array
  readonly channels: readonly {
    readonly keys: Omit<CompactKeys, 'times' | 'values'>
    readonly stored: Quantized
  }[]
}

/** Width in u16s of a stored channel's key in a packed array (0 for float keys). */
export function packedWidth(stored: Quantized, components: number): number {
  return stored.packed === null ? 0 : components
}

/**
 * A compact clip of the given tracks' channels (track by track, each track's in its order), named and marked as
 * the clip it was made from. Each track's packed keys go into one array, key-major. The clip is frozen and known
 * to clipOf and the plugin as buildClip's are.
 */
export function makeCompactClip(
  source: Clip,
  tracks: readonly CompactTrack[],
  compression: ClipCompression,
): Clip {
  const built: Channel[] = []
  for (const track of tracks) {
    const n = track.times.length
    const widths = track.channels.map(({ keys, stored }) => packedWidth(stored, keys.components))
    const stride = widths.reduce((a, b) => a + b, 0)
    const packed = stride > 0 ? new Uint16Array(n * stride) : null
    const first = built.length
    const floats = runs(
      track.channels.map(({ stored }) => stored.values),
      (n) => new Float32Array(n),
    )
    const ranges = runs(
      track.channels.map(({ stored }) => stored.dequant ?? NO_RANGES),
      (n) => new Float64Array(n),
    )
    let offset = 0
    track.channels.forEach(({ keys, stored }, c) => {
      const w = widths[c]!
      if (w > 0) {
        for (let k = 0; k < n; k++) {
          const from = k * stored.stride + stored.offset
          packed!.set(stored.packed!.subarray(from, from + w), k * stride + offset)
        }
      }
      built.push(
        freezeChannel({
          node: keys.node,
          nodeName: keys.nodeName,
          path: keys.path,
          interpolation: 'LINEAR',
          components: keys.components,
          times: track.times,
          track: first,
          kind: stored.kind,
          values: floats[c]!,
          slerpSegments: null,
          slerpStride: 0,
          slerpOffset: 0,
          hermiteSegments: null,
          hermiteStride: 0,
          hermiteOffset: 0,
          squad: null,
          // Never null in a compact clip: the sampler's reads of these fields stay of one type.
          packed: w > 0 ? packed : NO_KEYS,
          packedStride: w > 0 ? stride : 0,
          packedOffset: w > 0 ? offset : 0,
          dequant: ranges[c]!,
        }),
      )
      offset += w
    })
  }
  const clip: Clip = Object.freeze({
    name: source.name,
    duration: source.duration,
    channels: Object.freeze(built),
    frameChannels: built.slice(),
    markers: source.markers,
    compression: Object.freeze({ ...compression }),
  })
  adoptClip(clip)
  return clip
}

/**
 * A track's channels' float keys (`Quantized.values`) and ranges (`dequant`) each as views of one array, channel
 * after channel: the sampler reads every channel of the track per character, and one run of memory keeps those
 * reads on few cache lines and pages (each channel's own small arrays would lie wherever compression happened to
 * allocate them).
 */
function runs<A extends Float32Array | Float64Array>(parts: readonly A[], make: (length: number) => A): A[] {
  const all = make(parts.reduce((sum, a) => sum + a.length, 0))
  let at = 0
  return parts.map((a) => {
    if (a.length === 0) return a
    all.set(a, at)
    at += a.length
    return all.subarray(at - a.length, at) as A
  })
}

/**
 * The exact clip of a compact clip's keys, decoded (LINEAR, slerped): what additive layers take their
 * differences from. Made once per use by setup code.
 */
export function expandCompactClip(clip: Clip): Clip {
  if (clip.compression === null) return clip
  const channels: RawChannel[] = clip.channels.map((ch) => {
    const n = ch.times.length
    const values = new Float64Array(n * ch.components)
    for (let k = 0; k < n; k++) decodeKey(values, k * ch.components, quantizedOf(ch), ch.components, k)
    return {
      node: ch.node,
      nodeName: ch.nodeName,
      path: ch.path,
      times: ch.times,
      values,
      components: ch.components,
    }
  })
  return buildClip({ name: clip.name, channels, markers: clip.markers })
}

/** A compact clip's channel's stored form. */
export function quantizedOf(ch: Channel): Quantized {
  return {
    kind: ch.kind,
    packed: ch.packed !== null && ch.packed.length > 0 ? ch.packed : null,
    stride: ch.packedStride,
    offset: ch.packedOffset,
    dequant: ch.dequant,
    values: ch.values,
  }
}

/**
 * Bytes a clip's keys take in memory: key times, values, the per-segment caches the exact sampler reads
 * (slerp, Hermite, and squad's once made), and a compact clip's packed keys and ranges; each array counted
 * once however many channels share it. Object overhead is left out.
 */
export function clipBytes(clip: Clip): number {
  const seen = new Set<ArrayBufferView>()
  let bytes = 0
  const add = (a: ArrayBufferView | null | undefined): void => {
    if (!a || seen.has(a)) return
    seen.add(a)
    bytes += a.byteLength
  }
  for (const ch of clip.channels) {
    add(ch.times)
    add(ch.values)
    add(ch.slerpSegments)
    add(ch.hermiteSegments)
    add(ch.squad?.segments)
    add(ch.packed)
    add(ch.dequant)
  }
  return bytes
}
