import { POSE_PHYS, POSE_BUFFERS } from '../components/Pose.ts'
import { checkPoseLayerPaths, pathFloatsAt, readPathMasks } from './poseLayers.ts'
import type { AnimationContext } from '../plugin/context.ts'
import type { SnapshotCharacters } from '../plugin/characterData.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import {
  checkChoice,
  checkFlags,
  checkPositive,
  checkRange,
  invalidValue,
  snapshotError,
} from '../src/sim/valueChecks.ts'
import {
  checkClip,
  checkLayerRows,
  element,
  FLAGS,
  invalidFadePaths,
  LAYER_CHECKED,
  LAYER_FIELDS,
  layerColumns,
  readRow,
  type Column,
} from './characterChecks.ts'
import {
  CHARACTER_ANIM_IS_LOCALS,
  CHARACTER_FADE_PATHS,
  CHARACTER_JOINTS_RUN,
  type Layouts,
} from './format.ts'
import { BLEND_S, BLEND_T } from '../src/clip/blendPoses.ts'
import { maxChannels } from '../plugin/assets.ts'
import type { EntitiesData } from './entities.ts'
import type { NodesData } from './readNodes.ts'
import { checkJoints, sameJoints } from './characterJoints.ts'
import { sameWords, type CharacterStructure, type StructureMemo } from './memo.ts'

/** Restore's reading of the characters section (layout: characters.ts): every value checked. */

export interface CharactersData extends SnapshotCharacters {
  count: number
  /** Character ids, in the snapshot's query order. */
  eids: Int32Array
  /** Byte offset of each store column, in layouts.character's field order. */
  columns: number[]
  /** Per character (by position): */
  asset: Int32Array
  base: Int32Array
  n: Int32Array
  /** Clip ids of its binding and fade-from binding (-1 none), and of Sampler.clip. */
  binding: Int32Array
  fromBinding: Int32Array
  clip: Int32Array
  flags: Uint8Array
  cursorCount: Int32Array
  /** Byte offset of each character's key cursors, `cursorWidth` bytes each. */
  cursorsAt: Int32Array
  cursorWidth: number
  /** Byte offset of its joint list, -1 for CHARACTER_JOINTS_RUN. */
  jointsAt: Int32Array
  /** Byte offset of its fade paths (CHARACTER_FADE_PATHS), -1 for none. */
  pathsAt: Int32Array
  /**
   * Per character and pose layer (POSE_BUFFERS a character): byte offset of its path masks (its floats follow,
   * poseLayers.ts), -1 for the rest pose.
   */
  layerAt: Int32Array
  /** Its joint entities (0: removed by the game), `n` per character from `jointsFrom`. */
  joints: Int32Array
  jointsFrom: Int32Array
  /** Its Ragdoll entry, checked against the ragdolls section. */
  ragdollWeight: Float64Array
  ragdollActive: Uint8Array
  ragdollHandle: Int32Array
  /** Per id ≤ the snapshot's maxId: its position + 1 as a character, 0 for none. */
  position: Int32Array
  /** The ids, assets, joint counts and joints above as checked once (memo.ts), the same object while they are. */
  structure: CharacterStructure
}

/** The fields of each store column restore checks (reading refuses a layout with any other: add its check). */
const CHECKED: Readonly<Record<string, readonly string[]>> = {
  Pose: ['asset', 'base', 'changed', 'changedStep', 'count'],
  ...LAYER_CHECKED,
  Ragdoll: ['active', 'handle', 'rate', 'weight'],
}

/** CharactersData.structure until the section's joints are read. */
const NO_STRUCTURE: CharacterStructure = {
  entities: null,
  nodes: null,
  eids: new Int32Array(0),
  position: new Int32Array(0),
  asset: new Int32Array(0),
  n: new Int32Array(0),
  jointsFrom: new Int32Array(0),
  joints: new Int32Array(0),
}
const RAGDOLL_STATES = [0, 1, 2] // RAGDOLL_OFF, RAGDOLL_FALLING, RAGDOLL_GETTING_UP
const LAYER_NAMES = ['ANIM', 'PREV', 'PHYS', 'FROM', 'TO']

