import { AnimationError } from '../errors.ts'
import type { Hasher, TypedArray } from './hasher.ts'

/**
 * The byte streams of the snapshot format (snapshot/format.ts): a growable little-endian writer and a
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
  /** Reserves `n` bytes to be filled in place: the buffer and where they start in it, until the next write. */
  reserve(n: number): { bytes: Uint8Array; at: number }
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
    reserve(n) {
      const at = need(n)
      return { bytes: buf, at }
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

// ------------------------------------------------------------------------------------------- value checks

/*
 * The checks restore makes of every value it reads (snapshot/read.ts, src/physics/snapshot.ts). The checksum
 * only catches accidents: whoever edits a snapshot can recompute it, so each value is checked against what the
 * simulation and cannon-es can take before anything is changed. A number is bounded only by what its own type
 * holds, because that is all the plugin bounds it by: a float32 (node transforms, pose layers, world matrices)
 * must be finite, which keeps it within ±3.4e38; a float64 (clip times and speeds, fade durations, ramp
 * rates, queued hits, ragdoll descriptions, every value of cannon-es's bodies and constraints) must be finite.
 * The public calls take any finite number for the float64s, and cannon-es computes in float64: a character
 * scaled 1e20 under a parent scaled 1e20 has its ragdoll bodies 1e40 from the origin. Whatever the plugin
 * itself can hold must restore; products that leave float32's range are refused by propagateTransforms (a
 * node keeps its last world matrix), and bodies that leave float64's by stepRagdolls (an explosion), not here.
 *
 * Every failed check is an AnimationError('snapshot') naming the section, the entity, the field and the value:
 * `where` is the section and the entity ("section "nodes", scene node 57"), `field` the field ("scale[1]").
 */

/**
 * A rotation may be off unit length by float rounding, or by cannon-es's drift between renormalizations; a
 * length outside this range is no rotation (a zero one gives NaN where it is normalized).
 */
export const QUATERNION_LENGTH = [0.5, 2] as const

/**
 * A value as people read it: -0 and NaN as such, vectors in parentheses, the elements of a Float32Array as the
 * shortest decimal that is the same float32 (1e+38, not 9.999999680285692e+37).
 */
export function formatValue(x: number | ArrayLike<number>, float32 = false): string {
  if (typeof x !== 'number') {
    const f32 = float32 || x instanceof Float32Array
    return `(${Array.from(x, (v) => formatValue(v, f32)).join(', ')})`
  }
  if (Object.is(x, -0)) return '-0'
  if (float32 && Number.isFinite(x)) {
    for (let digits = 1; digits < 9; digits++) {
      const short = Number(x.toPrecision(digits))
      if (Math.fround(short) === x) return String(short)
    }
  }
  return String(x)
}

/** `restore: snapshot <where>: <field> is <value>; <rule>` (`float32`: see formatValue). */
export function invalidValue(
  where: string,
  field: string,
  value: number | ArrayLike<number>,
  rule: string,
  float32 = false,
): AnimationError {
  return snapshotError(`${where}: ${field} is ${formatValue(value, float32)}; ${rule}`)
}

/** `values[from .. from + count)` finite; element k is named `field[k]`. */
export function checkFinite(
  where: string,
  field: string,
  values: ArrayLike<number>,
  from = 0,
  count = values.length - from,
): void {
  for (let k = 0; k < count; k++) {
    const x = values[from + k]!
    if (!(x >= -Number.MAX_VALUE && x <= Number.MAX_VALUE)) {
      const name = count === 1 ? field : `${field}[${k}]`
      throw invalidValue(where, name, x, 'must be a finite number', values instanceof Float32Array)
    }
  }
}

/** `min <= x <= max` (or `min < x` when `above`), which NaN never is. */
export function checkRange(
  where: string,
  field: string,
  x: number,
  min: number,
  max: number,
  above = false,
): void {
  if (!((above ? x > min : x >= min) && x <= max)) {
    const low = above ? `(${formatValue(min)}` : `[${formatValue(min)}`
    throw invalidValue(where, field, x, `must be in ${low}, ${formatValue(max)}]`)
  }
}

/** A finite number > 0. */
export function checkPositive(where: string, field: string, x: number): void {
  if (!(x > 0 && x <= Number.MAX_VALUE)) throw invalidValue(where, field, x, 'must be a finite number > 0')
}

/** A finite number ≥ 0. */
export function checkNonNegative(where: string, field: string, x: number): void {
  if (!(x >= 0 && x <= Number.MAX_VALUE)) throw invalidValue(where, field, x, 'must be a finite number ≥ 0')
}

/** One of `allowed` (an enum or a flag). */
export function checkChoice(where: string, field: string, x: number, allowed: readonly number[]): void {
  if (!allowed.includes(x)) throw invalidValue(where, field, x, `must be one of ${allowed.join(', ')}`)
}

/** Flags with no bits outside `mask`. */
export function checkFlags(where: string, field: string, x: number, mask: number): void {
  if ((x & ~mask) !== 0) throw invalidValue(where, field, x, `has bits outside 0x${mask.toString(16)}`)
}

/**
 * `values[from .. from + n)` (n = 4 for a quaternion, 3 for a direction) finite and of a length within
 * QUATERNION_LENGTH.
 */
export function checkUnit(where: string, field: string, values: ArrayLike<number>, from = 0, n = 4): void {
  let sum = 0
  for (let k = 0; k < n; k++) sum += values[from + k]! ** 2
  const length = Math.sqrt(sum)
  if (!(length >= QUATERNION_LENGTH[0] && length <= QUATERNION_LENGTH[1])) {
    const v = Array.from({ length: n }, (_, k) => values[from + k]!)
    const f32 = values instanceof Float32Array
    throw invalidValue(
      where,
      field,
      v,
      `its length ${formatValue(length)} is not within [${QUATERNION_LENGTH.join(', ')}] (must be a unit ` +
        `${n === 4 ? 'quaternion' : 'vector'})`,
      f32,
    )
  }
}
