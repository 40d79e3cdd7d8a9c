/**
 * A masked layer's sampling binding (Layer.sampleBinding) is shared by every layer with the same clip binding
 * and the same joints in its mask, so a crowd's step reads one array; its contents are the binding with the
 * channels of excluded joints at -1.
 */
import { describe, expect, it } from 'vitest'
import { createLayer, setLayerBinding, setLayerMask } from '../../systems/layerState.ts'
import { JOINT_STRIDE } from '../../components/Pose.ts'

const n = 4
/** Channels: joint 0..3 rotation (offset 3), joint 1 translation (0), one unbound channel. */
const binding = Int32Array.of(
  3,
  JOINT_STRIDE + 3,
  2 * JOINT_STRIDE + 3,
  3 * JOINT_STRIDE + 3,
  JOINT_STRIDE,
  -1,
)

function masked(mask: number[] | null, b: Int32Array = binding): Int32Array | undefined {
  const bindings = {
    binding: [] as (Int32Array | undefined)[],
    fromBinding: [] as (Int32Array | undefined)[],
  }
  const layer = createLayer(1, 0)
  setLayerMask(bindings, layer, mask === null ? null : Float32Array.from(mask), n)
  setLayerBinding(bindings, layer, b)
  return layer.sampleBinding
}

describe('masked sampling bindings', () => {
  it('leave out the channels of joints of weight 0', () => {
    expect(Array.from(masked([0, 1, 0.5, 0])!)).toEqual([
      -1,
      JOINT_STRIDE + 3,
      2 * JOINT_STRIDE + 3,
      -1,
      JOINT_STRIDE,
      -1,
    ])
    expect(masked(null)).toBe(binding)
  })

  it('are one array for the same binding and the same joints, whatever their weights', () => {
    const a = masked([0, 1, 1, 0])
    expect(masked([0, 1, 1, 0])).toBe(a)
    expect(masked([0, 0.25, 1, 0])).toBe(a)
    expect(masked([1, 1, 1, 0])).not.toBe(a)
    const other = binding.slice()
    const c = masked([0, 1, 1, 0], other)
    expect(c).not.toBe(a)
    expect(c).toEqual(a)
  })
})
