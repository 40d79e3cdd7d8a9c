/**
 * Set-up of every unit and bench test file (vitest.config.ts `setupFiles`).
 *
 * toEqual on typed arrays and long arrays of numbers: vitest compares them element by element through its
 * generic equality, a few µs an element — 1.5 s for one 300 KB snapshot, and the suite compares hundreds of
 * snapshots, poses and matrices. This tester answers "equal" at once when the two hold the same bytes (typed
 * arrays of one kind and length: the same bits are the same values, −0 and NaN included) or the same numbers
 * (plain arrays of numbers, by Object.is, as toEqual compares numbers). Anything else, and every difference,
 * goes on to vitest's own comparison, so verdicts and failure messages are vitest's.
 */
import { expect } from 'vitest'

function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.constructor !== b.constructor || a.byteLength !== b.byteLength) return false
  return (
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ) === 0
  )
}

function sameNumbers(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length || a.length < 64) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]
    if (typeof x !== 'number' || !Object.is(x, b[i])) return false
  }
  return true
}

expect.addEqualityTesters([
  function fastArrays(a: unknown, b: unknown): boolean | undefined {
    if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b) && !(a instanceof DataView)) {
      return sameBytes(a, b) ? true : undefined
    }
    if (Array.isArray(a) && Array.isArray(b)) return sameNumbers(a, b) ? true : undefined
    return undefined
  },
])
