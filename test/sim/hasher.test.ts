import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import type { TypedArray } from '../../src/sim/hasher.ts'
import { createHasher, hashStores } from '../../src/sim/hasher.ts'

function expectAnimationError(fn: () => unknown, message: string): void {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(AnimationError)
    expect((error as AnimationError).kind).toBe('argument')
    expect((error as AnimationError).message).toBe(message)
    return
  }
  expect.fail(`expected AnimationError: ${message}`)
}

/** FNV-1a 64 straight from its definition, in BigInt: h = basis; per byte h = ((h ^ b) * prime) mod 2^64. */
function referenceFnv1a64(bytes: Iterable<number>): string {
  const prime = 0x100000001b3n
  const mask = (1n << 64n) - 1n
  let h = 0xcbf29ce484222325n
  for (const b of bytes) h = ((h ^ BigInt(b)) * prime) & mask
  return h.toString(16).padStart(16, '0')
}

function bytesOf(data: TypedArray, start = 0, end = data.length): Uint8Array {
  const size = data.BYTES_PER_ELEMENT
  return new Uint8Array(data.buffer, data.byteOffset + start * size, (end - start) * size)
}

const hashOf = (data: TypedArray, start?: number, end?: number) =>
  createHasher().update(data, start, end).digest()
const ascii = (s: string) => new TextEncoder().encode(s)

describe('createHasher (FNV-1a 64)', () => {
  it('gives the published FNV-1a 64 test vectors', () => {
    expect(createHasher().digest()).toBe('cbf29ce484222325') // the offset basis: no bytes
    expect(hashOf(ascii('a'))).toBe('af63dc4c8601ec8c')
    expect(hashOf(ascii('foobar'))).toBe('85944171f73967e8')
  })

  it('equals the BigInt reference on any bytes, at any alignment, in any chunks', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 64 }),
        fc.integer({ min: 0, max: 7 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (bytes, shift, cuts) => {
          const buffer = new Uint8Array(bytes.length + shift + 3).fill(0xa5)
          buffer.set(bytes, shift)
          const view = buffer.subarray(shift, shift + bytes.length)
          const expected = referenceFnv1a64(bytes)
          expect(hashOf(view)).toBe(expected)
          // The same bytes fed in pieces.
          const points = [0, ...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]
          const hasher = createHasher()
          for (let i = 1; i < points.length; i++) hasher.update(view, points[i - 1], points[i])
          expect(hasher.digest()).toBe(expected)
        },
      ),
    )
  })

  it('hashes the bytes of wider typed arrays in memory order, sub-ranges included', () => {
    const f32 = Float32Array.of(1, -2.5, 3e-39, 7)
    expect(hashOf(f32)).toBe(referenceFnv1a64(bytesOf(f32)))
    expect(hashOf(f32, 1, 3)).toBe(referenceFnv1a64(bytesOf(f32, 1, 3)))
    const i16 = new Int16Array(new ArrayBuffer(14), 2, 5).fill(-300) // starts 2 bytes into the buffer
    expect(hashOf(i16)).toBe(referenceFnv1a64(bytesOf(i16)))
    const f64 = Float64Array.of(Math.PI, -0)
    expect(hashOf(f64)).toBe(referenceFnv1a64(bytesOf(f64)))
    const big = BigInt64Array.of(-1n, 5n)
    expect(hashOf(big)).toBe(referenceFnv1a64(bytesOf(big)))
  })

  it('gives the same hash for the same input, every time and in every hasher', () => {
    const data = Float32Array.from({ length: 1000 }, (_, i) => Math.fround(i * 0.37 - 100))
    const first = hashOf(data)
    expect(hashOf(data)).toBe(first)
    expect(hashOf(Float32Array.from(data))).toBe(first)
  })

  it('changes when any one bit changes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        fc.nat(),
        fc.nat(),
        (length, shift, at, seed) => {
          // A Float32Array that starts `shift` bytes into its buffer is not allowed, so shift whole floats and
          // flip bits in a Uint8Array view at an unaligned offset too.
          const data = new Float32Array(length + shift)
          for (let i = 0; i < data.length; i++) data[i] = Math.fround(Math.sin(seed + i) * 1e3)
          const start = shift
          const bit = at % (length * 32)
          const before = hashOf(data, start)
          const bytes = new Uint8Array(data.buffer)
          const byte = start * 4 + (bit >>> 3)
          bytes[byte] = bytes[byte]! ^ (1 << (bit & 7))
          expect(hashOf(data, start)).not.toBe(before)
          const odd = new Uint8Array(data.buffer, 1 + (shift % 3), length * 4 - 3)
          const oddBefore = hashOf(odd)
          const oddBit = at % (odd.length * 8)
          odd[oddBit >>> 3] = odd[oddBit >>> 3]! ^ (1 << (oddBit & 7))
          expect(hashOf(odd)).not.toBe(oddBefore)
        },
      ),
    )
  })

  it('sees bits, not values: -0 and 0 differ, and so do NaN payloads', () => {
    expect(hashOf(Float32Array.of(-0))).not.toBe(hashOf(Float32Array.of(0)))
    expect(createHasher().updateNumber(-0).digest()).not.toBe(createHasher().updateNumber(0).digest())
    const nanA = new Float32Array(new Uint32Array([0x7fc00000]).buffer)
    const nanB = new Float32Array(new Uint32Array([0x7fc00001]).buffer)
    expect(Number.isNaN(nanA[0]) && Number.isNaN(nanB[0])).toBe(true)
    expect(hashOf(nanA)).not.toBe(hashOf(nanB))
  })

  it('hashes a number as the 8 little-endian bytes of its float64', () => {
    for (const x of [0, 1, -1.5, Math.PI, 1e300, -Infinity]) {
      const expected = referenceFnv1a64(new Uint8Array(Float64Array.of(x).buffer))
      expect(createHasher().updateNumber(x).digest(), `${x}`).toBe(expected)
    }
  })

  it('keeps going after digest, and starts over after reset', () => {
    const hasher = createHasher().update(ascii('foo'))
    hasher.digest()
    expect(hasher.update(ascii('bar')).digest()).toBe('85944171f73967e8')
    expect(hasher.reset().update(ascii('a')).digest()).toBe('af63dc4c8601ec8c')
  })

  it('rejects data that is not a typed array and ranges outside it', () => {
    const hasher = createHasher()
    expectAnimationError(
      () => hasher.update([1, 2] as unknown as Float32Array),
      'Hasher.update: data 1,2 is not a typed array',
    )
    expectAnimationError(
      () => hasher.update(new DataView(new ArrayBuffer(4)) as unknown as Uint8Array),
      'Hasher.update: data [object DataView] is not a typed array',
    )
    const data = new Float32Array(4)
    for (const [start, end] of [
      [-1, 2],
      [3, 2],
      [0, 5],
      [0.5, 2],
    ] as const) {
      expectAnimationError(
        () => hasher.update(data, start, end),
        `Hasher.update: range [${start}, ${end}) is not within the 4 elements of the Float32Array`,
      )
    }
    expect(hasher.digest()).toBe('cbf29ce484222325')
  })
})

