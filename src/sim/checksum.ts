/**
 * The snapshot's checksum: a 64-bit CRC of the little-endian bytes of words [from, to) of `w` (bits in the order
 * they are stored: byte by byte, each from its lowest bit, as reflected CRCs such as CRC-64/XZ take them),
 * initial value and final xor all ones, into `out` as two u32 (high, low). The generator is
 *
 *   g(x) = x^64 + x^23 + x^8 + 1 = (x + 1) · p(x),   p of degree 63 and primitive
 *
 * A CRC is chosen over a sum or a hash for what it guarantees, not just makes likely. With g's degree 64 and
 * constant term it detects every burst of up to 64 changed bits; with the factor x + 1, every error of an odd
 * number of bits; with p primitive, every two-bit error less than 2^63 − 1 bits apart (any snapshot). So every
 * error of up to three bits anywhere; anything else passes with odds of about 2^-64. (Sums of words missed two
 * opposite flips of one bit 32 words apart.) It catches accidents (a bad disk, a mangled message), not edits:
 * anyone can recompute it, and restore checks every value anyway.
 *
 * Why this generator and not a catalogue one (CRC-64/XZ's has 34 terms): with x^64 ≡ x^23 + x^8 + 1, the 32
 * bits a word shifts out fold back in with a few shifts and xors, so a word costs about ten integer operations
 * and no table lookups (a table-driven CRC-64 takes eight a word), and the checksum is a large part of what a
 * snapshot costs. The state is two int32 halves (JavaScript has no 64-bit integers outside BigInt, which
 * allocates); nothing is allocated per call.
 */
export function checksumWords(w: Int32Array, from: number, to: number, out: Uint32Array): void {
  // Reflected: bit j of the state is the coefficient of x^(63 − j); `lo` holds bits 0..31. A word's bits are
  // xored into `lo` and shifted out: those 32 coefficients, times x^64 ≡ x^23 + x^8 + 1, are A·x^t for each
  // term x^t, which lies at bits 32 − t .. 63 − t: lo ^= A << (32 − t), hi ^= A >>> t (t = 0: hi ^= A).
  let lo = -1
  let hi = -1
  for (let i = from; i < to; i++) {
    const a = lo ^ w[i]!
    lo = hi ^ (a << 9) ^ (a << 24)
    hi = a ^ (a >>> 23) ^ (a >>> 8)
  }
  out[0] = ~hi
  out[1] = ~lo
}