export function readCharacters(
  ctx: AnimationContext,
  r: Reader,
  layouts: Layouts,
  entities: EntitiesData,
  nodes: NodesData,
  step: number,
  memo: StructureMemo,
): CharactersData {
  const count = r.u32()
  if (count > ctx.capacity) throw snapshotError(`section "characters": ${count} characters`)
  const eidsAt = r.span(4 * count) >>> 2
  // The characters' ids, assets, joint counts and joints as the last restore read and checked them (memo.ts):
  // while this snapshot's are the same, character by character, they are not checked again.
  const known = memo.characters
  let trusted =
    known !== null &&
    known.entities === entities &&
    known.nodes === nodes.structure &&
    sameWords(r.ints, eidsAt, known.eids, count)
  const eids = trusted ? known!.eids : Int32Array.from(r.words.subarray(eidsAt, eidsAt + count))
  const width = r.u32()
  if (width !== 1 && width !== 2 && width !== 4) {
    throw invalidValue('section "characters"', 'key cursor bytes', width, 'must be 1, 2 or 4')
  }
  const position = trusted ? known!.position : new Int32Array(entities.maxId + 1)
  for (let i = 0; i < count && !trusted; i++) {
    const eid = eids[i]!
    const where = `section "characters", character ${eid}`
    if (!(eid >= 1 && eid <= entities.maxId && entities.isAlive[eid] === 1 && eid < ctx.capacity)) {
      throw snapshotError(`${where}: entity ${eid} is not an alive id below capacity ${ctx.capacity}`)
    }
    if (position[eid] !== 0) throw snapshotError(`${where}: listed twice`)
    if (nodes.position[eid] === 0) throw snapshotError(`${where}: entity ${eid} is not a scene node`)
    position[eid] = i + 1
  }
  const columns: number[] = []
  const column = new Map<string, Column>()
  for (const layout of layouts.character) {
    for (const f of layout.fields) {
      if (!CHECKED[layout.name]!.includes(f.name)) {
        throw new Error(`snapshot/readCharacters.ts does not check ${layout.name}.${f.name}: add its check`)
      }
      r.align(f.data.BYTES_PER_ELEMENT)
      const at = r.span(count * f.stride * f.data.BYTES_PER_ELEMENT)
      columns.push(at)
      column.set(`${layout.name}.${f.name}`, { f, at })
    }
  }
  r.align(4)
  const c = (name: string): Column => column.get(name)!
  const cols = {
    asset: c('Pose.asset'),
    base: c('Pose.base'),
    count: c('Pose.count'),
    changed: c('Pose.changed'),
    changedStep: c('Pose.changedStep'),
    clip: c('Sampler.clip'),
    fromClip: c('CrossFade.from.clip'),
    fadeActive: c('CrossFade.active'),
    weight: c('Ragdoll.weight'),
    rate: c('Ragdoll.rate'),
    active: c('Ragdoll.active'),
    handle: c('Ragdoll.handle'),
  }
  /** Character i's layer 0 as checkLayerRows reads it: its columns, found once, and one row's values. */
  const layerRow = layerColumns(LAYER_FIELDS, (name) => column.get(name))
  const rowValues = new Float64Array(layerRow.length)

  const d: CharactersData = {
    count,
    eids,
    columns,
    asset: new Int32Array(count),
    base: new Int32Array(count),
    n: new Int32Array(count),
    binding: new Int32Array(count),
    fromBinding: new Int32Array(count),
    clip: new Int32Array(count),
    value: (i, field) => element(r, c(field), i),
    flags: new Uint8Array(count),
    cursorCount: new Int32Array(count),
    cursorsAt: new Int32Array(count),
    cursorWidth: width,
    jointsAt: new Int32Array(count),
    pathsAt: new Int32Array(count),
    layerAt: new Int32Array(POSE_BUFFERS * count),
    joints: new Int32Array(0),
    jointsFrom: new Int32Array(count),
    ragdollWeight: new Float64Array(count),
    ragdollActive: new Uint8Array(count),
    ragdollHandle: new Int32Array(count),
    position,
    structure: NO_STRUCTURE, // the checked structure, set once the joints are read
  }
  // Cursor slots: at least the asset's own clips' channels (addCharacter), grown for a clip with more.
  const { maxClipChannels, maxKeys } = clipExtents(ctx)
  let total = 0
  for (let i = 0; i < count; i++) total += Math.max(0, element(r, cols.count, i))
  // While the characters are the memo's, their joints are the memo's list (read, never written); a list of
  // their own is made at the first that is not.
  let jointList = trusted ? known!.joints : new Int32Array(total)
  let listed = 0
  /** Per id: the character (position + 1) a joint entity belongs to (made when a joint is checked). */
  let jointOf = trusted ? null : new Int32Array(entities.maxId + 1)
  for (let i = 0; i < count; i++) {
    const eid = eids[i]!
    const where = `section "characters", character ${eid}`
    const asset = element(r, cols.asset, i)
    const n = element(r, cols.count, i)
    const ra = ctx.assets[asset]
    if (!ra)
      throw invalidValue(where, 'Pose.asset', asset, `this plugin has assets 0..${ctx.assets.length - 1}`)
    if (ra.jointNodes.length !== n) {
      throw invalidValue(
        where,
        'Pose.count',
        n,
        `must be ${ra.jointNodes.length}, the joints of asset ${asset}`,
      )
    }
    checkChoice(where, 'Pose.changed', element(r, cols.changed, i), FLAGS)
    checkRange(where, 'Pose.changedStep', element(r, cols.changedStep, i), 0, step)

    const binding = r.i32()
    const fromBinding = r.i32()
    const flags = r.u8()
    const layers = r.u8()
    r.u16()
    checkFlags(where, 'flags', flags, CHARACTER_ANIM_IS_LOCALS | CHARACTER_JOINTS_RUN | CHARACTER_FADE_PATHS)
    const fading = element(r, cols.fadeActive, i) === 1
    if (fading !== ((flags & CHARACTER_FADE_PATHS) !== 0)) {
      throw invalidValue(
        where,
        'flags',
        flags,
        `must ${fading ? '' : 'not '}carry fade paths (CrossFade.active)`,
      )
    }
    checkFlags(where, 'stored pose layers', layers, (1 << POSE_BUFFERS) - 1)
    const clip = element(r, cols.clip, i)
    const fromClip = element(r, cols.fromClip, i)
    checkClip(where, 'clip binding', binding, ctx.clips.length)
    checkClip(where, 'fade-from binding', fromBinding, ctx.clips.length)
    checkClip(where, 'Sampler.clip', clip, ctx.clips.length)
    checkClip(where, 'CrossFade.from.clip', fromClip, ctx.clips.length)
    // sampleTracks samples the clips through these bindings: each must be its clip's (or none with no clip).
    if (binding !== clip) throw invalidValue(where, 'clip binding', binding, `must be Sampler.clip ${clip}`)
    if (fromBinding !== fromClip) {
      throw invalidValue(where, 'fade-from binding', fromBinding, `must be CrossFade.from.clip ${fromClip}`)
    }
    checkLayerRows(where, readRow(r, layerRow, i, rowValues), ctx.clips.length, 0)
    const weight = element(r, cols.weight, i)
    checkRange(where, 'Ragdoll.weight', weight, 0, 1)
    checkPositive(where, 'Ragdoll.rate', element(r, cols.rate, i))
    checkChoice(where, 'Ragdoll.active', element(r, cols.active, i), RAGDOLL_STATES)

    const cursorCount = r.u32()
    const least = maxChannels(ctx, ra)
    const most = Math.max(least, maxClipChannels)
    const needed = Math.max(
      least,
      clip >= 0 ? ctx.clips[clip]!.clip.channels.length : 0,
      fromClip >= 0 ? ctx.clips[fromClip]!.clip.channels.length : 0,
    )
    if (cursorCount % 2 !== 0 || cursorCount < 2 * needed || cursorCount > 2 * most) {
      throw invalidValue(
        where,
        'key cursor count',
        cursorCount,
        `must be even, from ${2 * needed} (two per channel of its clips) to ${2 * most}`,
      )
    }
    const cursorsAt = r.span(width * cursorCount)
    // A cursor is a key index the sampler searches from (it copes with any), and always one of a real track.
    if (cursorsOutside(r, cursorsAt, width, cursorCount, maxKeys)) {
      for (let k = 0; k < cursorCount; k++) {
        const key = cursorAt(r, cursorsAt, width, k)
        if (key >= maxKeys)
          throw invalidValue(where, `key cursor ${k}`, key, `no clip has more than ${maxKeys} keys`)
      }
    }
    r.align(4)

    const jointsAt = (flags & CHARACTER_JOINTS_RUN) !== 0 ? -1 : r.span(4 * n)
    d.jointsFrom[i] = listed
    if (trusted && !(known!.asset[i] === asset && sameJoints(known!, i, r.ints, jointsAt, eid, n))) {
      // Not the memo's: the joints listed so far (the memo's, checked) are copied and marked, then this one's
      // listed and checked.
      trusted = false
      const list = new Int32Array(total)
      list.set(jointList.subarray(0, listed))
      jointList = list
      jointOf = new Int32Array(entities.maxId + 1)
      for (let c = 0; c < i; c++) {
        for (let k = d.jointsFrom[c]!; k < d.jointsFrom[c]! + d.n[c]!; k++) {
          if (jointList[k] !== 0) jointOf[jointList[k]!] = c + 1
        }
      }
    }
    if (!trusted) {
      for (let j = 0; j < n; j++) {
        // 0: the game removed this joint's entity (forgetJoint); the write-out skips it.
        jointList[listed + j] = jointsAt < 0 ? eid + 1 + j : r.ints[(jointsAt >>> 2) + j]!
      }
      checkJoints(ctx, where, i, n, jointList, listed, entities, nodes, eids, jointOf!)
    }
    listed += n

    for (let layer = 0; layer < POSE_BUFFERS; layer++) {
      if ((layers & (1 << layer)) === 0) {
        d.layerAt[POSE_BUFFERS * i + layer] = -1
        continue
      }
      // Its paths' masks, then their floats (snapshot/poseLayers.ts).
      const name = `${where}, pose layer ${LAYER_NAMES[layer]}`
      const masksAt = readPathMasks(r, n, name)
      d.layerAt[POSE_BUFFERS * i + layer] = masksAt
      // PHYS is rewritten from the bodies before anything reads it, and a ragdoll that blew up leaves
      // non-finite values there: it is checked only while blended in.
      if (layer === POSE_PHYS && !(weight > 0)) continue
      checkPoseLayerPaths(r.bytes, masksAt, r.floats, pathFloatsAt(masksAt, n) >>> 2, n, name)
    }
    let pathsAt = -1
    if ((flags & CHARACTER_FADE_PATHS) !== 0) {
      pathsAt = r.span(n)
      for (let j = 0; j < n; j++) {
        const paths = r.bytes[pathsAt + j]!
        if ((paths & ~(BLEND_T | BLEND_S)) !== 0) invalidFadePaths(where, j, paths)
      }
      r.align(4)
    }
    d.pathsAt[i] = pathsAt
    d.asset[i] = asset
    d.base[i] = element(r, cols.base, i)
    d.n[i] = n
    d.binding[i] = binding
    d.fromBinding[i] = fromBinding
    d.clip[i] = clip
    d.flags[i] = flags
    d.cursorCount[i] = cursorCount
    d.cursorsAt[i] = cursorsAt
    d.jointsAt[i] = jointsAt
    d.ragdollWeight[i] = weight
    d.ragdollActive[i] = element(r, cols.active, i)
    d.ragdollHandle[i] = element(r, cols.handle, i)
  }
  if (!trusted) {
    for (let i = 0; i < count; i++) {
      const owner = jointOf![eids[i]!]!
      if (owner !== 0) {
        throw snapshotError(
          `section "characters", character ${eids[owner - 1]}: joint entity ${eids[i]} is a character`,
        )
      }
    }
    memo.characters = {
      entities,
      nodes: nodes.structure,
      eids,
      position,
      asset: d.asset.slice(),
      jointsFrom: d.jointsFrom.slice(),
      n: d.n.slice(),
      joints: jointList.slice(),
    }
  }
  d.joints = jointList
  d.structure = memo.characters!
  return d
}

