const bits = new DataView(new ArrayBuffer(8))

/** Doubles mapped to integers in value order (±0 both to 0), so that adjacent doubles differ by 1. */
function ordinal(x: number): bigint {
  bits.setFloat64(0, x)
  const b = bits.getBigInt64(0)
  return b < 0n ? -(b & 0x7fffffffffffffffn) : b
}

/** Number of doubles between a and b (0 when equal); Infinity if exactly one of them is NaN. */
export function ulpDistance(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity
  const d = ordinal(a) - ordinal(b)
  return Number(d < 0n ? -d : d)
}
