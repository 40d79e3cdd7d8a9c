/**
 * Snapshots of the ragdolls issue 17 added, restored into a fresh plugin and in place (rewound): a partial
 * ragdoll (anchored) that grows (a replacement under way), a powered one with its root held and then let go,
 * a hit reaction recovering, per-joint weights. After a restore, every later step's hash is the original's.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

let fox: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

function make(): { plugin: AnimationPlugin; chars: number[] } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
  const chars = [0, 1, 2, 3].map((k) => {
    const c = plugin.addCharacter(fox)
    plugin.setTransform(c, { position: [3 * k, 0, 0] })
    plugin.play(c, k % 2 ? 'Run' : 'Walk')
    return c
  })
  return { plugin, chars }
}

/** What happens at which step. */
const SCRIPT: Record<number, (p: AnimationPlugin, c: number[]) => void> = {
  5: (p, c) => {
    p.ragdoll(c[0]!, { root: 'b_Neck_04', impulse: { joint: 'b_Head_05', impulse: [0, 1, -2] } })
    p.ragdoll(c[1]!, { motors: { strength: 1, holdRoot: true } })
    p.hit(c[2]!, 'b_RightForeArm_07', [1, 0.5, 0], { recoverSeconds: 0.5 })
    p.ragdoll(c[3]!)
  },
  12: (p, c) => {
    p.ragdoll(c[0]!, { root: 'b_LeftUpperArm_09' })
    p.setRagdollWeight(c[3]!, { weight: 0.4, joints: 'b_Neck_04' })
  },
  20: (p, c) => p.setRagdollMotors(c[1]!, { strength: 0.5, holdRoot: false }),
  40: (p, c) => p.getUp(c[0]!, { rate: 2 }),
}

function run(p: AnimationPlugin, c: number[], from: number, to: number, hashes: string[] | null = null) {
  for (let s = from; s < to; s++) {
    SCRIPT[s]?.(p, c)
    p.step()
    hashes?.push(p.hash())
  }
}

describe('snapshots of partial, powered, hit and weighted ragdolls', () => {
  // Steps to snapshot at: just after the first ragdolls start, as the partial one grows (its replacement
  // queued), with the root held, let go, and while getting up.
  for (const at of [6, 13, 18, 25, 45]) {
    it(`restored at step ${at} (fresh and in place), steps on to the same hashes`, () => {
      const original = make()
      const hashes: string[] = []
      run(original.plugin, original.chars, 0, at)
      const bytes = original.plugin.snapshot()
      run(original.plugin, original.chars, at, 70, hashes)

      const fresh = createAnimationPlugin(createWorld(), { capacity: 1024 })
      fresh.addAsset(fox)
      fresh.restore(bytes)
      expect(fresh.snapshot()).toEqual(bytes)
      const mine: string[] = []
      run(fresh, original.chars, at, 70, mine)
      expect(mine).toEqual(hashes)

      // In place: the original, rewound from step 70 to `at`.
      original.plugin.restore(bytes)
      expect(original.plugin.snapshot()).toEqual(bytes)
      const again: string[] = []
      run(original.plugin, original.chars, at, 70, again)
      expect(again).toEqual(hashes)
    })
  }
})
