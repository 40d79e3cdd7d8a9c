/**
 * The snapshot's checksum of words [from, to) of `w`, as two u32 (high, low) in `out`: four interleaved
 * multiply-xorshift lanes over 32-bit words, mixed at the end with the word count. It catches accidents (a
 * flipped bit, a cut or a reordered block), not edits; word-wise, so 1 MB takes a fraction of a millisecond
 * (FNV-1a over bytes took ~4 ns a byte here, as long as the rest of a restore together).
 */
export function checksumWords(w: Int32Array, from: number, to: number, out: Uint32Array): void {
  let a = 0x243f6a88
  let b = 0x85a308d3
  let c = 0x13198a2e
  let d = 0x03707344
  let i = from
  for (; i + 4 <= to; i += 4) {
    a = Math.imul(a ^ w[i]!, 0x9e3779b1)
    b = Math.imul(b ^ w[i + 1]!, 0x85ebca77)
    c = Math.imul(c ^ w[i + 2]!, 0xc2b2ae3d)
    d = Math.imul(d ^ w[i + 3]!, 0x27d4eb2f)
    a ^= a >>> 15
    b ^= b >>> 13
    c ^= c >>> 16
    d ^= d >>> 11
  }
  for (; i < to; i++) a = Math.imul((a ^ w[i]!) + 0x165667b1, 0x9e3779b1)
  const n = to - from
  mixInto(out, 0, a ^ Math.imul(c, 0x85ebca77) ^ n)
  mixInto(out, 1, b ^ Math.imul(d, 0xc2b2ae3d) ^ Math.imul(n, 0x27d4eb2f))
}

/** murmur3's finalizer of h, into out[i] (a u32 returned from a call would be boxed past 2^30). */
function mixInto(out: Uint32Array, i: number, h: number): void {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  out[i] = h
}
