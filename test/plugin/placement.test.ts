import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { makeTestAsset } from '../helpers/ecs.ts'

describe('setTransform / getTransform (issue 16: placing characters without touching stores)', () => {
  it('moves, turns and scales a character on the next step; the other character stays', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 64 })
    const asset = plugin.addAsset(makeTestAsset())
    const a = plugin.addCharacter(asset)
    const b = plugin.addCharacter(asset)
    plugin.step()
    const world = plugin.stores.SceneNode.world
    const hipsA = plugin.jointEntity(a, 0)
    const hipsB = plugin.jointEntity(b, 0)
    const before = Array.from(world.subarray(hipsA * 16, hipsA * 16 + 16))
    // A quarter turn about y, given unnormalized: it is normalized.
    plugin.setTransform(a, { position: [3, 0, -2], rotation: [0, 2, 0, 2], scale: [2, 2, 2] })
    expect(plugin.getTransform(a).rotation.map((x) => Math.fround(x))).toEqual(
      [0, Math.SQRT1_2, 0, Math.SQRT1_2].map((x) => Math.fround(x)),
    )
    plugin.step()
    const after = world.subarray(hipsA * 16, hipsA * 16 + 16)
    // Character translation lands in the joint's world position: 3 + 2·(rotated local offset).
    expect(after[12]! - 3).toBeCloseTo(2 * before[14]!, 5)
    expect(after[14]! + 2).toBeCloseTo(-2 * before[12]!, 5)
    expect(Array.from(world.subarray(hipsB * 16, hipsB * 16 + 16))).toEqual(before)
    expect(plugin.getTransform(a).position).toEqual([3, 0, -2])
    expect(plugin.getTransform(a).scale).toEqual([2, 2, 2])
  })

  it('refuses bad placements with AnimationError, changing nothing', () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 64 })
    const a = plugin.addCharacter(makeTestAsset())
    plugin.step()
    const hash = plugin.hash()
    const placed = plugin.getTransform(a)
    for (const bad of [
      { position: [NaN, 0, 0] },
      { position: [1, 2] },
      { rotation: [0, 0, 0, 0] },
      { rotation: [0, 0, 0, Infinity] },
      { scale: [1, 0, 1] },
      { position: [0, 0, 0], scale: [1, 1, NaN] },
      // Finite, but not in the float32 store: ±∞ there (no snapshot of it restores), or a scale of 0.
      { position: [1e39, 0, 0] },
      { scale: [1, -3.5e38, 1] },
      { scale: [1, 1e-50, 1] },
      null,
      5,
    ]) {
      expect(() => plugin.setTransform(a, bad as never), JSON.stringify(bad)).toThrow(/setTransform/)
      expect(plugin.hash()).toBe(hash)
      expect(plugin.getTransform(a)).toEqual(placed)
    }
    expect(() => plugin.getTransform(9999)).toThrow('is not a character')
  })
})
