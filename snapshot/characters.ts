import { JOINT_STRIDE, poseOffset, POSE_ANIM, POSE_BUFFERS, POSE_BUFFERS_OTHER } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { planFadePaths } from '../plugin/context.ts'
import { bindClip } from '../plugin/assets.ts'
import { attachCharacter } from '../plugin/characters.ts'
import { prepareCharacterSquad } from '../plugin/playback.ts'
import { bytesOf, copyColumn, copyInto, wordsOfArray } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import {
  CHARACTER_ANIM_IS_LOCALS,
  CHARACTER_FADE_PATHS,
  CHARACTER_JOINTS_RUN,
  type Layouts,
} from './format.ts'
import type { SnapshotState } from './state.ts'
import type { CharactersData } from './readCharacters.ts'
import { pathFloatsAt, scatterPoseLayer, writeLayerPaths } from './poseLayers.ts'

/**
 * The snapshot's "characters" section (read and checked by readCharacters.ts):
 *
 *   u32 C, u32[C] character ids in the systems' visiting order (their queries' order)
 *   u32 K, the bytes of a key cursor: 1, 2 or 4 (the fewest that hold every key index of the registered clips)
 *   columns: every typed-array field of Pose, Sampler, CrossFade, Ragdoll (in that order, fields by name), each
 *     C × stride elements, starting at a multiple of its element size — so a new store field is carried
 *     without a change here (and changes the schema, so older snapshots are refused)
 *   per character: i32 clip of its binding, i32 clip of its fade-from binding (-1 none), u8 flags
 *     (CHARACTER_ANIM_IS_LOCALS, CHARACTER_JOINTS_RUN), u8 pose layers stored (bit L: layer L follows; the others
 *     hold the asset's rest pose), u16 0, u32 cursor count, the key cursors (K bytes each, zeros to 4),
 *     [i32[n] joint entities unless JOINTS_RUN], then each stored pose layer, ANIM first, as its joints' paths
 *     that are not the rest pose (u8[n] masks, zeros to 4, their floats: poseLayers.ts), then [FADE_PATHS, set
 *     while a fade is active] u8[n] the fade's paths (BLEND_T, BLEND_S per joint: what crossFade planned),
 *     zeros to 4
 *
 * A layer equal to the rest pose (never used: PREV and PHYS without a ragdoll, FROM and TO before a first
 * fade) is not stored, nor is a joint's translation, rotation or scale equal to the rest pose's in a stored one
 * (a clip drives rotations and few translations or scales), nor are joint local transforms equal to the ANIM
 * layer (every character not ragdolling, after a step: blendPoses writes ANIM as it is), which the nodes
 * section leaves out.
 */

/** Sets each character's CHARACTER_* flags in `s.characterFlags` (the nodes section reads them first). */
export function markCharacters(ctx: AnimationContext, s: SnapshotState): void {
  const { Pose } = ctx.stores
  const { translation, rotation, scale } = ctx.sceneGraph.store
  const pool = ctx.pool
  const data = wordsOfArray(pool.data)
  const t = wordsOfArray(translation)
  const r = wordsOfArray(rotation)
  const sc = wordsOfArray(scale)
  const chars = s.characters
  for (let i = 0; i < chars.length; i++) {
    const eid = chars[i]!
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    let run = true
    let locals = true
    for (let j = 0; j < n; j++) {
      const e = pool.joints[base + j]!
      run &&= e === eid + 1 + j
      if (e === 0 || !locals) continue
      const o = poseOffset(base, n, POSE_ANIM) + j * JOINT_STRIDE
      locals =
        data[o] === t[3 * e] &&
        data[o + 1] === t[3 * e + 1] &&
        data[o + 2] === t[3 * e + 2] &&
        data[o + 3] === r[4 * e] &&
        data[o + 4] === r[4 * e + 1] &&
        data[o + 5] === r[4 * e + 2] &&
        data[o + 6] === r[4 * e + 3] &&
        data[o + 7] === sc[3 * e] &&
        data[o + 8] === sc[3 * e + 1] &&
        data[o + 9] === sc[3 * e + 2]
    }
    s.characterFlags[eid] = (locals ? CHARACTER_ANIM_IS_LOCALS : 0) | (run ? CHARACTER_JOINTS_RUN : 0)
  }
}

