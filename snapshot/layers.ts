import { JOINT_STRIDE } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { bindClip } from '../plugin/assets.ts'
import { setLayerDelta } from '../plugin/additiveLayers.ts'
import { copyInto, readU32Array, wordsOfArray, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import { checkChoice, checkFinite, checkRange, invalidValue, snapshotError } from '../src/sim/valueChecks.ts'
import {
  BLOCK_DELTA,
  BLOCK_POINTS,
  createLayer,
  createLayerStack,
  F_BLEND,
  F_FADE_DURATION,
  F_PHASE,
  F_WEIGHT,
  F_WEIGHT_DURATION,
  F_WEIGHT_FROM,
  F_WEIGHT_TO,
  I_CLIP,
  I_FADE,
  I_FADE_STEPS,
  I_FROM_CLIP,
  I_FROM_LOOP,
  I_FROM_ROTATION,
  I_HOLD,
  I_LOOP,
  I_MODE,
  I_PAUSED,
  I_REF_CLIP,
  I_ROTATION,
  I_SOURCE,
  I_STOPPING,
  I_WEIGHT_STEPS,
  LAYER_FLOATS,
  LAYER_INTS,
  MAX_LAYERS,
  setLayerMask,
  SOURCE_BLEND_SPACE,
  SOURCE_CLIP,
  setLayerBinding,
  setLayerFromBinding,
} from '../systems/layerState.ts'
import type { CharactersData } from './readCharacters.ts'
import type { SnapshotState } from './state.ts'
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
 * characters section's order):
 * u32 eid, u8 layers; per layer: u8 index, f64[LAYER_FLOATS], i32[LAYER_INTS], u8×2 'finished' flags (its clip,
 * the clip it fades out of), u32 base, u32 slots,
 * u8 masked [f32[n] mask], u32 cursor count, u32[count] cursors, zero bytes to a multiple of 4, the pose block
 * as slots / n buffers of n joints, each as its paths that are not the character's rest pose (u8[n] masks, zeros
 * to 4, their floats: poseLayers.ts), then its blend space (layerBlendSpaces.ts). Bindings are derived again on
 * restore (the same functions, so the same bits).
 */

export function writeLayers(
  ctx: AnimationContext,
  s: SnapshotState,
  w: Writer,
  characters: readonly number[],
): void {
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
      w.raw(layer.f, 0, LAYER_FLOATS)
      w.raw(layer.i, 0, LAYER_INTS)
      w.raw(layer.finished, 0, 2)
      w.u32(layer.base)
      w.u32(layer.slots)
      w.u8(layer.mask ? 1 : 0)
      if (layer.mask) w.raw(layer.mask, 0, n)
      w.u32(layer.cursors.length)
      w.raw(layer.cursors, 0, layer.cursors.length)
      w.align(4)
      // Each buffer of n joint slots as its paths off the rest pose (a buffer at rest: its n zero masks).
      for (let b = 0; b < layer.slots; b += n) {
        writeLayerPaths(w, data, (layer.base + b) * JOINT_STRIDE, rest, n, true, s.pathMasks, null)
      }
      writeBlendSpace(w, layer.blendSpace)
    }
  }
  w.setU32(countAt, count)
}

