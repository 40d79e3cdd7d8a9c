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
import type { AnimationAsset } from '../../src/gltf/asset.ts'

const OPTIONS = { capacity: 256 }

/** A snapshot of one humanoid after a step, and where its fields are. */
function oneCharacter() {
  const asset = makeHumanoidAsset()
  const a = createAnimationPlugin(createWorld(), OPTIONS)
  a.addAsset(asset)
  a.addCharacter(asset)
  a.step()
  const bytes = a.snapshot()
  const targets = mapSnapshot(bytes, createAnimationPlugin(createWorld(), OPTIONS), OPTIONS.capacity)
  return { asset, bytes, targets }
}

/** Restores `bytes` into a fresh plugin with `asset`: what it threw and how much ArrayBuffer memory rose. */
function restoreForged(bytes: Uint8Array, asset: AnimationAsset) {
  const b = createAnimationPlugin(createWorld(), OPTIONS)
  b.addAsset(asset)
  const before = process.memoryUsage().arrayBuffers
  let thrown: unknown
  try {
    b.restore(bytes)
  } catch (error) {
    thrown = error
  }
  return { thrown, rise: process.memoryUsage().arrayBuffers - before }
}

describe('forged counts', () => {
  it('a node count of 1.4e9 is refused before any array is made of it', () => {
    const { asset, bytes, targets } = oneCharacter()
    // The node count: the u32 before the run count, before the first id run.
    const runs = targets.find((t) => t.label === 'node.ids')!
    const count = { ...runs, label: 'node count', at: runs.at - 8, elements: 1 }
    const forged = forgeFields(bytes, [count], [{ label: 'node count', value: 1_392_508_933 }])
    const { thrown, rise } = restoreForged(forged.bytes, asset)
    expect(thrown).toBeInstanceOf(AnimationError)
    expect((thrown as AnimationError).message).toMatch(/node count is 1392508933/)
    expect(rise).toBeLessThan(64 * 2 ** 20)
  })

  it('an entity index of 2^26 ids is refused before any array is made of it', () => {
    const { asset, bytes, targets } = oneCharacter()
    const maxId = targets.find((t) => t.label === 'entities.maxId')!
    const forged = forgeFields(bytes, [maxId], [{ label: 'entities.maxId', value: 2 ** 26 }])
    const { thrown, rise } = restoreForged(forged.bytes, asset)
    expect(thrown).toBeInstanceOf(AnimationError)
    expect((thrown as AnimationError).message).toMatch(/maxId 67108864 is past 2\^25/)
    expect(rise).toBeLessThan(64 * 2 ** 20)
  })
})
