import type { InternalWorld, World } from 'bitecs'
import { $internal } from 'bitecs'
import { createHasher, type Hasher, type TypedArray } from '../src/sim/hasher.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { JOINT_STRIDE, POSE_LAYERS } from '../components/Pose.ts'
import type { AnimationContext, RegisteredAsset } from '../plugin/context.ts'
import { copyInto, digestWords, type Writer } from '../src/sim/byteStream.ts'

/**
 * Snapshot and restore of a plugin's whole simulation state, for rollback netcode and golden-file tests.
 *
 * `snapshotAnimation` writes everything the next fixed step reads into a compact little-endian binary buffer;
 * `restoreAnimation` rebuilds it in a fresh world and fresh plugin, with the same entity ids, after which both
 * step on bit-identically (the same `hash()` after every step). bitecs's own snapshot deserializer renumbers
 * entities, so this one recreates the entity index itself (see "Entity ids" below). The cannon-es half, and
 * what of cannon-es's state matters and why, is in src/physics/snapshot.ts.
 *
 * Layout (little-endian; typed-array slices are their raw bytes, so every float keeps its bits, NaN payloads
 * and -0 included). A `store record` is an entity's element(s) of every typed-array field of a component
 * store, fields in sorted name order (the order hashState uses); its shape is pinned by `schema`, so a change to
 * any store's fields makes older snapshots fail with a clear error rather than restore garbage.
 *
 *   off  size  header
 *     0     4  magic "EASN"
 *     4     2  format version (SNAPSHOT_VERSION); a snapshot of another version is rejected
 *     6     2  0 (reserved)
 *     8     4  total length in bytes (a shorter buffer is "truncated")
 *    12     8  checksum: FNV-1a 64 of bytes [20, total), high u32 then low u32
 *    20     8  schema: FNV-1a 64 of the store layouts (field names, types, strides) and pose constants
 *    28     8  dt, seconds (f64)          \
 *    36     4  capacity                    |  must equal the restoring plugin's options
 *    40     4  maxPoseSlots               /
 *    44     4  step counter (ctx.step)
 *    48        sections, in this order:
 *
 *   assets      u16 count; per asset (registration order): u32×2 fingerprint, u32×2 markers fingerprint,
 *               u16 joints, u16 clips
 *   entities    u32 maxId, u32 aliveCount, u32[maxId] dense   (bitecs's entity index: the alive ids, then the
 *                                                              free ids, the next one to be recycled first)
 *   pool        u32 slots, u32 used, u32 ranges, u32[2·ranges] free (start, length)
 *   nodes       u32 count; per SceneNode: u32 eid, SceneNode store record (114 bytes with the eid).
 *               Order: roots by ascending id, then each parent's children (parents by ascending id), last
 *               sibling first, so that re-linking at the list heads rebuilds every child list as it was
 *   characters  u32 count, in the plugin's query order (the order the systems visit them, and so the order
 *               ragdolls spawn in); per character: u32 eid, store records of Pose, Sampler, CrossFade, Ragdoll,
 *               i32 binding clip, i32 from-binding clip (-1 none), u32 cursor count, u32[count] cursors,
 *               i32[n] joint entities, f32[POSE_LAYERS·n·10] pose block (all layers)
 *   layers      u32 count; per character with animation layers: its layer stack (snapshot/layers.ts)
 *   morphs      u32 count; per character with morph targets: its game and current morph weights
 *               (snapshot/morphs.ts)
 *   ragdolls    u32 count; per runtime (ascending eid): u32 eid, u8 flags (1 explosion reported, 2 default
 *               description, 4 bodies exist, 8 partial, 16 a larger ragdoll replaces it in the next step,
 *               32 per-joint weights, 64 a hit reaction, 128 motors),
 *               [not default] u16 bodies × (i32 node, u8 shape, i32 parent body, f64×8 radius, length, axis,
 *                 mass, cone, twist)
 *               [partial] u16 subtree roots × u16 joint (ascending, none under another)
 *               u16 queued hits × (u16 joint, f64×3 impulse)
 *               [per-joint weights] f64[n] weights, f64[n] targets (each in [0, 1])
 *               [hit reaction] f64 recovery rate per second (> 0)
 *               [motors] u8 hold root (0, 1), f64[n] strength per joint (in [0, 100])
 *               [bodies exist] f64[8·n] the last read-back joint world transforms, then the instance
 *               (bodies, joint offsets, constraints: src/physics/snapshot.ts),
 *               [motors] per constraint u8 centred (0, 1), f64×4 the rotation its limits are centred on
 *                 (RagdollJoint.reference, .centred)
 *               [replaced] u16 its subtree roots × u16 joint (0: the whole body), u16 its queued hits × (u16
 *                 joint, f64×3 impulse), f64 its recovery rate (0: none)
 *   physics     the world: its clock, where ragdoll bodies and constraints sit in it, the broadphase order
 *               (src/physics/snapshot.ts)
 *   events      u32 clip events dropped (ctx.droppedEvents),
 *               u32 reported × (u32 entity, u8 bits: 1 its 'pose-non-finite', 2 its 'world-non-finite' was reported),
 *               u32 count × (u32 step, i32 entity, i32 character,
 *               u8 length + UTF-8 kind, then
 *                 a problem report: u32 length + UTF-8 message;
 *                 a get-up report: u32 length + UTF-8 message, u8 facing (1 prone, 2 supine), i32 clip id;
 *                 a clip event: u8 layer, i32 clip id, u32 length + UTF-8 clip name, u32 length + UTF-8 marker
 *                 name, f64 time, f64 weight, u8 fading)
 *
 * Assets: a fingerprint per registered asset, FNV-1a 64 of its node tree (names, parents, rest T/R/S), its
 * joint order and rest pose, its skins' joints, and every clip's name, duration, channel targets, paths,
 * interpolations, times and values — not its file path. Restore requires the same assets registered in the
 * same order, so clip ids, asset ids and bindings mean the same thing.
 *
 * Markers are asset data too, and are checked the same way rather than carried: a markers fingerprint per
 * asset, FNV-1a 64 of each of its clips' markers as the plugin has them (the file's and those addMarker added,
 * in their order). A game's setup adds its markers as it adds its assets, before it restores; carrying them
 * as well would give a restored plugin two sources for one list (its own addMarker calls and the snapshot's),
 * and a marker list that differs would change which events the next steps report, so a mismatch is refused
 * with a message that says so.
 *
 * Events: the queue the game has not read yet, every record whole, the count of dropped clip events, and the
 * entities whose once-per-lifetime problem reports were made (ctx.poseReported, ctx.worldReported; a
 * ragdoll's is its FLAG_REPORTED). The rest of what the next steps report follows from the stores (a clip's
 * phase, and Sampler.finished and CrossFade.fromFinished, which make 'finished' fire once), so an event is
 * neither lost nor repeated by a snapshot and restore at any step.
 *
 * Entity ids: restore needs a world in which no entity was ever created (`createWorld()`), and a fresh plugin
 * on it with the same options and the same assets added in the same order. It creates entities 1..maxId,
 * removes them all in reverse snapshot order, then re-adds the alive ones, which leaves bitecs's entity index
 * exactly as it was (alive ids, free ids and their recycling order), so the next `addEntity` returns the same
 * id in both worlds. Entities that were alive but not the plugin's come back alive and bare (no components):
 * the game restores its own components onto them. SceneNodes the game attached (a hat on a joint) come back
 * with the rest of the scene graph. Versioned entity indexes are not supported. What may differ: bitecs's
 * `getAllEntities` order, the order inside queries the plugin does not own, the scene graph's `version` and
 * `stats` counters (the parents-first order is rebuilt on the next step).
 *
 * Errors: AnimationError kind 'snapshot'. Restore reads and checks the whole buffer (magic, version, length,
 * checksum, schema, options, assets, a fresh world, physics setup, every id and range) before it changes
 * anything, so a failed restore leaves the plugin and world exactly as they were. Both calls allocate; neither
 * is a per-frame call.
 *
 * Values: the checksum catches accidents, not edits (anyone can recompute it), so restore also checks every value
 * against what the step and cannon-es can take (snapshot/read.ts readPlan, src/physics/snapshot.ts), and refuses,
 * naming the section, entity, field and value: floats not finite (each is bounded by its type only, float32 or
 * float64, as the plugin bounds it: src/sim/byteStream.ts); rotations not near unit length; enums and flags out of
 * range; sizes, masses and limits cannon-es cannot build or the ragdoll code cannot use; ids that do not agree
 * (dead or non-node entities, parent cycles, a joint twice, a ragdoll state without its runtime, bodies or
 * constraints other than the description's). A snapshot restore accepts steps on without a throw and with finite
 * world matrices.
 */

