import type { Body, World } from 'cannon-es'

/**
 * cannon-es's per-step contact bookkeeping, rewritten to cost what the contacts cost. World.internalStep keeps,
 * besides the contacts themselves, which pairs touched this step and the last: a collision matrix per step (for
 * 'collide' events) and an overlap keeper each for body and shape pairs (for 'beginContact' / 'endContact' and
 * the shape events). cannon-es 0.20's ArrayCollisionMatrix clears a triangle of n²/2 entries for n bodies in the
 * world every step, and its OverlapKeeper inserts each contact's key into a sorted array by shifting (O(contacts²)
 * per step): for 100 Fox ragdolls apart (~2,600 bodies, ~1,500 contacts) together ~20 % of a physics step.
 *
 * None of it feeds the simulation: the pairs only decide which events fire (src/physics/snapshotFormat.ts says
 * why snapshots leave them out), so replacing them keeps every body's bits. Here a step's pairs live in a hash
 * set that clears only what was set, and the overlap keepers append keys unsorted and sort them only when a
 * listener asks for the difference. The same answers and events as cannon-es's, in the same order.
 * Allocation-free in the steady state (tables grow by doubling and stay).
 */
export function installContactBook(world: World): void {
  const w = world as unknown as {
    collisionMatrix: PairSet
    collisionMatrixPrevious: PairSet
    bodyOverlapKeeper: LazyOverlapKeeper
    shapeOverlapKeeper: LazyOverlapKeeper
  }
  w.collisionMatrix = new PairSet()
  w.collisionMatrixPrevious = new PairSet()
  w.bodyOverlapKeeper = new LazyOverlapKeeper()
  w.shapeOverlapKeeper = new LazyOverlapKeeper()
}

/**
 * The pairs of bodies (by their `index` in the world, as ArrayCollisionMatrix keys them) set since the last
 * reset: open addressing over (larger index, smaller index) in two Int32Arrays (small integers throughout: no
 * number is boxed), the used slots listed so that reset clears only them.
 */
export class PairSet {
  private high = new Int32Array(64).fill(-1)
  private low = new Int32Array(64)
  private used = new Int32Array(32)
  private count = 0

  get(bi: Body, bj: Body): boolean {
    const i = bi.index
    const j = bj.index
    return i > j ? this.find(i, j) >= 0 : this.find(j, i) >= 0
  }

  set(bi: Body, bj: Body, value: boolean): void {
    const i = bi.index > bj.index ? bi.index : bj.index
    const j = bi.index > bj.index ? bj.index : bi.index
    const at = this.find(i, j)
    if (value) {
      if (at < 0) this.insert(i, j)
    } else if (at >= 0) this.remove(at)
  }

  reset(): void {
    for (let k = 0; k < this.count; k++) this.high[this.used[k]!] = -1
    this.count = 0
  }

  /** ArrayCollisionMatrix sizes itself by the bodies; a hash set needs nothing. */
  setNumObjects(_n: number): void {}

  private find(i: number, j: number): number {
    const high = this.high
    const mask = high.length - 1
    for (let s = slotOf(i, j, mask); ; s = (s + 1) & mask) {
      const h = high[s]!
      if (h === -1) return -1
      if (h === i && this.low[s] === j) return s
    }
  }

  private insert(i: number, j: number): void {
    if (2 * (this.count + 1) > this.high.length) this.grow()
    const high = this.high
    const mask = high.length - 1
    let s = slotOf(i, j, mask)
    while (high[s] !== -1) s = (s + 1) & mask
    high[s] = i
    this.low[s] = j
    if (this.count === this.used.length) {
      const used = new Int32Array(2 * this.used.length)
      used.set(this.used)
      this.used = used
    }
    this.used[this.count++] = s
  }

  /** Removes slot `at` (a 'false' set; cannon-es never does this): rebuilt without it, as it is rare. */
  private remove(at: number): void {
    const live: number[] = []
    for (let k = 0; k < this.count; k++) {
      const s = this.used[k]!
      if (s !== at) live.push(this.high[s]!, this.low[s]!)
    }
    this.reset()
    for (let k = 0; k < live.length; k += 2) this.insert(live[k]!, live[k + 1]!)
  }

  private grow(): void {
    const old: number[] = []
    for (let k = 0; k < this.count; k++) old.push(this.high[this.used[k]!]!, this.low[this.used[k]!]!)
    this.high = new Int32Array(2 * this.high.length).fill(-1)
    this.low = new Int32Array(this.high.length)
    this.used = new Int32Array(this.high.length >> 1)
    this.count = 0
    for (let k = 0; k < old.length; k += 2) this.insert(old[k]!, old[k + 1]!)
  }
}

function slotOf(i: number, j: number, mask: number): number {
  return (Math.imul(i, 0x9e3779b1) ^ Math.imul(j, 0x85ebca77)) & mask
}

/**
 * cannon-es's OverlapKeeper (the pairs of ids that touched this step and the last, keyed i << 16 | j with i ≤ j,
 * as cannon-es packs them) with O(1) `set`: keys are appended, and sorted and made unique only in `getDiff`,
 * which cannon-es calls only when a contact event has a listener.
 */
export class LazyOverlapKeeper {
  private current = new Int32Array(64)
  private previous = new Int32Array(64)
  private currentCount = 0
  private previousCount = 0

  getKey(i: number, j: number): number {
    return j < i ? (j << 16) | i : (i << 16) | j
  }

  set(i: number, j: number): void {
    if (this.currentCount === this.current.length) {
      const grown = new Int32Array(2 * this.current.length)
      grown.set(this.current)
      this.current = grown
    }
    this.current[this.currentCount++] = this.getKey(i, j)
  }

  tick(): void {
    const tmp = this.current
    this.current = this.previous
    this.previous = tmp
    this.previousCount = this.currentCount
    this.currentCount = 0
  }

  /** Pushes the pairs (two ids each) in this step's keys but not the last's to additions, the reverse to removals. */
  getDiff(additions: number[], removals: number[]): void {
    this.currentCount = sortUnique(this.current, this.currentCount)
    this.previousCount = sortUnique(this.previous, this.previousCount)
    diff(this.current, this.currentCount, this.previous, this.previousCount, additions)
    diff(this.previous, this.previousCount, this.current, this.currentCount, removals)
  }
}

/** Sorts keys[0..n) ascending in place and drops repeats; returns the new count. */
function sortUnique(keys: Int32Array, n: number): number {
  keys.subarray(0, n).sort()
  let m = 0
  for (let i = 0; i < n; i++) if (m === 0 || keys[i] !== keys[m - 1]) keys[m++] = keys[i]!
  return m
}

/** Pushes each key of a (sorted, unique) missing from b (sorted, unique) as two ids, as cannon-es unpacks them. */
function diff(a: Int32Array, an: number, b: Int32Array, bn: number, out: number[]): void {
  let j = 0
  for (let i = 0; i < an; i++) {
    const key = a[i]!
    while (j < bn && b[j]! < key) j++
    if (j < bn && b[j] === key) continue
    out.push((key & 0xffff0000) >> 16, key & 0x0000ffff)
  }
}
