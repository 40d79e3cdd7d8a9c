/** src/errors.ts: showValue, the text every message gives a caller's value. */
import { describe, expect, it } from 'vitest'
import { showValue } from '../src/errors.ts'

describe('showValue', () => {
  it('shows numbers as numbers, NaN and ±Infinity by name, alone and in arrays', () => {
    expect([NaN, Infinity, -Infinity, -1.5, 0].map(showValue)).toEqual([
      'NaN',
      'Infinity',
      '-Infinity',
      '-1.5',
      '0',
    ])
    expect(showValue([NaN, 0, 0])).toBe('[NaN,0,0]')
    expect(showValue([1, Infinity, -Infinity])).toBe('[1,Infinity,-Infinity]')
    expect(showValue([null, 'x', true, 2])).toBe('[null,"x",true,2]')
  })

  it('names what it cannot show, and never throws', () => {
    const hostile = new Proxy([], {
      get() {
        throw new Error('hostile')
      },
    })
    expect(showValue(Array.from({ length: 17 }, () => 0))).toBe('an array of 17')
    expect(showValue([{}])).toBe('an array of 1')
    expect(showValue(Symbol('s'))).toBe('a symbol')
    expect(showValue(10n)).toBe('10n')
    expect(showValue(() => 0)).toBe('a function')
    expect(showValue({})).toBe('an object')
    expect(showValue(null)).toBe('null')
    expect(showValue('x'.repeat(70))).toBe(JSON.stringify(`${'x'.repeat(57)}...`))
    expect(() => showValue(hostile)).not.toThrow()
  })
})
