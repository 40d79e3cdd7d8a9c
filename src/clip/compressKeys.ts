import type { Channel, Clip } from './clipTypes.ts'
import {
  decodeKey,
  floatKeys,
  packedWidth,
  quantize,
  type CompactTrack,
  type Quantized,
} from './compactClip.ts'
import { KIND_LINEAR } from './kinds.ts'
import { sampleChannel } from './sample.ts'

/**
 * compressClip's key selection (compress.ts says what the budgets mean): per time track of the exact clip, the
 * keys its channels keep in common, quantized. Setup code.
 *
 *   1. Candidate keys: the track's key times, and for a rotation whose keys are more than 15° apart, times in
 *      between (slerp over a wide arc is not what corrected nlerp draws); every channel sampled exactly there.
 *   2. Each channel quantized over its candidate keys; float keys where the grid's own error exceeds its grid
 *      budget.
 *   3. A channel that its first key reproduces within its budget (a joint's constant translation, a scale of
 *      1) goes to a track of its own with one float key, which the sampler copies.
 *   4. The others keep, greedily from the first key, the farthest next key such that every channel's
 *      interpolated curve between them (corrected nlerp, lerp) stays within its budget of the exact one at every
 *      candidate key and candidate middle in between.
 *
 * Channels keep a track in common so that sampling finds a segment once per track and reads every channel's
 * keys from one run of memory (compactClip.ts); dropping keys per channel kept a third fewer keys but sampled
 * 1.8× slower.
 */

/** A channel's budgets in its own units: for its values, and for its quantization grid's rounding. */
export interface ChannelBudget {
  readonly value: number
  readonly grid: number
}

/** Largest rotation between two keys (corrected nlerp is within 1e-7 rad of slerp up to there). */
const MAX_SEGMENT_RADIANS = (15 * Math.PI) / 180
/** The cosine between two unit quaternions MAX_SEGMENT_RADIANS of rotation apart (half the angle). */
const MIN_SEGMENT_COS = Math.cos(MAX_SEGMENT_RADIANS / 2)

/** The compact tracks of `clip` (every channel LINEAR): its moving tracks in order, then its constant one. */
export function compactTracks(clip: Clip, budget: (ch: Channel) => ChannelBudget): CompactTrack[] {
  const groups = new Map<Float32Array, Channel[]>()
  for (const ch of clip.channels) {
    const group = groups.get(ch.times)
    if (group) group.push(ch)
    else groups.set(ch.times, [ch])
  }
  const tracks: CompactTrack[] = []
  const constant: CompactTrack['channels'][number][] = []
  for (const group of groups.values()) {
    const { track, still } = compactGroup(group, budget)
    if (track) tracks.push(track)
    constant.push(...still)
  }
  if (constant.length > 0) tracks.push({ times: new Float32Array(1), channels: constant })
  return tracks
}

/** What one channel is judged by: its exact values and middles at the candidate keys, its grid and budget. */
interface Plan {
  readonly ch: Channel
  readonly exact: Float64Array
  readonly middles: Float64Array
  readonly decoded: Float64Array
  readonly stored: Quantized
  readonly budget: number
  readonly rotation: boolean
}

function compactGroup(channels: readonly Channel[], budget: (ch: Channel) => ChannelBudget) {
  const times = candidateTimes(channels)
  const n = times.length
  const still: CompactTrack['channels'][number][] = []
  const moving: Plan[] = []
  for (const ch of channels) {
    const plan = planChannel(ch, times, budget(ch))
    const meta = { node: ch.node, nodeName: ch.nodeName, path: ch.path, components: ch.components }
    if (reproducedByFirst(plan, n)) still.push({ keys: meta, stored: firstKey(plan) })
    else moving.push(plan)
  }
  if (moving.length === 0) return { track: null, still }
  const approx = new Float64Array(4 + Math.max(...moving.map((p) => p.ch.components)))
  const fits = (i: number, j: number): boolean => moving.every((p) => segmentFits(p, times, i, j, approx))
  const kept = keepKeys(n, fits)
  const track: CompactTrack = {
    times: Float32Array.from(kept, (k) => times[k]!),
    channels: moving.map((p) => ({
      keys: { node: p.ch.node, nodeName: p.ch.nodeName, path: p.ch.path, components: p.ch.components },
      stored: selected(p.stored, kept, p.ch.components),
    })),
  }
  return { track, still }
}