/**
 * The most channels of any registered clip, and the most keys of any of their channels, worked out again only
 * when clips were registered since (a restore would otherwise walk every channel of every clip: thousands of
 * clips in a file of copies).
 */
export function clipExtents(ctx: AnimationContext): { maxClipChannels: number; maxKeys: number } {
  let known = extents.get(ctx)
  if (known === undefined || known.clips !== ctx.clips.length) {
    let maxClipChannels = 1
    let maxKeys = 1
    for (const rc of ctx.clips) {
      maxClipChannels = Math.max(maxClipChannels, rc.clip.channels.length)
      for (const ch of rc.clip.channels) maxKeys = Math.max(maxKeys, ch.times.length)
    }
    known = { clips: ctx.clips.length, maxClipChannels, maxKeys }
    extents.set(ctx, known)
  }
  return known
}
const extents = new WeakMap<AnimationContext, { clips: number; maxClipChannels: number; maxKeys: number }>()

/** Key cursor k of a character's cursors at byte `at`, `width` bytes each. */
function cursorAt(r: Reader, at: number, width: number, k: number): number {
  return width === 4 ? r.words[(at >>> 2) + k]! : width === 2 ? r.halves[(at >>> 1) + k]! : r.bytes[at + k]!
}

/**
 * Whether any of `count` key cursors at byte `at` (`width` bytes each; `at` a multiple of 4) may be ≥ maxKeys:
 * never false when one is (true may be a false alarm: the caller then looks at each). The loops are a tenth of
 * reading the characters, so no branch a cursor: as int32s, 0 <= key < maxKeys exactly when neither key nor
 * maxKeys - 1 - key has its sign bit set; and 1- and 2-byte cursors are tested four or two to a word (the
 * bit-twiddling "has a byte > n": adding 127 - n to each byte sets its top bit exactly when it is > n, for
 * n ≤ 127 and bytes ≤ 127; a byte ≥ 128 has its top bit set already; likewise for 16-bit lanes).
 */