export function writeCharacters(ctx: AnimationContext, s: SnapshotState, w: Writer, layouts: Layouts): void {
  const chars = s.characters
  const count = chars.length
  w.u32(count)
  for (let i = 0; i < count; i++) w.u32(chars[i]!)
  const width = cursorBytes(ctx, s)
  w.u32(width)
  // Index loops: a for-of's iterator is allocated here (the snapshot of a ring must allocate nothing).
  for (let l = 0; l < layouts.character.length; l++) {
    const fields = layouts.character[l]!.fields
    for (let k = 0; k < fields.length; k++) w.column(fields[k]!.data, fields[k]!.stride, chars, count)
  }
  w.align(4)
  for (let i = 0; i < count; i++) writeCharacter(ctx, s, w, chars[i]!, width)
}

/**
 * Bytes a key cursor takes in the snapshot: 1 while no registered clip has a channel of more than 256 keys, 2 up
 * to 65,536, else 4 (a cursor is a key index of some clip's channel: readCharacters.ts refuses any other).
 * Kept until a clip is registered.
 */
function cursorBytes(ctx: AnimationContext, s: SnapshotState): number {
  if (s.cursorClips !== ctx.clips.length) {
    let maxKeys = 1
    for (let c = 0; c < ctx.clips.length; c++) {
      const channels = ctx.clips[c]!.clip.channels
      for (let k = 0; k < channels.length; k++) maxKeys = Math.max(maxKeys, channels[k]!.times.length)
    }
    s.cursorWidth = maxKeys <= 256 ? 1 : maxKeys <= 65536 ? 2 : 4
    s.cursorClips = ctx.clips.length
  }
  return s.cursorWidth
}

/** A character's clips, flags, cursors, joints and stored pose layers (see the header). */
function writeCharacter(
  ctx: AnimationContext,
  s: SnapshotState,
  w: Writer,
  eid: number,
  width: number,
): void {
  const { Pose, Sampler, CrossFade } = ctx.stores
  const pool = ctx.pool
  const data = wordsOfArray(pool.data)
  {
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const rest = wordsOfArray(ctx.assets[Pose.asset[eid]!]!.rest)
    const paths = ctx.fadePaths[eid]
    const fading = CrossFade.active[eid] === 1 && paths !== undefined
    const flags = s.characterFlags[eid]! | (fading ? CHARACTER_FADE_PATHS : 0)
    // The clips of the bindings: the Sampler's and the fade's own (searched for only if not; inline, because
    // the call allocated here, 80 bytes a character, as measured by test/helpers/snapshotAllocation.ts).
    const asset = Pose.asset[eid]!
    const binding = ctx.binding[eid]
    const clip = Sampler.clip[eid]!
    const fromBinding = ctx.fromBinding[eid]
    const fromClip = CrossFade.from.clip[eid]!
    if (binding !== undefined && !(clip >= 0 && ctx.clips[clip]!.bindings[asset] === binding)) {
      w.i32(bindingClip(ctx, binding, eid))
    } else w.i32(binding === undefined ? -1 : clip)
    if (
      fromBinding !== undefined &&
      !(fromClip >= 0 && ctx.clips[fromClip]!.bindings[asset] === fromBinding)
    ) {
      w.i32(bindingClip(ctx, fromBinding, eid))
    } else w.i32(fromBinding === undefined ? -1 : fromClip)
    w.u8(flags)
    const layersAt = w.at()
    w.u8(0) // the stored layers, set below
    w.u16(0)
    const cursors = ctx.cursors[eid]!
    w.u32(cursors.length)
    if (width === 4) {
      // A character's cursors are an array of their own: its buffer's byte view is their bytes.
      if (cursors.byteLength === cursors.buffer.byteLength) w.view(bytesOf(cursors.buffer))
      else w.raw(cursors, 0, cursors.length)
    } else {
      const o = w.reserve(width * cursors.length)
      const out = w.buffer
      if (width === 1) for (let k = 0; k < cursors.length; k++) out[o + k] = cursors[k]!
      else {
        for (let k = 0; k < cursors.length; k++) {
          out[o + 2 * k] = cursors[k]!
          out[o + 2 * k + 1] = cursors[k]! >>> 8
        }
      }
      w.align(4)
    }
    if ((flags & CHARACTER_JOINTS_RUN) === 0) w.raw(pool.joints, base, n)
    // ANIM and the layers written since they last held the rest pose are compared with it, path by path, and
    // stored unless every path is the rest pose's; the others hold it.
    const used = ctx.posesUsed[eid]! | (1 << POSE_ANIM)
    const views = layerViews(s, ctx, eid, base, n)
    if (s.pathMasks.length < n) s.pathMasks = new Uint8Array(n)
    let layers = 0
    for (let layer = 0; layer < POSE_BUFFERS; layer++) {
      if ((used & (1 << layer)) === 0) continue
      const at = poseOffset(base, n, layer)
      // Compared and copied in one pass where the buffer has room for every path; else measured first (the
      // end of a caller's buffer that fits the snapshot only just).
      const whole = views[layer]!
      if (writeLayerPaths(w, data, at, rest, n, false, s.pathMasks, whole) > 0) layers |= 1 << layer
    }
    w.setU8(layersAt, layers)
    if (fading) {
      w.view(paths)
      w.align(4)
    }
  }
}

