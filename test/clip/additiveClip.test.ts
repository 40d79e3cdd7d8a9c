/**
 * The delta clip of an additive layer: sampling it is the difference of the sampled clip from the reference
 * (toDeltaPose), for every interpolation and path, to float32 resolution; its base is the rest pose's difference.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildClip, type RawChannel } from '../../src/clip/clip.ts'
import { makeDeltaClip } from '../../src/clip/additiveClip.ts'
import { toDeltaPose } from '../../src/clip/layerBlend.ts'
import { sampleClip } from '../../src/clip/sample.ts'
import { normalizeQuat } from '../../src/math/quat.ts'

const N = 3
const times = [0, 0.4, 1, 1.5]

/** A random unit quaternion from four numbers. */
function unit(v: readonly number[]): number[] {
  const q = normalizeQuat(Float32Array.from(v), 0)
  return Array.from(q)
}

/** Uniform in [lo, hi] by 1/1000 steps (fc.double favours 0 and the ends: key times and axis rotations). */
const num = (lo: number, hi: number) =>
  fc.integer({ min: 0, max: 1000 }).map((k) => lo + ((hi - lo) * k) / 1000)
const quat = fc.tuple(num(-1, 1), num(-1, 1), num(-1, 1), num(0.2, 1)).map(unit)
const vec = fc.tuple(num(-2, 2), num(-2, 2), num(-2, 2))
const scale = fc.tuple(num(0.5, 2), num(0.5, 2), num(0.5, 2))
const interpolation = fc.constantFrom('STEP', 'LINEAR', 'CUBICSPLINE')

/** Key values (and for CUBICSPLINE small tangents either side) of one channel. */
function keys(values: number[][], cubic: boolean): number[] {
  if (!cubic) return values.flat()
  return values.flatMap((v) => [...v.map((x) => 0.8 * x), ...v, ...v.map((x) => -0.6 * x)])
}

describe('makeDeltaClip', () => {
  it('samples as toDeltaPose of the sampled clip against the reference, on every path and interpolation', () => {
    fc.assert(
      fc.property(
        fc.array(quat, { minLength: 4, maxLength: 4 }),
        fc.array(vec, { minLength: 4, maxLength: 4 }),
        fc.array(scale, { minLength: 4, maxLength: 4 }),
        fc.tuple(quat, vec, scale),
        interpolation,
        num(0, 1.6),
        (rotations, translations, scales, [rq, rt, rs], interp, t) => {
          const cubic = interp === 'CUBICSPLINE'
          const channels: RawChannel[] = [
            { node: 0, path: 'rotation', interpolation: interp, times, values: keys(rotations, cubic) },
            { node: 1, path: 'translation', interpolation: interp, times, values: keys(translations, cubic) },
            { node: 1, path: 'scale', interpolation: interp, times, values: keys(scales, cubic) },
          ]
          const clip = buildClip({ name: 'c', channels })
          // Joint 0's rotation, joint 1's translation and scale; joint 2 is not driven.
          const binding = Int32Array.of(3, 10, 17)
          const rest = new Float32Array(N * 10)
          for (let j = 0; j < N; j++) rest.set([0.1 * j, 0, 0, 0, 0, 0, 1, 1, 1, 1], j * 10)
          const reference = rest.slice()
          reference.set(rq, 3)
          reference.set([...rt, 0.6, 0.8, 0, 0, ...rs], 10)
          const delta = makeDeltaClip(clip, binding, reference, 0, rest, N)!
          expect(delta).not.toBeNull()

          const expected = rest.slice()
          sampleClip(expected, 0, clip, binding, t, new Uint32Array(3), 0)
          toDeltaPose(expected, 0, reference, 0, N)
          const got = delta.base.slice()
          sampleClip(got, 0, delta.clip, binding, t, new Uint32Array(3), 0)
          for (let k = 0; k < N * 10; k++) {
            const path = k % 10
            if (path >= 3 && path < 7) continue
            expect(Math.abs(got[k]! - expected[k]!)).toBeLessThan(2e-6 * Math.max(1, Math.abs(expected[k]!)))
          }
          for (let j = 0; j < N; j++) {
            let dot = 0
            for (let k = 3; k < 7; k++) dot += got[j * 10 + k]! * expected[j * 10 + k]!
            const sign = dot < 0 ? -1 : 1
            for (let k = 3; k < 7; k++)
              expect(Math.abs(sign * got[j * 10 + k]! - expected[j * 10 + k]!)).toBeLessThan(2e-6)
          }
          // Undriven paths hold the rest pose's difference from the reference.
          const base = rest.slice()
          toDeltaPose(base, 0, reference, 0, N)
          expect(Array.from(delta.base)).toEqual(Array.from(base))
        },
      ),
    )
  })

  it('keeps the channel order, time tracks and unbound channels, so the layer binding and cursors fit', () => {
    const clip = buildClip({
      name: 'c',
      channels: [
        {
          node: 0,
          path: 'rotation',
          times,
          values: keys(
            [
              [0, 0, 0, 1],
              [0, 1, 0, 0],
              [1, 0, 0, 0],
              [0, 0, 1, 0],
            ],
            false,
          ),
        },
        { node: 5, path: 'translation', times: [0, 2], values: [1, 2, 3, 4, 5, 6] },
      ],
    })
    const rest = Float32Array.of(0, 0, 0, 0, 0, 0, 1, 1, 1, 1)
    const delta = makeDeltaClip(clip, Int32Array.of(3, -1), rest, 0, rest, 1)!
    expect(delta.clip.channels.map((c) => [c.node, c.path, c.track])).toEqual(
      clip.channels.map((c) => [c.node, c.path, c.track]),
    )
    expect(Array.from(delta.clip.channels[1]!.values)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('gives null rather than throwing when a difference is not finite as a float32', () => {
    const clip = buildClip({
      name: 'c',
      channels: [{ node: 0, path: 'scale', times: [0], values: [1e30, 1, 1] }],
    })
    const reference = Float32Array.of(0, 0, 0, 0, 0, 0, 1, 1e-30, 1, 1)
    expect(makeDeltaClip(clip, Int32Array.of(7), reference, 0, reference, 1)).toBeNull()
  })
})
