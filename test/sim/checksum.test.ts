/**
 * The snapshot checksum (src/sim/checksum.ts) is CRC-64/XZ and detects what a CRC guarantees: every one- and
 * two-bit error, every odd number of flipped bits, every burst of up to 64 bits; and, by its odds, the errors the
 * old sum missed (two opposite flips 32 words apart, issue 33 #3) and random multi-bit errors.
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

/** CRC-64/XZ bit by bit, in BigInt: the textbook definition, independent of the tables. */
function reference(bytes: Uint8Array): string {
  const poly = 0xc96c5795d7870f42n
  const mask = (1n << 64n) - 1n
  let crc = mask
  for (const byte of bytes) {
    crc ^= BigInt(byte)
    for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n
  }
  return (crc ^ mask).toString(16).padStart(16, '0')
}

function bytesOf(w: Int32Array, from: number, to: number): Uint8Array {
  return new Uint8Array(w.buffer, w.byteOffset + from * 4, (to - from) * 4)
}

describe('checksumWords', () => {
  it('is CRC-64/XZ: the catalogue check value, and the bitwise definition on words', () => {
    expect(reference(new TextEncoder().encode('123456789'))).toBe('995dc9bbdf1939fa')
    // "12345678" as two little-endian words, against the reference on the same bytes.
    const w = new Int32Array(new TextEncoder().encode('12345678').buffer)
    expect(sum(w, 0)).toBe(reference(bytesOf(w, 0, 2)))
    for (const seed of [1, 2, 3]) {
      const v = words(5 + 67, seed)
      for (let i = 5; i < 20; i++) v[i] = i % 3 === 0 ? -1 : i % 3 === 1 ? -0x80000000 : 0
      // Even and odd counts of words (pairs and a last single word), and none.
      for (const to of [v.length, v.length - 1, 6, 7, 5])
        expect(sum(v, 5, to)).toBe(reference(bytesOf(v, 5, to)))
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
