import type { InternalWorld, World } from 'bitecs'
import { $internal, addComponent, addEntity, hasComponent, query, removeEntity } from 'bitecs'
import { AnimationError } from '../src/errors.ts'
import { createHasher, type Hasher, type TypedArray } from '../src/sim/hasher.ts'
import type { ResolvedBody } from '../src/physics/description.ts'
import type { RagdollInstance } from '../src/physics/ragdoll.ts'
import { WORLD_STRIDE } from '../src/physics/kinematics.ts'
import { JOINT_STRIDE, POSE_LAYERS } from '../components/Pose.ts'
import { addSceneNode, setSceneNodeParent } from '../components/SceneNode.ts'
import type { AnimationContext, AnimationEvent, RagdollRuntime, RegisteredAsset } from '../plugin/context.ts'
import { planFadePaths } from '../plugin/context.ts'
import { prepareSquad } from '../src/clip/clip.ts'
import { ROTATION_SQUAD } from '../components/Sampler.ts'
import {
  copyInto,
  createReader,
  createWriter,
  digestWords,
  hexWords,
  readU32Array,
  snapshotError,
  type Reader,
  type Writer,
} from '../src/sim/byteStream.ts'
import {
  buildInstance,
  readInstance,
  readPhysicsWorld,
  rebuildPhysicsWorld,
  writeInstance,
  writePhysicsWorld,
  type InstanceData,
  type PhysicsPlan,
} from '../src/physics/snapshot.ts'

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
 *   assets      u16 count; per asset (registration order): u32×2 fingerprint, u16 joints, u16 clips
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
 *   ragdolls    u32 count; per runtime (ascending eid): u32 eid, u8 flags (1 explosion reported, 2 default
 *               description, 4 bodies exist),
 *               [not default] u16 bodies × (i32 node, u8 shape, i32 parent body, f64×8 radius, length, axis,
 *                 mass, cone, twist)
 *               u16 queued hits × (u16 joint, f64×3 impulse)
 *               [bodies exist] f64[8·n] the last read-back joint world transforms, then the instance
 *               (bodies, joint offsets, constraints: src/physics/snapshot.ts)
 *   physics     the world: its clock, where ragdoll bodies and constraints sit in it, the broadphase order
 *               (src/physics/snapshot.ts)
 *   events      u32 count × (u32 step, i32 entity, u8 length, UTF-8 kind, u16 length, UTF-8 message)
 *
 * Assets: a fingerprint per registered asset, FNV-1a 64 of its node tree (names, parents, rest T/R/S), its
 * joint order and rest pose, its skins' joints, and every clip's name, duration, channel targets, paths,
 * interpolations, times and values — not its file path. Restore requires the same assets registered in the
 * same order, so clip ids, asset ids and bindings mean the same thing.
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
 */

export const SNAPSHOT_VERSION = 1
const MAGIC = [0x45, 0x41, 0x53, 0x4e] // "EASN"
const HEADER_BYTES = 48
const CHECKSUM_FROM = 20
const FLAG_REPORTED = 1
const FLAG_DEFAULT_DESCRIPTION = 2
const FLAG_BODIES = 4
const RAGDOLL_SHAPES: readonly ResolvedBody['shape'][] = ['capsule', 'box']

/** What snapshot and restore need from the plugin's private wiring. */
export interface SnapshotHooks {
  /** Makes sure per-step scratch fits a character of `joints` joints (blendPoses). */
  reserveJoints(joints: number): void
  /** The channel binding of clip `clipId` on characters of asset `assetId` (made and cached on first use). */
  bindClip(clipId: number, assetId: number): Int32Array
  /** The asset's default ragdoll description (the same array every call). */
  defaultDescription(assetId: number): readonly ResolvedBody[]
}

// ------------------------------------------------------------------------------------------- store layouts

interface Field {
  readonly name: string
  readonly data: TypedArray
  /** Elements per entity. */
  readonly stride: number
  /** Byte offset inside the entity's record. */
  readonly offset: number
}

interface StoreLayout {
  readonly name: string
  readonly fields: readonly Field[]
  readonly bytes: number
}

