/**
 * Layer slots and blend-space buffers: layers other than 0 take the lowest free slot past the capacity (so which
 * are in use follows from the layers alone), and a blend space keeps all of its arrays, its points' tracks
 * included, in one buffer (createBlendSpaceState): the views must not overlap, and it must hold copies of what
 * it was made from.
 */
import { describe, expect, it } from 'vitest'
import {
  createBlendSpaceState,
  createLayerSlots,
  freeLayerSlot,
  releaseLayerSlot,
  takeLayerSlot,
} from '../../systems/layerState.ts'
import { JOINT_STRIDE } from '../../components/Pose.ts'

describe('layer slots', () => {
  it('hands out the lowest free slot from the first, and none once all are taken', () => {
    const slots = createLayerSlots(100, 3)
    const taken: number[] = []
    for (let k = 0; k < 3; k++) {
      const s = freeLayerSlot(slots)
      takeLayerSlot(slots, s)
      taken.push(s)
    }
    expect(taken).toEqual([100, 101, 102])
    expect(freeLayerSlot(slots)).toBe(-1)
    releaseLayerSlot(slots, 101)
    expect(freeLayerSlot(slots)).toBe(101)
    releaseLayerSlot(slots, 100)
    expect(freeLayerSlot(slots)).toBe(100)
    takeLayerSlot(slots, 100)
    expect(freeLayerSlot(slots)).toBe(101)
  })

  it('gives the same slot for the same slots in use, whatever the order they were taken and freed in', () => {
    const a = createLayerSlots(10, 8)
    const b = createLayerSlots(10, 8)
    for (const s of [10, 11, 12, 13, 14]) takeLayerSlot(a, s)
    for (const s of [11, 10, 13]) releaseLayerSlot(a, s)
    for (const s of [14, 12]) takeLayerSlot(b, s)
    expect(freeLayerSlot(a)).toBe(freeLayerSlot(b))
  })
})

describe('blend-space buffers', () => {
  it('copies a blend space into views of one buffer that do not overlap', () => {
    const cursors = [Uint32Array.of(1, 2, 3), Uint32Array.of(4), Uint32Array.of(5, 6)]
    const times = Float64Array.of(0.1, 0.2, 0.3)
    const bs = createBlendSpaceState({
      dims: 2,
      sync: 1,
      clips: [7, 8, 9],
      xs: [0, 1, 0],
      ys: [0, 0, 1],
      durations: [1.5, 2.5, 3.5],
      times,
      cursors,
      offsets: [40, 80, 120],
      param: [0.25, 0.5],
      bindings: [],
      joints: 5,
      rest: new Float32Array(5 * JOINT_STRIDE).fill(1),
    })
    const p = bs.points
    const views = [
      p.clip,
      p.time,
      p.speed,
      p.loop,
      p.rotation,
      p.local,
      p.lastTime,
      p.reset,
      p.finished,
      bs.xs,
      bs.ys,
      bs.param,
      bs.weights,
      bs.durations,
      bs.offsets,
      bs.paths,
      ...bs.cursors,
    ]
    for (const v of views) expect(v.buffer).toBe(bs.xs.buffer)
    expect(Array.from(p.clip)).toEqual([7, 8, 9])
    expect(Array.from(p.time)).toEqual([0.1, 0.2, 0.3])
    // Every point repeats, from its start, not yet sampled.
    expect(Array.from(p.loop)).toEqual([1, 1, 1])
    expect(Array.from(p.lastTime)).toEqual([NaN, NaN, NaN])
    expect(Array.from(bs.offsets)).toEqual([40, 80, 120])
    expect(Array.from(bs.param)).toEqual([0.25, 0.5])
    expect(bs.cursors.map((c) => Array.from(c))).toEqual([[1, 2, 3], [4], [5, 6]])
    expect([bs.weights.length, bs.paths.length]).toEqual([3, 5])
    // Copies: the inputs are not shared.
    times[0] = 9
    cursors[0]![0] = 99
    expect([p.time[0], bs.cursors[0]![0]]).toEqual([0.1, 1])
    // No two views share a byte.
    const spans = views
      .map((v) => [v.byteOffset, v.byteOffset + v.byteLength] as const)
      .sort((a, b) => a[0] - b[0])
    for (let k = 1; k < spans.length; k++) expect(spans[k]![0]).toBeGreaterThanOrEqual(spans[k - 1]![1])
    expect(spans.at(-1)![1]).toBeLessThanOrEqual(bs.xs.buffer.byteLength)
  })
})
