import type { World } from 'cannon-es'

/**
 * A drop-in for cannon-es 0.20's OverlapKeeper (World.bodyOverlapKeeper and shapeOverlapKeeper: the pairs in
 * contact this step and the last, which drive the 'beginContact'/'endContact' events). cannon-es's `set` inserts
 * each pair into a sorted array by a linear scan and shift, so a step with k contacts costs O(k²): a ragdoll of
 * large overlapping capsules made 52,000 contacts a step, and each step took seconds. Here `set` appends, and
 * the keys are sorted (and made unique) only when a diff is asked for: O(k log k), and O(k) in a world with no
 * contact listener, which never asks. The same keys and the same diffs as cannon-es's.
 */
export class SortingOverlapKeeper {
  current: number[] = []
  previous: number[] = []
  /** Whether `current` / `previous` are sorted and free of repeats. */
  private currentSorted = true
  private previousSorted = true

  /** cannon-es's key of a pair (the lower id in the high 16 bits). */
  getKey(i: number, j: number): number {
    return j < i ? (j << 16) | i : (i << 16) | j
  }

  set(i: number, j: number): void {
    const key = this.getKey(i, j)
    const current = this.current
    const last = current.length > 0 ? current[current.length - 1]! : -1
    if (key === last) return
    if (key < last) this.currentSorted = false
    current.push(key)
  }

  tick(): void {
    const previous = this.current
    this.current = this.previous
    this.previous = previous
    this.previousSorted = this.currentSorted
    this.current.length = 0
    this.currentSorted = true
  }

  /** The pairs added since the last tick and those removed, as [id, id] pairs pushed in key order. */
  getDiff(additions: number[], removals: number[]): void {
    if (!this.currentSorted) settle(this.current)
    if (!this.previousSorted) settle(this.previous)
    this.currentSorted = true
    this.previousSorted = true
    const a = this.current
    const b = this.previous
    let j = 0
    for (let i = 0; i < a.length; i++) {
      const key = a[i]!
      while (j < b.length && key > b[j]!) j++
      if (j >= b.length || key !== b[j]) additions.push((key & 0xffff0000) >> 16, key & 0x0000ffff)
    }
    j = 0
    for (let i = 0; i < b.length; i++) {
      const key = b[i]!
      while (j < a.length && key > a[j]!) j++
      if (j >= a.length || key !== a[j]) removals.push((key & 0xffff0000) >> 16, key & 0x0000ffff)
    }
  }
}

/** Sorts keys ascending and removes repeats, in place. */
function settle(keys: number[]): void {
  keys.sort(ascending)
  let n = 0
  for (let i = 0; i < keys.length; i++) if (n === 0 || keys[i] !== keys[n - 1]) keys[n++] = keys[i]!
  keys.length = n
}

function ascending(a: number, b: number): number {
  return a - b
}

/** Gives a cannon-es world the keepers above (the plugin's own world: src/physics/world.ts). */
export function useSortingOverlapKeepers(world: World): void {
  const w = world as unknown as { bodyOverlapKeeper: unknown; shapeOverlapKeeper: unknown }
  w.bodyOverlapKeeper = new SortingOverlapKeeper()
  w.shapeOverlapKeeper = new SortingOverlapKeeper()
}
