import type { Channel, Clip, Mutable, SquadSegments } from './clip.ts'
import { KIND_CUBIC_ROTATION, KIND_SLERP } from './kinds.ts'
import { buildSquadCaches, SLERP_SEGMENT_STRIDE, writeSlerpSegments } from './rotationCache.ts'

/**
 * The segment-major per-track arrays of clip channels: slerp and Hermite segments packed at load (packSegments),
 * squad's on a clip's first squad use (prepareSquad). Load and setup time only; the sampler reads the result.
 */

/**
 * Packs per-segment data of the channels of one kind, segment-major per time track: for each track, one array of
 * `segments × members × width` numbers where segment k of member `slot` starts at k·stride + slot·width (stride
 * = members × width), filled by `fill(channel, array, stride, slot · width)`; `set` stores the array, stride and
 * offset on each member. Load time only.
 */
function packByTrack<
  C extends Pick<Channel, 'kind' | 'track' | 'times'>,
  A extends Float32Array | Float64Array,
>(
  channels: readonly C[],
  kind: number,
  width: number,
  make: (length: number) => A,
  fill: (ch: C, block: A, stride: number, offset: number) => void,
  set: (ch: C, block: A, stride: number, offset: number) => void,
): void {
  const groups = new Map<number, C[]>()
  for (const ch of channels) {
    if (ch.kind !== kind) continue
    const group = groups.get(ch.track)
    if (group) group.push(ch)
    else groups.set(ch.track, [ch])
  }
  for (const members of groups.values()) {
    const segments = Math.max(0, members[0]!.times.length - 1)
    const stride = members.length * width
    const block = make(segments * stride)
    members.forEach((ch, slot) => {
      fill(ch, block, stride, slot * width)
      set(ch, block, stride, slot * width)
    })
  }
}

/** Floats per segment in `Channel.hermiteSegments`; doubles per segment in `Channel.squad` (SquadSegments). */
export const HERMITE_SEGMENT_STRIDE = 16
const SQUAD_SEGMENT_STRIDE = 20

/** The segment-major per-track arrays of Channel built at load: `slerpSegments`, `hermiteSegments`. */
export function packSegments(channels: Mutable<Channel>[]): void {
  packByTrack(
    channels,
    KIND_SLERP,
    SLERP_SEGMENT_STRIDE,
    (n) => new Float64Array(n),
    (ch, block, stride, offset) => writeSlerpSegments(block, stride, offset, ch.values, ch.times.length),
    (ch, block, stride, offset) => {
      ch.slerpSegments = block
      ch.slerpStride = stride
      ch.slerpOffset = offset
    },
  )
  packByTrack(
    channels,
    KIND_CUBIC_ROTATION,
    HERMITE_SEGMENT_STRIDE,
    (n) => new Float32Array(n),
    // Key k's triplet (a, v, b) starts at 12k, so segment k's v_k, b_k, a_{k+1}, v_{k+1} are 16 floats from 12k + 4.
    (ch, block, stride, offset) => {
      const values = ch.values
      for (let k = 0, o = offset; k + 1 < ch.times.length; k++, o += stride) {
        for (let j = 0, from = 12 * k + 4; j < 16; j++) block[o + j] = values[from + j]!
      }
    },
    (ch, block, stride, offset) => {
      ch.hermiteSegments = block
      ch.hermiteStride = stride
      ch.hermiteOffset = offset
    },
  )
}

/**
 * Builds the squad data (Channel.squad) of every LINEAR rotation channel of `clip` that lacks it, packed
 * segment-major per time track; later calls return at once. Allocates (160 bytes per key of those channels):
 * setup, not a per-frame call. The plugin calls it when a character starts a clip in squad mode (and for
 * restored ones); the sampler calls it itself the first time squad meets a clip without it.
 */
export function prepareSquad(clip: Clip): void {
  const missing = clip.channels.filter((ch) => ch.squad !== null && ch.squad.segments === null)
  if (missing.length === 0) return
  const caches = new Map(missing.map((ch) => [ch, buildSquadCaches(ch.values, ch.times.length, ch.times)]))
  packByTrack(
    missing,
    KIND_SLERP,
    SQUAD_SEGMENT_STRIDE,
    (n) => new Float64Array(n),
    (ch, block, stride, offset) => {
      const { slerpCache, controlCache, squad } = caches.get(ch)!
      const n = ch.times.length
      for (let k = 0, o = offset; k + 1 < n; k++, o += stride) {
        block[o] = slerpCache[2 * k]!
        block[o + 1] = slerpCache[2 * k + 1]!
        block[o + 2] = controlCache[2 * k]!
        block[o + 3] = controlCache[2 * k + 1]!
        for (let j = 0; j < 8; j++) {
          block[o + 4 + j] = squad[4 * k + j]!
          block[o + 12 + j] = squad[4 * n + 4 * k + j]!
        }
      }
    },
    (ch, block, stride, offset) => {
      const target = ch.squad as Mutable<SquadSegments>
      target.stride = stride
      target.offset = offset
      target.segments = block
    },
  )
}
