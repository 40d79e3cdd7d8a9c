/**
 * The snapshot's checksum of words [from, to) of `w`, as two u32 (high, low) in `out`: two Fletcher sums, over
 * the even and the odd words (each word is added to a running sum, and each running sum to a second one, so a
 * word's place counts as well as its bits), mixed at the end with the word count (murmur3's finalizer). It
 * catches accidents (a flipped bit, a cut, a block moved), not edits: anyone can recompute it, and restore checks
 * every value anyway. Additions only, so 1 MB takes a fraction of a millisecond (FNV-1a over bytes took ~4 ns a
 * byte here, as long as the rest of a restore together).
 */
export function checksumWords(w: Int32Array, from: number, to: number, out: Uint32Array): void {
  let a = 0
  let b = 0
  let c = 0
  let d = 0
  let i = from
  for (; i + 2 <= to; i += 2) {
    a = (a + w[i]!) | 0
    b = (b + a) | 0
    c = (c + w[i + 1]!) | 0
    d = (d + c) | 0
  }
  if (i < to) {
    a = (a + w[i]!) | 0
    b = (b + a) | 0
  }
  const n = to - from
  mixInto(out, 0, a ^ Math.imul(b, 0x85ebca77) ^ n)
  mixInto(out, 1, c ^ Math.imul(d, 0xc2b2ae3d) ^ Math.imul(b, 0x27d4eb2f) ^ Math.imul(n, 0x165667b1))
}

/** murmur3's finalizer of h, into out[i] (a u32 returned from a call would be boxed past 2^31). */
function mixInto(out: Uint32Array, i: number, h: number): void {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  out[i] = h
}