/** The track's key times, with times in between where a rotation turns more than MAX_SEGMENT_RADIANS. */
function candidateTimes(channels: readonly Channel[]): Float32Array {
  const source = channels[0]!.times
  const times: number[] = []
  for (let k = 0; k < source.length; k++) {
    times.push(source[k]!)
    if (k + 1 === source.length) break
    let parts = 1
    for (const ch of channels) {
      if (ch.path !== 'rotation') continue
      const cos = Math.abs(dot(ch.values, 4 * k, ch.values, 4 * k + 4))
      parts = Math.max(parts, Math.ceil((2 * Math.acos(Math.min(1, cos))) / MAX_SEGMENT_RADIANS))
    }
    for (let p = 1; p < parts; p++) {
      const t = Math.fround(source[k]! + ((source[k + 1]! - source[k]!) * p) / parts)
      if (t > times[times.length - 1]! && t < source[k + 1]!) times.push(t)
    }
  }
  return Float32Array.from(times)
}

function planChannel(ch: Channel, times: Float32Array, budget: ChannelBudget): Plan {
  const n = times.length
  const c = ch.components
  const exact = new Float64Array(n * c)
  const middles = new Float64Array(Math.max(0, n - 1) * c)
  const value = new Float32Array(c)
  const cursor = new Uint32Array(1)
  for (let k = 0; k < n; k++) {
    // Exactly on a key, the exact sampler gives the key itself.
    sampleChannel(value, 0, ch, times[k]!, cursor, 0)
    exact.set(value, k * c)
    if (k + 1 === n) break
    sampleChannel(value, 0, ch, (times[k]! + times[k + 1]!) / 2, cursor, 0)
    middles.set(value, k * c)
  }
  const rotation = ch.path === 'rotation'
  const keys = { node: ch.node, nodeName: ch.nodeName, path: ch.path, components: c, times, values: exact }
  const decoded = new Float64Array(n * c)
  const decodeAll = (stored: Quantized): Quantized => {
    for (let k = 0; k < n; k++) decodeKey(decoded, k * c, stored, c, k)
    return stored
  }
  let stored = decodeAll(quantize(keys))
  let worst = 0
  for (let k = 0; k < n; k++) worst = Math.max(worst, difference(exact, k * c, decoded, k * c, c, rotation))
  if (worst > budget.grid) stored = decodeAll(floatKeys(keys))
  return { ch, exact, middles, decoded, stored, budget: budget.value, rotation }
}

/** Whether the channel's first key is within budget of it at every candidate key and middle. */
function reproducedByFirst(p: Plan, n: number): boolean {
  const c = p.ch.components
  for (let k = 0; k < n; k++) {
    if (difference(p.exact, k * c, p.exact, 0, c, p.rotation) > p.budget) return false
    if (k + 1 < n && difference(p.middles, k * c, p.exact, 0, c, p.rotation) > p.budget) return false
  }
  return true
}

/**
 * A constant channel's one key, float32 as KIND_LINEAR (a rotation's unit quaternion too): the sampler copies
 * it, with no grid to undo, and it costs a dozen bytes.
 */
function firstKey(p: Plan): Quantized {
  const values = Float32Array.from(p.exact.subarray(0, p.ch.components))
  return { kind: KIND_LINEAR, packed: null, stride: 0, offset: 0, dequant: null, values }
}

/**
 * Whether the curve from decoded key i to j stays within budget at every candidate key and middle between (and,
 * for a rotation, turns at most MAX_SEGMENT_RADIANS: the sampler's correction and normalization need it).
 */
