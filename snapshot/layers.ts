import { JOINT_STRIDE } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { bindClip } from '../plugin/assets.ts'
import { setLayerDelta } from '../plugin/additiveLayers.ts'
import { packLayerSlots } from '../plugin/characters.ts'
import {
  bytesOf,
  copyColumn,
  copyInto,
  readU32Array,
  wordsOfArray,
  type Reader,
} from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkRange, invalidValue, snapshotError } from '../src/sim/valueChecks.ts'
import {
  BLOCK_DELTA,
  BLOCK_POINTS,
  createLayer,
  createLayerStack,
  MAX_LAYERS,
  setLayerBinding,
  setLayerFromBinding,
  setLayerMask,
  SOURCE_BLEND_SPACE,
  takeLayerSlot,
} from '../systems/layerState.ts'
import type { SnapshotCharacters } from '../plugin/characterData.ts'
import { snapshotState } from './state.ts'
import { layoutsOf } from './format.ts'
import { clipExtents } from './readCharacters.ts'
import {
  checkLayerRows,
  FROM_TRACK,
  LAYER_FIELDS,
  LAYER_SOURCE,
  layerColumns,
  readRow,
  SAMPLER_TRACK,
  type Column,
} from './characterChecks.ts'
import {
  checkPoseLayerPaths,
  pathFloatsAt,
  readPathMasks,
  scatterPoseLayer,
  writeLayerPaths,
} from './poseLayers.ts'
import {
  blendSpaceState,
  channels,
  checkCursors,
  readBlendSpace,
  writeBlendSpace,
  type BlendSpaceData,
} from './layerBlendSpaces.ts'

/**
 * The snapshot's "layers" section (after "characters"): u32 count; per character with layers (in the
 * characters section's order): u32 eid, u8 layers; per layer: u8 index, u32 slot (layer 0: the character's id),
 * [a layer other than 0: its rows — every field of Sampler, CrossFade and AnimLayer (layouts.layer), each at a
 * multiple of its element size — then u32 cursor count, u32[count] cursors], u32 base, u32 slots,
 * u8 masked [f32[n] mask], zero bytes to a multiple of 4, the pose block as slots / n buffers of n joints, each as
 * its paths that are not the character's rest pose (u8[n] masks, zeros to 4, their floats: poseLayers.ts), then
 * its blend space (layerBlendSpaces.ts). Layer 0's rows are the character's, in the characters section. Bindings
 * are derived again on restore (the same functions, so the same bits).
 */

export function writeLayers(ctx: AnimationContext, w: Writer, characters: readonly number[]): void {
  const s = snapshotState(ctx)
  const layouts = layoutsOf(ctx)
  const countAt = w.at()
  w.u32(0)
  let count = 0
  for (let c = 0; c < characters.length; c++) {
    const eid = characters[c]!
    const stack = ctx.layers[eid]
    if (stack === undefined) continue
    count++
    const n = ctx.stores.Pose.count[eid]!
    const rest = wordsOfArray(ctx.assets[ctx.stores.Pose.asset[eid]!]!.rest)
    const data = wordsOfArray(ctx.pool.data)
    if (s.pathMasks.length < n) s.pathMasks = new Uint8Array(n)
    let used = 0
    for (let k = 0; k < stack.layers.length; k++) if (stack.layers[k] !== undefined) used++
    w.u32(eid)
    w.u8(used)
    for (let k = 0; k < stack.layers.length; k++) {
      const layer = stack.layers[k]
      if (layer === undefined) continue
      w.u8(layer.index)
      w.u32(layer.slot)
      if (layer.index > 0) {
        s.row[0] = layer.slot
        for (let l = 0; l < layouts.layer.length; l++) {
          const fields = layouts.layer[l]!.fields
          for (let f = 0; f < fields.length; f++) w.column(fields[f]!.data, fields[f]!.stride, s.row, 1)
        }
        w.align(4)
        // A layer set up (setLayer) but never played has no cursors yet.
        const cursors = ctx.cursors[layer.slot]
        w.u32(cursors === undefined ? 0 : cursors.length)
        if (cursors !== undefined) w.raw(cursors, 0, cursors.length)
      }
      w.u32(layer.base)
      w.u32(layer.slots)
      w.u8(layer.mask ? 1 : 0)
      if (layer.mask) w.raw(layer.mask, 0, n)
      w.align(4)
      // Each buffer of n joint slots as its paths off the rest pose (a buffer at rest: its n zero masks).
      for (let b = 0; b < layer.slots; b += n) {
        writeLayerPaths(w, data, (layer.base + b) * JOINT_STRIDE, rest, n, true, s.pathMasks, null)
      }
      writeBlendSpace(w, layer.blendSpace, layouts)
    }
  }
  w.setU32(countAt, count)
}

