/**
 * The snapshot checksum's fast form: src/sim/checksum.ts's checksumWords (the clean form, its contract and the
 * reference, held to it bit for bit by test/engine/checksum.test.ts), taking two words a turn. The snapshot's
 * writer and restore call this one.
 *
 * Two of the clean form's steps composed: the second word's `a` is the first step's `lo` xor the word, written
 * out, so a pair costs the same shifts and xors as two steps with half the loop's own work and one fewer
 * dependent xor on the chain (about a fifth less time a word in V8; the CRC is throughput-bound, so
 * interleaving independent lanes gained nothing).
 */
export function checksumWordsFast(w: Int32Array, from: number, to: number, out: Uint32Array): void {
  let lo = -1
  let hi = -1
  let i = from
  for (const end = from + ((to - from) & ~1); i < end; i += 2) {
    const a = lo ^ w[i]!
    const b = hi ^ w[i + 1]! ^ (a << 9) ^ (a << 24)
    lo = a ^ (a >>> 23) ^ (a >>> 8) ^ (b << 9) ^ (b << 24)
    hi = b ^ (b >>> 23) ^ (b >>> 8)
  }
  if (i < to) {
    const a = lo ^ w[i]!
    lo = hi ^ (a << 9) ^ (a << 24)
    hi = a ^ (a >>> 23) ^ (a >>> 8)
  }
  out[0] = ~hi
  out[1] = ~lo
}
