import { JOINT_STRIDE } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { bindClip } from '../plugin/assets.ts'
import { MAX_BLEND_POINTS } from '../plugin/blendSpaces.ts'
import { bytesOf, copyColumn, copyInto, readU32Array, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkChoice, checkFinite, checkRange, invalidValue } from '../src/sim/valueChecks.ts'
import { BLOCK_POINTS, createBlendSpaceState, type BlendSpaceState } from '../systems/layerState.ts'
import type { SamplerStore } from '../components/Sampler.ts'
import type { Layouts } from './format.ts'
import {
  checkTrack,
  layerColumns,
  readRow,
  TRACK_FIELDS,
  trackValue,
  type Column,
} from './characterChecks.ts'

/**
 * A layer's blend space in the snapshot's "layers" section (layers.ts has the rest of a layer):
 * u8 blend space [u8 dims, u8 points, u8 sync, the points' tracks (every Sampler field in layouts order, a
 * column of m rows each at a multiple of its element size), f64[m] x, f64[m] y, f64×2 parameter, per point u32
 * cursor count and u32[count] cursors]. Durations, bindings, offsets and the blend weights are derived again on
 * restore (the same functions, so the same bits).
 */

/** A blend space as read and checked. */
export interface BlendSpaceData {
  dims: number
  sync: number
  clips: Int32Array
  /** The points' track columns, in the Sampler layout's field order. */
  points: Column[]
  xs: Float64Array
  ys: Float64Array
  param: Float64Array
  cursors: Uint32Array[]
}

const FLAGS = [0, 1]
/** Rows 0, 1, … of a blend space's points (a column's ids), made once. */
const POINT_ROWS = Int32Array.from({ length: MAX_BLEND_POINTS }, (_, p) => p)

/** The points' field of a Sampler layout field's name. */
const pointField = (points: SamplerStore, name: string) =>
  (points as unknown as Record<string, Int32Array>)[name]!

export function writeBlendSpace(w: Writer, bs: BlendSpaceState | null | undefined, layouts: Layouts): void {
  w.u8(bs ? 1 : 0)
  if (!bs) return
  const m = bs.points.clip.length
  w.u8(bs.dims)
  w.u8(m)
  w.u8(bs.sync)
  const fields = layouts.layer[0]!.fields
  for (let f = 0; f < fields.length; f++) w.column(pointField(bs.points, fields[f]!.name), 1, POINT_ROWS, m)
  w.align(8)
  w.raw(bs.xs, 0, m)
  w.raw(bs.ys, 0, m)
  w.raw(bs.param, 0, 2)
  for (let p = 0; p < bs.cursors.length; p++) {
    w.u32(bs.cursors[p]!.length)
    w.raw(bs.cursors[p]!, 0, bs.cursors[p]!.length)
  }
}

