/**
 * Time tracks: channels of a clip with equal key times share one array and one key cursor slot (Channel.track),
 * and the kind codes the sampler branches on.
 */
import { describe, expect, it } from 'vitest'
import {
  buildClip,
  KIND_CUBIC,
  KIND_CUBIC_ROTATION,
  KIND_LINEAR,
  KIND_SLERP,
  KIND_STEP,
  type Channel,
  type RawChannel,
} from '../../src/clip/clip.ts'
import { quatFromAxisAngle } from '../helpers/quat.ts'

const f32 = (x: number) => Math.fround(x)

describe('time tracks', () => {
  const rot = (times: number[]): RawChannel => ({
    node: 0,
    path: 'rotation',
    times,
    values: times.flatMap((_, k) => quatFromAxisAngle([1, 2, k], 0.3 * k)),
  })

  it('channels with equal key times share one array and the first one’s index; others keep their own', () => {
    const clip = buildClip({
      name: 'T',
      channels: [rot([0, 1, 2]), rot([0, 1.5, 2]), rot([0, 1, 2]), rot([0, 1]), rot([0, 1.5, 2])],
    })
    const [a, b, c, d, e] = clip.channels as [Channel, Channel, Channel, Channel, Channel]
    expect(c.times).toBe(a.times)
    expect(e.times).toBe(b.times)
    expect(b.times).not.toBe(a.times)
    expect(d.times).not.toBe(a.times)
    expect(clip.channels.map((ch) => ch.track)).toEqual([0, 1, 0, 3, 1])
    expect(Array.from(c.times)).toEqual([0, 1, 2])
  })

  it('times equal only after float32 rounding are one track (what the sampler compares is the float32)', () => {
    const clip = buildClip({ name: 'T', channels: [rot([0, 0.1, 0.2]), rot([0, f32(0.1), f32(0.2)])] })
    expect(clip.channels[1]!.times).toBe(clip.channels[0]!.times)
  })

  it('kind codes follow path and interpolation', () => {
    const v3 = [0, 0, 0, 1, 1, 1]
    const q = [0, 0, 0, 1, 0, 0, 0, 1]
    const clip = buildClip({
      name: 'K',
      channels: [
        { node: 0, path: 'translation', interpolation: 'STEP', times: [0, 1], values: v3 },
        { node: 0, path: 'scale', times: [0, 1], values: v3 },
        { node: 0, path: 'rotation', times: [0, 1], values: q },
        { node: 0, path: 'weights', interpolation: 'CUBICSPLINE', times: [0, 1], values: [...v3, ...v3] },
        {
          node: 0,
          path: 'rotation',
          interpolation: 'CUBICSPLINE',
          times: [0, 1],
          values: [...q, ...q, ...q],
        },
      ],
    })
    expect(clip.channels.map((ch) => ch.kind)).toEqual([
      KIND_STEP,
      KIND_LINEAR,
      KIND_SLERP,
      KIND_CUBIC,
      KIND_CUBIC_ROTATION,
    ])
  })
})
