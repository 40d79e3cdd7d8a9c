import { commitRemovals } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import { wordsOf } from '../src/sim/byteStream.ts'
import { WRITER_FULL, type Writer } from '../src/sim/byteWriter.ts'
import { checksumWordsFast } from '../src/engine/checksum.ts'
import type { AnimationContext } from '../plugin/context.ts'
import {
  beginSection,
  CHECKSUM_FROM,
  endSection,
  MAGIC,
  SNAPSHOT_VERSION,
  assetFingerprint,
  entityIndexOf,
  layoutsOf,
  markersFingerprint,
  retargetsFingerprint,
} from './format.ts'
import { snapshotState, type SnapshotState } from './state.ts'
import { writeEntities } from './entities.ts'
import { writeNodes } from './nodes.ts'
import { markCharacters, writeCharacters } from './characters.ts'
import { writeLod } from './lod.ts'
import { writeClock } from './clock.ts'
import { writeRagdolls } from './ragdolls.ts'
import { writeEvents } from './events.ts'

const U = new Uint32Array(6)
const D = new Float64Array(1)

/** The plugin's scratch for snapshot(): grown to the largest snapshot so far, kept. */
const scratches = new WeakMap<SnapshotState, Uint8Array>()

/**
 * Serializes the plugin's whole simulation state (layout: format.ts) into a new buffer. Throws
 * AnimationError('snapshot') for a world with versioned entity ids or a ragdoll body changed in a way the
 * format does not carry. Reads only, except that it commits bitecs's pending query removals (as the next step
 * would).
 */
export function snapshotAnimation(ctx: AnimationContext): Uint8Array {
  const s = snapshotState(ctx)
  const w = s.writer.target(scratches.get(s) ?? new Uint8Array(1 << 16), true)
  const n = writeSnapshot(ctx, s, w)
  const out = w.bytes()
  scratches.set(s, out)
  return out.slice(0, n)
}

/**
 * Writes the snapshot into `buffer` from its start and returns its length in bytes; allocates nothing in steady
 * state (a buffer that does not start at a multiple of 8 in its ArrayBuffer is written through the scratch
 * instead). Throws AnimationError('capacity') naming the length needed when the buffer is shorter, changing
 * nothing in the plugin (the buffer's bytes are then unspecified).
 */
export function snapshotAnimationInto(ctx: AnimationContext, buffer: Uint8Array): number {
  if (!(buffer instanceof Uint8Array)) {
    throw new AnimationError('argument', `snapshotInto: expected a Uint8Array, got ${showValue(buffer)}`)
  }
  const s = snapshotState(ctx)
  if (buffer.byteOffset % 8 === 0) {
    try {
      return writeSnapshot(ctx, s, s.writer.target(buffer, false))
    } catch (error) {
      if (error !== WRITER_FULL) throw error
    }
  }
  const bytes = snapshotAnimation(ctx)
  if (bytes.length > buffer.length) {
    throw new AnimationError(
      'capacity',
      `snapshotInto: the snapshot is ${bytes.length} bytes, the buffer ${buffer.length} (give a longer one)`,
    )
  }
  buffer.set(bytes)
  return bytes.length
}

function writeSnapshot(ctx: AnimationContext, s: SnapshotState, w: Writer): number {
  const world = ctx.world
  const index = entityIndexOf(world)
  if (index.versioning) {
    throw new AnimationError(
      'snapshot',
      'snapshot: the world uses versioned entity ids (withVersioning); snapshots need plain ids',
    )
  }
  commitRemovals(world)
  const layouts = layoutsOf(ctx)
  for (let k = 0; k < 4; k++) w.u8(MAGIC[k]!)
  w.u16(SNAPSHOT_VERSION)
  w.u16(0)
  w.u32(0) // total length, patched below
  w.u32(0) // checksum, patched below
  w.u32(0)
  // Words and floats through typed arrays (a large u32 or a float passed to a call is boxed).
  U[0] = layouts.schema[0]
  U[1] = layouts.schema[1]
  w.raw(U, 0, 2)
  D[0] = ctx.dt
  w.raw(D, 0, 1)
  w.u32(ctx.capacity)
  w.u32(ctx.pool.maxSlots)
  w.u32(ctx.step)

  let at = beginSection(w, 'ASET')
  w.u16(ctx.assets.length)
  for (let a = 0; a < ctx.assets.length; a++) {
    const ra = ctx.assets[a]!
    const asset = assetFingerprint(ctx, ra)
    const retargets = retargetsFingerprint(ctx, ra)
    const markers = markersFingerprint(ctx, ra)
    U[0] = asset[0]
    U[1] = asset[1]
    U[2] = retargets[0]
    U[3] = retargets[1]
    U[4] = markers[0]
    U[5] = markers[1]
    w.raw(U, 0, 6)
    w.u16(ra.jointNodes.length)
    w.u16(ra.clipIds.length)
  }
  endSection(w, at)

  at = beginSection(w, 'ENTS')
  writeEntities(w, world)
  endSection(w, at)

  const pool = ctx.pool
  at = beginSection(w, 'POOL')
  w.u32(pool.slots)
  w.u32(pool.used)
  w.u32(pool.free.length / 2)
  for (let i = 0; i < pool.free.length; i++) w.u32(pool.free[i]!)
  endSection(w, at)

  markCharacters(ctx, s)
  at = beginSection(w, 'NODE')
  writeNodes(ctx, s, w)
  endSection(w, at)

  at = beginSection(w, 'CHAR')
  writeCharacters(ctx, s, w, layouts)
  endSection(w, at)

  // Layers, morph weights, root motion, …: a section for each kind of per-character state that has one.
  // Index loop: a for-of's iterator is allocated (the snapshot of a ring must allocate nothing).
  const data = ctx.characterData
  for (let d = 0; d < data.length; d++) {
    const section = data[d]!.snapshot
    if (section === undefined) continue
    at = beginSection(w, section.tag)
    section.write(ctx, w, s.characters)
    endSection(w, at)
  }

  at = beginSection(w, 'RAGD')
  writeRagdolls(ctx, w, s.characters)
  endSection(w, at)

  at = beginSection(w, 'PHYS')
  ctx.physics.writeWorld(w, ctx.ragdolls)
  endSection(w, at)

  at = beginSection(w, 'EVNT')
  writeEvents(ctx, w)
  endSection(w, at)

  at = beginSection(w, 'LODS')
  writeLod(ctx, w)
  endSection(w, at)

  at = beginSection(w, 'CLCK')
  writeClock(ctx, w)
  endSection(w, at)

  const total = w.at()
  w.setU32(8, total)
  const words = wordsOf(w.buffer.buffer)
  const first = w.origin >>> 2
  checksumWordsFast(words, first + (CHECKSUM_FROM >>> 2), first + (total >>> 2), s.checksum)
  w.setWords(12, s.checksum, 2)
  return total
}
