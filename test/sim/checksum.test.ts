/**
 * The snapshot checksum (src/sim/checksum.ts) catches accidents: every single flipped bit, a word moved to
 * another group, whole groups swapped, a word cut from the end.
 */
import { describe, expect, it } from 'vitest'
import { checksumWords } from '../../src/sim/checksum.ts'
import { mulberry32 } from '../../scripts/random.ts'

function sum(w: Int32Array, from = 3, to = w.length): string {
  const out = new Uint32Array(2)
  checksumWords(w, from, to, out)
  return `${out[0]}:${out[1]}`
}

function words(n: number, seed: number): Int32Array {
  const random = mulberry32(seed)
  return Int32Array.from({ length: n }, () => Math.floor(random() * 2 ** 32) | 0)
}

describe('checksumWords', () => {
  // 3 words skipped, 8 groups of 8 and a tail of 5.
  const base = words(3 + 64 + 5, 7)
  const original = sum(base)

  it('changes with every single flipped bit, in whole groups and the tail', () => {
    for (let i = 3; i < base.length; i++) {
      for (let bit = 0; bit < 32; bit++) {
        const w = base.slice()
        w[i]! ^= 1 << bit
        expect(sum(w), `word ${i}, bit ${bit}`).not.toBe(original)
      }
    }
  })

  it('ignores the words outside [from, to)', () => {
    const w = base.slice()
    w[0]! ^= 1
    w[2]! += 12345
    expect(sum(w)).toBe(original)
  })

  it('changes when whole groups swap, a word moves to another group, or the end is cut', () => {
    const swapped = base.slice()
    swapped.set(base.subarray(3, 11), 11)
    swapped.set(base.subarray(11, 19), 3)
    expect(sum(swapped)).not.toBe(original)
    const moved = base.slice()
    moved[3] = base[12]!
    moved[12] = base[3]!
    expect(sum(moved)).not.toBe(original)
    expect(sum(base, 3, base.length - 1)).not.toBe(original)
    const zeros = new Int32Array(base.length)
    expect(sum(zeros, 3, 40)).not.toBe(sum(zeros, 3, 48))
  })

  it('is the same for the same words at another offset', () => {
    const shifted = new Int32Array(base.length + 5)
    shifted.set(base, 5)
    expect(sum(shifted, 8)).toBe(original)
  })
})