/** 3: animation layers and morph weights (sections "layers", "morphs"), clip events and get-up reports. */
export const SNAPSHOT_VERSION = 3
export const MAGIC = [0x45, 0x41, 0x53, 0x4e] // "EASN"
export const HEADER_BYTES = 48
export const CHECKSUM_FROM = 20
export const FLAG_REPORTED = 1
export const FLAG_DEFAULT_DESCRIPTION = 2
export const FLAG_BODIES = 4
export const FLAG_PARTIAL = 8
export const FLAG_REPLACED = 16
export const FLAG_JOINT_WEIGHTS = 32
export const FLAG_RECOVERS = 64
export const FLAG_MOTORS = 128
/** Bits of an entity in the events section's reported list. */
export const REPORTED_POSE = 1
export const REPORTED_WORLD = 2
export const RAGDOLL_SHAPES: readonly ResolvedBody['shape'][] = ['capsule', 'box']

// ------------------------------------------------------------------------------------------- store layouts

interface Field {
  readonly name: string
  readonly data: TypedArray
  /** Elements per entity. */
  readonly stride: number
  /** Byte offset inside the entity's record. */
  readonly offset: number
}

export interface StoreLayout {
  readonly name: string
  readonly fields: readonly Field[]
  readonly bytes: number
}