interface LayerViews {
  readonly data: Float32Array
  readonly base: number
  readonly n: number
  readonly layers: readonly Uint8Array[]
}

/**
 * Byte views of a character's pose layers in the pool, kept while the pool and its block stay where they are,
 * so that writing them is a native copy that allocates nothing.
 */
function layerViews(s: SnapshotState, ctx: AnimationContext, eid: number, base: number, n: number) {
  const data = ctx.pool.data
  let v = s.layerViews.get(eid)
  if (v === undefined || v.data !== data || v.base !== base || v.n !== n) {
    const layers: Uint8Array[] = []
    for (let layer = 0; layer < POSE_BUFFERS; layer++) {
      layers.push(
        new Uint8Array(data.buffer, data.byteOffset + 4 * poseOffset(base, n, layer), 4 * n * JOINT_STRIDE),
      )
    }
    v = { data, base, n, layers }
    s.layerViews.set(eid, v)
  }
  return v.layers
}

/** Id of the clip whose binding (on the character's asset) `binding` is. */
function bindingClip(ctx: AnimationContext, binding: Int32Array, eid: number): number {
  const asset = ctx.stores.Pose.asset[eid]!
  for (let c = 0; c < ctx.clips.length; c++) if (ctx.clips[c]!.bindings[asset] === binding) return c
  throw new Error(`snapshot: character ${eid} has a channel binding of no registered clip`)
}

// --------------------------------------------------------------------------------------------------- apply

/**
 * Writes every character's store columns, key cursors, joints and pose block (the pool's state is already the
 * snapshot's), and the local transforms of the joints whose ANIM they are; then makes the characters `attach`
 * marks characters (in snapshot order, so the plugin's queries list them as they were) and sets what is
 * derived: bindings, fade plans, squad data.
 */
export function applyCharacters(
  ctx: AnimationContext,
  bytes: Uint8Array,
  layouts: Layouts,
  d: CharactersData,
  attach: Uint8Array,
): void {
  const was = layersHeld(ctx, d, attach)
  const packed = bytesOf(bytes.buffer)
  const offset = bytes.byteOffset
  let column = 0
  for (const layout of layouts.character) {
    for (const f of layout.fields) {
      const per = f.stride * f.data.BYTES_PER_ELEMENT
      copyColumn(
        packed,
        offset + d.columns[column++]!,
        bytesOf(f.data.buffer),
        f.data.byteOffset,
        per,
        d.eids,
        d.count,
        true,
      )
    }
  }
  const pool = ctx.pool
  // Views of the snapshot made once: each copy below is then one native copy of a subarray (copyInto looked up
  // both buffers' views per call, hundreds of calls a restore).
  const words = new Uint32Array(bytes.buffer, offset, bytes.byteLength >>> 2)
  const ints = new Int32Array(bytes.buffer, offset, bytes.byteLength >>> 2)
  const halves = new Uint16Array(bytes.buffer, offset, bytes.byteLength >>> 1)
  const poolWords = wordsOfArray(pool.data)
  for (let i = 0; i < d.count; i++) {
    const eid = d.eids[i]!
    const n = d.n[i]!
    const base = d.base[i]!
    const asset = ctx.assets[d.asset[i]!]!
    const cursorCount = d.cursorCount[i]!
    let cursors = ctx.cursors[eid]
    if (attach[i] === 1 || cursors === undefined || cursors.length !== cursorCount)
      cursors = new Uint32Array(cursorCount)
    const cursorsAt = d.cursorsAt[i]!
    if (d.cursorWidth === 4) cursors.set(words.subarray(cursorsAt >>> 2, (cursorsAt >>> 2) + cursorCount))
    else if (d.cursorWidth === 2)
      cursors.set(halves.subarray(cursorsAt >>> 1, (cursorsAt >>> 1) + cursorCount))
    else cursors.set(bytes.subarray(cursorsAt, cursorsAt + cursorCount))
    ctx.cursors[eid] = cursors
    pool.joints.fill(0, base, base + POSE_BUFFERS * n)
    if (d.jointsAt[i]! < 0) for (let j = 0; j < n; j++) pool.joints[base + j] = eid + 1 + j
    else copyInto(pool.joints, base, bytes, d.jointsAt[i]!, n)
    // A layer this character holds at the rest pose now (its posesUsed bit clear) is not rewritten.
    let used = 0
    for (let layer = 0; layer < POSE_BUFFERS; layer++) {
      const at = d.layerAt[POSE_BUFFERS * i + layer]!
      const o = poseOffset(base, n, layer)
      if (at >= 0) {
        const rest = wordsOfArray(asset.rest)
        scatterPoseLayer(poolWords, o, bytes, at, ints, pathFloatsAt(at, n) >>> 2, rest, n)
        used |= 1 << layer
      } else if (layer === POSE_ANIM || (was[i]! & (1 << layer)) !== 0) pool.data.set(asset.rest, o)
    }
    if (attach[i] === 1) attachCharacter(ctx, eid, asset, cursors)
    ctx.posesUsed[eid] = used & POSE_BUFFERS_OTHER
    const clip = d.binding[i]!
    const from = d.fromBinding[i]!
    ctx.binding[eid] = clip < 0 ? undefined : bindClip(ctx, ctx.clips[clip]!, asset.id)
    ctx.fromBinding[eid] = from < 0 ? undefined : bindClip(ctx, ctx.clips[from]!, asset.id)
    const paths = d.pathsAt[i]!
    // A fade's paths as the snapshot carries them (what crossFade planned); a character made anew without a
    // fade has them planned from its layers, as before (its next fade plans them again).
    if (paths >= 0) {
      const out = ctx.fadePaths[eid]!
      for (let j = 0; j < n; j++) out[j] = bytes[paths + j]!
    } else if (attach[i] === 1) planFadePaths(ctx, eid)
    prepareCharacterSquad(ctx, eid)
  }
  scatterAnims(ctx, d)
}

