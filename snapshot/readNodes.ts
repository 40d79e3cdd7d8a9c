import type { Reader } from '../src/sim/byteStream.ts'
import { checkFinite, checkUnit, invalidValue, snapshotError } from '../src/sim/valueChecks.ts'
import { NODE_CHANGED, NODE_DIRTY, NODE_KEPT } from './format.ts'
import { sameWords, type NodeStructure, type StructureMemo } from './memo.ts'
import type { EntitiesData } from './entities.ts'

/** The read half of the snapshot's "nodes" section (its layout: nodes.ts), checking every value. */

export interface NodesData {
  /** The ids, parents and positions below as one object (kept by the memo while the snapshots' are the same). */
  structure: NodeStructure
  count: number
  /** Node ids ascending, with their parents and flags. */
  ids: Int32Array
  parents: Int32Array
  flags: Uint8Array
  /** Per id ≤ the snapshot's maxId: its position in `ids` + 1, 0 for no node. */
  position: Int32Array
  /** The link order, or null for ascending ids. */
  linkOrder: Uint32Array | null
  /** [start, length] runs of nodes with a local transform in the snapshot, and each run's byte offset. */
  localRuns: Uint32Array
  localAt: Uint32Array
  /** The same for stored world matrices. */
  worldRuns: Uint32Array
  worldAt: Uint32Array
}

export function readNodes(
  r: Reader,
  entities: EntitiesData,
  capacity: number,
  memo: StructureMemo,
): NodesData {
  const structure = readNodeStructure(r, entities, capacity, memo)
  const { count: n, ids, parents, position } = structure
  const where = (e: number): string => `section "nodes", scene node ${e}`
  const flags = r.bytes.slice(r.span(n), r.at())
  r.align(4)
  for (let i = 0; i < n; i++) {
    if ((flags[i]! & ~(NODE_DIRTY | NODE_CHANGED | NODE_KEPT)) !== 0) {
      throw invalidValue(where(ids[i]!), 'flags', flags[i]!, 'has bits outside 0x7')
    }
  }
  const linkOrder = readLinkOrder(r, n, ids, parents, position)

  const local = readRuns(r, 'local transform', position)
  const localAt = readBlocks(r, local, 40, (at, k, i, e) =>
    checkLocal(r.floats, at + 3 * i, at + 3 * k + 4 * i, at + 7 * k + 3 * i, e),
  )
  const world = readRuns(r, 'world matrix', position)
  const worldAt = readBlocks(r, world, 64, (at, _, i, e) => checkWorldMatrix(r.floats, at + 16 * i, e))
  return {
    structure,
    count: n,
    ids,
    parents,
    flags,
    position,
    linkOrder,
    localRuns: local,
    localAt,
    worldRuns: world,
    worldAt,
  }
}

/**
 * The section's ids and parents: taken as the memo has them when its words are those last read (memo.ts), else
 * read, checked and kept.
 */
function readNodeStructure(
  r: Reader,
  entities: EntitiesData,
  capacity: number,
  memo: StructureMemo,
): NodeStructure {
  const start = r.at()
  const n = r.u32()
  const runCount = r.u32()
  // The words through the parent column (runs and parents are 4-byte values from a multiple of 8).
  const length = 2 + 2 * runCount + n
  const known = memo.nodes
  if (
    known !== null &&
    memo.nodesEntities === entities &&
    start + 4 * length <= r.limit &&
    sameWords(r.ints, start >>> 2, memo.nodeBytes, length)
  ) {
    r.span(4 * length - 8)
    return known
  }
  const where = (e: number): string => `section "nodes", scene node ${e}`
  // Counts are checked before anything is sized by them: nodes are distinct alive entities, runs hold one at
  // least (a forged count of 1.4e9 nodes allocated 5.3 GB before the runs refused it).
  if (n > entities.maxId) {
    throw invalidValue(
      'section "nodes"',
      'node count',
      n,
      `must be at most the highest entity id ${entities.maxId}`,
    )
  }
  if (runCount > n) throw invalidValue('section "nodes"', 'id run count', runCount, `must be at most ${n}`)
  const ids = new Int32Array(n)
  const position = new Int32Array(entities.maxId + 1)
  let at = 0
  let last = 0
  for (let k = 0; k < runCount; k++) {
    const start = r.u32()
    const length = r.u32()
    if (!(length >= 1 && start > last && at + length <= n && start + length - 1 < capacity)) {
      throw snapshotError(`section "nodes": id run ${k} (${start}, ${length}) is out of order or range`)
    }
    for (let i = 0; i < length; i++) {
      const e = start + i
      if (!(e <= entities.maxId && entities.isAlive[e] === 1)) {
        throw snapshotError(`${where(e)}: entity ${e} is not an alive id below capacity ${capacity}`)
      }
      ids[at] = e
      position[e] = ++at
    }
    last = start + length - 1
  }
  if (at !== n) throw snapshotError(`section "nodes": the runs list ${at} of its ${n} nodes`)
  r.align(4)
  const parentsAt = r.span(4 * n)
  const parents = Int32Array.from(r.ints.subarray(parentsAt >>> 2, (parentsAt >>> 2) + n))
  for (let i = 0; i < n; i++) {
    const p = parents[i]!
    if (p !== 0 && !(p > 0 && p <= entities.maxId && position[p] !== 0)) {
      throw invalidValue(where(ids[i]!), 'parent', p, 'is not a scene node')
    }
  }
  const structure = { count: n, ids, parents, position }
  memo.nodes = structure
  memo.nodesEntities = entities
  memo.nodeBytes = r.ints.slice(start >>> 2, (start >>> 2) + length)
  return structure
}

