import { AnimationError } from '../errors.ts'
import { composeMatrix, multiplyMatrices } from '../math/transform.ts'
import type { Channel, Clip } from './clipTypes.ts'
import { makeCompactClip } from './compactClip.ts'
import { compactTracks, type ChannelBudget } from './compressKeys.ts'
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
 * Keys are chosen per time track of the clip (compressKeys.ts): quantized first, then removed greedily where
 * the compact sampler's own curve stays within every channel's budget; constant channels keep one key; a
 * channel whose 16-bit grid alone exceeds tolerance / √m (m its joint's share: rounding errors add along a chain
 * like a random walk, not in step) keeps float keys.
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
  /** Rest local translation [x, y, z]. */
  readonly translation: readonly number[]
  /** Rest local rotation, a unit quaternion [x, y, z, w]. */
  readonly rotation: readonly number[]
  /** Rest local scale [x, y, z]. */
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
  const keys = clip.channels.reduce((sum, ch) => sum + ch.times.length, 0)
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    const tracks = compactTracks(clip, (ch) => channelBudget(ch, rig, tolerance * scale, distance))
    const keptKeys = tracks.reduce((sum, t) => sum + t.times.length * t.channels.length, 0)
    const made = makeCompactClip(clip, tracks, { tolerance, distance, error: 0, keys, keptKeys })
    const error = worldError(rig, made)
    const compact = makeCompactClip(clip, tracks, { tolerance, distance, error, keys, keptKeys })
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

/**
 * A channel's budget in its own units (see the header): how far its values may be off, and how far a grid's
 * rounding may take them (rounding errors add along a chain like a random walk: tolerance / √m, m its joint's
 * share, rather than tolerance / m).
 */
function channelBudget(ch: Channel, rig: Rig, tolerance: number, distance: number): ChannelBudget {
  if (ch.path === 'weights') {
    const weight = tolerance / Math.max(distance, 1e-9)
    return { value: weight, grid: weight }
  }
  const share = rig.shares[ch.node]!
  const metres = metresPerUnit(ch, rig)
  return { value: tolerance / share / metres, grid: tolerance / Math.sqrt(share) / metres }
}

/** Metres per unit of the channel's difference (compressKeys.ts's `difference`; see the header). */
function metresPerUnit(ch: Channel, rig: Rig): number {
  if (ch.path === 'rotation') return rig.reach[ch.node]!
  if (ch.path === 'translation') return rig.parentScale[ch.node]!
  let min = Infinity
  for (const v of ch.values) min = Math.min(min, Math.abs(v))
  return rig.reach[ch.node]! / Math.max(min, 1e-6)
}
