/**
 * The checksum's fast form (src/engine/checksum.ts checksumWordsFast) against its clean form (src/sim/checksum.ts
 * checksumWords, itself held to the bitwise CRC and its detection properties by test/sim/checksum.test.ts), bit
 * for bit: random words at any offset and length (odd and even, 0 to a few hundred words), runs of zeros and
 * ones, and the flips the clean form's tests make.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checksumWords } from '../../src/sim/checksum.ts'
import { checksumWordsFast } from '../../src/engine/checksum.ts'
import { mulberry32 } from '../../scripts/random.ts'

function both(w: Int32Array, from: number, to: number): [string, string] {
  const clean = new Uint32Array(2)
  const fast = new Uint32Array(2).fill(7)
  checksumWords(w, from, to, clean)
  checksumWordsFast(w, from, to, fast)
  return [`${clean[0]}:${clean[1]}`, `${fast[0]}:${fast[1]}`]
}

describe('checksumWordsFast is checksumWords', () => {
  it('property: the same two words for any words, from and to', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -0x80000000, max: 0x7fffffff }), { maxLength: 300 }),
        fc.nat(),
        fc.nat(),
        (values, x, y) => {
          const w = Int32Array.from(values)
          const from = values.length === 0 ? 0 : x % (values.length + 1)
          const to = from + (values.length === 0 ? 0 : y % (values.length - from + 1))
          const [clean, fast] = both(w, from, to)
          expect(fast).toBe(clean)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('the same on long random buffers, zeros and ones, and with one or two bits flipped', () => {
    const random = mulberry32(33)
    for (const n of [0, 1, 2, 3, 5, 6, 1000, 1001, 40_001]) {
      const w = Int32Array.from({ length: n }, () => Math.floor(random() * 2 ** 32) | 0)
      for (const from of [0, 1, 5]) {
        if (from > n) continue
        let [clean, fast] = both(w, from, n)
        expect(fast, `${n} words from ${from}`).toBe(clean)
        ;[clean, fast] = both(new Int32Array(n), from, n)
        expect(fast).toBe(clean)
        ;[clean, fast] = both(new Int32Array(n).fill(-1), from, n)
        expect(fast).toBe(clean)
      }
      for (let trial = 0; trial < 20 && n > 0; trial++) {
        const v = w.slice()
        v[Math.floor(random() * n)]! ^= 1 << Math.floor(random() * 32)
        v[Math.floor(random() * n)]! ^= 1 << 30
        const [clean, fast] = both(v, 0, n)
        expect(fast).toBe(clean)
      }
    }
  })
})