function storeLayout(name: string, store: object, capacity: number): StoreLayout {
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

interface Layouts {
  readonly node: StoreLayout
  readonly character: readonly StoreLayout[]
  readonly characterBytes: number
  readonly schema: readonly [number, number]
}

function layoutsOf(ctx: AnimationContext): Layouts {
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

function writeRecord(w: Writer, layout: StoreLayout, eid: number): void {
  for (const f of layout.fields) w.raw(f.data, eid * f.stride, f.stride)
}

function copyRecord(layout: StoreLayout, eid: number, bytes: Uint8Array, from: number): void {
  for (const f of layout.fields) copyInto(f.data, eid * f.stride, bytes, from + f.offset, f.stride)
}

/** Element 0 of field `name` in a record at `bytes[from ..]`, decoded as its store's element type. */
function recordValue(layout: StoreLayout, name: string, bytes: Uint8Array, from: number): number {
  const f = layout.fields.find((x) => x.name === name)!
  const one = new (f.data.constructor as new (n: number) => TypedArray)(1)
  copyInto(one, 0, bytes, from + f.offset, 1)
  return Number(one[0])
}

// ------------------------------------------------------------------------------------------- fingerprints

const encoder = new TextEncoder()
const decoder = new TextDecoder()

function hashString(h: Hasher, s: string): void {
  const bytes = encoder.encode(s)
  h.updateNumber(bytes.length).update(bytes)
}

const fingerprints = new WeakMap<RegisteredAsset, [number, number]>()

/** FNV-1a 64 of what a registered asset means to the simulation (see the header); cached per asset. */
function assetFingerprint(ctx: AnimationContext, ra: RegisteredAsset): [number, number] {
  const known = fingerprints.get(ra)
  if (known) return known
  const h = createHasher()
  const asset = ra.asset
  h.updateNumber(asset.nodes.length)
  for (const n of asset.nodes) {
    hashString(h, n.name)
    h.updateNumber(n.parent)
    for (const x of [...n.translation, ...n.rotation, ...n.scale]) h.updateNumber(x)
  }
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

// ------------------------------------------------------------------------------------------------ snapshot

function entityIndexOf(world: World) {
  return (world as InternalWorld)[$internal].entityIndex
}

/**
 * Serializes the plugin's whole simulation state (layout above). Throws AnimationError('snapshot') for a world
 * with versioned entity ids or a ragdoll body changed in a way the format does not carry. Reads only, except
 * that it commits bitecs's pending query removals (as the next step would).
 */
export function snapshotAnimation(ctx: AnimationContext, hooks: SnapshotHooks): Uint8Array {
  const world = ctx.world
  const index = entityIndexOf(world)
  if (index.versioning) {
    throw new AnimationError(
      'snapshot',
      'snapshot: the world uses versioned entity ids (withVersioning); snapshots need plain ids',
    )
  }
  const layouts = layoutsOf(ctx)
  const { Pose, Ragdoll } = ctx.stores
  // A copy of the systems' own query's dense array: the order they visit characters in.
  const characters = Array.from(query(world, [Ragdoll, Pose]))
  const w = createWriter()

  for (const b of MAGIC) w.u8(b)
  w.u16(SNAPSHOT_VERSION)
  w.u16(0)
  w.u32(0) // total length, patched below
  w.u32(0) // checksum, patched below
  w.u32(0)
  w.u32(layouts.schema[0])
  w.u32(layouts.schema[1])
  w.f64(ctx.dt)
  w.u32(ctx.capacity)
  w.u32(ctx.pool.maxSlots)
  w.u32(ctx.step)

  w.u16(ctx.assets.length)
  for (const ra of ctx.assets) {
    const [hi, lo] = assetFingerprint(ctx, ra)
    w.u32(hi)
    w.u32(lo)
    w.u16(ra.jointNodes.length)
    w.u16(ra.clipIds.length)
  }

  w.u32(index.maxId)
  w.u32(index.aliveCount)
  for (let i = 0; i < index.maxId; i++) w.u32(index.dense[i]!)

  const pool = ctx.pool
  w.u32(pool.slots)
  w.u32(pool.used)
  w.u32(pool.free.length / 2)
  for (const x of pool.free) w.u32(x)

  const nodes = sceneNodeOrder(ctx, index.dense.slice(0, index.aliveCount))
  w.u32(nodes.length)
  for (const e of nodes) {
    w.u32(e)
    writeRecord(w, layouts.node, e)
  }

  w.u32(characters.length)
  for (const eid of characters) writeCharacter(ctx, w, layouts, eid)

  const runtimes = characters.filter((e) => ctx.ragdolls[e] !== undefined).sort((a, b) => a - b)
  const instances = new Map<number, RagdollInstance>()
  w.u32(runtimes.length)
  for (const eid of runtimes) {
    const rt = ctx.ragdolls[eid]!
    writeRagdoll(ctx, w, hooks, eid, rt)
    if (rt.instance) instances.set(eid, rt.instance)
  }

  writePhysicsWorld(w, ctx.physics, instances)

  w.u32(ctx.events.length)
  for (const ev of ctx.events) {
    w.u32(ev.step)
    w.i32(ev.entity)
    const kind = encoder.encode(ev.kind).subarray(0, 0xff)
    w.u8(kind.length)
    w.raw(kind, 0, kind.length)
    const text = encoder.encode(ev.message).subarray(0, 0xffff)
    w.u16(text.length)
    w.raw(text, 0, text.length)
  }

  const out = w.finish()
  const view = new DataView(out.buffer)
  view.setUint32(8, out.length, true)
  const [hi, lo] = digestWords(createHasher().update(out, CHECKSUM_FROM, out.length))
  view.setUint32(12, hi, true)
  view.setUint32(16, lo, true)
  return out
}

/** SceneNode entities among `alive`: roots by ascending id, then each parent's children, last sibling first. */
function sceneNodeOrder(ctx: AnimationContext, alive: readonly number[]): number[] {
  const graph = ctx.sceneGraph
  const parents = graph.store.parent
  const nodes = alive
    .filter((e) => e < ctx.capacity && hasComponent(ctx.world, e, graph.store))
    .sort((a, b) => a - b)
  const out = nodes.filter((e) => parents[e] === 0)
  for (const p of nodes) {
    let c = graph.firstChild[p]!
    if (c === 0) continue
    while (graph.nextSibling[c] !== 0) c = graph.nextSibling[c]!
    for (; c !== 0; c = graph.prevSibling[c]!) out.push(c)
  }
  return out
}

function writeCharacter(ctx: AnimationContext, w: Writer, layouts: Layouts, eid: number): void {
  const { Pose, Sampler, CrossFade } = ctx.stores
  w.u32(eid)
  for (const layout of layouts.character) writeRecord(w, layout, eid)
  w.i32(bindingClip(ctx, ctx.binding[eid], Sampler.clip[eid]!, eid))
  w.i32(bindingClip(ctx, ctx.fromBinding[eid], CrossFade.fromClip[eid]!, eid))
  const cursors = ctx.cursors[eid]!
  w.u32(cursors.length)
  w.raw(cursors, 0, cursors.length)
  const base = Pose.base[eid]!
  const n = Pose.count[eid]!
  w.raw(ctx.pool.joints, base, n)
  w.raw(ctx.pool.data, base * JOINT_STRIDE, POSE_LAYERS * n * JOINT_STRIDE)
}

/** Id of the clip whose binding (on the character's asset) `binding` is; -1 for none. */
function bindingClip(ctx: AnimationContext, binding: Int32Array | undefined, likely: number, eid: number) {
  if (binding === undefined) return -1
  const asset = ctx.stores.Pose.asset[eid]!
  if (likely >= 0 && ctx.clips[likely]?.bindings[asset] === binding) return likely
  const found = ctx.clips.findIndex((c) => c.bindings[asset] === binding)
  if (found < 0) throw new Error(`snapshot: character ${eid} has a channel binding of no registered clip`)
  return found
}

function writeRagdoll(
  ctx: AnimationContext,
  w: Writer,
  hooks: SnapshotHooks,
  eid: number,
  rt: RagdollRuntime,
) {
  const isDefault = rt.bodies === hooks.defaultDescription(ctx.stores.Pose.asset[eid]!)
  const r = rt.instance
  w.u32(eid)
  w.u8((rt.reported ? FLAG_REPORTED : 0) | (isDefault ? FLAG_DEFAULT_DESCRIPTION : 0) | (r ? FLAG_BODIES : 0))
  if (!isDefault) {
    w.u16(rt.bodies.length)
    for (const b of rt.bodies) {
      w.i32(b.node)
      w.u8(RAGDOLL_SHAPES.indexOf(b.shape))
      w.i32(b.parentBody)
      for (const x of [b.radius, b.length, ...b.axis, b.mass, b.coneAngle, b.twistAngle]) w.f64(x)
    }
  }
  w.u16(rt.impulses.length)
  for (const hit of rt.impulses) {
    w.u16(hit.joint)
    for (const x of hit.impulse) w.f64(x)
  }
  if (!r) return
  w.raw(rt.world, 0, ctx.stores.Pose.count[eid]! * WORLD_STRIDE)
  writeInstance(w, r, `character ${eid}'s ragdoll`)
}

// ------------------------------------------------------------------------------------------------- restore

interface CharacterData {
  eid: number
  /** Byte offsets into the snapshot: store records, joint entities, pose block. */
  record: number
  joints: number
  pose: number
  asset: number
  base: number
  count: number
  binding: number
  fromBinding: number
  cursors: Uint32Array
}

interface RagdollData {
  eid: number
  flags: number
  /** The description, or null for the asset's default. */
  bodies: ResolvedBody[] | null
  impulses: { joint: number; impulse: readonly [number, number, number] }[]
  /** Byte offset of the read-back joint world transforms, -1 when the bodies do not exist. */
  world: number
  instance: InstanceData | null
}

interface Plan {
  bytes: Uint8Array
  layouts: Layouts
  step: number
  entities: { maxId: number; alive: number; dense: Uint32Array }
  pool: { slots: number; used: number; free: number[] }
  nodes: { eid: number; parent: number; record: number }[]
  characters: CharacterData[]
  ragdolls: RagdollData[]
  physics: PhysicsPlan
  events: AnimationEvent[]
}

/**
 * Restores a snapshot into `ctx`'s fresh world and plugin (see the header for what "fresh" means). Throws
 * AnimationError('snapshot') naming what does not match, before changing anything.
 */
export function restoreAnimation(ctx: AnimationContext, hooks: SnapshotHooks, bytes: Uint8Array): void {
  if (!(bytes instanceof Uint8Array)) {
    const got =
      bytes === null ? 'null' : typeof bytes === 'object' ? (bytes as object).constructor.name : typeof bytes
    throw new AnimationError('snapshot', `restore: expected the Uint8Array of a snapshot, got ${got}`)
  }
  applyPlan(ctx, hooks, readPlan(ctx, hooks, bytes))
}

/** Reads and checks the whole snapshot; changes nothing. */
function readPlan(ctx: AnimationContext, hooks: SnapshotHooks, bytes: Uint8Array): Plan {
  checkHeader(bytes)
  const layouts = layoutsOf(ctx)
  const r = createReader(bytes, 12)
  const checksum: [number, number] = [r.u32(), r.u32()]
  const actual = digestWords(createHasher().update(bytes, CHECKSUM_FROM, bytes.length))
  if (checksum[0] !== actual[0] || checksum[1] !== actual[1]) {
    throw snapshotError(
      `is corrupt: checksum ${hexWords(actual)} of its contents differs from the recorded ${hexWords(checksum)}`,
    )
  }
  const schema: [number, number] = [r.u32(), r.u32()]
  if (schema[0] !== layouts.schema[0] || schema[1] !== layouts.schema[1]) {
    throw snapshotError(
      `was written with another component layout (schema ${hexWords(schema)}, this build has ` +
        `${hexWords(layouts.schema)})`,
    )
  }
  const dt = r.f64()
  const capacity = r.u32()
  const maxSlots = r.u32()
  const step = r.u32()
  if (!Object.is(dt, ctx.dt)) {
    throw snapshotError(`has dt ${dt} s, this plugin ${ctx.dt} s (create it with the same dt)`)
  }
  if (capacity !== ctx.capacity) {
    throw snapshotError(
      `has capacity ${capacity}, this plugin ${ctx.capacity} (create it with the same capacity)`,
    )
  }
  if (maxSlots !== ctx.pool.maxSlots) {
    throw snapshotError(
      `has maxPoseSlots ${maxSlots}, this plugin ${ctx.pool.maxSlots} (create it with the same option)`,
    )
  }
  readAssets(ctx, r)
  checkFresh(ctx)

  r.section = 'entities'
  const maxId = r.u32()
  const alive = r.u32()
  const dense = readU32Array(bytes, r.span(4 * maxId), maxId)
  checkEntities(maxId, alive, dense)
  const isAlive = new Uint8Array(maxId + 1)
  for (let i = 0; i < alive; i++) isAlive[dense[i]!] = 1
  const checkEntity = (e: number, what: string): void => {
    if (!(e >= 1 && e <= maxId && isAlive[e] === 1 && e < ctx.capacity)) {
      throw snapshotError(`${what}: entity ${e} is not an alive id below capacity ${ctx.capacity}`)
    }
  }

  r.section = 'pool'
  const slots = r.u32()
  const used = r.u32()
  const ranges = r.u32()
  if (slots > maxSlots || ranges > slots) {
    throw snapshotError(`pose pool has ${slots} slots and ${ranges} free ranges (at most ${maxSlots} slots)`)
  }
  const free = Array.from(readU32Array(bytes, r.span(8 * ranges), 2 * ranges))

  const nodes = readNodes(r, layouts, checkEntity)
  const characters = readCharacters(ctx, r, layouts, checkEntity, nodes)
  checkPool(slots, used, free, characters)
  const ragdolls = readRagdolls(ctx, hooks, r, characters)
  r.section = 'physics'
  const sizes = new Map<number, { bodies: number; constraints: number }>()
  for (const rd of ragdolls) {
    if (rd.instance)
      sizes.set(rd.eid, { bodies: rd.instance.bodies.length, constraints: rd.instance.constraints.length })
  }
  const physics = readPhysicsWorld(r, ctx.physics, sizes)

  r.section = 'events'
  const events: AnimationEvent[] = []
  const text = (length: number): string => {
    const from = r.span(length)
    return decoder.decode(bytes.subarray(from, from + length))
  }
  for (let i = r.u32(); i > 0; i--) {
    const evStep = r.u32()
    const entity = r.i32()
    const kind = text(r.u8()) as AnimationEvent['kind']
    events.push({ step: evStep, entity, kind, message: text(r.u16()) })
  }
  if (r.at() !== bytes.length) {
    throw snapshotError(`has ${bytes.length - r.at()} unread bytes after its last section`)
  }
  return {
    bytes,
    layouts,
    step,
    entities: { maxId, alive, dense },
    pool: { slots, used, free },
    nodes,
    characters,
    ragdolls,
    physics,
    events,
  }
}

function checkHeader(bytes: Uint8Array): void {
  if (bytes.length < HEADER_BYTES) {
    throw snapshotError(`is truncated: ${bytes.length} bytes, shorter than the ${HEADER_BYTES}-byte header`)
  }
  if (!MAGIC.every((b, i) => bytes[i] === b)) {
    const got = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ')
    throw snapshotError(`does not start with "EASN" (45 41 53 4e) but with ${got}: not an ecs-anim snapshot`)
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint16(4, true)
  if (version !== SNAPSHOT_VERSION) {
    throw snapshotError(`has format version ${version}; this build reads version ${SNAPSHOT_VERSION} only`)
  }
  const total = view.getUint32(8, true)
  if (bytes.length < total) throw snapshotError(`is truncated: ${bytes.length} of its ${total} bytes`)
  if (bytes.length > total) throw snapshotError(`is ${total} bytes, but ${bytes.length} were given`)
}

function readAssets(ctx: AnimationContext, r: Reader): void {
  r.section = 'assets'
  const count = r.u16()
  for (let i = 0; i < count; i++) {
    const words: [number, number] = [r.u32(), r.u32()]
    const joints = r.u16()
    const clips = r.u16()
    const ra = ctx.assets[i]
    if (!ra) continue
    const mine = assetFingerprint(ctx, ra)
    if (mine[0] !== words[0] || mine[1] !== words[1]) {
      throw snapshotError(
        `asset ${i} (${joints} joints, ${clips} clips, fingerprint ${hexWords(words)}) differs from this ` +
          `plugin's asset ${i}, ${ra.asset.source} (${ra.jointNodes.length} joints, ${ra.clipIds.length} clips, ` +
          `fingerprint ${hexWords(mine)}): add the same assets in the same order before restoring`,
      )
    }
  }
  if (count !== ctx.assets.length) {
    throw snapshotError(
      `has ${count} assets, this plugin ${ctx.assets.length}: add the same assets in the same order before ` +
        'restoring',
    )
  }
}

function checkFresh(ctx: AnimationContext): void {
  const index = entityIndexOf(ctx.world)
  if (index.maxId !== 0 || index.dense.length !== 0) {
    throw snapshotError(
      `can only be restored into a fresh world: this one has already issued entity ids up to ${index.maxId} ` +
        `(${index.aliveCount} alive); restore into createWorld() with a new plugin`,
    )
  }
  if (index.versioning) throw snapshotError('cannot be restored into a world with versioned entity ids')
}

/** The dense array must be a permutation of 1..maxId (what the entity index of a plain-id world holds). */
function checkEntities(maxId: number, alive: number, dense: Uint32Array): void {
  if (alive > maxId) throw snapshotError(`entity index has ${alive} alive ids of ${maxId}`)
  const seen = new Uint8Array(maxId + 1)
  for (let i = 0; i < maxId; i++) {
    const e = dense[i]!
    if (e < 1 || e > maxId || seen[e] === 1) {
      throw snapshotError(`entity index is not a permutation of 1..${maxId} (id ${e} at ${i})`)
    }
    seen[e] = 1
  }
}

function readNodes(
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, what: string) => void,
): Plan['nodes'] {
  r.section = 'nodes'
  const nodes: Plan['nodes'] = []
  const parentOf = new Map<number, number>()
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.node.bytes)
    checkEntity(eid, `scene node ${nodes.length}`)
    if (parentOf.has(eid)) throw snapshotError(`lists scene node ${eid} twice`)
    const parent = recordValue(layouts.node, 'parent', r.bytes, record)
    parentOf.set(eid, parent)
    nodes.push({ eid, parent, record })
  }
  for (const { eid, parent } of nodes) {
    if (parent !== 0 && !parentOf.has(parent)) {
      throw snapshotError(`scene node ${eid} has parent ${parent}, not a scene node`)
    }
    for (let a = parent, k = 0; a !== 0; a = parentOf.get(a)!, k++) {
      if (a === eid || k > nodes.length) throw snapshotError(`scene node ${eid} is its own ancestor`)
    }
  }
  return nodes
}

function readCharacters(
  ctx: AnimationContext,
  r: Reader,
  layouts: Layouts,
  checkEntity: (e: number, what: string) => void,
  nodes: Plan['nodes'],
): CharacterData[] {
  r.section = 'characters'
  const isNode = new Set(nodes.map((n) => n.eid))
  const out: CharacterData[] = []
  const seen = new Set<number>()
  const clipOk = (c: number): boolean => c === -1 || (Number.isInteger(c) && c >= 0 && c < ctx.clips.length)
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const record = r.span(layouts.characterBytes)
    const what = `character ${eid}`
    checkEntity(eid, what)
    if (seen.has(eid) || !isNode.has(eid))
      throw snapshotError(`${what} is listed twice or is not a scene node`)
    seen.add(eid)
    const field = (store: string, name: string): number => {
      let from = record
      for (const l of layouts.character) {
        if (l.name === store) return recordValue(l, name, r.bytes, from)
        from += l.bytes
      }
      throw new Error(`snapshot: no store ${store}`)
    }
    const asset = field('Pose', 'asset')
    const count = field('Pose', 'count')
    const base = field('Pose', 'base')
    const ra = ctx.assets[asset]
    if (!ra || ra.jointNodes.length !== count) {
      throw snapshotError(
        `${what} has asset ${asset} with ${count} joints, which this plugin's assets do not match`,
      )
    }
    const binding = r.i32()
    const fromBinding = r.i32()
    for (const c of [binding, fromBinding, field('Sampler', 'clip'), field('CrossFade', 'fromClip')]) {
      if (!clipOk(c))
        throw snapshotError(`${what} refers to clip ${c}; this plugin has ${ctx.clips.length} clips`)
    }
    const cursorCount = r.u32()
    if (cursorCount < 2 || cursorCount % 2 !== 0 || cursorCount > 0x1000000) {
      throw snapshotError(`${what} has ${cursorCount} key cursors`)
    }
    const cursors = readU32Array(r.bytes, r.span(4 * cursorCount), cursorCount)
    const joints = r.span(4 * count)
    const pose = r.span(4 * POSE_LAYERS * count * JOINT_STRIDE)
    for (const j of readU32Array(r.bytes, joints, count)) {
      checkEntity(j, `${what}'s joint`)
      if (!isNode.has(j)) throw snapshotError(`${what}'s joint ${j} is not a scene node`)
    }
    out.push({ eid, record, joints, pose, asset, base, count, binding, fromBinding, cursors })
  }
  return out
}

