/**
 * Restoring deep node trees is linear: a restore links each node under its parent once, and the cycle check
 * that setSceneNodeParent makes for a caller (a walk over the parent's ancestors) is the plan's, made once for
 * all nodes before anything changes. Linked one at a time with that walk, a chain of n nodes cost n²/2 steps
 * (a 16,000-node chain, 128 million: most of a fuzzed call sequence's 2.4 s). A chain's CPU time is compared
 * with a wide tree's of as many nodes, alternated in one sitting (test/helpers/cpuTime.ts).
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationAsset } from '../../entry/index.ts'
import { treeAsset } from '../helpers/treeAsset.ts'
import { cpuMs } from '../helpers/cpuTime.ts'

/** A character of the asset stepped once, its snapshot, and a fresh plugin to restore it into. */
function restoreCase(asset: AnimationAsset): { restore: () => void; same: () => boolean } {
  const options = { capacity: 2 * (asset.nodes.length + 2) + 16 }
  const original = createAnimationPlugin(createWorld(), options)
  original.addCharacter(asset)
  original.step()
  const snapshot = original.snapshot()
  const copy = createAnimationPlugin(createWorld(), options)
  copy.addAsset(asset)
  return { restore: () => copy.restore(snapshot), same: () => copy.hash() === original.hash() }
}

describe('restoring deep node trees', () => {
  it('restores a 32,768-node chain in about the time of a wide tree of as many nodes', async () => {
    const n = 32_768
    const assets = { chain: await treeAsset('chain', n), wide: await treeAsset('wide', n) }
    const best = { chain: Infinity, wide: Infinity }
    for (let round = 0; round < 2; round++) {
      for (const shape of ['chain', 'wide'] as const) {
        const c = restoreCase(assets[shape])
        best[shape] = Math.min(best[shape], cpuMs(c.restore).ms)
        expect(c.same()).toBe(true)
      }
    }
    // Linear, the two are alike (1.0×); the quadratic walk (537 million steps) made the chain 4.5× the wide tree.
    expect(best.chain).toBeLessThan(3 * best.wide + 100)
  })
})
