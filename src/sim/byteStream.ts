import type { Hasher, TypedArray } from './hasher.ts'
import { snapshotError } from './valueChecks.ts'

/**
 * The byte streams of the snapshot format (snapshot/format.ts): a little-endian writer into a buffer it grows or
 * one the caller gives, and a bounds-checked reader whose overruns become "truncated" errors naming the section
 * being read. Typed-array slices travel as their raw bytes (every float keeps its bits, NaN payloads and -0
 * included), so the format assumes a little-endian host, which every JavaScript engine in use is.
 *
 * Neither allocates per value: bulk copies go word by word through Uint32Array views of the source's buffer
 * (made once per buffer), since `Uint8Array.set` needs a view per copied range and a ring of snapshots written
 * every step must allocate nothing (snapshotInto).
 */

/** Thrown (never as an Error: nothing is allocated) when a fixed target is too small; see Writer.target. */
export const WRITER_FULL: unique symbol = Symbol('writer full')

const scratch = new Float64Array(1)
const scratchBytes = new Uint8Array(scratch.buffer)
const scratch32 = new Float32Array(1)
const vectorScratch = new Float64Array(4)
const scratch32Bytes = new Uint8Array(scratch32.buffer)

/**
 * Whole-buffer views, made once per ArrayBuffer: words (floor of its 4-byte words) and bytes. Words are read as
 * Int32Array: an int32 is a small integer in every V8 tier on x64, where a uint32 past 2^31 is a heap number
 * wherever the code is not optimized, and each of those is an allocation.
 */
const wordViews = new WeakMap<ArrayBufferLike, Int32Array>()
const byteViews = new WeakMap<ArrayBufferLike, Uint8Array>()

export function wordsOf(buffer: ArrayBufferLike): Int32Array {
  let v = wordViews.get(buffer)
  if (v === undefined || v.length !== buffer.byteLength >>> 2) {
    v = new Int32Array(buffer, 0, buffer.byteLength >>> 2)
    wordViews.set(buffer, v)
  }
  return v
}

export function bytesOf(buffer: ArrayBufferLike): Uint8Array {
  let v = byteViews.get(buffer)
  if (v === undefined || v.length !== buffer.byteLength) {
    v = new Uint8Array(buffer)
    byteViews.set(buffer, v)
  }
  return v
}

/**
 * Copies `n` bytes from `src[from ..]` to `dst[to ..]` (both whole-buffer byte views): as words when both
 * offsets and the length allow, else byte by byte.
 */
export function copyBytes(dst: Uint8Array, to: number, src: Uint8Array, from: number, n: number): void {
  if (((to | from | n) & 3) === 0 && n >= 16) {
    const d = wordsOf(dst.buffer)
    const s = wordsOf(src.buffer)
    const dw = to >>> 2
    const sw = from >>> 2
    const words = n >>> 2
    for (let i = 0; i < words; i++) d[dw + i] = s[sw + i]!
    return
  }
  for (let i = 0; i < n; i++) dst[to + i] = src[from + i]!
}

/**
 * Between a packed column at `packed[at ..]` (`per` bytes per id, in `ids` order) and a store whose element of
 * id e is at `store[base + e·per ..]`: gathers into the column, or with `scatter` spreads it back. Word by word
 * when every offset allows (a store's own buffer, an aligned column), byte by byte otherwise.
 */
export function copyColumn(
  packed: Uint8Array,
  at: number,
  store: Uint8Array,
  base: number,
  per: number,
  ids: ArrayLike<number>,
  count: number,
  scatter: boolean,
): void {
  if (((at | base | per) & 3) === 0) {
    const p = wordsOf(packed.buffer)
    const s = wordsOf(store.buffer)
    const words = per >>> 2
    let pw = at >>> 2
    for (let i = 0; i < count; i++) {
      const sw = (base + ids[i]! * per) >>> 2
      if (scatter) for (let k = 0; k < words; k++) s[sw + k] = p[pw++]!
      else for (let k = 0; k < words; k++) p[pw++] = s[sw + k]!
    }
    return
  }
  let o = at
  for (let i = 0; i < count; i++) {
    const so = base + ids[i]! * per
    if (scatter) for (let k = 0; k < per; k++) store[so + k] = packed[o++]!
    else for (let k = 0; k < per; k++) packed[o++] = store[so + k]!
  }
}