/** Character blocks and free ranges must tile [0, slots) exactly, and `used` be the blocks' total. */
function checkPool(slots: number, used: number, free: number[], characters: CharacterData[]): void {
  const pieces: [number, number][] = characters.map((c) => [c.base, POSE_LAYERS * c.count])
  for (let i = 0; i < free.length; i += 2) pieces.push([free[i]!, free[i + 1]!])
  pieces.sort((a, b) => a[0] - b[0])
  let end = 0
  for (const [start, length] of pieces) {
    if (start !== end) {
      throw snapshotError(`pose pool ranges do not tile its ${slots} slots (gap or overlap at slot ${start})`)
    }
    end = start + length
  }
  const total = characters.reduce((s, c) => s + POSE_LAYERS * c.count, 0)
  if (end !== slots || used !== total) {
    throw snapshotError(
      `pose pool covers ${end} of ${slots} slots with ${used} used (characters hold ${total})`,
    )
  }
  for (let i = 2; i < free.length; i += 2) {
    if (free[i]! <= free[i - 2]!) throw snapshotError('pose pool free ranges are not sorted by start')
  }
}

function readRagdolls(
  ctx: AnimationContext,
  hooks: SnapshotHooks,
  r: Reader,
  characters: CharacterData[],
): RagdollData[] {
  r.section = 'ragdolls'
  const byEid = new Map(characters.map((c) => [c.eid, c]))
  const out: RagdollData[] = []
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const flags = r.u8()
    const what = `ragdoll of ${eid}`
    const c = byEid.get(eid)
    if (!c || out.some((x) => x.eid === eid)) throw snapshotError(`${what}: not a character, or listed twice`)
    const n = c.count
    let bodies: ResolvedBody[] | null = null
    if ((flags & FLAG_DEFAULT_DESCRIPTION) === 0) {
      bodies = []
      for (let b = r.u16(); b > 0; b--) {
        const node = r.i32()
        const shape = RAGDOLL_SHAPES[r.u8()]
        const parentBody = r.i32()
        const v = r.f64s(8)
        const joint = node >= 0 ? (ctx.assets[c.asset]!.nodeJoint[node] ?? -1) : -1
        if (!shape || joint < 0 || parentBody >= bodies.length) {
          throw snapshotError(`${what}: description body ${bodies.length} is malformed`)
        }
        const [radius, length, ax, ay, az, mass, coneAngle, twistAngle] = v
        bodies.push({
          node,
          shape,
          parentBody,
          radius: radius!,
          length: length!,
          axis: [ax!, ay!, az!],
          mass: mass!,
          coneAngle: coneAngle!,
          twistAngle: twistAngle!,
        })
      }
    }
    const impulses: RagdollData['impulses'] = []
    for (let k = r.u16(); k > 0; k--) {
      const joint = r.u16()
      const [x, y, z] = r.f64s(3)
      if (joint >= n) throw snapshotError(`${what}: queued hit at joint ${joint} of ${n}`)
      impulses.push({ joint, impulse: [x!, y!, z!] })
    }
    let world = -1
    let instance: InstanceData | null = null
    if ((flags & FLAG_BODIES) !== 0) {
      world = r.span(8 * n * WORLD_STRIDE)
      instance = readInstance(r, what)
      const description = bodies ?? hooks.defaultDescription(c.asset)
      if (instance.bodies.length !== description.length) {
        throw snapshotError(
          `${what}: ${instance.bodies.length} bodies for a description of ${description.length}`,
        )
      }
    }
    out.push({ eid, flags, bodies, impulses, world, instance })
  }
  return out
}

