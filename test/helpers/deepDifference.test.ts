import { describe, expect, it } from 'vitest'
import { deepDifference } from './deepDifference.ts'

describe('deepDifference (toEqual for assets, typed arrays as bytes)', () => {
  it('finds what toEqual finds, and where', () => {
    const base = { a: [1, { b: new Float32Array([1, 2]) }], c: 'x', d: undefined }
    expect(deepDifference(base, { a: [1, { b: new Float32Array([1, 2]) }], c: 'x' })).toBeNull()
    expect(deepDifference(base, { a: [1, { b: new Float32Array([1, 3]) }], c: 'x' })).toBe(
      'a[1].b: Float32Array contents differ',
    )
    expect(deepDifference(base, { a: [1, { b: new Float64Array([1, 2]) }], c: 'x' })).toMatch(/^a\[1\]\.b:/)
    expect(deepDifference(base, { a: [1], c: 'x' })).toBe('a: length 2 ≠ 1')
    expect(deepDifference(base, { a: base.a, c: 'y' })).toBe('c: x ≠ y')
    expect(deepDifference({ n: NaN, z: 0 }, { n: NaN, z: 0 })).toBeNull()
    expect(deepDifference({ z: 0 }, { z: -0 })).toBe('z: 0 ≠ 0')
    expect(deepDifference({ a: 1 }, { a: 1, e: 2 })).toMatch(/^: keys/)
  })
})
