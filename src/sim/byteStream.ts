import { AnimationError } from '../errors.ts'
import type { Hasher, TypedArray } from './hasher.ts'

/**
 * The byte streams of the snapshot format (snapshot/snapshot.ts): a growable little-endian writer and a
 * bounds-checked reader whose overruns become "truncated" errors naming the section being read. Typed-array
 * slices travel as their raw bytes (every float keeps its bits, NaN payloads and -0 included), so the format
 * assumes a little-endian host, which every JavaScript engine in use is.
 */

export interface Writer {
  u8(x: number): void
  u16(x: number): void
  u32(x: number): void
  i32(x: number): void
  f64(x: number): void
  /** Raw bytes of elements [start, start + count) of a typed array. */
  raw(data: TypedArray, start: number, count: number): void
  /** The bytes written so far, copied. */
  finish(): Uint8Array
}

export function createWriter(): Writer {
  let buf = new Uint8Array(1 << 14)
  let view = new DataView(buf.buffer)
  let at = 0
  const need = (n: number): number => {
    if (at + n > buf.length) {
      let size = buf.length * 2
      while (size < at + n) size *= 2
      const next = new Uint8Array(size)
      next.set(buf.subarray(0, at))
      buf = next
      view = new DataView(buf.buffer)
    }
    const o = at
    at += n
    return o
  }
  // `need` may replace buf and view, so each write takes its offset before it reads them.
  return {
    u8(x) {
      const o = need(1)
      view.setUint8(o, x)
    },
    u16(x) {
      const o = need(2)
      view.setUint16(o, x, true)
    },
    u32(x) {
      const o = need(4)
      view.setUint32(o, x, true)
    },
    i32(x) {
      const o = need(4)
      view.setInt32(o, x, true)
    },
    f64(x) {
      const o = need(8)
      view.setFloat64(o, x, true)
    },
    raw(data, start, count) {
      const size = data.BYTES_PER_ELEMENT
      const bytes = new Uint8Array(data.buffer, data.byteOffset + start * size, count * size)
      const o = need(bytes.length)
      buf.set(bytes, o)
    },
    finish: () => buf.slice(0, at),
  }
}

export interface Reader {
  readonly bytes: Uint8Array
  /** Named in truncation errors. */
  section: string
  u8(): number
  u16(): number
  u32(): number
  i32(): number
  f64(): number
  /** `n` f64 values. */
  f64s(n: number): number[]
  /** Skips `n` bytes and returns the offset where they start. */
  span(n: number): number
  at(): number
}

export function createReader(bytes: Uint8Array, start: number): Reader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = start
  const reader: Reader = {
    bytes,
    section: 'header',
    u8: () => view.getUint8(take(1)),
    u16: () => view.getUint16(take(2), true),
    u32: () => view.getUint32(take(4), true),
    i32: () => view.getInt32(take(4), true),
    f64: () => view.getFloat64(take(8), true),
    f64s(n) {
      const out: number[] = []
      for (let i = 0; i < n; i++) out.push(view.getFloat64(take(8), true))
      return out
    },
    span: (n) => take(n),
    at: () => at,
  }
  function take(n: number): number {
    if (at + n > bytes.length) {
      throw snapshotError(
        `truncated in section "${reader.section}": ${n} bytes needed at offset ${at}, ` +
          `the snapshot has ${bytes.length}`,
      )
    }
    const o = at
    at += n
    return o
  }
  return reader
}

/** The error every refused restore throws: `restore: snapshot <message>`. */
export function snapshotError(message: string): AnimationError {
  return new AnimationError('snapshot', `restore: snapshot ${message}`)
}

/** Copies `count` elements' worth of raw bytes from `bytes[from ..]` into `data[start ..]`. */
export function copyInto(
  data: TypedArray,
  start: number,
  bytes: Uint8Array,
  from: number,
  count: number,
): void {
  const size = data.BYTES_PER_ELEMENT
  new Uint8Array(data.buffer, data.byteOffset + start * size, count * size).set(
    bytes.subarray(from, from + count * size),
  )
}

export function readU32Array(bytes: Uint8Array, from: number, count: number): Uint32Array {
  const out = new Uint32Array(count)
  copyInto(out, 0, bytes, from, count)
  return out
}

export function writeVec3(w: Writer, v: { x: number; y: number; z: number }): void {
  w.f64(v.x)
  w.f64(v.y)
  w.f64(v.z)
}

/** A 64-bit digest as two u32 words, high first (how the format stores checksums and fingerprints). */
export function digestWords(h: Hasher): [number, number] {
  const hex = h.digest()
  return [parseInt(hex.slice(0, 8), 16), parseInt(hex.slice(8), 16)]
}

export function hexWords(words: readonly [number, number]): string {
  return words[0].toString(16).padStart(8, '0') + words[1].toString(16).padStart(8, '0')
}
