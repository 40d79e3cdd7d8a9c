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

/** The checksum as its comment defines it, a word at a time (murmur3's finalizer on each half). */
function reference(w: Int32Array, from: number, to: number): string {
  const mix = (h: number): number => {
    h ^= h >>> 16
    h = Math.imul(h, 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
    return h >>> 0
  }
  let [a, b, c, d] = [0, 0, 0, 0]
  let i = from
  for (; i + 8 <= to; i += 8) {
    for (let k = 0; k < 8; k += 2) {
      a = (a + w[i + k]!) | 0
      c = (c + w[i + k + 1]!) | 0
    }
    b = (b + a) | 0
    d = (d + c) | 0
  }
  for (; i < to; i++) {
    a = (a + w[i]!) | 0
    b = (b + a) | 0
  }
  const n = to - from
  return `${mix(a ^ Math.imul(c, 0x85ebca77) ^ n)}:${mix(b ^ Math.imul(d, 0xc2b2ae3d) ^ Math.imul(n, 0x165667b1))}`
}

describe('checksumWords', () => {
  it('is its sums taken a word at a time, wrapping at 2^32', () => {
    for (const seed of [1, 2, 3]) {
      const w = words(3 + 8 * 50 + 7, seed)
      // Words at the ends of the range, whose sums wrap more than once a group.
      for (let i = 3; i < 40; i++) w[i] = i % 2 === 0 ? 0x7fffffff : -0x80000000
      for (const to of [w.length, w.length - 3, 11, 3]) expect(sum(w, 3, to)).toBe(reference(w, 3, to))
    }
  })

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