/** A layer as read and checked. */
export interface LayerData {
  index: number
  f: Float64Array
  i: Int32Array
  finished: Uint8Array
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

const LOOPS = [0, 1, 2]
const ROTATIONS = [0, 1]
const FLAGS = [0, 1]

/** Reads and checks the "layers" section; changes nothing. */
export function readLayers(ctx: AnimationContext, r: Reader, characters: CharactersData): LayersData[] {
  const out: LayersData[] = []
  const seen = new Set<number>()
  let maxKeys = 1
  for (const rc of ctx.clips) for (const ch of rc.clip.channels) maxKeys = Math.max(maxKeys, ch.times.length)
  const clipOk = (c: number): boolean => c === -1 || (Number.isInteger(c) && c >= 0 && c < ctx.clips.length)
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
      const f = new Float64Array(LAYER_FLOATS)
      copyInto(f, 0, r.bytes, r.span(8 * LAYER_FLOATS), LAYER_FLOATS)
      const i = new Int32Array(LAYER_INTS)
      copyInto(i, 0, r.bytes, r.span(4 * LAYER_INTS), LAYER_INTS)
      const finished = Uint8Array.of(r.u8(), r.u8())
      checkChoice(at, "'finished' flag", finished[0]!, FLAGS)
      checkChoice(at, "fade-from 'finished' flag", finished[1]!, FLAGS)
      checkFinite(at, 'numbers', f)
      for (const k of [F_WEIGHT, F_WEIGHT_FROM, F_WEIGHT_TO, F_BLEND])
        checkRange(at, `number ${k}`, f[k]!, 0, 1)
      checkRange(at, 'fade duration', f[F_FADE_DURATION]!, 0, Number.MAX_VALUE)
      checkRange(at, 'weight ramp duration', f[F_WEIGHT_DURATION]!, 0, Number.MAX_VALUE)
      if (!(f[F_PHASE]! >= 0 && f[F_PHASE]! < 1))
        throw invalidValue(at, 'phase', f[F_PHASE]!, 'must be in [0, 1)')
      const source = i[I_SOURCE]!
      checkChoice(at, 'source', source, [0, 1, 2])
      for (const [name, k] of [
        ['clip', I_CLIP],
        ['fade-from clip', I_FROM_CLIP],
        ['reference clip', I_REF_CLIP],
      ] as const) {
        if (!clipOk(i[k]!))
          throw invalidValue(at, name, i[k]!, `this plugin has clips 0..${ctx.clips.length - 1}`)
      }
      checkChoice(at, 'loop', i[I_LOOP]!, LOOPS)
      checkChoice(at, 'fade-from loop', i[I_FROM_LOOP]!, LOOPS)
      checkChoice(at, 'rotation', i[I_ROTATION]!, ROTATIONS)
      checkChoice(at, 'fade-from rotation', i[I_FROM_ROTATION]!, ROTATIONS)
      for (const [name, k] of [
        ['paused', I_PAUSED],
        ['hold', I_HOLD],
        ['fade', I_FADE],
        ['stopping', I_STOPPING],
        ['mode', I_MODE],
      ] as const) {
        checkChoice(at, name, i[k]!, FLAGS)
      }
      checkRange(at, 'fade steps', i[I_FADE_STEPS]!, 0, 2 ** 31 - 1)
      checkRange(at, 'weight ramp steps', i[I_WEIGHT_STEPS]!, 0, 2 ** 31 - 1)
      // A layer fades between clips (layers other than 0: layer 0's clip fades are its CrossFade's), or into a
      // blend space from a frozen pose (any layer).
      if (i[I_FADE] === 1) {
        if (source === SOURCE_BLEND_SPACE ? i[I_FROM_CLIP] !== -1 : source !== SOURCE_CLIP || index === 0)
          throw invalidValue(at, 'fade', 1, 'only a clip on a layer other than 0, or a blend space, fades')
        if (!(f[F_FADE_DURATION]! > 0))
          throw invalidValue(at, 'fade duration', f[F_FADE_DURATION]!, 'must be > 0')
      } else if (i[I_FROM_CLIP] !== -1)
        throw invalidValue(at, 'fade-from clip', i[I_FROM_CLIP]!, 'must be -1')
      if (index === 0) {
        const clip = characters.clip[c]!
        if (clip >= 0 !== (source === SOURCE_CLIP)) {
          throw invalidValue(at, 'source', source, `does not match Sampler.clip ${clip}`)
        }
      } else if (source === SOURCE_CLIP && i[I_CLIP]! < 0) {
        throw invalidValue(at, 'clip', -1, 'a clip layer needs a clip')
      }
      const base = r.u32()
      const slots = r.u32()
      const mask = r.u8() === 1 ? new Float32Array(n) : null
      if (mask) {
        copyInto(mask, 0, r.bytes, r.span(4 * n), n)
        mask.forEach((x, j) => checkRange(at, `mask joint ${j}`, x, 0, 1))
      }
      const cursorCount = r.u32()
      const cursors = readU32Array(r.bytes, r.span(4 * cursorCount), cursorCount)
      const needed = Math.max(
        channels(ctx, source === SOURCE_CLIP && index > 0 ? i[I_CLIP]! : -1),
        channels(ctx, i[I_FROM_CLIP]!),
      )
      if (index > 0 && (cursorCount % 2 !== 0 || cursorCount < 2 * needed)) {
        throw invalidValue(at, 'key cursor count', cursorCount, `must be even and at least ${2 * needed}`)
      }
      checkCursors(at, cursors, maxKeys)
      r.align(4)
      // The block's buffers: `slots` checked for what it can be whatever the blend space (a multiple of n, at
      // least the fixed buffers) before it counts them, and below for the blend space's points.
      if (!(slots >= BLOCK_POINTS * n && slots % Math.max(n, 1) === 0 && slots <= 2 ** 26)) {
        throw invalidValue(at, 'slots', slots, `must be a multiple of ${n} of at least ${BLOCK_POINTS * n}`)
      }
      const block = new Int32Array(n > 0 ? slots / n : 0)
      for (let b = 0; b < block.length; b++) block[b] = readPathMasks(r, n, `${at}, pose buffer ${b}`)
      let blendSpace: LayerData['blendSpace'] = null
      if (r.u8() === 1) blendSpace = readBlendSpace(ctx, r, at, maxKeys)
      else if (source === SOURCE_BLEND_SPACE) throw invalidValue(at, 'source', source, 'has no blend space')
      if (blendSpace && source !== SOURCE_BLEND_SPACE)
        throw invalidValue(at, 'source', source, 'has a blend space')
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
      layers.push({ index, f, i, finished, base, slots, mask, cursors, block, blendSpace })
    }
    out.push({ eid, count: n, asset: characters.asset[c]!, layers })
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
 * block is freed here); the snapshot's characters without layers lose theirs. Cannot throw.
 */