export function storeLayout(name: string, store: object, capacity: number): StoreLayout {
  const fields: Field[] = []
  let offset = 0
  for (const key of Object.keys(store).sort()) {
    const data = (store as Record<string, unknown>)[key]
    if (!ArrayBuffer.isView(data) || data instanceof DataView) continue
    const typed = data as TypedArray
    const stride = typed.length / capacity
    fields.push({ name: key, data: typed, stride, offset })
    offset += stride * typed.BYTES_PER_ELEMENT
  }
  return { name, fields, bytes: offset }
}

export interface Layouts {
  readonly node: StoreLayout
  readonly character: readonly StoreLayout[]
  readonly characterBytes: number
  readonly schema: readonly [number, number]
}

export function layoutsOf(ctx: AnimationContext): Layouts {
  const { Pose, Sampler, CrossFade, Ragdoll } = ctx.stores
  const node = storeLayout('SceneNode', ctx.sceneGraph.store, ctx.capacity)
  const character = [
    storeLayout('Pose', Pose, ctx.capacity),
    storeLayout('Sampler', Sampler, ctx.capacity),
    storeLayout('CrossFade', CrossFade, ctx.capacity),
    storeLayout('Ragdoll', Ragdoll, ctx.capacity),
  ]
  const h = createHasher()
  const text = [node, ...character]
    .map(
      (s) =>
        `${s.name}{${s.fields.map((f) => `${f.name}:${f.data.constructor.name}×${f.stride}`).join(',')}}`,
    )
    .join(';')
  hashString(h, `${text};layers=${POSE_LAYERS};stride=${JOINT_STRIDE};world=${WORLD_STRIDE}`)
  return {
    node,
    character,
    characterBytes: character.reduce((s, l) => s + l.bytes, 0),
    schema: digestWords(h),
  }
}

