import type { TypedArray } from './hasher.ts'
import { bytesOf, copyBytes, copyColumn, wordsOf } from './byteStream.ts'

/**
 * The snapshot format's writer (snapshot/format.ts): little-endian, into a buffer it grows or one the caller
 * gives (snapshotInto), allocating nothing per value; byteStream.ts has the reader and the copies both share.
 */

/** Thrown (never as an Error: nothing is allocated) when a fixed target is too small; see Writer.target. */
export const WRITER_FULL: unique symbol = Symbol('writer full')

const scratch = new Float64Array(1)
const scratchBytes = new Uint8Array(scratch.buffer)
const scratch32 = new Float32Array(1)
const vectorScratch = new Float64Array(4)
const scratch32Bytes = new Uint8Array(scratch32.buffer)

export class Writer {
  /** The whole buffer written into (its byte view), where the snapshot starts, and the next byte's offset. */
  private buf: Uint8Array = new Uint8Array(0)
  /** The same buffer's words (kept with buf: a copy looks up no view of its own target). */
  private wordView: Int32Array = new Int32Array(0)
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
    this.wordView = wordsOf(target.buffer)
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
  /** The same buffer's words (valid until the next write: growing replaces it), to fill reserved words. */
  get wordBuffer(): Int32Array {
    return this.wordView
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
      this.wordView = wordsOf(next.buffer)
      this.start = 0
      this.end = size
      this.pos = used + n
      return used
    }
    this.pos = o + n
    return o
  }

  u8(x: number): void {
    // need() first: `this.buf[this.need(1)]` would read buf before need() grows it, and write the old one.
    const o = this.need(1)
    this.buf[o] = x
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
    const from = data.byteOffset + start * size
    if (((o | from | n) & 3) === 0) this.copyWords(wordsOf(data.buffer), from >>> 2, o >>> 2, n >>> 2)
    else copyBytes(this.buf, o, bytesOf(data.buffer), from, n)
  }

  /** Words `src[from .. from + n)` (a view the caller keeps: no look-up per call, for many small writes). */
  words(src: Int32Array, from: number, n: number): void {
    const o = this.need(4 * n)
    if ((o & 3) === 0) this.copyWords(src, from, o >>> 2, n)
    else copyBytes(this.buf, o, bytesOf(src.buffer), src.byteOffset + 4 * from, 4 * n)
  }

  private copyWords(src: Int32Array, from: number, to: number, n: number): void {
    const d = this.wordView
    for (let i = 0; i < n; i++) d[to + i] = src[from + i]!
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

  /** Whether `n` more bytes fit (a growable writer grows first: always). */
  fits(n: number): boolean {
    return this.growable || this.pos + n <= this.end
  }

  /** Moves the end of what is written back to snapshot offset `at` (≤ at()): reserved bytes left unused. */
  truncate(at: number): void {
    this.pos = this.start + at
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

  /** Overwrites the byte at snapshot offset `at` (one written before its value was known). */
  setU8(at: number, x: number): void {
    this.buf[this.start + at] = x
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
