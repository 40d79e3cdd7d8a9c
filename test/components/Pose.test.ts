import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import {
  allocatePoseSlots,
  createPosePool,
  createPoseStore,
  freePoseSlots,
  JOINT_STRIDE,
  POSE_ANIM,
  POSE_TO,
  poseOffset,
  POSE_BUFFERS,
  type PosePool,
} from '../../components/Pose.ts'

/** The free list as [start, end) pairs, for readable expectations. */
function freeRanges(pool: PosePool): [number, number][] {
  const out: [number, number][] = []
  for (let i = 0; i < pool.free.length; i += 2) out.push([pool.free[i]!, pool.free[i]! + pool.free[i + 1]!])
  return out
}

/** Checks the allocator's invariants against an independent model: the list of live blocks. */
function checkInvariants(pool: PosePool, live: Map<number, number>): void {
  const ranges = freeRanges(pool)
  // Free ranges: non-empty, sorted, not touching (touching ones must have merged), inside the pool.
  for (let i = 0; i < ranges.length; i++) {
    const [s, e] = ranges[i]!
    expect(e).toBeGreaterThan(s)
    expect(s).toBeGreaterThanOrEqual(0)
    expect(e).toBeLessThanOrEqual(pool.slots)
    if (i > 0) expect(s).toBeGreaterThan(ranges[i - 1]![1])
  }
  // Live blocks and free ranges tile [0, slots) exactly: every slot is in exactly one of them.
  const owner = new Int32Array(pool.slots).fill(-1)
  for (const [start, n] of live) {
    for (let k = start; k < start + n; k++) {
      expect(owner[k], `slot ${k} is in two live blocks`).toBe(-1)
      owner[k] = start
    }
  }
  for (const [s, e] of ranges) {
    for (let k = s; k < e; k++) {
      expect(owner[k], `slot ${k} is live and free at once`).toBe(-1)
      owner[k] = -2
    }
  }
  expect(owner.every((o) => o !== -1)).toBe(true)
  let used = 0
  for (const n of live.values()) used += n
  expect(pool.used).toBe(used)
  expect(pool.data.length).toBe(pool.slots * JOINT_STRIDE)
  expect(pool.joints.length).toBe(pool.slots)
}

