/**
 * A stored pose layer's paths (snapshot/poseLayers.ts): what differs from the rest pose in any bit is stored,
 * what is the rest pose's is not, and writing then scattering gives back every bit (±0, NaN payloads).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { Writer } from '../../src/sim/byteWriter.ts'
import {
  checkPoseLayerPaths,
  pathFloatsAt,
  pathMasks,
  PATH_FLOATS,
  POSE_PATH_R,
  POSE_PATH_S,
  POSE_PATH_T,
  scatterPoseLayer,
  writePoseLayer,
  writePoseLayerOnce,
} from '../../snapshot/poseLayers.ts'

const STRIDE = 10

/** A layer of n joints at word `at` of a pool of words: each path either the rest's or bits of its own. */
const layerCase = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    at: fc.integer({ min: 0, max: 3 }).map((k) => k * STRIDE),
    rest: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), {
      minLength: n * STRIDE,
      maxLength: n * STRIDE,
    }),
    // Per joint and path: 0 the rest's bits, 1 one word flipped in one bit, 2 all words random (for every
    // path in a case of four: a rig whose clips drive every channel).
    kinds: fc.oneof(
      {
        weight: 3,
        arbitrary: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3 * n, maxLength: 3 * n }),
      },
      { weight: 1, arbitrary: fc.constant(new Array<number>(3 * n).fill(2)) },
    ),
    words: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), {
      minLength: n * STRIDE,
      maxLength: n * STRIDE,
    }),
    bit: fc.integer({ min: 0, max: 31 }),
  }),
)

const PATHS = [
  [0, 3, POSE_PATH_T],
  [3, 7, POSE_PATH_R],
  [7, 10, POSE_PATH_S],
] as const

describe('pose layer paths', () => {
  it('stores exactly the paths that differ from rest in some bit, and scatters every bit back', () => {
    fc.assert(
      fc.property(layerCase, ({ n, at, rest, kinds, words, bit }) => {
        const restWords = Int32Array.from(rest)
        const pool = new Int32Array(at + n * STRIDE + 7).fill(0x7fc00001) // NaN bits around the layer
        const expected = new Uint8Array(n)
        for (let j = 0; j < n; j++) {
          PATHS.forEach(([from, to, path], p) => {
            const kind = kinds[3 * j + p]!
            for (let k = from; k < to; k++) {
              const r = restWords[j * STRIDE + k]!
              const flipped = k === from ? r ^ (1 << bit) : r
              pool[at + j * STRIDE + k] = kind === 0 ? r : kind === 1 ? flipped : words[j * STRIDE + k]!
            }
            const same = [...Array(to - from).keys()].every(
              (i) => pool[at + j * STRIDE + from + i] === restWords[j * STRIDE + from + i],
            )
            if (!same) expected[j] = expected[j]! | path
          })
        }
        const masks = new Uint8Array(n + 5).fill(0xff)
        const count = pathMasks(pool, at, restWords, n, masks, 5)
        expect([...masks.subarray(5)]).toEqual([...expected])
        expect(count).toBe(expected.reduce((s, m) => s + PATH_FLOATS[m]!, 0))

        // Written after one byte (the masks' zeros to 4 are the format's), read back into a pool of garbage.
        const w = new Writer().target(new Uint8Array(8), true)
        w.u8(9)
        const whole = new Uint8Array(pool.buffer, 4 * at, 4 * n * STRIDE)
        writePoseLayer(w, pool, at, n, masks, 5, count, whole)
        const bytes = w.bytes().slice(0, w.at())
        expect(bytes.length).toBe(pathFloatsAt(1, n) + 4 * count)
        // Into room for every path (garbage there before), with the layer's bytes or without: the same bytes,
        // or none for rest.
        for (const view of [whole, null]) {
          const once = new Writer().target(new Uint8Array(8 + 44 * n).fill(0xa5), false)
          once.u8(9)
          expect(writePoseLayerOnce(once, pool, at, restWords, n, false, view)).toBe(count)
          expect([...once.bytes().subarray(0, once.at())]).toEqual(count === 0 ? [9] : [...bytes])
        }
        const ints = new Int32Array(bytes.buffer, 0, bytes.length >>> 2)
        const out = new Int32Array(n * STRIDE + 4).fill(-1)
        scatterPoseLayer(out, 2, bytes, 1, ints, pathFloatsAt(1, n) >>> 2, restWords, n)
        expect([...out.subarray(2, 2 + n * STRIDE)]).toEqual([...pool.subarray(at, at + n * STRIDE)])
        expect([out[0], out[1], out[n * STRIDE + 2], out[n * STRIDE + 3]]).toEqual([-1, -1, -1, -1])
      }),
      { numRuns: 300 },
    )
  })

  it('keeps −0 against a rest of +0, and a NaN payload, as stored paths', () => {
    const rest = new Float32Array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    const layer = rest.slice()
    layer[1] = -0
    const words = new Int32Array(layer.buffer)
    words[9] = 0x7fc00123 // a NaN with a payload, in the scale
    const masks = new Uint8Array(1)
    const count = pathMasks(words, 0, new Int32Array(rest.buffer), 1, masks, 0)
    expect(masks[0]).toBe(POSE_PATH_T | POSE_PATH_S)
    expect(count).toBe(6)
  })

  it('checks only the stored paths, naming the joint and path', () => {
    // Joint 0 stores its rotation (unit), joint 1 its translation (NaN) and scale.
    const bytes = new Uint8Array([POSE_PATH_R, POSE_PATH_T | POSE_PATH_S])
    const f = new Float32Array([0, 0, 0, 1, 1, NaN, 2, 1, 1, 1])
    expect(() => checkPoseLayerPaths(bytes, 0, f, 0, 2, 'layer')).toThrow(
      /layer joint 1: translation\[1\] is NaN/,
    )
    f[5] = 2
    expect(() => checkPoseLayerPaths(bytes, 0, f, 0, 2, 'layer')).not.toThrow()
    f[9] = -Infinity
    expect(() => checkPoseLayerPaths(bytes, 0, f, 0, 2, 'layer')).toThrow(
      /layer joint 1: scale\[2\] is -Infinity/,
    )
    f[9] = 1
    f[3] = 3
    expect(() => checkPoseLayerPaths(bytes, 0, f, 0, 2, 'layer')).toThrow(/layer joint 0: rotation/)
  })
})