export function writeRecord(w: Writer, layout: StoreLayout, eid: number): void {
  for (const f of layout.fields) w.raw(f.data, eid * f.stride, f.stride)
}

/**
 * For each entity of `eids` in order, its id (u32) and its record, as `w.u32(e)` then `writeRecord` would write
 * them, into one reserved block. The nodes section is most of a snapshot's records: a few thousand of seven
 * small slices each, which copied here byte by byte, without a call or a view per slice, take a quarter of the
 * time (4,003 nodes: 6.8 → 1.8 ms, best of 40 on a loaded machine; the same bytes).
 */
export function writeIdRecords(w: Writer, layout: StoreLayout, eids: readonly number[]): void {
  const { bytes: out, at } = w.reserve((4 + layout.bytes) * eids.length)
  const fields = layout.fields.map((f) => ({
    src: new Uint8Array(f.data.buffer),
    from: f.data.byteOffset,
    width: f.stride * f.data.BYTES_PER_ELEMENT,
  }))
  let o = at
  for (let i = 0; i < eids.length; i++) {
    const e = eids[i]!
    out[o] = e & 0xff
    out[o + 1] = (e >>> 8) & 0xff
    out[o + 2] = (e >>> 16) & 0xff
    out[o + 3] = e >>> 24
    o += 4
    for (let k = 0; k < fields.length; k++) {
      const { src, from, width } = fields[k]!
      const start = from + e * width
      for (let b = 0; b < width; b++) out[o++] = src[start + b]!
    }
  }
}

export function copyRecord(layout: StoreLayout, eid: number, bytes: Uint8Array, from: number): void {
  for (const f of layout.fields) copyInto(f.data, eid * f.stride, bytes, from + f.offset, f.stride)
}

/**
 * A record at `bytes[from ..]` decoded: each field's elements, as its store's element type. `checked` names the
 * fields restore checks (snapshot/read.ts); a store field it does not name is a bug there, and throws on every
 * restore, so the first test of a new field finds it.
 */
export function decodeRecord(
  layout: StoreLayout,
  bytes: Uint8Array,
  from: number,
  checked: readonly string[],
): Record<string, ArrayLike<number>> {
  const out: Record<string, ArrayLike<number>> = {}
  for (const f of layout.fields) {
    if (!checked.includes(f.name)) {
      throw new Error(`snapshot/read.ts does not check ${layout.name}.${f.name}: add its check`)
    }
    const values = new (f.data.constructor as new (n: number) => TypedArray)(f.stride)
    copyInto(values, 0, bytes, from + f.offset, f.stride)
    // Every store field is a number array (no BigInt fields).
    out[f.name] = values as ArrayLike<number>
  }
  return out
}

/**
 * decodeRecord for many records of one layout (the nodes section): the decoder returns the same arrays every
 * call, refilled byte by byte, so it allocates nothing per record (decodeRecord's new array and two views a
 * field were most of reading 11,000 nodes). What it returns is valid until the next call.
 */
export function recordDecoder(
  layout: StoreLayout,
  bytes: Uint8Array,
  checked: readonly string[],
): (from: number) => Record<string, ArrayLike<number>> {
  const out: Record<string, ArrayLike<number>> = {}
  const fields = layout.fields.map((f) => {
    if (!checked.includes(f.name)) {
      throw new Error(`snapshot/read.ts does not check ${layout.name}.${f.name}: add its check`)
    }
    const values = new (f.data.constructor as new (n: number) => TypedArray)(f.stride)
    out[f.name] = values as ArrayLike<number>
    return { at: f.offset, to: new Uint8Array(values.buffer), width: values.byteLength }
  })
  return (from) => {
    for (let k = 0; k < fields.length; k++) {
      const { at, to, width } = fields[k]!
      const start = from + at
      for (let b = 0; b < width; b++) to[b] = bytes[start + b]!
    }
    return out
  }
}

