/**
 * The sampling kernels (src/clip/sample.ts) pass no float across a call in the frame
 * loop; primeSampler (src/engine/v8.ts) leaves no trace; clips share their time tracks.
 * Tests use Math.* freely: they are the independent side of the comparison, not the deterministic path.
 */
import { readFileSync } from 'node:fs'
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
import {
  acosArcByKernel,
  sampleClipChannels,
  SHORT_ARC,
  shortArcSin,
  sinArcByKernel,
} from '../../src/clip/sample.ts'
import { detAcosArc, detSinArc } from '../../src/math/detmath.ts'
import { quatFromAxisAngle } from '../helpers/quat.ts'
import { ulpDistance } from '../helpers/ulp.ts'
import { mulberry32 } from '../../scripts/random.ts'
import { primeSampler } from '../../src/engine/v8.ts'

const f32 = (x: number) => Math.fround(x)

describe('register kernels (no float crosses a call in the frame loop)', () => {
  it('the long arc sine equals detSinArc bit for bit on (SHORT_ARC, π]', () => {
    const rnd = mulberry32(1)
    const xs = [SHORT_ARC + 2 ** -54, Math.PI / 2, 1.5707963267948968, Math.PI, 2, 3]
    for (let i = 0; i < 20_000; i++) xs.push(SHORT_ARC + (Math.PI - SHORT_ARC) * rnd())
    for (const x of xs)
      if (x > SHORT_ARC) expect(Object.is(sinArcByKernel(x), detSinArc(x)), `x = ${x}`).toBe(true)
  })

  it('the short arc sine is within 1 ulp of detSinArc and 2 ulps of Math.sin on [0, SHORT_ARC]', () => {
    const rnd = mulberry32(2)
    const xs = [0, 1e-300, 1e-12, 3e-8, 1e-4, 0.03, 0.1, SHORT_ARC]
    for (let i = 0; i < 20_000; i++) xs.push(i < 10_000 ? SHORT_ARC * rnd() : SHORT_ARC * 2 ** (-30 * rnd()))
    let worstDet = 0
    let worstMath = 0
    for (const x of xs) {
      expect(sinArcByKernel(x)).toBe(shortArcSin(x))
      worstDet = Math.max(worstDet, ulpDistance(shortArcSin(x), detSinArc(x)))
      worstMath = Math.max(worstMath, ulpDistance(shortArcSin(x), Math.sin(x)))
    }
    expect(worstDet).toBeLessThanOrEqual(1)
    expect(worstMath).toBeLessThanOrEqual(2)
    expect(shortArcSin(0)).toBe(0)
  })

  it('the arc cosine equals detAcosArc bit for bit on [-1.5, 1.5], ends and reduction boundaries included', () => {
    const rnd = mulberry32(3)
    const cs = [-1.5, -1, -1 + 1e-16, -0.9995, -0.5, -0, 0, 1e-300, 0.5, 0.9238795325112867, 0.9995, 1, 1.5]
    for (let i = 0; i < 200; i++) cs.push(1 - 2 ** -(i / 4), -1 + 2 ** -(i / 4))
    for (let i = 0; i < 20_000; i++) cs.push(rnd() * 2 - 1)
    for (const c of cs) expect(Object.is(acosArcByKernel(c), detAcosArc(c)), `c = ${c}`).toBe(true)
  })

  it('sample.ts uses no built-in transcendental (deterministic across engines)', () => {
    const source = readFileSync(new URL('../../src/clip/sample.ts', import.meta.url), 'utf8')
    const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
    expect(code).not.toMatch(
      /Math\.(sin|cos|tan|asin|acos|atan|atan2|exp|log|pow|cbrt|hypot|sinh|cosh|tanh)\b/,
    )
  })
})

describe('primeSampler', () => {
  it('leaves no trace: a clip samples to the same bits before and after it', () => {
    const clip = buildClip({
      name: 'c',
      channels: [
        {
          node: 0,
          path: 'rotation',
          interpolation: 'LINEAR',
          times: [0, 1],
          values: [0, 0, 0, 1, 0, 0.6, 0, 0.8],
        },
        {
          node: 0,
          path: 'translation',
          interpolation: 'CUBICSPLINE',
          times: [0, 1],
          values: new Array(18).fill(0).map((_, i) => i),
        },
      ],
    })
    const sample = () => {
      const out = new Float32Array(10)
      sampleClipChannels(
        out,
        0,
        clip,
        Int32Array.of(3, 0),
        Float64Array.of(0.37),
        0,
        new Uint32Array(2),
        0,
        false,
      )
      return out
    }
    const before = sample()
    primeSampler()
    expect(sample()).toEqual(before)
    primeSampler()
    expect(sample()).toEqual(before)
  })
})

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
