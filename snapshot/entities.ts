import { addEntity, removeEntity, type World } from 'bitecs'
import type { Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { snapshotError } from '../src/sim/valueChecks.ts'
import { entityIndexOf } from './format.ts'

/**
 * The snapshot's "entities" section: bitecs's entity index, u32 maxId, u32 aliveCount, u32 runs, then
 * [start, length] pairs that spell `dense[0 .. maxId)` as runs of consecutive ascending ids (the alive ids, then
 * the free ones, the next to be recycled first). And what a restore does with it: rebuild it whole in a fresh
 * world, or put the recycling order back in a running one.
 */

export function writeEntities(w: Writer, world: World): void {
  const index = entityIndexOf(world)
  const dense = index.dense
  w.u32(index.maxId)
  w.u32(index.aliveCount)
  const countAt = w.at()
  w.u32(0)
  let runs = 0
  for (let i = 0; i < index.maxId;) {
    let k = i + 1
    while (k < index.maxId && dense[k] === dense[k - 1]! + 1) k++
    w.u32(dense[i]!)
    w.u32(k - i)
    runs++
    i = k
  }
  w.setU32(countAt, runs)
}

export interface EntitiesData {
  maxId: number
  alive: number
  /** The index's dense array, `maxId` ids: alive ones first. */
  dense: Uint32Array
  /** Per id ≤ maxId: 1 when alive in the snapshot. */
  isAlive: Uint8Array
}

/** Reads the section; the dense array must be a permutation of 1..maxId (a plain-id world's index). */
/** The most entity ids (bitecs's maxId: the most ever alive at once) a snapshot's world may have issued. */
export const MAX_SNAPSHOT_ENTITY_IDS = 2 ** 25

export function readEntities(r: Reader): EntitiesData {
  const maxId = r.u32()
  const alive = r.u32()
  const runs = r.u32()
  if (alive > maxId) throw snapshotError(`section "entities": ${alive} alive ids of ${maxId}`)
  // maxId may pass the capacity (the game's own entities); the plugin's must not (checked where used). The
  // reader sizes three arrays by it (4 + 1 + 1 bytes an id): 2^25 ids keep that under 200 MiB for a forgery.
  if (maxId > MAX_SNAPSHOT_ENTITY_IDS) {
    throw snapshotError(`section "entities": maxId ${maxId} is past 2^25`)
  }
  const dense = new Uint32Array(maxId)
  const seen = new Uint8Array(maxId + 1)
  let at = 0
  for (let k = 0; k < runs; k++) {
    const start = r.u32()
    const length = r.u32()
    if (!(length >= 1 && at + length <= maxId && start >= 1 && start + length - 1 <= maxId)) {
      throw snapshotError(
        `section "entities": run ${k} (${start}, ${length}) does not fit the index of ids 1..${maxId}`,
      )
    }
    for (let i = 0; i < length; i++) {
      const e = start + i
      if (seen[e] === 1) {
        throw snapshotError(
          `section "entities": the index is not a permutation of 1..${maxId} (id ${e} twice)`,
        )
      }
      seen[e] = 1
      dense[at++] = e
    }
  }
  if (at !== maxId) throw snapshotError(`section "entities": the runs spell ${at} of its ${maxId} ids`)
  const isAlive = new Uint8Array(maxId + 1)
  for (let i = 0; i < alive; i++) isAlive[dense[i]!] = 1
  return { maxId, alive, dense, isAlive }
}

/**
 * A fresh world's entity index made the snapshot's: ids 1..maxId created, all removed in reverse snapshot
 * order, the alive ones re-added (in the snapshot's order: removal made the free list the dense order's tail).
 */
export function rebuildEntityIndex(world: World, e: EntitiesData): void {
  for (let i = 0; i < e.maxId; i++) addEntity(world)
  for (let i = e.maxId - 1; i >= 0; i--) removeEntity(world, e.dense[i]!)
  for (let i = 0; i < e.alive; i++) addEntity(world)
}

/**
 * Makes the free id `id` alive in a running world, as addEntity would issue it: ids past maxId join the free
 * list first; `id` is then moved to the head of the free list and addEntity takes it (so bitecs does its own
 * bookkeeping: the entity's component set, its Not-queries).
 */
export function claimEntity(world: World, id: number): void {
  const index = entityIndexOf(world)
  const { dense, sparse } = index
  while (index.maxId < id) {
    const next = ++index.maxId
    sparse[next] = dense.length
    dense.push(next)
  }
  const from = sparse[id]!
  const to = index.aliveCount
  const other = dense[to]!
  dense[to] = id
  sparse[id] = to
  dense[from] = other
  sparse[other] = from
  const issued = addEntity(world)
  if (issued !== id) throw new Error(`claimEntity: bitecs issued ${issued}, not ${id}`)
}

/**
 * After a restore in place: the entity index's order put back as the snapshot has it, as far as the world's
 * alive set allows. Alive ids: the snapshot's alive order, then any other alive id (a game entity made since)
 * in its current order. Free ids: the snapshot's recycling order, then any other free id ascending. maxId comes
 * back down to the snapshot's when no id above it is alive. So a world whose alive set is the snapshot's gets
 * the snapshot's index exactly. Does nothing (and allocates nothing) when the index already is the snapshot's.
 */
export function restoreEntityOrder(world: World, e: EntitiesData): void {
  const index = entityIndexOf(world)
  const { dense, sparse } = index
  if (index.maxId === e.maxId && index.aliveCount === e.alive && dense.length === e.maxId) {
    let same = true
    for (let i = 0; i < e.maxId && same; i++) same = dense[i] === e.dense[i]
    if (same) return
  }
  const aliveNow = (id: number): boolean => {
    const k = sparse[id]
    return k !== undefined && k < index.aliveCount && dense[k] === id
  }
  let top = 0
  for (let i = 0; i < index.aliveCount; i++) top = Math.max(top, dense[i]!)
  const maxId = Math.max(e.maxId, top)
  const order: number[] = []
  const placed = new Uint8Array(maxId + 1)
  const put = (id: number): void => {
    placed[id] = 1
    order.push(id)
  }
  for (let i = 0; i < e.alive; i++) if (aliveNow(e.dense[i]!)) put(e.dense[i]!)
  for (let i = 0; i < index.aliveCount; i++) if (placed[dense[i]!] === 0) put(dense[i]!)
  const alive = order.length
  for (let i = e.alive; i < e.maxId; i++) if (!aliveNow(e.dense[i]!)) put(e.dense[i]!)
  for (let id = 1; id <= maxId; id++) if (placed[id] === 0) put(id)
  dense.length = 0
  for (let i = 0; i < order.length; i++) {
    dense.push(order[i]!)
    sparse[order[i]!] = i
  }
  index.aliveCount = alive
  index.maxId = maxId
}
