import { JOINT_STRIDE, freePoseSlots } from '../components/Pose.ts'
import type { CharacterDatum } from '../plugin/characterData.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { freeLayer } from '../plugin/characters.ts'
import { hashRow } from '../plugin/hash.ts'
import type { Hasher } from '../src/sim/hasher.ts'
import { applyLayers, readLayers, writeLayers, type LayersData } from '../snapshot/layers.ts'

/**
 * Layer stacks (systems/layerState.ts): a character has none until it uses a layer other than 0 or configures
 * layer 0 (plugin/layers.ts layerFor makes it); leaving, its layers' pose blocks and slots are freed. hash()
 * covers, per layer in use, its index and block, the rows of a layer other than 0 (layer 0's are the
 * character's) and its cursors, its mask, its pose block and its blend space.
 */
export const layersDatum: CharacterDatum<LayersData[]> = {
  name: 'layers',
  release: releaseLayers,
  hash: hashLayers,
  snapshot: {
    tag: 'LAYR',
    name: 'layers',
    write: writeLayers,
    read: readLayers,
    *blocks(plan) {
      for (const c of plan) for (const l of c.layers) yield [l.base, l.slots] as const
    },
    apply: applyLayers,
  },
}

/** Frees a character's layer blocks and the slots of its layers other than 0, and forgets its layers. */
function releaseLayers(ctx: AnimationContext, eid: number): void {
  const stack = ctx.layers[eid]
  if (stack === undefined) return
  for (const layer of stack.layers) {
    if (layer === undefined) continue
    if (layer.base >= 0) freePoseSlots(ctx.pool, layer.base, layer.slots)
    if (layer.index > 0) freeLayer(ctx, layer.slot)
  }
  ctx.layers[eid] = undefined
}

function hashLayers(h: Hasher, ctx: AnimationContext, eid: number): void {
  const stack = ctx.layers[eid]
  if (stack === undefined) return
  const { Sampler, CrossFade, AnimLayer } = ctx.stores
  for (const layer of stack.layers) {
    if (layer === undefined) continue
    h.updateNumber(layer.index).updateNumber(layer.base).updateNumber(layer.slots)
    if (layer.index > 0) {
      for (const store of [Sampler, CrossFade, AnimLayer] as const) hashRow(h, store, layer.slot)
      const cursors = ctx.cursors[layer.slot]
      if (cursors) h.update(cursors)
    }
    if (layer.mask) h.update(layer.mask)
    if (layer.base >= 0) {
      h.update(ctx.pool.data, layer.base * JOINT_STRIDE, (layer.base + layer.slots) * JOINT_STRIDE)
    }
    const bs = layer.blendSpace
    if (bs) {
      for (let p = 0; p < bs.points.clip.length; p++) hashRow(h, bs.points, p)
      h.update(bs.xs).update(bs.ys).update(bs.param).update(bs.weights)
      h.updateNumber(bs.sync)
      for (const c of bs.cursors) h.update(c)
    }
  }
}
