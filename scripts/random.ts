/**
 * mulberry32: a small seeded PRNG (32-bit state), uniform in [0, 1). For the scripts and tests that need
 * repeatable pseudo-random input (the benchmark rig, the soak director, property sweeps); never used by the
 * fixed step itself.
 */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
