import { AnimationError } from '../errors.ts'
import { composeMatrix, multiplyMatrices } from '../math/transform.ts'
import type { Channel, Clip } from './clipTypes.ts'
import {
  decodeKey,
  floatKeys,
  makeCompactClip,
  quantize,
  type CompactKeys,
  type Quantized,
} from './compactClip.ts'
import { KIND_COMPACT_QUATERNION, KIND_COMPACT_ROTATION } from './kinds.ts'
import { sampleChannel } from './sample.ts'

/**
 * compressClip: an exact clip made compact (compactClip.ts's format), as ozz-animation's optimizer does it —
 * keys that interpolation reproduces are removed with the error measured in world space, at a distance from
 * each joint, through the hierarchy — and then quantized. Setup code: allocates, runs once per clip.
 *
 * The budget. A joint's local error moves every point it carries: a rotation error θ moves a point at world
 * distance L from the joint by θ·L, a translation error Δ by Δ times its parent's world scale, a scale error by
 * |Δs|/|s|·L. The points measured are each joint's descendants and points at `distance` from each of them, so a
 * joint's reach L is `distance` plus its farthest descendant (over the clip's keys). Errors along a chain add,
 * so each animated joint gets `tolerance` divided by the number of animated joints on the longest chain
 * through it, shared among its channels. Morph weights get tolerance / distance, as a weight.
 *
 * Each channel's keys are quantized first (over all its keys' range), then removed greedily from the start:
 * from a kept key, the farthest next key such that the interpolated curve between them (the compact sampler's
 * own: corrected nlerp, lerp) stays within the channel's budget of the exact clip at every original key and at
 * the middle of every original segment in between. A channel whose 16-bit grid alone exceeds tolerance / √m
 * (m its joint's share: rounding errors add along a chain like a random walk, not in step) keeps float keys. A rotation whose keys are more than 15° apart gets keys
 * from the exact curve in between first: corrected nlerp follows slerp within 1e-7 rad up to there.
 *
 * Then the whole clip is measured: every node's world transform, exact against compact, at every key time of
 * the clip and the quarters between, at its origin and at `distance` along each of its axes. If that error is over
 * the tolerance (quantization is not in the per-channel accounting's control), the budgets are halved and the
 * channels made again, up to four times; the error reached is in `clip.compression.error`.
 *
 * Clips with channels other than LINEAR (STEP, CUBICSPLINE) are returned as they are, exact.
 */

/** A node of the hierarchy a clip animates (an AnimationAsset's nodes fit). */
export interface CompressNode {
  /** Parent node index, -1 for a root. */
  readonly parent: number
  readonly translation: readonly number[]
  /** Unit quaternion [x, y, z, w]. */
  readonly rotation: readonly number[]
  readonly scale: readonly number[]
}

/** Options of compressClip (and of readAsset's and loadAsset's `compress`). */
export interface CompressOptions {
  /** Largest world-space error, in the asset's units (metres by glTF's convention). Default 1e-4 (0.1 mm). */
  tolerance?: number
  /** Distance from each joint at which the error is measured, in the asset's units. Default 1 (1 m). */
  distance?: number
}

export const DEFAULT_TOLERANCE = 1e-4
export const DEFAULT_DISTANCE = 1

/** Halvings of the budgets tried when the measured error is over the tolerance. */
const RETRIES = 4

/** The compact form of `clip` on `nodes` (see the header); the clip itself when it is not all LINEAR. */
export function compressClip(
  clip: Clip,
  nodes: readonly CompressNode[],
  options: CompressOptions = {},
): Clip {
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE
  const distance = options.distance ?? DEFAULT_DISTANCE
  if (!(tolerance > 0 && Number.isFinite(tolerance)) || !(distance >= 0 && Number.isFinite(distance))) {
    throw new AnimationError(
      'argument',
      `compress: tolerance ${tolerance} must be a positive number and distance ${distance} a number ≥ 0`,
    )
  }
  if (clip.compression !== null || clip.channels.length === 0) return clip
  if (clip.channels.some((ch) => ch.interpolation !== 'LINEAR')) return clip
  const rig = measureRig(clip, nodes, distance)
  let best: Clip | null = null
  let scale = 1
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    const channels = clip.channels.map((ch) => compactChannel(ch, rig, tolerance * scale, distance))
    const keys = clip.channels.reduce((sum, ch) => sum + ch.times.length, 0)
    const keptKeys = channels.reduce((sum, c) => sum + c.keys.times.length, 0)
    const made = makeCompactClip(clip, channels, { tolerance, distance, error: 0, keys, keptKeys })
    const error = worldError(rig, made)
    const compact = makeCompactClip(clip, channels, { tolerance, distance, error, keys, keptKeys })
    if (best === null || error < best.compression!.error) best = compact
    if (error <= tolerance) break
    scale *= 0.5
  }
  return best!
}