/** A layer as read and checked. */
export interface LayerData {
  index: number
  slot: number
  /** A layer other than 0: its rows' columns (one row each), in layouts.layer's field order; [] for layer 0. */
  rows: Column[]
  base: number
  slots: number
  mask: Float32Array | null
  cursors: Uint32Array
  /** Byte offset of each buffer of the pose block (slots / n of them) in the snapshot: its path masks. */
  block: Int32Array
  blendSpace: BlendSpaceData | null
}

export interface LayersData {
  eid: number
  count: number
  asset: number
  layers: LayerData[]
}

/** Reads and checks the "layers" section; changes nothing. */
export function readLayers(ctx: AnimationContext, r: Reader, characters: SnapshotCharacters): LayersData[] {
  const layouts = layoutsOf(ctx)
  const out: LayersData[] = []
  const seen = new Set<number>()
  const slotsSeen = new Set<number>()
  const { first, count: slotCount } = ctx.layerSlots
  const { maxKeys } = clipExtents(ctx)
  const layerValues = new Float64Array(LAYER_FIELDS.length)
  for (let count = r.u32(); count > 0; count--) {
    const eid = r.u32()
    const where = `section "layers", character ${eid}`
    const c = eid < characters.position.length ? characters.position[eid]! - 1 : -1
    if (c < 0) throw snapshotError(`${where}: not a character of the snapshot`)
    if (seen.has(eid)) throw snapshotError(`${where}: listed twice`)
    seen.add(eid)
    const n = characters.n[c]!
    const layerCount = r.u8()
    if (layerCount < 1 || layerCount > MAX_LAYERS) {
      throw invalidValue(where, 'layer count', layerCount, `must be in [1, ${MAX_LAYERS}]`)
    }
    const layers: LayerData[] = []
    for (let l = 0; l < layerCount; l++) {
      const index = r.u8()
      const at = `${where}, layer ${index}`
      if (index >= MAX_LAYERS || layers.some((x) => x.index === index)) {
        throw invalidValue(where, 'layer index', index, `must be in [0, ${MAX_LAYERS}) and listed once`)
      }
      if (l === 0 && index !== 0) throw invalidValue(where, 'first layer', index, 'must be layer 0')
      const slot = r.u32()
      if (index === 0 ? slot !== eid : !(slot >= first && slot < first + slotCount && !slotsSeen.has(slot))) {
        const expected =
          index === 0
            ? `must be the character, ${eid}`
            : `must be a free slot in [${first}, ${first + slotCount})`
        throw invalidValue(at, 'slot', slot, expected)
      }
      slotsSeen.add(slot)
      const rows: Column[] = []
      let cursors: Uint32Array = new Uint32Array(0)
      let source = characters.value(c, 'AnimLayer.source')
      if (index > 0) {
        const byName = new Map<string, Column>()
        for (const layout of layouts.layer) {
          for (const f of layout.fields) {
            r.align(f.data.BYTES_PER_ELEMENT)
            const column = { f, at: r.span(f.stride * f.data.BYTES_PER_ELEMENT) }
            rows.push(column)
            byName.set(`${layout.name}.${f.name}`, column)
          }
        }
        r.align(4)
        const row = readRow(
          r,
          layerColumns(LAYER_FIELDS, (name) => byName.get(name)),
          0,
          layerValues,
        )
        checkLayerRows(at, row, ctx.clips.length, index)
        source = row[LAYER_SOURCE]!
        const cursorCount = r.u32()
        cursors = readU32Array(r.bytes, r.span(4 * cursorCount), cursorCount)
        const needed = Math.max(channels(ctx, row[SAMPLER_TRACK]!), channels(ctx, row[FROM_TRACK]!))
        if (cursorCount % 2 !== 0 || cursorCount < 2 * needed) {
          throw invalidValue(at, 'key cursor count', cursorCount, `must be even and at least ${2 * needed}`)
        }
        checkCursors(at, cursors, maxKeys)
      }
      const base = r.u32()
      const slots = r.u32()
      const mask = r.u8() === 1 ? new Float32Array(n) : null
      if (mask) {
        copyInto(mask, 0, r.bytes, r.span(4 * n), n)
        mask.forEach((x, j) => checkRange(at, `mask joint ${j}`, x, 0, 1))
      }
      r.align(4)
      // The block's buffers: `slots` checked for what it can be whatever the blend space (a multiple of n, at
      // least the fixed buffers) before it counts them, and below for the blend space's points.
      if (!(slots >= BLOCK_POINTS * n && slots % Math.max(n, 1) === 0 && slots <= 2 ** 26)) {
        throw invalidValue(at, 'slots', slots, `must be a multiple of ${n} of at least ${BLOCK_POINTS * n}`)
      }
      const block = new Int32Array(n > 0 ? slots / n : 0)
      for (let b = 0; b < block.length; b++) block[b] = readPathMasks(r, n, `${at}, pose buffer ${b}`)
      let blendSpace: LayerData['blendSpace'] = null
      if (r.u8() === 1) blendSpace = readBlendSpace(ctx, r, at, maxKeys, layouts)
      if ((blendSpace !== null) !== (source === SOURCE_BLEND_SPACE)) {
        throw invalidValue(
          at,
          'AnimLayer.source',
          source,
          blendSpace ? 'has a blend space' : 'has no blend space',
        )
      }
      const m = blendSpace ? blendSpace.clips.length : 0
      if (!(slots >= (BLOCK_POINTS + m) * n && slots % Math.max(n, 1) === 0 && slots <= 2 ** 26)) {
        throw invalidValue(
          at,
          'slots',
          slots,
          `must be a multiple of ${n} of at least ${(BLOCK_POINTS + m) * n}`,
        )
      }
      checkBlock(at, r, block, n, m)
      layers.push({ index, slot, rows, base, slots, mask, cursors, block, blendSpace })
    }
    out.push({ eid, count: n, asset: characters.asset[c]!, layers })
  }
  // A blend space lives in a layer stack: a character without one shows none.
  for (let i = 0; i < characters.count; i++) {
    if (characters.value(i, 'AnimLayer.source') === SOURCE_BLEND_SPACE && !seen.has(characters.eids[i]!)) {
      throw invalidValue(
        `section "characters", character ${characters.eids[i]}`,
        'AnimLayer.source',
        SOURCE_BLEND_SPACE,
        'a blend space needs the layers section',
      )
    }
  }
  return out
}

