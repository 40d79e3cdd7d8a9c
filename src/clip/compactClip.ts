import { adoptClip, buildClip, freezeChannel } from './clip.ts'
import type { Channel, ChannelPath, Clip, ClipCompression, RawChannel } from './clipTypes.ts'
import { KIND_COMPACT_QUATERNION, KIND_COMPACT_ROTATION, KIND_COMPACT_VECTOR, KIND_LINEAR } from './kinds.ts'

/**
 * The compact clip format (made by compressClip, compress.ts; sampled by sampleCompact.ts): per channel its
 * own key times (float32, the keys compressClip kept) and its keys quantized to 16 bits per component over the
 * channel's own range (`Channel.packed`, `Channel.dequant`):
 *
 *   rotation      KIND_COMPACT_ROTATION: the three components other than `dropped`, the component that
 *                 stays farthest from 0 over the channel's keys; each key's sign is chosen to make it ≥ 0, so
 *                 it is sqrt(1 − the others²). 6 bytes a key. When every component comes within 0.3 of 0 at
 *                 some key (a channel turning through most of a revolution), KIND_COMPACT_QUATERNION: all
 *                 four, hemisphere-aligned key to key, normalized after the lerp. 8 bytes a key.
 *   translation,  KIND_COMPACT_VECTOR: each component.
 *   scale, weights
 *
 *   packed   | k0 c0 | k0 c1 | k0 c2 | k1 c0 | … |         u16, key-major
 *   dequant  | min c0 | min c1 | min c2 | step c0 | step c1 | step c2 | (dropped) |   float32
 *
 * The range is the keys' own (min and max over the channel), so a joint that turns 30° gets 16 bits over its
 * 30°, not over a whole revolution: ~0.5e-5 per component for it. A channel whose 16-bit grid alone would
 * exceed its tolerance (a large character in small units, a long root translation) keeps float32 keys
 * instead (floatKeys): KIND_LINEAR for a translation or scale, KIND_COMPACT_QUATERNION without packed keys
 * for a rotation.
 */

const EMPTY = new Float32Array(0)

/** Quantization levels per component. */
const LEVELS = 65535

/** Below this, a component is too close to 0 to rebuild from the others (its error grows as 1/|q_d|). */
const MIN_DROPPED = 0.3

/** One channel's keys as compressClip hands them over: the kept keys' times and float values. */
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
  readonly dequant: Float32Array | null
  /** KIND_LINEAR's keys (else empty). */
  readonly values: Float32Array
}

/**
 * A channel's keys kept as float32 where 16 bits cannot meet its tolerance (see Quantized): a translation or
 * scale as KIND_LINEAR; a rotation as KIND_COMPACT_QUATERNION without packed keys, hemisphere-aligned.
 */
export function floatKeys(keys: CompactKeys): Quantized {
  const values = Float32Array.from(keys.values)
  if (keys.path !== 'rotation') return { kind: KIND_LINEAR, packed: null, dequant: null, values }
  for (let k = 1; k < keys.times.length; k++) {
    if (dot4(values, 4 * (k - 1), values, 4 * k) < 0)
      for (let i = 0; i < 4; i++) values[4 * k + i] = -values[4 * k + i]!
  }
  return { kind: KIND_COMPACT_QUATERNION, packed: null, dequant: null, values }
}

/** Quantizes a channel's keys (see the header). */
export function quantize(keys: CompactKeys): Quantized {
  const n = keys.times.length
  if (keys.path !== 'rotation') return quantizeRange(KIND_COMPACT_VECTOR, keys.values, n, keys.components, -1)
  const q = Float64Array.from(keys.values)
  const dropped = droppedComponent(q, n)
  if (dropped < 0) {
    for (let k = 1; k < n; k++) {
      if (dot4(q, 4 * (k - 1), q, 4 * k) < 0) for (let i = 0; i < 4; i++) q[4 * k + i] = -q[4 * k + i]!
    }
    return quantizeRange(KIND_COMPACT_QUATERNION, q, n, 4, -1)
  }
  const three = new Float64Array(3 * n)
  for (let k = 0; k < n; k++) {
    const sign = q[4 * k + dropped]! < 0 ? -1 : 1
    for (let i = 0, j = 0; i < 4; i++) if (i !== dropped) three[3 * k + j++] = sign * q[4 * k + i]!
  }
  return quantizeRange(KIND_COMPACT_ROTATION, three, n, 3, dropped)
}

