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
 * reset: open addressing over keys i·2²⁶ + j (i > j), the used slots listed so that reset clears only them.
 */
export class PairSet {
  private keys = new Float64Array(64).fill(-1)
  private used = new Int32Array(32)
  private count = 0

  get(bi: Body, bj: Body): boolean {
    return this.find(pairKey(bi.index, bj.index)) >= 0
  }

  set(bi: Body, bj: Body, value: boolean): void {
    const key = pairKey(bi.index, bj.index)
    const at = this.find(key)
    if (value) {
      if (at < 0) this.insert(key)
    } else if (at >= 0) this.remove(at)
  }

  reset(): void {
    const keys = this.keys
    for (let k = 0; k < this.count; k++) keys[this.used[k]!] = -1
    this.count = 0
  }

  /** ArrayCollisionMatrix sizes itself by the bodies; a hash set needs nothing. */
  setNumObjects(_n: number): void {}

  private find(key: number): number {
    const keys = this.keys
    const mask = keys.length - 1
    for (let s = slotOf(key, mask); ; s = (s + 1) & mask) {
      const k = keys[s]!
      if (k === key) return s
      if (k === -1) return -1
    }
  }

  private insert(key: number): void {
    if (2 * (this.count + 1) > this.keys.length) this.grow()
    const keys = this.keys
    const mask = keys.length - 1
    let s = slotOf(key, mask)
    while (keys[s] !== -1) s = (s + 1) & mask
    keys[s] = key
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
    for (let k = 0; k < this.count; k++) if (this.used[k] !== at) live.push(this.keys[this.used[k]!]!)
    this.reset()
    for (const key of live) this.insert(key)
  }

  private grow(): void {
    const old: number[] = []
    for (let k = 0; k < this.count; k++) old.push(this.keys[this.used[k]!]!)
    this.keys = new Float64Array(2 * this.keys.length).fill(-1)
    this.used = new Int32Array(this.keys.length >> 1)
    this.count = 0
    for (const key of old) this.insert(key)
  }
}

function pairKey(a: number, b: number): number {
  return a > b ? a * 67108864 + b : b * 67108864 + a
}

function slotOf(key: number, mask: number): number {
  const hi = (key / 67108864) | 0
  const lo = key - hi * 67108864
  return (Math.imul(hi, 0x9e3779b1) ^ Math.imul(lo, 0x85ebca77)) & mask
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