/** The clip's exact world poses and what each node's budget needs. */
interface Rig {
  readonly nodes: readonly CompressNode[]
  /** Parents first. */
  readonly order: Int32Array
  /** Every key time of the clip and the quarters of every gap between them. */
  readonly times: Float64Array
  /** Exact world matrices, 16 per node per time: worlds[(t·nodes + i)·16 ..]. */
  readonly worlds: Float64Array
  /** Per node: reach (distance + farthest descendant), parent's largest world scale, budget divisor. */
  readonly reach: Float64Array
  readonly parentScale: Float64Array
  readonly shares: Float64Array
}

function measureRig(clip: Clip, nodes: readonly CompressNode[], distance: number): Rig {
  const n = nodes.length
  const order = parentsFirst(nodes)
  const keyTimes = [...new Set(clip.channels.flatMap((ch) => Array.from(ch.times)))].sort((a, b) => a - b)
  const times: number[] = []
  keyTimes.forEach((t, i) => {
    if (i > 0) for (const f of [0.25, 0.5, 0.75]) times.push(keyTimes[i - 1]! + (t - keyTimes[i - 1]!) * f)
    times.push(t)
  })
  const worlds = posesOf(clip, nodes, order, times)
  const reach = new Float64Array(n)
  const parentScale = new Float64Array(n).fill(1)
  for (let t = 0; t < times.length; t++) {
    for (const i of order) {
      const p = nodes[i]!.parent
      if (p >= 0) parentScale[i] = Math.max(parentScale[i]!, columnScale(worlds, (t * n + p) * 16))
      // Every ancestor of i reaches at least as far as i.
      for (let a = p; a >= 0; a = nodes[a]!.parent) {
        reach[a] = Math.max(reach[a]!, distanceBetween(worlds, (t * n + a) * 16, (t * n + i) * 16))
      }
    }
  }
  for (let i = 0; i < n; i++) reach[i] = reach[i]! + distance
  // Animated joints (translation, rotation or scale) on the longest chain through each node.
  const animated = new Uint8Array(n)
  const channels = new Uint8Array(n)
  for (const ch of clip.channels) {
    if (ch.path === 'weights' || ch.node >= n) continue
    animated[ch.node] = 1
    channels[ch.node]!++
  }
  const below = new Int32Array(n)
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k]!
    below[i] = below[i]! + animated[i]!
    const p = nodes[i]!.parent
    if (p >= 0) below[p] = Math.max(below[p]!, below[i]! + 0)
  }
  const above = new Int32Array(n)
  for (const i of order) {
    const p = nodes[i]!.parent
    if (p >= 0) above[i] = above[p]! + animated[p]!
  }
  const shares = new Float64Array(n)
  for (let i = 0; i < n; i++) shares[i] = Math.max(1, above[i]! + below[i]!) * Math.max(1, channels[i]!)
  return { nodes, order, times: Float64Array.from(times), worlds, reach, parentScale, shares }
}

/** Node indices, parents before children. */
function parentsFirst(nodes: readonly CompressNode[]): Int32Array {
  const order: number[] = []
  const children = nodes.map(() => [] as number[])
  nodes.forEach((node, i) => (node.parent >= 0 ? children[node.parent]!.push(i) : order.push(i)))
  for (let k = 0; k < order.length; k++) order.push(...children[order[k]!]!)
  return Int32Array.from(order)
}