/**
 * Per snapshot character: the posesUsed bits of the block it will have, as it is now (before the store
 * columns move it): all set when it is made anew or its block moves (nothing known of what the slots hold).
 */
function layersHeld(ctx: AnimationContext, d: CharactersData, attach: Uint8Array): Uint8Array {
  const { Pose } = ctx.stores
  const out = new Uint8Array(d.count)
  for (let i = 0; i < d.count; i++) {
    const eid = d.eids[i]!
    const same = attach[i] === 0 && Pose.base[eid] === d.base[i] && Pose.count[eid] === d.n[i]
    out[i] = same ? ctx.posesUsed[eid]! : POSE_BUFFERS_OTHER
  }
  return out
}

/**
 * The ANIM layer of every character flagged CHARACTER_ANIM_IS_LOCALS written into its joints' local transforms,
 * bits as they are (one pass over all of them: per character, the views' lookups cost as much as the copies).
 */
function scatterAnims(ctx: AnimationContext, d: CharactersData): void {
  const t = wordsOfArray(ctx.sceneGraph.store.translation)
  const r = wordsOfArray(ctx.sceneGraph.store.rotation)
  const s = wordsOfArray(ctx.sceneGraph.store.scale)
  const joints = ctx.pool.joints
  const data = wordsOfArray(ctx.pool.data)
  for (let i = 0; i < d.count; i++) {
    if ((d.flags[i]! & CHARACTER_ANIM_IS_LOCALS) === 0) continue
    const base = d.base[i]!
    const n = d.n[i]!
    const anim = poseOffset(base, n, POSE_ANIM)
    // Joints that are the run of ids after the character's (CHARACTER_JOINTS_RUN) are not looked up.
    const run = d.jointsAt[i]! < 0 ? d.eids[i]! + 1 : 0
    for (let j = 0; j < n; j++) {
      const e = run !== 0 ? run + j : joints[base + j]!
      if (e === 0) continue
      const o = anim + j * JOINT_STRIDE
      const to = 3 * e
      const ro = 4 * e
      t[to] = data[o]!
      t[to + 1] = data[o + 1]!
      t[to + 2] = data[o + 2]!
      r[ro] = data[o + 3]!
      r[ro + 1] = data[o + 4]!
      r[ro + 2] = data[o + 5]!
      r[ro + 3] = data[o + 6]!
      s[to] = data[o + 7]!
      s[to + 1] = data[o + 8]!
      s[to + 2] = data[o + 9]!
    }
  }
}