export class Writer {
  /** The whole buffer written into (its byte view), where the snapshot starts, and the next byte's offset. */
  private buf: Uint8Array = new Uint8Array(0)
  private start = 0
  private pos = 0
  private end = 0
  private growable = true

  /**
   * Writes from the start of `target` on; a growable writer replaces a target that is too small by a bigger
   * one (`bytes()` has it), a fixed one throws WRITER_FULL instead. `target` must start at a multiple of 8 in
   * its buffer (the format aligns its sections to 8).
   */
  target(target: Uint8Array, growable: boolean): this {
    this.buf = bytesOf(target.buffer)
    this.start = target.byteOffset
    this.pos = this.start
    this.end = this.start + target.byteLength
    this.growable = growable
    return this
  }

  /** The whole buffer written into (a byte view), and where the snapshot starts in it. */
  get buffer(): Uint8Array {
    return this.buf
  }
  get origin(): number {
    return this.start
  }

  /** Bytes written so far. */
  at(): number {
    return this.pos - this.start
  }

  /** The target as it is now (growing replaces it): its bytes [0, at()) are the ones written. */
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.start, this.end - this.start)
  }

  private need(n: number): number {
    const o = this.pos
    if (o + n > this.end) {
      if (!this.growable) throw WRITER_FULL
      const used = o - this.start
      let size = Math.max(1 << 14, 2 * (this.end - this.start))
      while (size < used + n) size *= 2
      const next = new Uint8Array(size)
      copyBytes(next, 0, this.buf, this.start, used)
      this.buf = bytesOf(next.buffer)
      this.start = 0
      this.end = size
      this.pos = used + n
      return used
    }
    this.pos = o + n
    return o
  }

  u8(x: number): void {
    this.buf[this.need(1)] = x
  }

  u16(x: number): void {
    const o = this.need(2)
    this.buf[o] = x
    this.buf[o + 1] = x >>> 8
  }

  u32(x: number): void {
    const o = this.need(4)
    const b = this.buf
    b[o] = x
    b[o + 1] = x >>> 8
    b[o + 2] = x >>> 16
    b[o + 3] = x >>> 24
  }

  /** (Not through u32: `x >>> 0` of a negative x is past the small integers, and boxes when passed on.) */
  i32(x: number): void {
    const o = this.need(4)
    const b = this.buf
    b[o] = x
    b[o + 1] = x >> 8
    b[o + 2] = x >> 16
    b[o + 3] = x >> 24
  }

  f32(x: number): void {
    scratch32[0] = x
    const o = this.need(4)
    for (let k = 0; k < 4; k++) this.buf[o + k] = scratch32Bytes[k]!
  }

  /** One f64 (a value computed here boxes when the call is not inlined: write fields with raw, vec3, quat). */
  f64(x: number): void {
    scratch[0] = x
    const o = this.need(8)
    for (let k = 0; k < 8; k++) this.buf[o + k] = scratchBytes[k]!
  }

  /**
   * A vector's x, y, z (or a quaternion's x, y, z, w) as f64s, read here: a float passed to a call V8 does not
   * inline is boxed (allocated), so fields are read by the writer rather than passed to f64.
   */
  vec3(v: { readonly x: number; readonly y: number; readonly z: number }): void {
    vectorScratch[0] = v.x
    vectorScratch[1] = v.y
    vectorScratch[2] = v.z
    this.raw(vectorScratch, 0, 3)
  }

  quat(q: { readonly x: number; readonly y: number; readonly z: number; readonly w: number }): void {
    vectorScratch[0] = q.x
    vectorScratch[1] = q.y
    vectorScratch[2] = q.z
    vectorScratch[3] = q.w
    this.raw(vectorScratch, 0, 4)
  }

  /** A section's tag: its four letters. */
  tag(tag: string): void {
    for (let k = 0; k < 4; k++) this.u8(tag.charCodeAt(k))
  }

  /** Raw bytes of elements [start, start + count) of a typed array. */
  raw(data: TypedArray, start: number, count: number): void {
    const size = data.BYTES_PER_ELEMENT
    const n = count * size
    const o = this.need(n)
    copyBytes(this.buf, o, bytesOf(data.buffer), data.byteOffset + start * size, n)
  }

  /**
   * A column: the `stride` elements of `data` at each of `ids[0 .. count)` in turn, raw, starting at a
   * multiple of the element size (zero bytes before it).
   */
  column(data: TypedArray, stride: number, ids: ArrayLike<number>, count: number): void {
    const size = data.BYTES_PER_ELEMENT
    this.align(size)
    const per = stride * size
    const o = this.need(count * per)
    copyColumn(this.buf, o, bytesOf(data.buffer), data.byteOffset, per, ids, count, false)
  }

  /** Reserves `n` bytes to be filled in place: their offset in `buffer` (valid until the next write). */
  reserve(n: number): number {
    return this.need(n)
  }

  /** The bytes of `view` (a view kept by the caller: a native copy, nothing allocated). */
  view(view: Uint8Array): void {
    const o = this.need(view.length)
    this.buf.set(view, o)
  }

  /** `n` zero bytes. */
  zeros(n: number): void {
    const o = this.need(n)
    this.buf.fill(0, o, o + n)
  }

  /** Zero bytes up to a multiple of `n` (a power of two ≤ 8) from the snapshot's start. */
  align(n: number): void {
    const pad = -(this.pos - this.start) & (n - 1)
    if (pad > 0) this.zeros(pad)
  }

  /** Overwrites the u32 at snapshot offset `at` (a count or length written before it was known). */
  setU32(at: number, x: number): void {
    const b = this.buf
    const o = this.start + at
    b[o] = x
    b[o + 1] = x >>> 8
    b[o + 2] = x >>> 16
    b[o + 3] = x >>> 24
  }

  /** Overwrites `n` u32 at snapshot offset `at` with `words[0 .. n)`. */
  setWords(at: number, words: Uint32Array, n: number): void {
    copyBytes(this.buf, this.start + at, bytesOf(words.buffer), words.byteOffset, 4 * n)
  }

  /** u32 byte length, then the UTF-8 bytes of `s` (lone surrogates as U+FFFD, as TextEncoder writes them). */
  utf8(s: string): void {
    const lengthAt = this.at()
    this.u32(0)
    let n = 0
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i)
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1)
        if (d >= 0xdc00 && d < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
          i++
        }
      }
      if (c >= 0xd800 && c < 0xe000) c = 0xfffd
      if (c < 0x80) {
        this.u8(c)
        n += 1
      } else if (c < 0x800) {
        this.u8(0xc0 | (c >>> 6))
        this.u8(0x80 | (c & 63))
        n += 2
      } else if (c < 0x10000) {
        this.u8(0xe0 | (c >>> 12))
        this.u8(0x80 | ((c >>> 6) & 63))
        this.u8(0x80 | (c & 63))
        n += 3
      } else {
        this.u8(0xf0 | (c >>> 18))
        this.u8(0x80 | ((c >>> 12) & 63))
        this.u8(0x80 | ((c >>> 6) & 63))
        this.u8(0x80 | (c & 63))
        n += 4
      }
    }
    this.setU32(lengthAt, n)
  }
}