/**
 * The component of the channel's rotations (n × 4) whose smallest magnitude over the keys is largest, or -1
 * when that is below MIN_DROPPED.
 */
function droppedComponent(q: Float64Array, n: number): number {
  let best = -1
  let bestMin = MIN_DROPPED
  for (let i = 0; i < 4; i++) {
    let min = Infinity
    for (let k = 0; k < n; k++) min = Math.min(min, Math.abs(q[4 * k + i]!))
    if (min >= bestMin) {
      best = i
      bestMin = min
    }
  }
  return best
}

function quantizeRange(
  kind: number,
  values: ArrayLike<number>,
  n: number,
  c: number,
  dropped: number,
): Quantized {
  const dequant = new Float32Array(2 * c + (dropped >= 0 ? 1 : 0))
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
  if (dropped >= 0) dequant[2 * c] = dropped
  const packed = new Uint16Array(n * c)
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < c; i++) {
      const step = dequant[c + i]!
      const u = step > 0 ? Math.round((values[k * c + i]! - dequant[i]!) / step) : 0
      packed[k * c + i] = Math.min(LEVELS, Math.max(0, u))
    }
  }
  return { kind, packed, dequant, values: EMPTY }
}

/**
 * Key k of a quantized channel as floats into `out[o ..]`: a rotation as a unit quaternion [x, y, z, w] (the
 * dropped component rebuilt ≥ 0; KIND_COMPACT_QUATERNION normalized), other paths their components. What the
 * sampler reads at a key; setup code (compressClip, expandCompactClip).
 */
export function decodeKey(out: Float64Array, o: number, q: Quantized, components: number, k: number): void {
  const { kind } = q
  if (q.packed === null) {
    for (let i = 0; i < components; i++) out[o + i] = q.values[k * components + i]!
    if (kind === KIND_COMPACT_QUATERNION) normalize4(out, o)
    return
  }
  const packed = q.packed!
  const dequant = q.dequant!
  const c = kind === KIND_COMPACT_ROTATION ? 3 : components
  const base = k * c
  if (kind === KIND_COMPACT_ROTATION) {
    const d = dequant[6]!
    let sum = 0
    for (let i = 0, j = 0; i < 4; i++) {
      if (i === d) continue
      const v = dequant[j]! + packed[base + j]! * dequant[3 + j]!
      out[o + i] = v
      sum += v * v
      j++
    }
    out[o + d] = Math.sqrt(Math.max(0, 1 - sum))
    return
  }
  for (let i = 0; i < c; i++) out[o + i] = dequant[i]! + packed[base + i]! * dequant[c + i]!
  if (kind === KIND_COMPACT_QUATERNION) normalize4(out, o)
}

function normalize4(out: Float64Array, o: number): void {
  const inv = 1 / Math.sqrt(dot4(out, o, out, o))
  for (let i = 0; i < 4; i++) out[o + i] = out[o + i]! * inv
}

function dot4(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  return a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!
}

/**
 * A compact clip of the given channels (in their order), named and marked as the clip it was made from.
 * Channels with equal key times share one array and key cursor slot, as buildClip's do. The clip is frozen and
 * known to clipOf and the plugin as buildClip's are.
 */
export function makeCompactClip(
  source: Clip,
  channels: readonly { keys: CompactKeys; quantized: Quantized }[],
  compression: ClipCompression,
): Clip {
  const tracks: { times: Float32Array; index: number }[] = []
  const built: Channel[] = channels.map(({ keys, quantized }, index) => {
    let track = tracks.find((tr) => sameTimes(tr.times, keys.times))
    if (!track) tracks.push((track = { times: keys.times, index }))
    return freezeChannel({
      node: keys.node,
      nodeName: keys.nodeName,
      path: keys.path,
      interpolation: 'LINEAR',
      components: keys.components,
      times: track.times,
      track: track.index,
      kind: quantized.kind,
      values: quantized.values,
      slerpSegments: null,
      slerpStride: 0,
      slerpOffset: 0,
      hermiteSegments: null,
      hermiteStride: 0,
      hermiteOffset: 0,
      squad: null,
      packed: quantized.packed,
      dequant: quantized.dequant,
    })
  })
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

function sameTimes(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false
  return true
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
  return { kind: ch.kind, packed: ch.packed, dequant: ch.dequant, values: ch.values }
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
