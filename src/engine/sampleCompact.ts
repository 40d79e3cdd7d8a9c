import type { Channel } from '../clip/clipTypes.ts'
import { reg, TIME } from './sampleScratch.ts'

/**
 * The fast sampler of compact clips (src/clip/sampleCompact.ts says what it computes; the same bits,
 * test/engine/sample.test.ts), beside the exact one (sample.ts), which hands compact clips here: channel c of
 * `channels` (skipped when `binding[c]` < 0) at clip-local time reg[TIME] into `out[layer + binding[c] ..]`, a
 * key cursor per time track at `cursors[cursorStart + track]`, one segment search and one u per track.
 */
export function sampleCompactList(
  out: Float32Array,
  layer: number,
  channels: readonly Channel[],
  binding: Int32Array,
  cursors: Uint32Array,
  cursorStart: number,
): void {
  // KIND_COMPACT_* as literals (v8.ts); the rest of a compact clip is KIND_LINEAR.
  const ROTATION = 5
  const FLOAT_ROTATION = 6
  const VECTOR = 7
  const time = reg[TIME]!
  let times: Float32Array | null = null
  let between = false
  let k = 0
  let u = 0
  // The correction's factor of e, the same for every channel of the track: t = u + ce·e.
  let ce = 0
  for (let c = 0; c < channels.length; c++) {
    const offset = binding[c]!
    if (offset < 0) continue
    const ch = channels[c]!
    const o = layer + offset
    if (ch.times !== times) {
      times = ch.times
      const n = times.length
      between = false
      if (!(time > times[0]!) || n === 1) k = 0
      else if (time >= times[n - 1]!) k = n - 1
      else {
        const slot = cursorStart + ch.track
        k = keyBefore(times, time, cursors[slot]! | 0)
        cursors[slot] = k
        const t0 = times[k]!
        if (time !== t0) {
          between = true
          u = (time - t0) / (times[k + 1]! - t0)
          ce = u * (u - 0.5) * (u - 1) * (2 / 3)
        }
      }
    }
    const kind = ch.kind
    if (!between) {
      // On key k (or a one-key channel): the key itself, decoded.
      if (kind === ROTATION) {
        const packed = ch.packed!
        const dq = ch.dequant!
        const p = k * ch.packedStride + ch.packedOffset
        const step = dq[4]!
        out[o] = dq[0]! + packed[p]! * step
        out[o + 1] = dq[1]! + packed[p + 1]! * step
        out[o + 2] = dq[2]! + packed[p + 2]! * step
        out[o + 3] = dq[3]! + packed[p + 3]! * step
      } else if (kind === VECTOR) {
        const cc = ch.components
        const packed = ch.packed!
        const dq = ch.dequant!
        const p = k * ch.packedStride + ch.packedOffset
        for (let j = 0; j < cc; j++) out[o + j] = dq[j]! + packed[p + j]! * dq[cc + j]!
      } else {
        // Float keys (LINEAR, FLOAT_ROTATION): copied.
        const cc = ch.components
        const values = ch.values
        const p = k * cc
        for (let j = 0; j < cc; j++) out[o + j] = values[p + j]!
      }
      continue
    }
    if (kind === ROTATION || kind === FLOAT_ROTATION) {
      // Keys k (x, y, z, w) and k + 1 (as the difference dx ..): on the grid (one step for all four
      // components), or float keys.
      let x: number
      let y: number
      let z: number
      let w: number
      let dx: number
      let dy: number
      let dz: number
      let dw: number
      if (kind === ROTATION) {
        const packed = ch.packed!
        const dq = ch.dequant!
        const stride = ch.packedStride
        const p = k * stride + ch.packedOffset
        const q = p + stride
        const step = dq[4]!
        const ax = packed[p]!
        const ay = packed[p + 1]!
        const az = packed[p + 2]!
        const aw = packed[p + 3]!
        x = dq[0]! + ax * step
        y = dq[1]! + ay * step
        z = dq[2]! + az * step
        w = dq[3]! + aw * step
        dx = (packed[q]! - ax) * step
        dy = (packed[q + 1]! - ay) * step
        dz = (packed[q + 2]! - az) * step
        dw = (packed[q + 3]! - aw) * step
      } else {
        const v = ch.values
        const p = 4 * k
        x = v[p]!
        y = v[p + 1]!
        z = v[p + 2]!
        w = v[p + 3]!
        dx = v[p + 4]! - x
        dy = v[p + 5]! - y
        dz = v[p + 6]! - z
        dw = v[p + 7]! - w
      }
      const e = 0.5 * (dx * dx + dy * dy + dz * dz + dw * dw)
      const t = u + ce * e
      const s = 2 * t * (1 - t) * e
      const inv = 1 + s * (0.5 + s * 0.375)
      out[o] = (x + dx * t) * inv
      out[o + 1] = (y + dy * t) * inv
      out[o + 2] = (z + dz * t) * inv
      out[o + 3] = (w + dw * t) * inv
    } else if (kind === VECTOR) {
      const cc = ch.components
      const packed = ch.packed!
      const dq = ch.dequant!
      const stride = ch.packedStride
      const p = k * stride + ch.packedOffset
      for (let j = 0; j < cc; j++) {
        const va = dq[j]! + packed[p + j]! * dq[cc + j]!
        out[o + j] = va + (dq[j]! + packed[p + stride + j]! * dq[cc + j]! - va) * u
      }
    } else {
      // Float keys: a translation or scale whose range 16 bits cannot cover within its tolerance (a constant
      // channel's one key is on a one-key track, never between).
      const cc = ch.components
      const values = ch.values
      const p = k * cc
      for (let j = 0; j < cc; j++) {
        const va = values[p + j]!
        out[o + j] = va + (values[p + cc + j]! - va) * u
      }
    }
  }
}

/**
 * The index k with times[k] ≤ t < times[k + 1], for times[0] < t < times[n − 1]: the hint (the cursor), the
 * key after it (playback moves forward by small steps), the one before, else a binary search.
 */
function keyBefore(times: Float32Array, t: number, hint: number): number {
  const last = (times.length - 2) | 0
  const h = hint >= 0 && hint <= last ? hint : last
  if (times[h]! <= t) {
    if (t < times[h + 1]!) return h
    if (h + 1 <= last && t < times[h + 2]!) return h + 1
  } else if (h > 0 && times[h - 1]! <= t) return h - 1
  let lo = 0
  let hi = last
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (times[mid]! <= t) lo = mid
    else hi = mid - 1
  }
  return lo
}
