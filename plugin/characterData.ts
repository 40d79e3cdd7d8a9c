import type { Hasher } from '../src/sim/hasher.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import type { AnimationContext, RegisteredAsset } from './context.ts'

/**
 * Per-character state, declared once. Every kind of state a character may carry besides its store rows (layer
 * stacks, morph weights, root motion, …) is one CharacterDatum: how a character gets it, loses it, hashes it and
 * carries it in snapshots. The plugin's lists of them (`ctx.characterData`, made in entry/, one file each in
 * characterData/) are what adding, restoring and removing a character, hash() and the snapshot sections loop
 * over, in list order — so a new kind of state is one file there and one line in the list.
 */
export interface CharacterDatum<Plan = unknown> {
  /** What it is, for messages. */
  readonly name: string
  /**
   * Gives a character being attached its start value: one added by addCharacter, or one a restore makes (whose
   * snapshot values `snapshot.apply` writes after).
   */
  attach?(ctx: AnimationContext, eid: number, asset: RegisteredAsset): void
  /** Frees a leaving character's value (removeCharacter, or the game's removal of it); never throws. */
  release?(ctx: AnimationContext, eid: number): void
  /** Hashes a character's value into `h` (hash() calls it after the character's rows, pose and nodes). */
  hash?(h: Hasher, ctx: AnimationContext, eid: number): void
  /** Its section of the snapshot, after the characters section, in list order. */
  readonly snapshot?: CharacterSection<Plan>
}

/**
 * A snapshot section of per-character state: written without allocating (snapshotInto), read and checked
 * without changing anything (a refusal is an AnimationError('snapshot') naming where and what), applied without
 * throwing (read checked everything apply and the next step could trip on).
 */
export interface CharacterSection<Plan> {
  /** Its 4-letter tag and its name in messages. */
  readonly tag: string
  readonly name: string
  /** Writes the section body for `characters` (the snapshot's order). */
  write(ctx: AnimationContext, w: Writer, characters: readonly number[]): void
  /** Reads and checks the body; changes nothing. */
  read(ctx: AnimationContext, r: Reader, characters: SnapshotCharacters): Plan
  /** Pose-pool blocks, [first slot, slots], the plan gives its characters (the pool must be tiled exactly). */
  blocks?(plan: Plan): Iterable<readonly [number, number]>
  /** Sets the plan's values, after the characters are attached; cannot throw. */
  apply(ctx: AnimationContext, bytes: Uint8Array, characters: SnapshotCharacters, plan: Plan): void
}

/** The snapshot's characters as a section reads them (its characters section, read and checked). */
export interface SnapshotCharacters {
  readonly count: number
  /** Character ids, in the snapshot's order. */
  readonly eids: Int32Array
  /** Per id up to the snapshot's highest: its position + 1 among the characters, 0 for none. */
  readonly position: Int32Array
  /** Per character (by position): its asset id, joint count and first pose slot. */
  readonly asset: Int32Array
  readonly n: Int32Array
  readonly base: Int32Array
  /** Character `i`'s (by position) value of a store field ("AnimLayer.source", …) as the snapshot holds it. */
  value(i: number, field: string): number
}
