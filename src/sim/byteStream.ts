import type { Hasher, TypedArray } from './hasher.ts'
import { snapshotError } from './valueChecks.ts'

/**
 * The byte streams of the snapshot format (snapshot/format.ts): a little-endian writer into a buffer it grows or
 * one the caller gives, and a bounds-checked reader whose overruns become "truncated" errors naming the section
 * being read. Typed-array slices travel as their raw bytes (every float keeps its bits, NaN payloads and -0
 * included), so the format assumes a little-endian host, which every JavaScript engine in use is.
 *
 * Neither allocates per value: bulk copies go word by word through Int32Array views of the source's buffer
 * (made once per buffer), since `Uint8Array.set` needs a view per copied range and a ring of snapshots written
 * every step must allocate nothing (snapshotInto). The writer is in byteWriter.ts.
 */

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

const arrayWords = new WeakMap<TypedArray, Int32Array>()
const arrayDoubles = new WeakMap<TypedArray, Float64Array>()

/**
 * Words of exactly a typed array's bytes (its byteOffset, a multiple of 4, is word 0), made once per array: a
 * store may be a view into a larger buffer (kernels 'wasm' lays every SceneNode array out in one memory).
 */
export function wordsOfArray(a: TypedArray): Int32Array {
  let v = arrayWords.get(a)
  if (v === undefined) {
    v = new Int32Array(a.buffer, a.byteOffset, a.byteLength >>> 2)
    arrayWords.set(a, v)
  }
  return v
}

/**
 * A's bytes as float64s (cached per array), or null when its bytes do not start on an 8-byte boundary or are not
 * a whole number of float64s: for comparing two floats at a time.
 */
export function doublesOfArray(a: TypedArray): Float64Array | null {
  if (a.byteOffset % 8 !== 0 || a.byteLength % 8 !== 0) return null
  let v = arrayDoubles.get(a)
  if (v === undefined) {
    v = new Float64Array(a.buffer, a.byteOffset, a.byteLength >>> 3)
    arrayDoubles.set(a, v)
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
 * Whether words `a[ao .. ao + n)` equal `b[bo .. bo + n)`. Four words a test: their differences are ORed and
 * tested once (a compare and branch per word made the memo's and the ragdolls' block comparisons ~3 ns a word).
 */
export function equalWords(a: Int32Array, ao: number, b: Int32Array, bo: number, n: number): boolean {
  let k = 0
  for (; k + 4 <= n; k += 4) {
    const diff =
      (a[ao + k]! ^ b[bo + k]!) |
      (a[ao + k + 1]! ^ b[bo + k + 1]!) |
      (a[ao + k + 2]! ^ b[bo + k + 2]!) |
      (a[ao + k + 3]! ^ b[bo + k + 3]!)
    if (diff !== 0) return false
  }
  for (; k < n; k++) if (a[ao + k] !== b[bo + k]) return false
  return true
}

/** Copies words `src[from .. from + n)` to `dst[to ..]` (views kept by the caller: nothing looked up). */
export function copyWords(dst: Int32Array, to: number, src: Int32Array, from: number, n: number): void {
  for (let i = 0; i < n; i++) dst[to + i] = src[from + i]!
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
    // One view (of the source range) instead of two: the destination's whole-buffer view is kept.
    const o = bytes.byteOffset + from
    bytesOf(data.buffer).set(bytesOf(bytes.buffer).subarray(o, o + n), data.byteOffset + start * size)
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
