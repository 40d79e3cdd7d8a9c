/**
 * Forging snapshots, as an attacker would: edit bytes of a real snapshot, then recompute its checksum (the
 * project's checksumWords of bytes [20, total), written at offset 12 as high u32 then low u32), so that only
 * restore's value checks stand between the edit and the simulation.
 *
 * `mapSnapshot` (snapshotMap.ts, re-exported here) finds where things are in the bytes, walking them
 * without snapshot/read.ts, so that a mistake in the reader cannot hide the same mistake here.
 */
import { checksumWords } from '../../src/sim/checksum.ts'

export {
  mapSnapshot,
  type NodeMap,
  type CharacterMap,
  type ShapeMap,
  type BodyMap,
  type ConstraintMap,
  type RagdollMap,
  type LayerMap,
  type RootMotionMap,
  type SnapshotMap,
} from './snapshotMap.ts'

export type EditKind = 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f64'

export interface Edit {
  readonly offset: number
  readonly kind: EditKind
  readonly value: number
}

/** A copy of `bytes` with its length (offset 8) and checksum recomputed. */
export function reseal(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice()
  const view = new DataView(out.buffer)
  view.setUint32(8, out.length, true)
  const sum = new Uint32Array(2)
  checksumWords(new Int32Array(out.buffer, 0, out.length >>> 2), 5, out.length >>> 2, sum)
  view.setUint32(12, sum[0]!, true)
  view.setUint32(16, sum[1]!, true)
  return out
}

/** A copy of `bytes` with `edits` made (little-endian, in order), checksum recomputed. */
export function forge(bytes: Uint8Array, edits: readonly Edit[]): Uint8Array {
  const out = bytes.slice()
  const view = new DataView(out.buffer)
  for (const { offset, kind, value } of edits) {
    if (kind === 'u8') view.setUint8(offset, value)
    else if (kind === 'u16') view.setUint16(offset, value, true)
    else if (kind === 'u32') view.setUint32(offset, value, true)
    else if (kind === 'i32') view.setInt32(offset, value, true)
    else if (kind === 'f32') view.setFloat32(offset, value, true)
    else view.setFloat64(offset, value, true)
  }
  return reseal(out)
}

/** Every offset at which the bytes of `value` as a little-endian float (`f32` or `f64`) occur. */
export function findFloat(bytes: Uint8Array, value: number, kind: 'f32' | 'f64'): number[] {
  const size = kind === 'f32' ? 4 : 8
  const pattern = new Uint8Array(size)
  const view = new DataView(pattern.buffer)
  if (kind === 'f32') view.setFloat32(0, value, true)
  else view.setFloat64(0, value, true)
  const found: number[] = []
  outer: for (let i = 0; i + size <= bytes.length; i++) {
    for (let k = 0; k < size; k++) if (bytes[i + k] !== pattern[k]) continue outer
    found.push(i)
  }
  return found
}