/** A growable writer (a snapshot() call's). */
export function createWriter(): Writer {
  return new Writer().target(new Uint8Array(1 << 14), true)
}

/**
 * Reads a snapshot (or one of its sections) with bounds checks: reading past `limit` throws the "truncated"
 * error naming `section`. `bytes` must start at a multiple of 8 in its buffer: the typed views (`floats`,
 * `doubles`, `words`, `ints`, `halves`) cover the same bytes, so an aligned block is read in place.
 */
export class Reader {
  /** Typed views of the same bytes: element k of `doubles` is bytes [8k, 8k + 8). */
  readonly floats: Float32Array
  readonly doubles: Float64Array
  readonly words: Uint32Array
  readonly ints: Int32Array
  readonly halves: Uint16Array
  private readonly view: DataView
  section = 'header'
  private pos: number
  /** Reads stop here: the end of the section being read, or of the snapshot. */
  limit: number

  constructor(
    readonly bytes: Uint8Array,
    start: number,
  ) {
    const { buffer, byteOffset, byteLength } = bytes
    this.view = new DataView(buffer, byteOffset, byteLength)
    this.floats = new Float32Array(buffer, byteOffset, byteLength >>> 2)
    this.doubles = new Float64Array(buffer, byteOffset, byteLength >>> 3)
    this.words = new Uint32Array(buffer, byteOffset, byteLength >>> 2)
    this.ints = new Int32Array(buffer, byteOffset, byteLength >>> 2)
    this.halves = new Uint16Array(buffer, byteOffset, byteLength >>> 1)
    this.pos = start
    this.limit = byteLength
  }

