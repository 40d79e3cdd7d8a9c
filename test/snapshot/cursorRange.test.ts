/**
 * Restore's range test of key cursors (snapshot/readCharacters.ts cursorsOutside), which tests 1- and 2-byte
 * cursors four or two to a word: against a cursor-by-cursor test, for every width, key counts on both sides of
 * the lanes' limits (127 / 128, 32767 / 32768), cursors at, below and past the last key, any count and offset.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cursorsOutside } from '../../snapshot/readCharacters.ts'
import { Reader } from '../../src/sim/byteStream.ts'

const WIDTHS = [1, 2, 4] as const
const maxKeysArb = (width: number) =>
  fc.oneof(
    fc.constantFrom(1, 2, 61, 127, 128, 129, 255, 256, 32767, 32768, 32769, 65535, 65536, 1 << 20),
    fc.integer({ min: 1, max: 2 ** 8 * width }),
  )

function cursorsOf(width: number, keys: number[], at: number): Uint8Array {
  const bytes = new Uint8Array(at + width * keys.length + 8).fill(0xff)
  const view = new DataView(bytes.buffer)
  keys.forEach((key, k) => {
    if (width === 1) view.setUint8(at + k, key)
    else if (width === 2) view.setUint16(at + 2 * k, key, true)
    else view.setInt32(at + 4 * k, key, true)
  })
  return bytes
}

describe('cursorsOutside', () => {
  it('property: true exactly when a cursor is at or past maxKeys (or negative, 4-byte), any width and count', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...WIDTHS)
          .chain((width) =>
            fc.tuple(
              fc.constant(width),
              maxKeysArb(width),
              fc.array(fc.nat(), { maxLength: 40 }),
              fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 40 }),
              fc.constantFrom(0, 4, 8),
            ),
          ),
        ([width, maxKeys, raw, near, at]) => {
          const top = width === 4 ? 2 ** 31 : 2 ** (8 * width)
          // Keys anywhere in the width's range, and keys next to the last key.
          const keys = raw.map((x, k) => {
            const key = k < near.length ? maxKeys - 1 + near[k]! : x % top
            return width === 4 ? key | 0 : Math.min(Math.max(key, 0), top - 1)
          })
          const outside = keys.some((key) => key < 0 || key >= maxKeys)
          const r = new Reader(cursorsOf(width, keys, at), 0)
          expect(cursorsOutside(r, at, width, keys.length, maxKeys)).toBe(outside)
        },
      ),
      { numRuns: 5000 },
    )
  })
})
