import { AnimationError, showValue } from '../errors.ts'
import { packSegments } from './segments.ts'
import { KIND_CUBIC, KIND_CUBIC_ROTATION, KIND_LINEAR, KIND_SLERP, KIND_STEP } from './kinds.ts'
import {
  CHANNEL_PATHS,
  INTERPOLATIONS,
  type BuildClipOptions,
  type Channel,
  type ChannelPath,
  type Clip,
  type ClipMarker,
  type Interpolation,
  type RawChannel,
  type RawClip,
  type SquadSegments,
} from './clipTypes.ts'

/** `Channel.kind` values (src/clip/kinds.ts). */
export {
  KIND_COMPACT_FLOAT_ROTATION,
  KIND_COMPACT_ROTATION,
  KIND_COMPACT_VECTOR,
  KIND_CUBIC,
  KIND_CUBIC_ROTATION,
  KIND_LINEAR,
  KIND_SLERP,
  KIND_STEP,
} from './kinds.ts'

export type {
  BuildClipOptions,
  Channel,
  ChannelPath,
  Clip,
  ClipCompression,
  ClipMarker,
  Interpolation,
  RawChannel,
  RawClip,
  RotationMode,
  SquadSegments,
} from './clipTypes.ts'
export { CHANNEL_PATHS, INTERPOLATIONS } from './clipTypes.ts'

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
  const tracks: Tracks = new Map()
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
    compression: null,
  })
  for (const ch of channels) owners.set(ch, clip)
  built.add(clip)
  return clip
}

/**
 * A clip with `clip`'s channels (the same frozen objects: nothing is checked or built again), duration and
 * compression under another name, with its own markers (checked as buildClip checks them): a file's copy of an
 * animation.
 */
export function clipWithChannels(clip: Clip, name: string, markers?: unknown): Clip {
  const own = String(name)
  const copy: Clip = Object.freeze({ ...clip, name: own, markers: buildMarkers(own, markers, clip.duration) })
  built.add(copy)
  return copy
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

/** The clips buildClip and clipWithChannels made (frozen, so their channels are the ones they were made with). */
const built = new WeakSet<object>()

/** Whether buildClip (or clipWithChannels) made `clip`: its channels were checked and built here. */
export function isBuiltClip(clip: unknown): boolean {
  return typeof clip === 'object' && clip !== null && built.has(clip)
}

/**
 * Takes a clip as built here: a structured clone of a built clip (a worker thread's copy:
 * systems/workers/worker.ts), or one made here from built channels (compactClip.ts). Its channels then find
 * their clip (clipOf, for squad's segments made on first use), and isBuiltClip knows it.
 */
export function adoptClip(clip: Clip): void {
  for (const ch of clip.channels) owners.set(ch, clip)
  built.add(clip)
}

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
  tracks: Tracks,
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
  // A file's keys come as a Float32Array: copied whole and checked in one pass. Anything else, or a problem
  // found there, goes through the loop that names it.
  if (!(raw.times instanceof Float32Array && copyTimes(times, raw.times))) {
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
  if (!(raw.values instanceof Float32Array && copyFinite(values, raw.values))) {
    for (let i = 0; i < expected; i++) {
      const v = Number(raw.values[i])
      values[i] = v
      if (!Number.isFinite(values[i]!)) {
        const element = Math.floor(i / components)
        const why = Number.isFinite(v) ? ', not finite as a float32' : ''
        fail(`${describeElement(element, perKey)} component ${i % components} is ${v}${why}`)
      }
    }
  }

  if (path === 'rotation') {
    // Normalize every element that is a rotation (not the cubic tangents); reject zero-length ones.
    for (let e = 0; e < keyCount * perKey; e++) {
      if (perKey === 3 && e % 3 !== 1) continue
      const o = e * 4
      const len = Math.sqrt(values[o]! ** 2 + values[o + 1]! ** 2 + values[o + 2]! ** 2 + values[o + 3]! ** 2)
      if (!(len > 1e-6)) fail(`${describeElement(e, perKey)} is a zero-length quaternion (length ${len})`)
      if (options.keepUnitRotations === true && Math.abs(len - 1) <= 1e-6) continue
      const inv = 1 / len
      for (let j = 0; j < 4; j++) values[o + j] = values[o + j]! * inv
    }
  }

  const slerp = path === 'rotation' && interpolation === 'LINEAR'

  const key = timesKey(times)
  const same = tracks.get(key)
  let track = same?.find((tr) => sameTimes(tr.times, times))
  if (!track) {
    track = { times, index }
    if (same) same.push(track)
    else tracks.set(key, [track])
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
    // The per-segment arrays, their strides and offsets are made when they are packed per track (packSegments).
    slerpSegments: null,
    slerpStride: 0,
    slerpOffset: 0,
    hermiteSegments: null,
    hermiteStride: 0,
    hermiteOffset: 0,
    squad: slerp ? squadHolder() : null,
    packed: null,
    packedStride: 0,
    packedOffset: 0,
    dequant: null,
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
export function freezeChannel(c: Mutable<Channel>): Channel {
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
    packed: c.packed,
    packedStride: c.packedStride,
    packedOffset: c.packedOffset,
    dequant: c.dequant,
  })
}

/**
 * A clip's time tracks by timesKey: one per distinct key-time array, channels with equal times sharing the
 * first one's. Looked up by a hash of the times, so a clip of many channels with times of their own costs
 * time in its keys, not in channels × tracks.
 */
type Tracks = Map<number, { times: Float32Array; index: number }[]>

/** A 32-bit hash of key times' float32 bits and count (tracks with equal times have equal keys). */
function timesKey(times: Float32Array): number {
  const bits = new Int32Array(times.buffer, times.byteOffset, times.length)
  let h = times.length
  for (let k = 0; k < bits.length; k++) h = Math.imul(h ^ bits[k]!, 0x9e3779b1) ^ (h >>> 15)
  return h
}

/**
 * `from` into `times`, and whether they are finite, not negative and increasing (buildChannel's loop checks the
 * same, naming what is wrong).
 */
function copyTimes(times: Float32Array, from: Float32Array): boolean {
  times.set(from)
  let previous = -1
  for (let k = 0; k < times.length; k++) {
    const t = times[k]!
    // t - t is 0 for every finite t, NaN for NaN and ±∞.
    if (t - t !== 0 || t < 0 || !(t > previous)) return false
    previous = t
  }
  return true
}

/** `from` into `values`, and whether every value is finite. */
function copyFinite(values: Float32Array, from: Float32Array): boolean {
  values.set(from)
  for (let i = 0; i < values.length; i++) if (values[i]! - values[i]! !== 0) return false
  return true
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