/** World matrices of every node at every time, with `clip` sampled onto the rest pose. */
function posesOf(clip: Clip, nodes: readonly CompressNode[], order: Int32Array, times: readonly number[]) {
  const n = nodes.length
  const worlds = new Float64Array(times.length * n * 16)
  const trs = new Float64Array(n * 10)
  const cursors = new Uint32Array(clip.channels.length)
  const value = new Float32Array(Math.max(4, ...clip.channels.map((ch) => ch.components)))
  const local = new Float64Array(16)
  times.forEach((time, t) => {
    nodes.forEach((node, i) => {
      trs.set(node.translation, i * 10)
      trs.set(node.rotation, i * 10 + 3)
      trs.set(node.scale, i * 10 + 7)
    })
    clip.channels.forEach((ch, c) => {
      if (ch.path === 'weights' || ch.node >= n) return
      sampleChannel(value, 0, ch, time, cursors, c)
      const at = ch.path === 'translation' ? 0 : ch.path === 'rotation' ? 3 : 7
      for (let j = 0; j < ch.components; j++) trs[ch.node * 10 + at + j] = value[j]!
    })
    for (const i of order) {
      const w = (t * n + i) * 16
      composeMatrix(local, 0, trs, i * 10, trs, i * 10 + 3, trs, i * 10 + 7)
      const p = nodes[i]!.parent
      if (p < 0) worlds.set(local, w)
      else multiplyMatrices(worlds, w, worlds, (t * n + p) * 16, local, 0)
    }
  })
  return worlds
}

function columnScale(m: Float64Array, o: number): number {
  let s = 0
  for (let c = 0; c < 3; c++) s = Math.max(s, Math.hypot(m[o + 4 * c]!, m[o + 4 * c + 1]!, m[o + 4 * c + 2]!))
  return s
}

function distanceBetween(m: Float64Array, a: number, b: number): number {
  return Math.hypot(m[a + 12]! - m[b + 12]!, m[a + 13]! - m[b + 13]!, m[a + 14]! - m[b + 14]!)
}

/**
 * The largest world error of `compact` against the exact poses: per node and time, at its origin and at
 * `distance` along each of its (exact) axes.
 */
function worldError(rig: Rig, compact: Clip): number {
  const { nodes, times, worlds } = rig
  const n = nodes.length
  const approx = posesOf(compact, nodes, rig.order, Array.from(times))
  const distance = compact.compression!.distance
  let worst = 0
  for (let t = 0; t < times.length; t++) {
    for (let i = 0; i < n; i++) {
      const o = (t * n + i) * 16
      for (let axis = -1; axis < 3; axis++) {
        // The point's local coordinates: the origin, or `distance` along the axis in world units.
        const length =
          axis < 0
            ? 1
            : Math.hypot(worlds[o + 4 * axis]!, worlds[o + 4 * axis + 1]!, worlds[o + 4 * axis + 2]!)
        const f = axis < 0 || length === 0 ? 0 : distance / length
        let d2 = 0
        for (let r = 0; r < 3; r++) {
          const exact = worlds[o + 12 + r]! + (axis < 0 ? 0 : f * worlds[o + 4 * axis + r]!)
          const made = approx[o + 12 + r]! + (axis < 0 ? 0 : f * approx[o + 4 * axis + r]!)
          d2 += (exact - made) ** 2
        }
        worst = Math.max(worst, Math.sqrt(d2))
      }
    }
  }
  return worst
}

