/**
 * The snapshot checksum (src/sim/checksum.ts) is the CRC of g = x^64 + x^23 + x^8 + 1 and detects what its
 * generator guarantees (checked here: g = (x + 1)·p, p primitive): every one- and two-bit error, every odd number
 * of flipped bits, every burst of up to 64 bits; and, by its odds, the errors the old sum missed (two opposite
 * flips 32 words apart, issue 33 #3) and random multi-bit errors.
 */
import { describe, expect, it } from 'vitest'
import { checksumWords } from '../../src/sim/checksum.ts'
import { mulberry32 } from '../../scripts/random.ts'

function sum(w: Int32Array, from = 5, to = w.length): string {
  const out = new Uint32Array(2)
  checksumWords(w, from, to, out)
  return out[0]!.toString(16).padStart(8, '0') + out[1]!.toString(16).padStart(8, '0')
}

function words(n: number, seed: number): Int32Array {
  const random = mulberry32(seed)
  return Int32Array.from({ length: n }, () => Math.floor(random() * 2 ** 32) | 0)
}

/** The CRC bit by bit, in BigInt: the textbook reflected form (g's terms below x^64 at bits 63 − t). */
function reference(bytes: Uint8Array): string {
  const poly = (1n << 63n) | (1n << (63n - 8n)) | (1n << (63n - 23n))
  const mask = (1n << 64n) - 1n
  let crc = mask
  for (const byte of bytes) {
    for (let bit = 0; bit < 8; bit++) {
      crc ^= BigInt((byte >> bit) & 1)
      crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n
    }
  }
  return (crc ^ mask).toString(16).padStart(16, '0')
}

function bytesOf(w: Int32Array, from: number, to: number): Uint8Array {
  return new Uint8Array(w.buffer, w.byteOffset + from * 4, (to - from) * 4)
}

/** GF(2) polynomials as BigInt bits: degree, product modulo m, and x to a power modulo m. */
const degree = (a: bigint): number => a.toString(2).length - 1
function mulMod(a: bigint, b: bigint, m: bigint): bigint {
  let r = 0n
  for (; b; b >>= 1n) {
    if (b & 1n) r ^= a
    a <<= 1n
    if (degree(a) === degree(m)) a ^= m
  }
  return r
}
function powX(e: bigint, m: bigint): bigint {
  let r = 1n
  for (let b = 2n; e > 0n; e >>= 1n, b = mulMod(b, b, m)) if (e & 1n) r = mulMod(r, b, m)
  return r
}

describe('checksumWords', () => {
  it('has a generator that guarantees it: (x + 1) times a primitive polynomial of degree 63', () => {
    const g = (1n << 64n) | (1n << 23n) | (1n << 8n) | 1n
    // g / (x + 1) by long division.
    let rest = g
    let p = 0n
    while (rest !== 0n && degree(rest) >= 1) {
      const s = BigInt(degree(rest) - 1)
      p ^= 1n << s
      rest ^= 3n << s
    }
    expect(rest).toBe(0n)
    expect(degree(p)).toBe(63)
    // x has order 2^63 − 1 modulo p, so p is irreducible and primitive (2^63 − 1 = 7² · 73 · 127 · 337 · 92737 ·
    // 649657).
    const order = (1n << 63n) - 1n
    expect(7n * 7n * 73n * 127n * 337n * 92737n * 649657n).toBe(order)
    expect(powX(order, p)).toBe(1n)
    for (const q of [7n, 73n, 127n, 337n, 92737n, 649657n]) expect(powX(order / q, p)).not.toBe(1n)
  })

  it('is the bitwise definition on words', () => {
    for (const seed of [1, 2, 3]) {
      const v = words(5 + 67, seed)
      for (let i = 5; i < 20; i++) v[i] = i % 3 === 0 ? -1 : i % 3 === 1 ? -0x80000000 : 0
      for (const to of [v.length, v.length - 1, 6, 7, 5]) {
        expect(sum(v, 5, to)).toBe(reference(bytesOf(v, 5, to)))
      }
    }
  })

  // 5 words skipped (as a snapshot's header), then 512 words.
  const base = words(5 + 512, 7)
  const original = sum(base)

  it('detects every one- and two-bit error: each bit’s change of the checksum is distinct and not zero', () => {
    // A CRC is linear: flipping bits e changes it by the xor of each flip's change. So every two-bit error is
    // detected exactly when the 16,384 single-flip changes are all non-zero and all different.
    const changes = new Set<string>()
    const out = new Uint32Array(2)
    const before = new Uint32Array(2)
    checksumWords(base, 5, base.length, before)
    for (let i = 5; i < base.length; i++) {
      for (let bit = 0; bit < 32; bit++) {
        base[i]! ^= 1 << bit
        checksumWords(base, 5, base.length, out)
        base[i]! ^= 1 << bit
        changes.add(`${(out[0]! ^ before[0]!) >>> 0}:${(out[1]! ^ before[1]!) >>> 0}`)
      }
    }
    expect(changes.has('0:0')).toBe(false)
    expect(changes.size).toBe(512 * 32)
    expect(sum(base)).toBe(original)
  })

  it('detects two opposite flips of one bit 32·k words apart (what the old sum missed)', () => {
    for (let i = 5; i + 32 < base.length; i += 7) {
      for (let k = 1; i + 32 * k < base.length; k++) {
        const w = base.slice()
        w[i]! ^= 1 << 30
        w[i + 32 * k]! ^= 1 << 30
        expect(sum(w), `words ${i} and ${i + 32 * k}`).not.toBe(original)
      }
    }
  })

  it('detects every burst of up to 64 bits, and random errors of 3 to 16 bits', () => {
    const random = mulberry32(11)
    const bits = (base.length - 5) * 32
    const flip = (w: Int32Array, bit: number): void => {
      w[5 + (bit >>> 5)]! ^= 1 << (bit & 31)
    }
    for (let trial = 0; trial < 3000; trial++) {
      const w = base.slice()
      if (trial % 2 === 0) {
        // A burst: its first and last bits flipped, any in between.
        const length = 1 + Math.floor(random() * 64)
        const start = Math.floor(random() * (bits - length))
        flip(w, start)
        if (length > 1) flip(w, start + length - 1)
        for (let b = 1; b < length - 1; b++) if (random() < 0.5) flip(w, start + b)
      } else {
        const n = 3 + Math.floor(random() * 14)
        const flipped = new Set<number>()
        while (flipped.size < n) flipped.add(Math.floor(random() * bits))
        for (const b of flipped) flip(w, b)
      }
      expect(sum(w), `trial ${trial}`).not.toBe(original)
    }
  })

  it('ignores the words outside [from, to) and is the same at another offset; a cut end changes it', () => {
    const w = base.slice()
    w[0]! ^= 1
    w[4]! += 12345
    expect(sum(w)).toBe(original)
    const shifted = new Int32Array(base.length + 3)
    shifted.set(base, 3)
    expect(sum(shifted, 8)).toBe(original)
    expect(sum(base, 5, base.length - 1)).not.toBe(original)
    const zeros = new Int32Array(64)
    expect(sum(zeros, 5, 40)).not.toBe(sum(zeros, 5, 48))
  })
})
