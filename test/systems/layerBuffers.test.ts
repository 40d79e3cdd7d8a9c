/**
 * A stack's layers keep their numbers in one buffer (createLayerStack, createLayer), and a blend space all of its
 * arrays in one (createBlendSpaceState): the views must not overlap, each layer must start from its defaults, and
 * a blend space must hold copies of what it was made from.
 */
import { describe, expect, it } from 'vitest'
import {
  createBlendSpaceState,
  createLayer,
  createLayerStack,
  F_SPEED,
  F_WEIGHT,
  I_CLIP,
  I_LOOP,
  LAYER_FLOATS,
  LAYER_INTS,
  MAX_LAYERS,
} from '../../systems/layerState.ts'
import { JOINT_STRIDE } from '../../components/Pose.ts'

describe('layer and blend-space buffers', () => {
  it('gives every layer of a stack its own numbers in the stack buffer, starting from the defaults', () => {
    const stack = createLayerStack()
    const layers = Array.from({ length: MAX_LAYERS }, (_, k) => createLayer(k, stack))
    for (const layer of layers) {
      expect(layer.f.buffer).toBe(stack.numbers)
      expect(layer.i.buffer).toBe(stack.numbers)
      expect([layer.f.length, layer.i.length]).toEqual([LAYER_FLOATS, LAYER_INTS])
    }
    // Fill each layer with its own marks, then check no write reached another layer's numbers.
    layers.forEach((layer, k) => {
      layer.f.fill(100 + k)
      layer.i.fill(200 + k)
    })
    layers.forEach((layer, k) => {
      expect(Array.from(layer.f)).toEqual(Array(LAYER_FLOATS).fill(100 + k))
      expect(Array.from(layer.i)).toEqual(Array(LAYER_INTS).fill(200 + k))
    })
    // A layer made again at an index (a restore's) starts from the defaults, whatever the buffer held.
    const again = createLayer(3, stack)
    expect([again.f[F_SPEED], again.f[F_WEIGHT], again.i[I_CLIP], again.i[I_LOOP]]).toEqual([1, 1, -1, 1])
    expect(Array.from(layers[2]!.f)).toEqual(Array(LAYER_FLOATS).fill(102))
    expect(Array.from(layers[4]!.i)).toEqual(Array(LAYER_INTS).fill(204))
  })

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
    const views = [
      bs.clips,
      bs.xs,
      bs.ys,
      bs.param,
      bs.weights,
      bs.durations,
      bs.times,
      bs.offsets,
      bs.paths,
      ...bs.cursors,
    ]
    for (const v of views) expect(v.buffer).toBe(bs.xs.buffer)
    expect(Array.from(bs.clips)).toEqual([7, 8, 9])
    expect(Array.from(bs.times)).toEqual([0.1, 0.2, 0.3])
    expect(Array.from(bs.offsets)).toEqual([40, 80, 120])
    expect(Array.from(bs.param)).toEqual([0.25, 0.5])
    expect(bs.cursors.map((c) => Array.from(c))).toEqual([[1, 2, 3], [4], [5, 6]])
    expect([bs.weights.length, bs.paths.length]).toEqual([3, 5])
    // Copies: the inputs are not shared.
    times[0] = 9
    cursors[0]![0] = 99
    expect([bs.times[0], bs.cursors[0]![0]]).toEqual([0.1, 1])
    // No two views share a byte.
    const spans = views
      .map((v) => [v.byteOffset, v.byteOffset + v.byteLength] as const)
      .sort((a, b) => a[0] - b[0])
    for (let k = 1; k < spans.length; k++) expect(spans[k]![0]).toBeGreaterThanOrEqual(spans[k - 1]![1])
    expect(spans.at(-1)![1]).toBeLessThanOrEqual(bs.xs.buffer.byteLength)
  })
})