/** One channel's kept keys and stored form, within `tolerance` spread by the rig's shares. */
function compactChannel(ch: Channel, rig: Rig, tolerance: number, distance: number) {
  const c = ch.components
  const { times, values: exact } = candidateKeys(ch)
  const n = times.length
  // The exact curve in the middle of each candidate segment, where slerp and the compact curve differ most.
  const middles = new Float64Array(Math.max(0, n - 1) * c)
  const value = new Float32Array(c)
  const cursor = new Uint32Array(1)
  for (let k = 0; k + 1 < n; k++) {
    sampleChannel(value, 0, ch, (times[k]! + times[k + 1]!) / 2, cursor, 0)
    middles.set(value, k * c)
  }
  const all: CompactKeys = {
    node: ch.node,
    nodeName: ch.nodeName,
    path: ch.path,
    components: c,
    times,
    values: exact,
  }
  const metres = errorScale(ch, rig)
  const budget =
    ch.path === 'weights' ? tolerance / Math.max(distance, 1e-9) : tolerance / rig.shares[ch.node]!
  const rotation = ch.path === 'rotation'
  const decoded = new Float64Array(n * c)
  const decodeAll = (stored: Quantized): Quantized => {
    for (let k = 0; k < n; k++) decodeKey(decoded, k * c, stored, c, k)
    return stored
  }
  let stored = decodeAll(quantize(all))
  // The grid's errors are rounding, of either sign, joint to joint: along a chain of m shares they add up
  // like a random walk, to about √m times one's. Past tolerance / √m the keys stay float32; the world
  // measurement afterwards says whether that held.
  const gridBudget = ch.path === 'weights' ? budget : tolerance / Math.sqrt(rig.shares[ch.node]!)
  let worst = 0
  for (let k = 0; k < n; k++)
    worst = Math.max(worst, difference(exact, k * c, decoded, k * c, c, rotation) * metres)
  if (worst > gridBudget) stored = decodeAll(floatKeys(all))
  const kept = keepKeys(times, exact, middles, decoded, c, rotation, (e) => e * metres <= budget)
  return { keys: selectedKeys(all, kept, decoded), quantized: selected(stored, kept, c) }
}

/** Largest rotation between two keys the compact curve is given (corrected nlerp is within 1e-7 rad of slerp). */
const MAX_SEGMENT_RADIANS = (15 * Math.PI) / 180

/**
 * The keys compression starts from: the channel's own, and for a rotation whose keys are more than
 * MAX_SEGMENT_RADIANS apart, keys sampled from the exact curve in between (slerp over a wide arc is not
 * what corrected nlerp draws); key removal takes out the ones it does not need.
 */
function candidateKeys(ch: Channel): { times: Float32Array; values: Float64Array } {
  const n = ch.times.length
  if (ch.path !== 'rotation') return { times: ch.times, values: Float64Array.from(ch.values) }
  const times: number[] = []
  const values: number[] = []
  const value = new Float32Array(4)
  const cursor = new Uint32Array(1)
  for (let k = 0; k < n; k++) {
    times.push(ch.times[k]!)
    values.push(...ch.values.subarray(4 * k, 4 * k + 4))
    if (k + 1 === n) break
    const cos = Math.abs(dot(ch.values, 4 * k, ch.values, 4 * k + 4))
    const angle = 2 * Math.acos(Math.min(1, cos))
    const parts = Math.ceil(angle / MAX_SEGMENT_RADIANS)
    for (let p = 1; p < parts; p++) {
      const t = Math.fround(ch.times[k]! + ((ch.times[k + 1]! - ch.times[k]!) * p) / parts)
      if (!(t > times[times.length - 1]! && t < ch.times[k + 1]!)) continue
      sampleChannel(value, 0, ch, t, cursor, 0)
      times.push(t)
      values.push(...value)
    }
  }
  return { times: Float32Array.from(times), values: Float64Array.from(values) }
}

function dot(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number): number {
  return a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]!
}

/** Metres per unit of the channel's difference (see the header); 1 for weights. */
function errorScale(ch: Channel, rig: Rig): number {
  if (ch.path === 'rotation') return rig.reach[ch.node]!
  if (ch.path === 'translation') return rig.parentScale[ch.node]!
  if (ch.path === 'scale') {
    let min = Infinity
    for (const v of ch.values) min = Math.min(min, Math.abs(v))
    return rig.reach[ch.node]! / Math.max(min, 1e-6)
  }
  return 1
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
) {
  if (rotation) {
    const sign =
      a[ao]! * b[bo]! + a[ao + 1]! * b[bo + 1]! + a[ao + 2]! * b[bo + 2]! + a[ao + 3]! * b[bo + 3]! < 0
        ? -1
        : 1
    let d2 = 0
    for (let j = 0; j < 4; j++) d2 += (a[ao + j]! - sign * b[bo + j]!) ** 2
    return 2 * Math.sqrt(d2)
  }
  let d = 0
  for (let j = 0; j < c; j++) d = Math.max(d, Math.abs(a[ao + j]! - b[bo + j]!))
  return d
}