export function cursorsOutside(
  r: Reader,
  at: number,
  width: number,
  count: number,
  maxKeys: number,
): boolean {
  // The views in locals: V8 may read a property again at every turn of a loop.
  const last = maxKeys - 1
  let outside = 0
  if (width === 4) {
    const ints = r.ints
    const first = at >>> 2
    for (let k = 0; k < count; k++) outside |= ints[first + k]! | (last - ints[first + k]!)
    return outside < 0
  }
  const ints = r.ints
  const perWord = 4 / width
  const words = Math.floor(count / perWord)
  const laneMax = width === 1 ? 127 : 32767
  if (last <= laneMax) {
    const add = width === 1 ? (127 - last) * 0x01010101 : (32767 - last) * 0x00010001
    const first = at >>> 2
    for (let k = first; k < first + words; k++) outside |= (ints[k]! + add) | ints[k]!
    outside &= width === 1 ? 0x80808080 : 0x80008000
  } else {
    // Lanes wider than the trick allows: each cursor on its own, as 4-byte cursors are.
    for (let k = 0; k < words * perWord; k++) outside |= last - cursorAt(r, at, width, k)
    outside &= 0x80000000
  }
  for (let k = words * perWord; k < count; k++) outside |= (last - cursorAt(r, at, width, k)) & 0x80000000
  return outside !== 0
}
