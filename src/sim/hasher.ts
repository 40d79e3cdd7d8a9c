import { AnimationError } from '../errors.ts'

/**
 * State hash for deterministic-simulation tests: FNV-1a 64 (Fowler–Noll–Vo, variant 1a, 64-bit; offset basis
 * 0xcbf29ce484222325, prime 0x100000001b3 = 2^40 + 0x1b3) over the *bytes* of typed arrays, so it sees bits,
 * not values: -0 differs from 0, and each NaN payload counts. Not cryptographic; good for "did any bit change".
 * Per byte:  h ^= byte;  h = h * prime mod 2^64.
 *
 * The 64-bit state is four 16-bit limbs h3 h2 h1 h0 (h = h3·2^48 + h2·2^32 + h1·2^16 + h0). With the prime's
 * limbs (0, 0x100, 0, 0x1b3), the product's limbs before carrying are
 *   t0 = h0·0x1b3    t1 = h1·0x1b3    t2 = h2·0x1b3 + h0·0x100    t3 = h3·0x1b3 + h1·0x100
 * each < 2^26, so every intermediate is a small integer: measured 5x faster in V8 than two 32-bit halves
 * (whose 41-bit products leave the small-integer range).
 *
 * Bytes are read in memory order: the aligned middle of a range as Uint32 words (split low byte first, which
 * is memory order on little-endian hosts, i.e. every JavaScript engine in use; ~15% faster than byte loads),
 * the unaligned ends as bytes. Views over each ArrayBuffer are made once and cached (weakly), so `update`
 * allocates nothing in steady state.
 */

/** The arrays a Hasher reads: any typed array (DataView is refused), hashed by its bytes. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array

/**
 * An incremental FNV-1a 64 hash over bytes (see createHasher): feed it with `update` and `updateNumber`, read it
 * with `digest`. The methods return the hasher, so calls chain.
 */
export interface Hasher {
  /** Hashes the bytes of elements `[start, end)` of `data` (default: all). Throws AnimationError for bad bounds. */
  update(data: TypedArray, start?: number, end?: number): Hasher
  /** Hashes the 8 bytes of `x` as a float64 (little-endian), as `update(new Float64Array([x]))` would. */
  updateNumber(x: number): Hasher
  /** The hash of everything since creation or `reset`, as 16 lowercase hex digits. Does not reset. */
  digest(): string
  /** Back to the empty state (FNV offset basis). */
  reset(): Hasher
}

// FNV-1a 64 offset basis 0xcbf29ce484222325 as 16-bit limbs, high to low.
const OFFSET_3 = 0xcbf2
const OFFSET_2 = 0x9ce4
const OFFSET_1 = 0x8422
const OFFSET_0 = 0x2325

interface ByteViews {
  u8: Uint8Array
  u32: Uint32Array
}

const viewCache = new WeakMap<ArrayBufferLike, ByteViews>()
const numberScratch = new Float64Array(1)

function viewsOf(buffer: ArrayBufferLike): ByteViews {
  let views = viewCache.get(buffer)
  if (views === undefined || views.u32.length !== buffer.byteLength >>> 2) {
    views = { u8: new Uint8Array(buffer), u32: new Uint32Array(buffer, 0, buffer.byteLength >>> 2) }
    viewCache.set(buffer, views)
  }
  return views
}

function hex4(limb: number): string {
  return limb.toString(16).padStart(4, '0')
}

function isTypedArray(x: unknown): x is TypedArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView)
}

/**
 * A new hasher in the empty state. It reads bits, not values (-0 and 0 differ, every NaN payload counts), the
 * same in every JavaScript engine on little-endian hosts (every host in use); it is for "did any bit change",
 * not cryptographic.
 */