/**
 * Each run's block of `bytes` bytes a node (local transforms: a run's translations, rotations, scales; world
 * matrices), `check(block, length, i, e)` called for node i (entity e) of each (`block`: the block's float index);
 * returns each block's byte offset.
 */
function readBlocks(
  r: Reader,
  runs: Uint32Array,
  bytes: number,
  check: (block: number, length: number, i: number, e: number) => void,
): Uint32Array {
  const out = new Uint32Array(runs.length / 2)
  for (let k = 0; k < runs.length; k += 2) {
    const length = runs[k + 1]!
    const at = r.span(bytes * length) >>> 2
    out[k / 2] = 4 * at
    for (let i = 0; i < length; i++) check(at, length, i, runs[k]! + i)
  }
  return out
}

/** Runs of node ids (ascending, apart, all nodes) as u32 count then [start, length] pairs. */
function readRuns(r: Reader, what: string, position: Int32Array): Uint32Array {
  const count = r.u32()
  // Runs are apart and hold a node each at least: no more of them than ids (checked before sizing by it).
  if (count >= position.length) {
    throw invalidValue(`section "nodes", ${what}`, 'run count', count, `must be below ${position.length}`)
  }
  const runs = new Uint32Array(2 * count)
  let last = 0
  for (let k = 0; k < count; k++) {
    const start = r.u32()
    const length = r.u32()
    const end = start + length - 1
    let ok = length >= 1 && start > last && end < position.length
    for (let e = start; ok && e <= end; e++) ok = position[e] !== 0
    if (!ok)
      throw snapshotError(`section "nodes": ${what} run ${k} (${start}, ${length}) is not a run of nodes`)
    runs[2 * k] = start
    runs[2 * k + 1] = length
    last = end + 1
  }
  return runs
}

function checkLocal(f: Float32Array, t: number, q: number, s: number, e: number): void {
  let sum = 0
  for (let k = 0; k < 3; k++) sum += f[t + k]! * 0 + f[s + k]! * 0
  const x = f[q]!
  const y = f[q + 1]!
  const z = f[q + 2]!
  const w = f[q + 3]!
  const length2 = x * x + y * y + z * z + w * w
  if (sum === 0 && length2 >= 0.25 && length2 <= 4) return
  const where = `section "nodes", scene node ${e}`
  checkFinite(where, 'translation', f, t, 3)
  checkUnit(where, 'rotation', f, q)
  checkFinite(where, 'scale', f, s, 3)
}

/**
 * A world matrix (column-major): the affine part finite, the last row 0 0 0 1 (written when the node is added;
 * propagation writes only the affine part).
 */
function checkWorldMatrix(f: Float32Array, o: number, e: number): void {
  const where = `section "nodes", scene node ${e}`
  checkFinite(where, 'world', f, o, 16)
  const row = Float32Array.of(f[o + 3]!, f[o + 7]!, f[o + 11]!, f[o + 15]!)
  if (row[0] !== 0 || row[1] !== 0 || row[2] !== 0 || row[3] !== 1) {
    throw invalidValue(where, 'world matrix row 4', row, 'must be (0, 0, 0, 1)')
  }
}

/**
 * No parent chain of the snapshot's own graph loops (what a restore into a fresh world builds): each node's
 * ancestors walked once (2 = known to reach a root).
 */
export function checkCycles(ids: Int32Array, parents: Int32Array, position: Int32Array): void {
  const state = new Uint8Array(ids.length + 1)
  for (let i = 0; i < ids.length; i++) {
    let a = i + 1
    while (a !== 0 && state[a] === 0) {
      state[a] = 1
      const p = parents[a - 1]!
      a = p === 0 ? 0 : position[p]!
    }
    if (a !== 0 && state[a] === 1) {
      const e = ids[i]!
      const chain: number[] = []
      for (let b = position[e]!; chain.length < 64; b = position[parents[b - 1]!]!) {
        chain.push(ids[b - 1]!)
        if (chain.length > 1 && ids[b - 1] === ids[a - 1]) break
      }
      throw invalidValue(
        `section "nodes", scene node ${e}`,
        'parent',
        parents[i]!,
        `the parent links make a cycle (${chain.join(' → ')})`,
      )
    }
    for (let b = i + 1; b !== 0 && state[b] === 1;) {
      state[b] = 2
      const p = parents[b - 1]!
      b = p === 0 ? 0 : position[p]!
    }
  }
}

function readLinkOrder(
  r: Reader,
  n: number,
  ids: Int32Array,
  parents: Int32Array,
  position: Int32Array,
): Uint32Array | null {
  const kind = r.u32()
  if (kind === 0) return null
  if (kind !== 1) throw invalidValue('section "nodes"', 'link order kind', kind, 'must be 0 or 1')
  const count = r.u32()
  let children = 0
  for (let i = 0; i < n; i++) if (parents[i] !== 0) children++
  const at = r.span(4 * count) >>> 2
  const order = Uint32Array.from(r.words.subarray(at, at + count))
  const seen = new Uint8Array(n + 1)
  let ok = count === children
  for (let k = 0; k < count && ok; k++) {
    const e = order[k]!
    const p = e < position.length ? position[e]! : 0
    ok = p !== 0 && parents[p - 1] !== 0 && seen[p] === 0
    seen[p] = 1
  }
  if (!ok) {
    throw snapshotError(
      `section "nodes": the link order is not an order of the ${children} nodes with a parent`,
    )
  }
  void ids
  return order
}