describe('pose pool allocator', () => {
  it('hands out first-fit blocks, reuses freed space and merges neighbours back into one range', () => {
    const pool = createPosePool(10, 10)
    expect(freeRanges(pool)).toEqual([[0, 10]])
    const a = allocatePoseSlots(pool, 3)
    const b = allocatePoseSlots(pool, 2)
    const c = allocatePoseSlots(pool, 4)
    expect([a, b, c]).toEqual([0, 3, 5])
    expect(pool.used).toBe(9)
    expect(freeRanges(pool)).toEqual([[9, 10]])

    freePoseSlots(pool, b, 2)
    expect(freeRanges(pool)).toEqual([
      [3, 5],
      [9, 10],
    ])
    // First fit: a 1-slot block lands in the hole, not at the end.
    expect(allocatePoseSlots(pool, 1)).toBe(3)
    expect(freeRanges(pool)).toEqual([
      [4, 5],
      [9, 10],
    ])
    freePoseSlots(pool, 3, 1)
    freePoseSlots(pool, a, 3) // merges with the next range [3, 5)
    expect(freeRanges(pool)).toEqual([
      [0, 5],
      [9, 10],
    ])
    freePoseSlots(pool, c, 4) // merges with the previous and the next: one range again
    expect(freeRanges(pool)).toEqual([[0, 10]])
    expect(pool.used).toBe(0)
    expect(pool.slots).toBe(10)
  })

  it('clears a freed block, so a recycled block starts from zeros', () => {
    const pool = createPosePool(8, 8)
    const a = allocatePoseSlots(pool, 4)
    pool.data.fill(7, a * JOINT_STRIDE, (a + 4) * JOINT_STRIDE)
    pool.joints.fill(42, a, a + 4)
    freePoseSlots(pool, a, 4)
    expect(pool.data.every((x) => x === 0)).toBe(true)
    expect(pool.joints.every((x) => x === 0)).toBe(true)
  })

  it('grows by doubling, keeping live data, up to maxSlots; then throws a capacity error with the numbers', () => {
    const pool = createPosePool(4, 20)
    const a = allocatePoseSlots(pool, 4)
    pool.data[a * JOINT_STRIDE + 5] = 1.25
    pool.joints[a + 3] = 99
    const b = allocatePoseSlots(pool, 3)
    expect(b).toBe(4)
    expect(pool.slots).toBe(8)
    expect(pool.data[a * JOINT_STRIDE + 5]).toBe(1.25)
    expect(pool.joints[a + 3]).toBe(99)
    allocatePoseSlots(pool, 9) // 8 → 16 is not enough (1 free at the end + 8 new = 9: just fits)
    expect(pool.slots).toBe(16)
    allocatePoseSlots(pool, 4) // capped at 20
    expect(pool.slots).toBe(20)
    expect(pool.used).toBe(20)
    let error: unknown
    try {
      allocatePoseSlots(pool, 1)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AnimationError)
    expect((error as AnimationError).kind).toBe('capacity')
    expect((error as AnimationError).message).toBe(
      "pose pool exhausted: 1 joint slots needed, 20 of 20 in use (raise the plugin's maxPoseSlots option)",
    )
    // The failed call changed nothing.
    expect(pool.used).toBe(20)
    expect(freeRanges(pool)).toEqual([])
  })

  it('grows enough for a big block in a fragmented pool whose free slots are all in the middle', () => {
    // 8 slots: live [0,2) hole [2,6) live [6,8). used = 4, and a 10-slot block needs the pool to reach 18,
    // more than used + need = 14 (the old growth rule, which then reported the pool as exhausted).
    const pool = createPosePool(8, 1000)
    allocatePoseSlots(pool, 2)
    const hole = allocatePoseSlots(pool, 4)
    allocatePoseSlots(pool, 2)
    freePoseSlots(pool, hole, 4)
    const big = allocatePoseSlots(pool, 10)
    expect(big).toBe(8)
    expect(pool.slots).toBeGreaterThanOrEqual(18)
    expect(pool.used).toBe(14)
  })

  it('grows into a free tail: the new block starts where the tail starts', () => {
    const pool = createPosePool(8, 100)
    allocatePoseSlots(pool, 6) // free tail [6, 8)
    expect(allocatePoseSlots(pool, 5)).toBe(6)
    expect(pool.slots).toBe(16)
    expect(freeRanges(pool)).toEqual([[11, 16]])
  })

  it('random allocate/free sequences never overlap live blocks, merge fully, and fail only when full', () => {
    const op = fc.oneof(
      // Block size as a percentage of the pool's current size: blocks bigger than the whole pool are common.
      fc.record({ kind: fc.constant('alloc' as const), percent: fc.integer({ min: 1, max: 300 }) }),
      fc.record({ kind: fc.constant('free' as const), pick: fc.nat() }),
    )
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(op, { maxLength: 80 }),
        (initial, maxSlots, ops) => {
          const pool = createPosePool(initial, maxSlots)
          const live = new Map<number, number>()
          for (const o of ops) {
            if (o.kind === 'alloc') {
              const n = Math.max(1, Math.ceil((o.percent * pool.slots) / 100))
              const before = freeRanges(pool)
              const slots = pool.slots
              // Independent rule: the block fits iff a free range is long enough, or the pool can grow to
              // maxSlots with the new space (plus a free tail) long enough.
              const tail =
                before.length > 0 && before[before.length - 1]![1] === slots ? before.at(-1)! : null
              const fits =
                before.some(([s, e]) => e - s >= n) || maxSlots - slots + (tail ? tail[1] - tail[0] : 0) >= n
              let start = -1
              try {
                start = allocatePoseSlots(pool, n)
              } catch (e) {
                expect(e).toBeInstanceOf(AnimationError)
                expect((e as AnimationError).kind).toBe('capacity')
                expect((e as AnimationError).message).toContain(`${n} joint slots needed`)
                expect((e as AnimationError).message).toContain(`of ${maxSlots} in use`)
                expect(freeRanges(pool)).toEqual(before)
              }
              expect(start >= 0).toBe(fits)
              if (start >= 0) {
                // Mark the block and check nobody else's marks are touched later.
                pool.joints.fill(start + 1, start, start + n)
                live.set(start, n)
              }
            } else if (live.size > 0) {
              const starts = [...live.keys()]
              const start = starts[o.pick % starts.length]!
              for (let k = start; k < start + live.get(start)!; k++) expect(pool.joints[k]).toBe(start + 1)
              freePoseSlots(pool, start, live.get(start)!)
              live.delete(start)
            }
            checkInvariants(pool, live)
            expect(pool.slots).toBeLessThanOrEqual(Math.max(1, maxSlots))
          }
          for (const [start, n] of [...live]) {
            freePoseSlots(pool, start, n)
            live.delete(start)
          }
          expect(freeRanges(pool)).toEqual([[0, pool.slots]])
          expect(pool.used).toBe(0)
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('pose layout', () => {
  it('puts the five layers of a character back to back, n joints each', () => {
    expect(POSE_BUFFERS).toBe(5)
    expect(poseOffset(7, 3, POSE_ANIM)).toBe(70)
    expect(poseOffset(7, 3, POSE_TO)).toBe((7 + 4 * 3) * JOINT_STRIDE)
    // The last float of the TO layer is the last float of the block.
    expect(poseOffset(7, 3, POSE_TO) + 3 * JOINT_STRIDE).toBe((7 + POSE_BUFFERS * 3) * JOINT_STRIDE)
  })

  it('creates a store whose asset column starts at -1 (no asset) and the rest at 0', () => {
    const store = createPoseStore(4)
    expect(Array.from(store.asset)).toEqual([-1, -1, -1, -1])
    expect(Array.from(store.base)).toEqual([0, 0, 0, 0])
    expect(store.count).toBeInstanceOf(Uint16Array)
  })
})
