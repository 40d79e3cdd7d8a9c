/**
 * Shared setup of the detmath tests (test/math/detmath.*.test.ts): seeded inputs, neighbouring doubles, the
 * worst ulp distance from a reference. Tests use Math.* freely: they are the independent side of the
 * comparison, not the deterministic path.
 */
import { ulpDistance } from './ulp.ts'
import { mulberry32 } from '../../scripts/random.ts'

const bits = new DataView(new ArrayBuffer(8))
/** The double `n` steps above x (below for negative n), for finite nonzero x of either sign. */
export function stepped(x: number, n: number): number {
  bits.setFloat64(0, x)
  bits.setBigInt64(0, bits.getBigInt64(0) + BigInt(x < 0 ? -n : n))
  return bits.getFloat64(0)
}

/** A double with magnitude 2^u, u uniform in [lo, hi), and a random sign (or positive). */
export function logUniform(rnd: () => number, lo: number, hi: number, signed = true): number {
  const v = 2 ** (lo + (hi - lo) * rnd())
  return signed && rnd() < 0.5 ? -v : v
}

export const N = 20_000

/** Largest ulp distance from the reference over the inputs, with the worst input for the message. */
export function maxUlps(xs: readonly number[], f: (x: number) => number, ref: (x: number) => number) {
  let worst = { ulps: 0, x: NaN, got: NaN, want: NaN }
  for (const x of xs) {
    const got = f(x)
    const want = ref(x)
    const ulps = ulpDistance(got, want)
    if (ulps > worst.ulps) worst = { ulps, x, got, want }
  }
  return worst
}

export function inputs(seed: number, make: (rnd: () => number, i: number) => number): number[] {
  const rnd = mulberry32(seed)
  return Array.from({ length: N }, (_, i) => make(rnd, i))
}