export function applyLayers(
  ctx: AnimationContext,
  bytes: Uint8Array,
  characters: CharactersData,
  plan: readonly LayersData[],
): void {
  for (let i = 0; i < characters.count; i++) ctx.layers[characters.eids[i]!] = undefined
  const pool = wordsOfArray(ctx.pool.data)
  const ints = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2)
  for (const c of plan) {
    const rest = wordsOfArray(ctx.assets[c.asset]!.rest)
    const stack = createLayerStack()
    for (const d of c.layers) {
      const layer = createLayer(d.index, stack)
      layer.f.set(d.f)
      layer.i.set(d.i)
      layer.finished.set(d.finished)
      layer.base = d.base
      layer.slots = d.slots
      setLayerMask(layer, d.mask, c.count)
      layer.cursors = d.cursors
      for (let b = 0; b < d.block.length; b++) {
        const at = d.block[b]!
        const o = (d.base + b * c.count) * JOINT_STRIDE
        scatterPoseLayer(pool, o, bytes, at, ints, pathFloatsAt(at, c.count) >>> 2, rest, c.count)
      }
      if (d.index > 0 && d.i[I_SOURCE] === SOURCE_CLIP)
        setLayerBinding(layer, bindClip(ctx, ctx.clips[d.i[I_CLIP]!]!, c.asset))
      if (d.index > 0 && d.i[I_FADE] === 1 && d.i[I_FROM_CLIP]! >= 0) {
        setLayerFromBinding(layer, bindClip(ctx, ctx.clips[d.i[I_FROM_CLIP]!]!, c.asset))
      }
      setLayerDelta(ctx, c.eid, layer)
      if (d.blendSpace) layer.blendSpace = blendSpaceState(ctx, d.blendSpace, d.base, c.count, c.asset)
      stack.layers[d.index] = layer
    }
    ctx.layers[c.eid] = stack
    ctx.uses.layers = true
  }
}
