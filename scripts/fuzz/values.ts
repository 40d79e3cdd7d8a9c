/**
 * The JavaScript values a random call sequence (calls.ts) passes where an argument is wrong: null, a Symbol, a
 * BigInt, NaN, huge and tiny numbers, a Proxy whose traps throw, a getter that answers differently each time it
 * is read, array-likes that lie, objects of the wrong shape.
 */

/** A source of uniform numbers in [0, 1) (mulberry32). */
export type Random = () => number

/** A value with the text that names it in a report. */
export interface Value {
  v: unknown
  text: string
}

const throwing = (what: string): never => {
  throw new Error(`hostile ${what}`)
}
/** A Proxy every trap of which throws. */
const hostile = (): unknown =>
  new Proxy(
    {},
    {
      get: () => throwing('get'),
      has: () => throwing('has'),
      ownKeys: () => throwing('ownKeys'),
      getOwnPropertyDescriptor: () => throwing('descriptor'),
      getPrototypeOf: () => throwing('prototype'),
    },
  )
/** An object whose `key` is `first` on the first read and `then` on every later one (check, then use). */
export function flaky(key: string, first: unknown, then: unknown): unknown {
  let reads = 0
  return {
    get [key]() {
      return reads++ === 0 ? first : then
    },
  }
}
/** An array-like whose elements change after they are read once. */
export function flakyVector(): unknown {
  let reads = 0
  return new Proxy([1, 2, 3], {
    get(target, p, receiver) {
      if (p === '0' || p === '1' || p === '2') return reads++ < 3 ? 1 : NaN
      return Reflect.get(target, p, receiver)
    },
  })
}

/** Values that are wrong for nearly every argument. */
export function oddValue(random: Random): Value {
  const odd: (() => Value)[] = [
    () => ({ v: undefined, text: 'undefined' }),
    () => ({ v: null, text: 'null' }),
    () => ({ v: NaN, text: 'NaN' }),
    () => ({ v: Infinity, text: 'Infinity' }),
    () => ({ v: -Infinity, text: '-Infinity' }),
    () => ({ v: -0, text: '-0' }),
    () => ({ v: -1, text: '-1' }),
    () => ({ v: 0.5, text: '0.5' }),
    () => ({ v: 2 ** 31, text: '2**31' }),
    () => ({ v: 2 ** 53 + 2, text: '2**53+2' }),
    () => ({ v: 1e308, text: '1e308' }),
    () => ({ v: -1e308, text: '-1e308' }),
    () => ({ v: 5e-324, text: '5e-324' }),
    () => ({ v: '', text: "''" }),
    () => ({ v: '0', text: "'0'" }),
    () => ({ v: 'x'.repeat(100000), text: "'x'×100000" }),
    () => ({ v: '__proto__', text: "'__proto__'" }),
    () => ({ v: 'constructor', text: "'constructor'" }),
    () => ({ v: Symbol('s'), text: 'Symbol()' }),
    () => ({ v: 10n, text: '10n' }),
    () => ({ v: true, text: 'true' }),
    () => ({ v: {}, text: '{}' }),
    () => ({ v: [], text: '[]' }),
    () => ({ v: [null], text: '[null]' }),
    () => ({ v: [NaN, 0, 0], text: '[NaN,0,0]' }),
    () => ({ v: [1e308, 1e308, 1e308], text: '[1e308,1e308,1e308]' }),
    () => ({ v: [1, 2], text: '[1,2]' }),
    // A sparse array 2^24 long (dictionary elements: a few bytes, not 128 MiB).
    () => ({ v: Object.assign([], { [2 ** 24]: 1 }), text: 'a sparse array of length 2**24+1' }),
    () => ({
      v: new Proxy([], {
        get: (t, p) => (p === 'length' ? 3 : p === '0' || p === '1' || p === '2' ? 1 : Reflect.get(t, p)),
      }),
      text: 'Proxy([]) claiming [1,1,1]',
    }),
    () => ({ v: { length: 3 }, text: '{length:3}' }),
    () => ({ v: new Float64Array([1, 2, 3]), text: 'Float64Array[1,2,3]' }),
    () => ({ v: new Uint8Array(64), text: 'Uint8Array(64)' }),
    () => ({ v: () => 0, text: '() => 0' }),
    () => ({ v: { valueOf: () => 3 }, text: '{valueOf}' }),
    () => ({ v: { toString: () => 'Walk' }, text: '{toString}' }),
    () => ({ v: Object.create(null), text: 'Object.create(null)' }),
    () => ({ v: hostile(), text: 'hostile Proxy' }),
    () => ({ v: new Proxy([], {}), text: 'Proxy([])' }),
    () => ({ v: new Date(0), text: 'Date' }),
    () => ({ v: /x/, text: '/x/' }),
    () => ({ v: new Map(), text: 'Map' }),
    () => ({ v: Promise.resolve(1), text: 'Promise' }),
  ]
  return odd[Math.floor(random() * odd.length)]!()
}