// ------------------------------------------------------------------------------------------- fingerprints

/** UTF-8 coders, typed structurally so the declarations need no DOM or Node types. */
export const encoder: { encode(text: string): Uint8Array } = new TextEncoder()
export const decoder: { decode(bytes: Uint8Array): string } = new TextDecoder()

export function hashString(h: Hasher, s: string): void {
  const bytes = encoder.encode(s)
  h.updateNumber(bytes.length).update(bytes)
}

export const fingerprints = new WeakMap<RegisteredAsset, [number, number]>()

/** FNV-1a 64 of what a registered asset means to the simulation (see the header); cached per asset. */
export function assetFingerprint(ctx: AnimationContext, ra: RegisteredAsset): [number, number] {
  const known = fingerprints.get(ra)
  if (known) return known
  const h = createHasher()
  const asset = ra.asset
  h.updateNumber(asset.nodes.length)
  h.update(nodeBytes(asset.nodes))
  h.update(ra.jointNodes).update(ra.jointParents).update(ra.rest)
  h.updateNumber(asset.skeletons.length)
  for (const s of asset.skeletons) h.update(s.joints)
  h.updateNumber(ra.clipIds.length)
  for (const id of ra.clipIds) {
    const clip = ctx.clips[id]!.clip
    hashString(h, clip.name)
    h.updateNumber(clip.duration).updateNumber(clip.channels.length)
    for (const ch of clip.channels) {
      hashString(h, `${ch.path}/${ch.interpolation}`)
      h.updateNumber(ch.node).updateNumber(ch.components)
      h.updateNumber(ch.times.length).update(ch.times)
      h.updateNumber(ch.values.length).update(ch.values)
    }
  }
  const words = digestWords(h)
  fingerprints.set(ra, words)
  return words
}

/**
 * FNV-1a 64 of the markers of a registered asset's clips as this plugin has them (see the header). Not cached:
 * addMarker changes it.
 */
export function markersFingerprint(ctx: AnimationContext, ra: RegisteredAsset): [number, number] {
  const h = createHasher()
  h.updateNumber(ra.clipIds.length)
  for (const id of ra.clipIds) {
    const { times, names } = ctx.clips[id]!.markers
    h.updateNumber(times.length).update(times)
    for (const name of names) hashString(h, name)
  }
  return digestWords(h)
}

/**
 * The nodes' part of a fingerprint as one byte string, as hashString(name), updateNumber(parent) and
 * updateNumber of each rest T, R, S value per node would feed them (f64s little-endian, as a Float64Array
 * holds them on every host in use): one update instead of a dozen a node (11,000 nodes: 145 → 15 ms).
 */
function nodeBytes(nodes: AnimationContext['assets'][number]['asset']['nodes']): Uint8Array {
  let out = new Uint8Array(1 << 12)
  let view = new DataView(out.buffer)
  let at = 0
  const room = (n: number): void => {
    if (at + n <= out.length) return
    const next = new Uint8Array(Math.max(2 * out.length, at + n))
    next.set(out.subarray(0, at))
    out = next
    view = new DataView(out.buffer)
  }
  const f64 = (x: number): void => {
    room(8)
    view.setFloat64(at, x, true)
    at += 8
  }
  for (const n of nodes) {
    const name = encoder.encode(n.name)
    f64(name.length)
    room(name.length)
    out.set(name, at)
    at += name.length
    f64(n.parent)
    for (const v of [n.translation, n.rotation, n.scale]) for (let k = 0; k < v.length; k++) f64(v[k]!)
  }
  return out.subarray(0, at)
}

/** bitecs's entity index of a world (the snapshot keeps and restores its exact state). */
export function entityIndexOf(world: World): InternalWorld[typeof $internal]['entityIndex'] {
  return (world as InternalWorld)[$internal].entityIndex
}