function segmentFits(p: Plan, times: Float32Array, i: number, j: number, approx: Float64Array): boolean {
  const c = p.ch.components
  if (p.rotation && dot(p.decoded, i * 4, p.decoded, j * 4) < MIN_SEGMENT_COS) return false
  const span = times[j]! - times[i]!
  for (let k = i; k <= j; k++) {
    interpolate(approx, p.decoded, i, j, (times[k]! - times[i]!) / span, c, p.rotation)
    if (difference(p.exact, k * c, approx, 0, c, p.rotation) > p.budget) return false
    if (k === j) break
    interpolate(approx, p.decoded, i, j, ((times[k]! + times[k + 1]!) / 2 - times[i]!) / span, c, p.rotation)
    if (difference(p.middles, k * c, approx, 0, c, p.rotation) > p.budget) return false
  }
  return true
}

/**
 * The keys to keep (indices, ascending, first and last always): greedy from the start, each next kept key the
 * farthest whose segment `fits` (probing by doubling, then bisecting).
 */
function keepKeys(n: number, fits: (i: number, j: number) => boolean): number[] {
  const kept = [0]
  let i = 0
  while (i < n - 1) {
    let good = i + 1
    let probe = 2
    while (i + probe <= n - 1 && fits(i, i + probe)) {
      good = i + probe
      probe *= 2
    }
    let bad = Math.min(i + probe, n)
    while (bad - good > 1) {
      const mid = (good + bad) >> 1
      if (fits(i, mid)) good = mid
      else bad = mid
    }
    kept.push(good)
    i = good
  }
  return kept
}

/**
 * The largest component difference of two elements (vectors), or for rotations the chord between the
 * quaternions taken in one hemisphere, times 2: the rotation angle between them, to first order.
 */
function difference(
  a: ArrayLike<number>,
  ao: number,
  b: ArrayLike<number>,
  bo: number,
  c: number,
  rotation: boolean,
): number {
  if (rotation) {
    const sign = dot(a, ao, b, bo) < 0 ? -1 : 1
    let d2 = 0
    for (let j = 0; j < 4; j++) d2 += (a[ao + j]! - sign * b[bo + j]!) ** 2
    return 2 * Math.sqrt(d2)
  }
  let d = 0
  for (let j = 0; j < c; j++) d = Math.max(d, Math.abs(a[ao + j]! - b[bo + j]!))
  return d
}

/**
 * out = the compact curve between decoded keys i and j at u, as sampleCompact.ts draws it: corrected nlerp
 * with its series normalization, or lerp.
 */
function interpolate(
  out: Float64Array,
  keys: Float64Array,
  i: number,
  j: number,
  u: number,
  c: number,
  rotation: boolean,
): void {
  const a = i * c
  const b = j * c
  if (!rotation) {
    for (let k = 0; k < c; k++) out[k] = keys[a + k]! + (keys[b + k]! - keys[a + k]!) * u
    return
  }
  let e = 0
  for (let k = 0; k < 4; k++) e += (keys[b + k]! - keys[a + k]!) ** 2
  e *= 0.5
  const t = u + u * (u - 0.5) * (u - 1) * ((2 / 3) * e)
  const s = 2 * t * (1 - t) * e
  const inv = 1 + s * (0.5 + s * 0.375)
  for (let k = 0; k < 4; k++) out[k] = (keys[a + k]! + (keys[b + k]! - keys[a + k]!) * t) * inv
}

function dot(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  return a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!
}

/** The stored form of the kept keys only, on the grid all keys were judged on; unpacked (stride its width). */
function selected(stored: Quantized, kept: readonly number[], components: number): Quantized {
  if (stored.packed === null) {
    const values = new Float32Array(kept.length * components)
    kept.forEach((k, i) =>
      values.set(stored.values.subarray(k * components, (k + 1) * components), i * components),
    )
    return { ...stored, values }
  }
  const w = packedWidth(stored, components)
  const packed = new Uint16Array(kept.length * w)
  kept.forEach((k, i) => {
    const from = k * stored.stride + stored.offset
    packed.set(stored.packed!.subarray(from, from + w), i * w)
  })
  return { ...stored, packed, stride: w, offset: 0 }
}