/** Reads and checks a blend space (after its u8 flag); changes nothing. */
export function readBlendSpace(
  ctx: AnimationContext,
  r: Reader,
  where: string,
  maxKeys: number,
  layouts: Layouts,
): BlendSpaceData {
  const at = `${where}, blend space`
  const dims = r.u8()
  const m = r.u8()
  const sync = r.u8()
  checkChoice(at, 'dimensions', dims, [1, 2])
  checkRange(at, 'points', m, 1, MAX_BLEND_POINTS)
  checkChoice(at, 'sync', sync, FLAGS)
  const points: Column[] = []
  const byName = new Map<string, Column>()
  for (const f of layouts.layer[0]!.fields) {
    r.align(f.data.BYTES_PER_ELEMENT)
    const column = { f: { ...f, stride: 1 }, at: r.span(m * f.data.BYTES_PER_ELEMENT) }
    points.push(column)
    byName.set(f.name, column)
  }
  r.align(8)
  const f64 = (count: number): Float64Array => {
    const a = new Float64Array(count)
    copyInto(a, 0, r.bytes, r.span(8 * count), count)
    return a
  }
  const xs = f64(m)
  const ys = f64(m)
  const param = f64(2)
  const clips = new Int32Array(m)
  const track = layerColumns(TRACK_FIELDS, (name) => byName.get(name))
  const values = new Float64Array(track.length)
  for (let p = 0; p < m; p++) {
    const point = `${at}, point ${p}`
    readRow(r, track, p, values)
    checkTrack(point, '', values, 0, ctx.clips.length)
    const clip = trackValue(values, 0, 'clip')
    if (clip < 0) throw invalidValue(point, 'clip', clip, `this plugin has clips 0..${ctx.clips.length - 1}`)
    checkRange(point, 'time', trackValue(values, 0, 'time'), 0, ctx.clips[clip]!.clip.duration)
    checkChoice(point, 'loop', trackValue(values, 0, 'loop'), [1])
    clips[p] = clip
  }
  checkFinite(at, 'x', xs)
  checkFinite(at, 'y', ys)
  checkFinite(at, 'parameter', param)
  for (let p = 0; p < m; p++) {
    if (dims === 1 && ys[p] !== 0) throw invalidValue(at, `point ${p} y`, ys[p]!, 'must be 0 in 1D')
    for (let q = 0; q < p; q++) {
      if (xs[p] === xs[q] && ys[p] === ys[q])
        throw invalidValue(at, `point ${p}`, [xs[p]!, ys[p]!], 'repeats another point')
    }
  }
  if (dims === 1 && param[1] !== 0) throw invalidValue(at, 'parameter y', param[1]!, 'must be 0 in 1D')
  const cursors: Uint32Array[] = []
  for (let p = 0; p < m; p++) {
    const count = r.u32()
    if (count < channels(ctx, clips[p]!)) {
      throw invalidValue(at, `point ${p} cursor count`, count, `must be at least ${channels(ctx, clips[p]!)}`)
    }
    const c = readU32Array(r.bytes, r.span(4 * count), count)
    checkCursors(at, c, maxKeys)
    cursors.push(c)
  }
  return { dims, sync, clips, points, xs, ys, param, cursors }
}

export function channels(ctx: AnimationContext, clip: number): number {
  return clip >= 0 ? ctx.clips[clip]!.clip.channels.length : 0
}

export function checkCursors(where: string, cursors: Uint32Array, maxKeys: number): void {
  cursors.forEach((k, slot) => {
    if (k >= maxKeys)
      throw invalidValue(where, `key cursor ${slot}`, k, `no clip has more than ${maxKeys} keys`)
  })
}

/**
 * The blend space of a checked layer whose pose block starts at slot `base` (`count` joints, of `asset`), its
 * points' tracks as the snapshot `bytes` holds them.
 */
export function blendSpaceState(
  ctx: AnimationContext,
  bytes: Uint8Array,
  b: BlendSpaceData,
  base: number,
  count: number,
  asset: number,
): BlendSpaceState {
  const bs = createBlendSpaceState({
    dims: b.dims,
    sync: b.sync,
    clips: b.clips,
    xs: b.xs,
    ys: b.ys,
    durations: Array.from(b.clips, (id) => ctx.clips[id]!.clip.duration),
    times: null,
    cursors: b.cursors,
    offsets: Array.from(b.clips, (_, p) => (base + (BLOCK_POINTS + p) * count) * JOINT_STRIDE),
    param: b.param,
    bindings: Array.from(b.clips, (id) => bindClip(ctx, ctx.clips[id]!, asset)),
    joints: count,
    rest: ctx.assets[asset]!.rest,
  })
  const m = b.clips.length
  const packed = bytesOf(bytes.buffer)
  for (const { f, at } of b.points) {
    const data = pointField(bs.points, f.name)
    const per = data.BYTES_PER_ELEMENT
    copyColumn(packed, bytes.byteOffset + at, bytesOf(data.buffer), data.byteOffset, per, POINT_ROWS, m, true)
  }
  return bs
}
