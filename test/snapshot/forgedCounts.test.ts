/**
 * A forged count is checked before anything is sized by it: a snapshot (checksum recomputed) claiming 1.4e9
 * scene nodes made the nodes reader allocate 5.3 GB (Int32Array of the count) before its runs refused it
 * (npm run fuzz, seed 505).
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { forgeFields, mapSnapshot } from '../../scripts/fuzz/forge.ts'
import { makeHumanoidAsset } from '../helpers/humanoid.ts'

describe('forged counts', () => {
  it('a node count of 1.4e9 is refused before any array is made of it', () => {
    const options = { capacity: 256 }
    const asset = makeHumanoidAsset()
    const a = createAnimationPlugin(createWorld(), options)
    a.addAsset(asset)
    a.addCharacter(asset)
    a.step()
    const bytes = a.snapshot()
    const layout = createAnimationPlugin(createWorld(), options)
    const targets = mapSnapshot(bytes, layout, options.capacity)
    // The node count: the u32 before the run count, before the first id run.
    const runs = targets.find((t) => t.label === 'node.ids')!
    const count = { ...runs, label: 'node count', at: runs.at - 8, elements: 1 }
    const forged = forgeFields(bytes, [count], [{ label: 'node count', value: 1_392_508_933 }])
    const b = createAnimationPlugin(createWorld(), options)
    b.addAsset(asset)
    const before = process.memoryUsage().arrayBuffers
    let thrown: unknown
    try {
      b.restore(forged.bytes)
    } catch (error) {
      thrown = error
    }
    const rise = process.memoryUsage().arrayBuffers - before
    expect(thrown).toBeInstanceOf(AnimationError)
    expect((thrown as AnimationError).message).toMatch(/node count is 1392508933/)
    expect(rise).toBeLessThan(64 * 2 ** 20)
  })
})