export function createHasher(): Hasher {
  let h3 = OFFSET_3
  let h2 = OFFSET_2
  let h1 = OFFSET_1
  let h0 = OFFSET_0

  /** FNV-1a over bytes [b0, b1) of `buffer`. Trusts its arguments. */
  function absorb(buffer: ArrayBufferLike, b0: number, b1: number): void {
    const { u8, u32 } = viewsOf(buffer)
    const wordStart = Math.min((b0 + 3) >>> 2, b1 >>> 2)
    const wordEnd = Math.max(wordStart, b1 >>> 2)
    absorbBytes(u8, b0, Math.min(b1, wordStart << 2))
    absorbWords(u32, wordStart, wordEnd)
    absorbBytes(u8, Math.max(b0, wordEnd << 2), b1)
  }

  function absorbBytes(u8: Uint8Array, from: number, to: number): void {
    let a0 = h0
    let a1 = h1
    let a2 = h2
    let a3 = h3
    for (let i = from; i < to; i++) {
      a0 ^= u8[i]!
      const t0 = a0 * 0x1b3
      const t1 = a1 * 0x1b3 + (t0 >>> 16)
      const t2 = a2 * 0x1b3 + (a0 << 8) + (t1 >>> 16)
      a3 = (a3 * 0x1b3 + (a1 << 8) + (t2 >>> 16)) & 0xffff
      a0 = t0 & 0xffff
      a1 = t1 & 0xffff
      a2 = t2 & 0xffff
    }
    h0 = a0
    h1 = a1
    h2 = a2
    h3 = a3
  }

  /** The hot loop: the byte step of absorbBytes, unrolled over the four bytes of each word. */
  function absorbWords(u32: Uint32Array, from: number, to: number): void {
    let a0 = h0
    let a1 = h1
    let a2 = h2
    let a3 = h3
    let t0 = 0
    let t1 = 0
    let t2 = 0
    for (let w = from; w < to; w++) {
      const word = u32[w]!
      a0 ^= word & 0xff
      t0 = a0 * 0x1b3
      t1 = a1 * 0x1b3 + (t0 >>> 16)
      t2 = a2 * 0x1b3 + (a0 << 8) + (t1 >>> 16)
      a3 = (a3 * 0x1b3 + (a1 << 8) + (t2 >>> 16)) & 0xffff
      a0 = (t0 & 0xffff) ^ ((word >>> 8) & 0xff)
      a1 = t1 & 0xffff
      a2 = t2 & 0xffff
      t0 = a0 * 0x1b3
      t1 = a1 * 0x1b3 + (t0 >>> 16)
      t2 = a2 * 0x1b3 + (a0 << 8) + (t1 >>> 16)
      a3 = (a3 * 0x1b3 + (a1 << 8) + (t2 >>> 16)) & 0xffff
      a0 = (t0 & 0xffff) ^ ((word >>> 16) & 0xff)
      a1 = t1 & 0xffff
      a2 = t2 & 0xffff
      t0 = a0 * 0x1b3
      t1 = a1 * 0x1b3 + (t0 >>> 16)
      t2 = a2 * 0x1b3 + (a0 << 8) + (t1 >>> 16)
      a3 = (a3 * 0x1b3 + (a1 << 8) + (t2 >>> 16)) & 0xffff
      a0 = (t0 & 0xffff) ^ (word >>> 24)
      a1 = t1 & 0xffff
      a2 = t2 & 0xffff
      t0 = a0 * 0x1b3
      t1 = a1 * 0x1b3 + (t0 >>> 16)
      t2 = a2 * 0x1b3 + (a0 << 8) + (t1 >>> 16)
      a3 = (a3 * 0x1b3 + (a1 << 8) + (t2 >>> 16)) & 0xffff
      a0 = t0 & 0xffff
      a1 = t1 & 0xffff
      a2 = t2 & 0xffff
    }
    h0 = a0
    h1 = a1
    h2 = a2
    h3 = a3
  }

  const hasher: Hasher = {
    update(data, start = 0, end = data?.length) {
      if (!isTypedArray(data)) {
        throw new AnimationError('argument', `Hasher.update: data ${String(data)} is not a typed array`)
      }
      if (!(
        Number.isInteger(start) &&
        Number.isInteger(end) &&
        start >= 0 &&
        start <= end &&
        end <= data.length
      )) {
        throw new AnimationError(
          'argument',
          `Hasher.update: range [${start}, ${end}) is not within the ${data.length} elements of the ${data.constructor.name}`,
        )
      }
      const size = data.BYTES_PER_ELEMENT
      absorb(data.buffer, data.byteOffset + start * size, data.byteOffset + end * size)
      return hasher
    },
    updateNumber(x) {
      numberScratch[0] = x
      absorb(numberScratch.buffer, 0, 8)
      return hasher
    },
    digest() {
      return hex4(h3) + hex4(h2) + hex4(h1) + hex4(h0)
    },
    reset() {
      h3 = OFFSET_3
      h2 = OFFSET_2
      h1 = OFFSET_1
      h0 = OFFSET_0
      return hasher
    },
  }
  return hasher
}

/**
 * Hashes, for every typed-array field of `store` in sorted field-name order, the slice of each entity in `eids`
 * (in the order given): field `f` with `f.length = stride * capacity` gives entity `e` the elements
 * `[e*stride, e*stride + stride)`. Fields that are not typed arrays are skipped. Entity ids are not hashed.
 * Throws AnimationError if `capacity` does not divide a field's length or an id is outside `0..capacity-1`.
 */
export function hashStores(hasher: Hasher, store: object, eids: ArrayLike<number>, capacity: number): Hasher {
  if (!(Number.isInteger(capacity) && capacity >= 1)) {
    throw new AnimationError('argument', `hashStores: capacity ${capacity} must be an integer >= 1`)
  }
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!
    if (!(Number.isInteger(e) && e >= 0 && e < capacity)) {
      throw new AnimationError('argument', `hashStores: eids[${i}] = ${e} is outside 0..${capacity - 1}`)
    }
  }
  const fields = Object.keys(store).sort()
  for (const name of fields) {
    const data: unknown = (store as Record<string, unknown>)[name]
    if (!isTypedArray(data)) continue
    if (data.length % capacity !== 0) {
      throw new AnimationError(
        'argument',
        `hashStores: field "${name}" has ${data.length} elements, not a multiple of capacity ${capacity}`,
      )
    }
    const stride = data.length / capacity
    // Runs of consecutive ids go in one update: the same bytes in the same order, so the same hash, faster.
    for (let i = 0; i < eids.length;) {
      const first = eids[i++]!
      let last = first
      while (i < eids.length && eids[i] === last + 1) last = eids[i++]!
      hasher.update(data, first * stride, (last + 1) * stride)
    }
  }
  return hasher
}