describe('hashStores', () => {
  const CAPACITY = 8
  function makeStore() {
    return {
      position: Float32Array.from({ length: CAPACITY * 3 }, (_, i) => i * 0.5),
      flag: Uint8Array.from({ length: CAPACITY }, (_, i) => i % 2),
      name: 'not an array',
      count: 3,
    }
  }

  it('hashes each typed-array field in sorted name order, entity slices in the given order', () => {
    const store = makeStore()
    const eids = [5, 2]
    const expected = createHasher()
      .update(store.flag, 5, 6)
      .update(store.flag, 2, 3)
      .update(store.position, 15, 18)
      .update(store.position, 6, 9)
      .digest()
    expect(hashStores(createHasher(), store, eids, CAPACITY).digest()).toBe(expected)
  })

  it('gives the same hash for runs of consecutive ids as slice-by-slice updates', () => {
    const store = makeStore()
    const eids = [2, 3, 4, 6, 7, 0]
    const expected = createHasher()
    for (const e of eids) expected.update(store.flag, e, e + 1)
    for (const e of eids) expected.update(store.position, e * 3, e * 3 + 3)
    expect(hashStores(createHasher(), store, eids, CAPACITY).digest()).toBe(expected.digest())
  })

  it('does not depend on the order fields were declared in', () => {
    const store = makeStore()
    const reordered = { count: 3, flag: store.flag, name: 'x', position: store.position }
    expect(hashStores(createHasher(), reordered, [1, 2], CAPACITY).digest()).toBe(
      hashStores(createHasher(), store, [1, 2], CAPACITY).digest(),
    )
  })

  it("changes with a listed entity's data and ignores entities not listed", () => {
    const store = makeStore()
    const before = hashStores(createHasher(), store, [1, 3], CAPACITY).digest()
    store.position[0] = 99 // entity 0: not listed
    expect(hashStores(createHasher(), store, [1, 3], CAPACITY).digest()).toBe(before)
    store.position[3 * 3 + 2] = -0.5 // entity 3, z
    expect(hashStores(createHasher(), store, [1, 3], CAPACITY).digest()).not.toBe(before)
  })

  it('rejects a bad capacity, a field it does not divide, and ids outside the store', () => {
    const store = makeStore()
    expectAnimationError(
      () => hashStores(createHasher(), store, [1], 0),
      'hashStores: capacity 0 must be an integer >= 1',
    )
    expectAnimationError(
      () => hashStores(createHasher(), store, [1], 5),
      'hashStores: field "flag" has 8 elements, not a multiple of capacity 5',
    )
    expectAnimationError(
      () => hashStores(createHasher(), store, [1, 8], CAPACITY),
      'hashStores: eids[1] = 8 is outside 0..7',
    )
  })
})