  u8(): number {
    return this.view.getUint8(this.take(1))
  }
  u16(): number {
    return this.view.getUint16(this.take(2), true)
  }
  u32(): number {
    return this.view.getUint32(this.take(4), true)
  }
  i32(): number {
    return this.view.getInt32(this.take(4), true)
  }
  f64(): number {
    return this.view.getFloat64(this.take(8), true)
  }
  /** `n` f64 values. */
  f64s(n: number): number[] {
    const out: number[] = []
    for (let i = 0; i < n; i++) out.push(this.view.getFloat64(this.take(8), true))
    return out
  }
  /** Skips `n` bytes and returns the offset where they start. */
  span(n: number): number {
    return this.take(n)
  }
  at(): number {
    return this.pos
  }
  /** Skips the zero bytes up to a multiple of `n`; a byte that is not 0 there is refused. */
  align(n: number): void {
    const pad = -this.pos & (n - 1)
    const o = this.take(pad)
    for (let k = 0; k < pad; k++) {
      if (this.bytes[o + k] !== 0) {
        throw snapshotError(`section "${this.section}": padding byte at offset ${o + k} is not 0`)
      }
    }
  }

  private take(n: number): number {
    if (!(n >= 0 && this.pos + n <= this.limit)) {
      throw snapshotError(
        `truncated in section "${this.section}": ${n} bytes needed at offset ${this.pos}, ` +
          `the ${this.limit === this.bytes.length ? 'snapshot' : 'section'} has ${this.limit}`,
      )
    }
    const o = this.pos
    this.pos += n
    return o
  }
}

export function createReader(bytes: Uint8Array, start: number): Reader {
  return new Reader(bytes, start)
}

/**
 * Copies `count` elements' worth of raw bytes from `bytes[from ..]` into `data[start ..]`: word by word through
 * the buffers' kept views (a restore makes hundreds of small copies, and a pair of views each was most of their
 * cost), natively for a long run.
 */
export function copyInto(
  data: TypedArray,
  start: number,
  bytes: Uint8Array,
  from: number,
  count: number,
): void {
  const size = data.BYTES_PER_ELEMENT
  const n = count * size
  if (n >= 1024) {
    new Uint8Array(data.buffer, data.byteOffset + start * size, n).set(bytes.subarray(from, from + n))
    return
  }
  copyBytes(
    bytesOf(data.buffer),
    data.byteOffset + start * size,
    bytesOf(bytes.buffer),
    bytes.byteOffset + from,
    n,
  )
}

export function readU32Array(bytes: Uint8Array, from: number, count: number): Uint32Array {
  const out = new Uint32Array(count)
  copyInto(out, 0, bytes, from, count)
  return out
}

/** A 64-bit digest as two u32 words, high first (how the format stores fingerprints). */
export function digestWords(h: Hasher): [number, number] {
  const hex = h.digest()
  return [parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8), 16)]
}

export function hexWords(words: readonly [number, number] | Uint32Array): string {
  return words[0]!.toString(16).padStart(8, '0') + words[1]!.toString(16).padStart(8, '0')
}
