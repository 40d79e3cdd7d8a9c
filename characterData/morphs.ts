import { addComponent } from 'bitecs'
import type { AnimationContext } from '../plugin/context.ts'
import type { CharacterDatum, SnapshotCharacters } from '../plugin/characterData.ts'
import { copyInto, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkFinite, snapshotError } from '../src/sim/valueChecks.ts'

/**
 * Morph weights (MorphState, systems/state.ts): a character of an asset with morph targets gets the file's
 * defaults and no game weights (NaN) when attached, and the `morphed` tag sampleMorphWeights queries; hash()
 * covers the game's weights and this step's.
 */
export const morphsDatum: CharacterDatum<MorphData[]> = {
  name: 'morph weights',
  attach(ctx, eid, asset) {
    const m = asset.morphCount
    if (m > 0) addComponent(ctx.world, eid, ctx.morphed)
    ctx.morphs[eid] =
      m === 0
        ? undefined
        : {
            game: new Float32Array(m).fill(NaN),
            weights: asset.morphRest.slice(),
            scratch: new Float32Array(4 * m),
          }
  },
  release(ctx, eid) {
    ctx.morphs[eid] = undefined
  },
  hash(h, ctx, eid) {
    const morphs = ctx.morphs[eid]
    if (morphs) h.update(morphs.game).update(morphs.weights)
  },
  snapshot: { tag: 'MRPH', name: 'morphs', write: writeMorphs, read: readMorphs, apply: applyMorphs },
}

/**
 * The snapshot's "morphs" section (after "layers"): u32 count; per character with morph targets (in the
 * characters section's order): u32 eid, u32 m (its asset's morph weight count), f32[m] the game's weights (NaN: none set), f32[m] this step's weights.
 */

export function writeMorphs(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const countAt = w.at()
  w.u32(0)
  let count = 0
  for (let i = 0; i < characters.length; i++) {
    const eid = characters[i]!
    if (ctx.morphs[eid] === undefined) continue
    count++
    const ms = ctx.morphs[eid]!
    w.u32(eid)
    w.u32(ms.game.length)
    w.raw(ms.game, 0, ms.game.length)
    w.raw(ms.weights, 0, ms.weights.length)
  }
  w.setU32(countAt, count)
}

export interface MorphData {
  eid: number
  game: Float32Array
  weights: Float32Array
}

/** Reads and checks the "morphs" section: every character of an asset with morph targets, once; finite values. */
export function readMorphs(ctx: AnimationContext, r: Reader, characters: SnapshotCharacters): MorphData[] {
  const expected = new Map<number, number>()
  for (let i = 0; i < characters.count; i++) {
    const m = ctx.assets[characters.asset[i]!]!.morphCount
    if (m > 0) expected.set(characters.eids[i]!, m)
  }
  const out: MorphData[] = []
  for (let count = r.u32(); count > 0; count--) {
    const eid = r.u32()
    const where = `section "morphs", character ${eid}`
    const m = expected.get(eid)
    if (m === undefined) throw snapshotError(`${where}: not a character with morph targets, or listed twice`)
    expected.delete(eid)
    const length = r.u32()
    if (length !== m) throw snapshotError(`${where}: ${length} morph weights, its asset has ${m}`)
    const game = new Float32Array(m)
    copyInto(game, 0, r.bytes, r.span(4 * m), m)
    const weights = new Float32Array(m)
    copyInto(weights, 0, r.bytes, r.span(4 * m), m)
    // NaN: the game set none there.
    checkFinite(
      where,
      'game weights',
      game.filter((x) => !Number.isNaN(x)),
    )
    checkFinite(where, 'weights', weights)
    out.push({ eid, game, weights })
  }
  if (expected.size > 0) {
    throw snapshotError(`section "morphs": characters ${[...expected.keys()].join(', ')} are missing`)
  }
  return out
}

/** Sets the restored characters' morph weights (after attachCharacter made their MorphState). */
export function applyMorphs(
  ctx: AnimationContext,
  _bytes: Uint8Array,
  _characters: SnapshotCharacters,
  plan: readonly MorphData[],
): void {
  for (const d of plan) {
    const ms = ctx.morphs[d.eid]!
    ms.game.set(d.game)
    ms.weights.set(d.weights)
  }
}
