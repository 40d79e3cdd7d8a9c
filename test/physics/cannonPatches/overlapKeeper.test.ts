import fc from 'fast-check'
import { World } from 'cannon-es'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { LazyOverlapKeeper } from '../../../src/physics/cannonPatches/contactBook.ts'
import { createAnimationPlugin } from '../../../entry/index.ts'

/** cannon-es's own OverlapKeeper (not exported by its entry; every World has two). */
type Keeper = {
  set(i: number, j: number): void
  tick(): void
  getDiff(additions: number[], removals: number[]): void
}
const CannonKeeper = (new World() as unknown as { bodyOverlapKeeper: Keeper }).bodyOverlapKeeper
  .constructor as new () => Keeper

describe('LazyOverlapKeeper', () => {
  it("gives cannon-es's diffs step after step, pairs in any order and repeated", () => {
    const step = fc.array(fc.tuple(fc.nat(40), fc.nat(40)), { maxLength: 60 })
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 6 }), (steps) => {
        const ours = new LazyOverlapKeeper()
        const theirs = new CannonKeeper()
        for (const pairs of steps) {
          ours.tick()
          theirs.tick()
          for (const [i, j] of pairs) {
            ours.set(i, j)
            theirs.set(i, j)
          }
          const a: number[][] = [[], []]
          const b: number[][] = [[], []]
          ours.getDiff(a[0]!, a[1]!)
          theirs.getDiff(b[0]!, b[1]!)
          expect(a).toEqual(b)
        }
      }),
      { numRuns: 200, seed: 5 },
    )
  })

  it('keeps 60,000 contacts a step in linear time: set appends, getDiff sorts once (cannon-es: a shift per insert)', () => {
    const keeper = new LazyOverlapKeeper()
    const inside = keeper as unknown as { current: Int32Array; currentCount: number }
    keeper.tick()
    // Descending keys: cannon-es's insertion scans and shifts the whole array for each (1.8e9 moves). Here each
    // set only appends its key (O(1), the buffer doubling when full): the keys sit in call order until getDiff.
    const keys: number[] = []
    for (let k = 60_000; k > 0; k--) {
      keeper.set(k >> 8, 1000 + (k & 255))
      keys.push(keeper.getKey(k >> 8, 1000 + (k & 255)))
    }
    expect(inside.currentCount).toBe(60_000)
    expect(Array.from(inside.current.subarray(0, 60_000))).toEqual(keys)
    const additions: number[] = []
    keeper.getDiff(additions, [])
    // One sort, repeats dropped: every distinct pair once, in key order.
    const distinct = [...new Set(keys)].sort((a, b) => a - b)
    expect(additions).toHaveLength(2 * distinct.length)
    expect(inside.currentCount).toBe(distinct.length)
    expect(Array.from(inside.current.subarray(0, distinct.length))).toEqual(distinct)
  })

  it("is the plugin's own world's", () => {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 16 })
    const w = plugin.physics as unknown as { bodyOverlapKeeper: unknown; shapeOverlapKeeper: unknown }
    expect(w.bodyOverlapKeeper).toBeInstanceOf(LazyOverlapKeeper)
    expect(w.shapeOverlapKeeper).toBeInstanceOf(LazyOverlapKeeper)
  })
})