/**
 * The poses a step reads of a layer's block (all but the DELTA scratch, and buffers past the blend space's
 * points): finite, unit rotations where stored (the rest are the rest pose's).
 */
function checkBlock(where: string, r: Reader, block: Int32Array, n: number, points: number): void {
  const buffers = BLOCK_POINTS + points
  for (let b = 0; b < buffers; b++) {
    if (b === BLOCK_DELTA) continue
    const at = block[b]!
    checkPoseLayerPaths(r.bytes, at, r.floats, pathFloatsAt(at, n) >>> 2, n, `${where}, pose buffer ${b}`)
  }
}

/**
 * Rebuilds the layers of a checked plan (after the characters are attached; the pool is the snapshot's, so no
 * block is freed here); the snapshot's characters without layers lose theirs, and the layer slots in use are the
 * plan's. Cannot throw.
 */
export function applyLayers(
  ctx: AnimationContext,
  bytes: Uint8Array,
  characters: SnapshotCharacters,
  plan: readonly LayersData[],
): void {
  for (let i = 0; i < characters.count; i++) ctx.layers[characters.eids[i]!] = undefined
  const slots = ctx.layerSlots
  slots.used.fill(0)
  slots.lowest = 0
  const pool = wordsOfArray(ctx.pool.data)
  const ints = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2)
  const packed = bytesOf(bytes.buffer)
  const row = new Int32Array(1)
  const { Sampler, CrossFade } = ctx.stores
  for (const c of plan) {
    const rest = wordsOfArray(ctx.assets[c.asset]!.rest)
    const stack = createLayerStack()
    for (const d of c.layers) {
      const l = d.slot
      if (d.index > 0) {
        takeLayerSlot(slots, l)
        packLayerSlots(ctx, l)
        row[0] = l
        for (const column of d.rows) {
          const f = column.f
          const per = f.stride * f.data.BYTES_PER_ELEMENT
          copyColumn(
            packed,
            bytes.byteOffset + column.at,
            bytesOf(f.data.buffer),
            f.data.byteOffset,
            per,
            row,
            1,
            true,
          )
        }
        ctx.cursors[l] = d.cursors.length > 0 ? d.cursors : undefined
      }
      const layer = createLayer(d.index, l)
      layer.base = d.base
      layer.slots = d.slots
      for (let b = 0; b < d.block.length; b++) {
        const at = d.block[b]!
        const o = (d.base + b * c.count) * JOINT_STRIDE
        scatterPoseLayer(pool, o, bytes, at, ints, pathFloatsAt(at, c.count) >>> 2, rest, c.count)
      }
      if (d.index > 0) {
        const clip = Sampler.clip[l]!
        const from = CrossFade.from.clip[l]!
        setLayerBinding(ctx, layer, clip >= 0 ? bindClip(ctx, ctx.clips[clip]!, c.asset) : undefined)
        setLayerFromBinding(ctx, layer, from >= 0 ? bindClip(ctx, ctx.clips[from]!, c.asset) : undefined)
      }
      setLayerMask(ctx, layer, d.mask, c.count)
      setLayerDelta(ctx, c.eid, layer)
      if (d.blendSpace) layer.blendSpace = blendSpaceState(ctx, bytes, d.blendSpace, d.base, c.count, c.asset)
      stack.layers[d.index] = layer
    }
    ctx.layers[c.eid] = stack
    ctx.uses.layers = true
  }
}