// --------------------------------------------------------------------------------------------------- apply

/** Rebuilds the state from a checked plan. Nothing here throws for any plan readPlan accepted. */
function applyPlan(ctx: AnimationContext, hooks: SnapshotHooks, plan: Plan): void {
  const { world, sceneGraph: graph } = ctx
  const { bytes, layouts } = plan

  // Entity index: ids 1..maxId, all removed in reverse snapshot order, the alive ones re-added (see header).
  const { maxId, alive, dense } = plan.entities
  for (let i = 0; i < maxId; i++) addEntity(world)
  for (let i = maxId - 1; i >= 0; i--) removeEntity(world, dense[i]!)
  for (let i = 0; i < alive; i++) addEntity(world)

  // Scene nodes: all as roots, then linked in record order (head insertion rebuilds each child list).
  for (const n of plan.nodes) addSceneNode(graph, n.eid, 0)
  for (const n of plan.nodes) if (n.parent !== 0) setSceneNodeParent(graph, n.eid, n.parent)
  for (const n of plan.nodes) copyRecord(layouts.node, n.eid, bytes, n.record)

  const pool = ctx.pool
  if (pool.slots !== plan.pool.slots) {
    pool.data = new Float32Array(plan.pool.slots * JOINT_STRIDE)
    pool.joints = new Int32Array(plan.pool.slots)
    pool.slots = plan.pool.slots
  }
  pool.used = plan.pool.used
  pool.free.length = 0
  pool.free.push(...plan.pool.free)

  const { Pose, Sampler, CrossFade, Ragdoll } = ctx.stores
  for (const c of plan.characters) {
    let from = c.record
    for (const layout of layouts.character) {
      copyRecord(layout, c.eid, bytes, from)
      from += layout.bytes
    }
    // The order addCharacter uses, so every query of the plugin lists characters in the snapshot's order.
    addComponent(world, c.eid, Pose)
    addComponent(world, c.eid, Sampler)
    addComponent(world, c.eid, CrossFade)
    addComponent(world, c.eid, Ragdoll)
    ctx.cursors[c.eid] = c.cursors
    ctx.binding[c.eid] = c.binding < 0 ? undefined : hooks.bindClip(c.binding, c.asset)
    ctx.fromBinding[c.eid] = c.fromBinding < 0 ? undefined : hooks.bindClip(c.fromBinding, c.asset)
    copyInto(pool.joints, c.base, bytes, c.joints, c.count)
    copyInto(pool.data, c.base * JOINT_STRIDE, bytes, c.pose, POSE_LAYERS * c.count * JOINT_STRIDE)
    ctx.fadePaths[c.eid] = new Uint8Array(c.count)
    planFadePaths(ctx, c.eid)
    // Squad data is built on a clip's first squad use; a restored character in squad mode needs it now.
    if (Sampler.rotation[c.eid] === ROTATION_SQUAD && Sampler.clip[c.eid]! >= 0) {
      prepareSquad(ctx.clips[Sampler.clip[c.eid]!]!.clip)
    }
    if (CrossFade.fromRotation[c.eid] === ROTATION_SQUAD && CrossFade.fromClip[c.eid]! >= 0) {
      prepareSquad(ctx.clips[CrossFade.fromClip[c.eid]!]!.clip)
    }
    hooks.reserveJoints(c.count)
  }

  const instances = new Map<number, RagdollInstance>()
  const instanceData = new Map<number, InstanceData>()
  for (const rd of plan.ragdolls) {
    const c = plan.characters.find((x) => x.eid === rd.eid)!
    const asset = ctx.assets[c.asset]!
    const description = rd.bodies ?? hooks.defaultDescription(c.asset)
    const world = new Float64Array(c.count * WORLD_STRIDE)
    if (rd.world >= 0) copyInto(world, 0, bytes, rd.world, c.count * WORLD_STRIDE)
    const instance = rd.instance ? buildInstance(rd.instance, description, asset.nodeJoint, c.count) : null
    if (instance) {
      instances.set(rd.eid, instance)
      instanceData.set(rd.eid, rd.instance!)
    }
    ctx.ragdolls[rd.eid] = {
      bodies: description,
      parents: asset.jointParents,
      instance,
      impulses: rd.impulses,
      world,
      // Scratch: written before they are read on the next step.
      previous: new Float64Array(c.count * WORLD_STRIDE),
      root: new Float64Array(WORLD_STRIDE),
      reported: (rd.flags & FLAG_REPORTED) !== 0,
    }
  }
  rebuildPhysicsWorld(ctx.physics, plan.physics, instances, instanceData)

  ctx.events.length = 0
  ctx.events.push(...plan.events)
  ctx.step = plan.step
}
