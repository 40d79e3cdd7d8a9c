/**
 * The snapshot's checksum of words [from, to) of `w`, as two u32 (high, low) in `out`: two Fletcher sums over
 * groups of 8 words (the group's even words are added to one running sum and its odd words to another, and each
 * running sum to a second one after every group, so a group's place counts as well as its bits), the words past
 * the last whole group one by one, mixed at the end with the word count (murmur3's finalizer): the high word
 * from the first sums (so any one changed word changes it), the low from the second. It catches
 * accidents (a flipped bit, a cut, a block moved), not edits: anyone can recompute it, and restore checks every
 * value anyway. Additions only, and the second sums once a group rather than once a word, so a snapshot's
 * checksum costs a small part of writing or restoring it.
 */
export function checksumWords(w: Int32Array, from: number, to: number, out: Uint32Array): void {
  let a = 0
  let b = 0
  let c = 0
  let d = 0
  let i = from
  // Each group's four words summed in pairs before the running sum takes them: the same sums (exact in a double,
  // then taken mod 2^32), but the running sums wait for one addition a group, not four.
  for (; i + 8 <= to; i += 8) {
    a = (a + (w[i]! + w[i + 2]! + (w[i + 4]! + w[i + 6]!))) | 0
    c = (c + (w[i + 1]! + w[i + 3]! + (w[i + 5]! + w[i + 7]!))) | 0
    b = (b + a) | 0
    d = (d + c) | 0
  }
  for (; i < to; i++) {
    a = (a + w[i]!) | 0
    b = (b + a) | 0
  }
  const n = to - from
  // The high word from the two sums: a changed word changes exactly one of them, and an odd multiplier keeps
  // c's change, so every single changed word (a flipped bit) changes it. The low word from the second sums:
  // where the words were.
  mixInto(out, 0, a ^ Math.imul(c, 0x85ebca77) ^ n)
  mixInto(out, 1, b ^ Math.imul(d, 0xc2b2ae3d) ^ Math.imul(n, 0x165667b1))
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
