import { describe, expect, it } from 'vitest'
import { copyTrack, createSamplerStore, resetTrack } from '../../components/Sampler.ts'

describe('Sampler store (tracks)', () => {
  it('starts every row with no clip, at rate 1, repeating, not yet sampled', () => {
    const s = createSamplerStore(3)
    expect(Array.from(s.clip)).toEqual([-1, -1, -1])
    expect(Array.from(s.speed)).toEqual([1, 1, 1])
    expect(Array.from(s.loop)).toEqual([1, 1, 1])
    expect(Array.from(s.lastTime)).toEqual([NaN, NaN, NaN])
    expect(s.time).toBeInstanceOf(Float64Array)
  })

  it('copies a track field by field between stores and clears one back to its start', () => {
    const a = createSamplerStore(2)
    const b = createSamplerStore(3)
    a.clip[1] = 4
    a.time[1] = 0.5
    a.speed[1] = -2
    a.loop[1] = 2
    a.rotation[1] = 1
    a.local[1] = 0.25
    a.lastTime[1] = 0.125
    a.reset[1] = 3
    a.finished[1] = 1
    copyTrack(b, 2, a, 1)
    for (const key of Object.keys(a) as (keyof typeof a)[]) expect(b[key][2]).toBe(a[key][1])
    expect(b.clip[0]).toBe(-1)
    resetTrack(b, 2)
    const fresh = createSamplerStore(1)
    for (const key of Object.keys(fresh) as (keyof typeof fresh)[]) expect(b[key][2]).toBe(fresh[key][0])
  })
})