/**
 * The keys to keep (indices, ascending, first and last always): greedy from the start, each next kept key the
 * farthest whose segment passes `fits` at every original key and original middle between (probing by doubling,
 * then bisecting). A channel whose first key fits everywhere keeps only it.
 */
function keepKeys(
  times: Float32Array,
  exact: Float64Array,
  middles: Float64Array,
  decoded: Float64Array,
  c: number,
  rotation: boolean,
  fits: (error: number) => boolean,
): number[] {
  const n = times.length
  const approx = new Float64Array(c)
  const segmentFits = (i: number, j: number): boolean => {
    for (let k = i; k <= j; k++) {
      interpolate(approx, decoded, i, j, (times[k]! - times[i]!) / (times[j]! - times[i]! || 1), c, rotation)
      if (!fits(difference(exact, k * c, approx, 0, c, rotation))) return false
      if (k === j) break
      const u = ((times[k]! + times[k + 1]!) / 2 - times[i]!) / (times[j]! - times[i]!)
      interpolate(approx, decoded, i, j, u, c, rotation)
      if (!fits(difference(middles, k * c, approx, 0, c, rotation))) return false
    }
    return true
  }
  let constant = true
  for (let k = 0; k < n && constant; k++) constant = fits(difference(exact, k * c, decoded, 0, c, rotation))
  for (let k = 0; k + 1 < n && constant; k++)
    constant = fits(difference(middles, k * c, decoded, 0, c, rotation))
  if (constant || n === 1) return [0]
  const kept = [0]
  let i = 0
  while (i < n - 1) {
    let good = i + 1
    let probe = 2
    while (i + probe <= n - 1 && segmentFits(i, i + probe)) {
      good = i + probe
      probe *= 2
    }
    let bad = Math.min(i + probe, n)
    while (bad - good > 1) {
      const mid = (good + bad) >> 1
      if (segmentFits(i, mid)) good = mid
      else bad = mid
    }
    kept.push(good)
    i = good
  }
  return kept
}

/** out = the compact curve between decoded keys i and j at u: corrected nlerp (sampleCompact.ts) or lerp. */
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
  let cos = 0
  for (let k = 0; k < 4; k++) cos += keys[a + k]! * keys[b + k]!
  const sign = cos < 0 ? -1 : 1
  const t = u + u * (u - 0.5) * (u - 1) * ((2 / 3) * (1 - sign * cos))
  let len = 0
  for (let k = 0; k < 4; k++) {
    out[k] = keys[a + k]! * (1 - t) + sign * keys[b + k]! * t
    len += out[k]! * out[k]!
  }
  for (let k = 0; k < 4; k++) out[k] = out[k]! / Math.sqrt(len)
}

function selectedKeys(all: CompactKeys, kept: number[], decoded: Float64Array): CompactKeys {
  const c = all.components
  const values = new Float64Array(kept.length * c)
  kept.forEach((k, i) => values.set(decoded.subarray(k * c, k * c + c), i * c))
  return { ...all, times: Float32Array.from(kept, (k) => all.times[k]!), values }
}

/** The stored form of the kept keys only, on the same grid (the range of all keys, which the keys were judged on). */
function selected(stored: Quantized, kept: number[], components: number): Quantized {
  if (stored.packed === null) {
    const values = new Float32Array(kept.length * components)
    kept.forEach((k, i) =>
      values.set(stored.values.subarray(k * components, k * components + components), i * components),
    )
    return { ...stored, values }
  }
  const w =
    stored.kind === KIND_COMPACT_ROTATION ? 3 : stored.kind === KIND_COMPACT_QUATERNION ? 4 : components
  const packed = new Uint16Array(kept.length * w)
  kept.forEach((k, i) => packed.set(stored.packed!.subarray(k * w, k * w + w), i * w))
  return { ...stored, packed }
}
