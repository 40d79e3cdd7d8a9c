import { JOINT_STRIDE } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { bindClip } from '../plugin/assets.ts'
import { MAX_BLEND_POINTS } from '../plugin/blendSpaces.ts'
import { copyInto, readU32Array, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkChoice, checkFinite, checkRange, invalidValue } from '../src/sim/valueChecks.ts'
import { BLOCK_POINTS, createBlendSpaceState, type BlendSpaceState } from '../systems/layerState.ts'

/**
 * A layer's blend space in the snapshot's "layers" section (layers.ts has the rest of a layer):
 * u8 blend space [u8 dims, u8 points, u8 sync, i32[m] clips, f64[m] x, f64[m] y, f64×2 parameter, f64[m] times,
 * per point u32 cursor count and u32[count] cursors]. Durations, bindings, offsets and the blend weights are
 * derived again on restore (the same functions, so the same bits).
 */

/** A blend space as read and checked. */
export interface BlendSpaceData {
  dims: number
  sync: number
  clips: Int32Array
  xs: Float64Array
  ys: Float64Array
  param: Float64Array
  times: Float64Array
  cursors: Uint32Array[]
}

const FLAGS = [0, 1]

export function writeBlendSpace(w: Writer, bs: BlendSpaceState | null | undefined): void {
  w.u8(bs ? 1 : 0)
  if (!bs) return
  const m = bs.clips.length
  w.u8(bs.dims)
  w.u8(m)
  w.u8(bs.sync)
  w.raw(bs.clips, 0, m)
  w.raw(bs.xs, 0, m)
  w.raw(bs.ys, 0, m)
  w.raw(bs.param, 0, 2)
  w.raw(bs.times, 0, m)
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
): BlendSpaceData {
  const at = `${where}, blend space`
  const dims = r.u8()
  const m = r.u8()
  const sync = r.u8()
  checkChoice(at, 'dimensions', dims, [1, 2])
  checkRange(at, 'points', m, 1, MAX_BLEND_POINTS)
  checkChoice(at, 'sync', sync, FLAGS)
  const clips = new Int32Array(m)
  copyInto(clips, 0, r.bytes, r.span(4 * m), m)
  const f64 = (count: number): Float64Array => {
    const a = new Float64Array(count)
    copyInto(a, 0, r.bytes, r.span(8 * count), count)
    return a
  }
  const xs = f64(m)
  const ys = f64(m)
  const param = f64(2)
  const times = f64(m)
  clips.forEach((c, p) => {
    if (!(c >= 0 && c < ctx.clips.length))
      throw invalidValue(at, `point ${p} clip`, c, `this plugin has clips 0..${ctx.clips.length - 1}`)
  })
  checkFinite(at, 'x', xs)
  checkFinite(at, 'y', ys)
  checkFinite(at, 'parameter', param)
  checkFinite(at, 'times', times)
  for (let p = 0; p < m; p++) {
    if (dims === 1 && ys[p] !== 0) throw invalidValue(at, `point ${p} y`, ys[p]!, 'must be 0 in 1D')
    for (let q = 0; q < p; q++) {
      if (xs[p] === xs[q] && ys[p] === ys[q])
        throw invalidValue(at, `point ${p}`, [xs[p]!, ys[p]!], 'repeats another point')
    }
    checkRange(at, `point ${p} time`, times[p]!, 0, ctx.clips[clips[p]!]!.clip.duration)
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
  return { dims, sync, clips, xs, ys, param, times, cursors }
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

/** The blend space of a checked layer whose pose block starts at slot `base` (`count` joints, of `asset`). */
export function blendSpaceState(
  ctx: AnimationContext,
  b: BlendSpaceData,
  base: number,
  count: number,
  asset: number,
): BlendSpaceState {
  return createBlendSpaceState({
    dims: b.dims,
    sync: b.sync,
    clips: b.clips,
    xs: b.xs,
    ys: b.ys,
    durations: Array.from(b.clips, (id) => ctx.clips[id]!.clip.duration),
    times: b.times,
    cursors: b.cursors,
    offsets: Array.from(b.clips, (_, p) => (base + (BLOCK_POINTS + p) * count) * JOINT_STRIDE),
    param: b.param,
    bindings: Array.from(b.clips, (id) => bindClip(ctx, ctx.clips[id]!, asset)),
    joints: count,
    rest: ctx.assets[asset]!.rest,
  })
}
