import { createHasher } from '../src/sim/hasher.ts'
import { POSE_LAYERS } from '../components/Pose.ts'
import type { AnimationContext, AnimationEvent } from '../plugin/context.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkRange,
  createReader,
  digestWords,
  hexWords,
  invalidValue,
  readU32Array,
  snapshotError,
  type Reader,
} from '../src/sim/byteStream.ts'
import { readPhysicsWorld, type PhysicsPlan } from '../src/physics/snapshot.ts'
import {
  CHECKSUM_FROM,
  HEADER_BYTES,
  type Layouts,
  MAGIC,
  SNAPSHOT_VERSION,
  assetFingerprint,
  decoder,
  entityIndexOf,
  layoutsOf,
  markersFingerprint,
  REPORTED_POSE,
  REPORTED_WORLD,
} from './format.ts'
import {
  ANIMATION_EVENT_KINDS,
  CLIP_EVENT_KINDS,
  type AnimationEventKind,
  type ClipEventKind,
  type ProblemEventKind,
} from '../systems/state.ts'
import { ClipEventRecord } from '../systems/clipEvents.ts'

import { readCharacters, readNodes, type CharacterData, type NodeData } from './readCharacters.ts'
import { checkRagdollStates, readRagdolls, type RagdollData } from './readRagdolls.ts'
import { readLayers, type LayersData } from './layers.ts'
import { readMorphs, type MorphData } from './morphs.ts'

export interface Plan {
  bytes: Uint8Array
  layouts: Layouts
  step: number
  entities: { maxId: number; alive: number; dense: Uint32Array }
  pool: { slots: number; used: number; free: number[] }
  nodes: NodeData[]
  characters: CharacterData[]
  layers: LayersData[]
  morphs: MorphData[]
  ragdolls: RagdollData[]
  physics: PhysicsPlan
  events: AnimationEvent[]
  droppedEvents: number
  /** Entities whose problem reports were made (REPORTED_* bits), ascending. */
  reported: { eid: number; bits: number }[]
}

/**
 * Reads and checks the whole snapshot; changes nothing. Throws AnimationError('snapshot') naming what does not
 * match, or the section, entity, field and value that is out of range.
 *
 * A snapshot whose checksum was recomputed after an edit passes the integrity check, so every value is checked
 * here against what apply.ts, the fixed step and cannon-es can take: a plan this accepts must restore without a
 * throw (apply.ts), step without a throw, and keep every world matrix finite. So floats are finite (bounded by
 * their type only: src/sim/byteStream.ts says why), rotations near unit length, enums and flags in range, sizes
 * and limits where cannon-es and the ragdoll code need them, and ids consistent with each other (alive, scene
 * nodes, no parent cycle, joints unique, ragdoll state, handle and runtime agreeing, bodies and constraints
 * matching the description).
 */
export function readPlan(ctx: AnimationContext, bytes: Uint8Array): Plan {
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
  // dt must be the plugin's own (so finite and > 0: the options check it).
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
  const checkEntity = (e: number, where: string): void => {
    if (!(e >= 1 && e <= maxId && isAlive[e] === 1 && e < ctx.capacity)) {
      throw snapshotError(`${where}: entity ${e} is not an alive id below capacity ${ctx.capacity}`)
    }
  }

  r.section = 'pool'
  const slots = r.u32()
  const used = r.u32()
  const ranges = r.u32()
  if (slots > maxSlots || ranges > slots) {
    throw snapshotError(
      `section "pool": ${slots} slots and ${ranges} free ranges (at most ${maxSlots} slots, and fewer ` +
        'ranges than slots)',
    )
  }
  const free = Array.from(readU32Array(bytes, r.span(8 * ranges), 2 * ranges))

  const nodes = readNodes(r, layouts, checkEntity)
  const characters = readCharacters(ctx, r, layouts, checkEntity, nodes, step)
  const layers = readLayers(ctx, r, characters, (eid) => characters.find((c) => c.eid === eid)!.clip)
  const morphs = readMorphs(ctx, r, characters)
  checkPool(slots, used, free, characters, layers)
  const ragdolls = readRagdolls(ctx, r, characters)
  checkRagdollStates(characters, ragdolls)
  r.section = 'physics'
  const sizes = new Map<number, { bodies: number; constraints: number }>()
  for (const rd of ragdolls) {
    if (rd.instance) {
      const { bodies, anchors, constraints } = rd.instance
      sizes.set(rd.eid, { bodies: bodies.length + anchors.length, constraints: constraints.length })
    }
  }
  const physics = readPhysicsWorld(r, ctx.physics, sizes)

  r.section = 'events'
  const droppedEvents = r.u32()
  const reported: { eid: number; bits: number }[] = []
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const bits = r.u8()
    const where = `section "events", reported entity ${reported.length}`
    checkEntity(eid, where)
    if (reported.length > 0 && eid <= reported[reported.length - 1]!.eid) {
      throw snapshotError(`${where}: entity ${eid} is not after the one before it (ascending ids)`)
    }
    checkFlags(where, 'bits', bits, REPORTED_POSE | REPORTED_WORLD)
    if (bits === 0) throw invalidValue(where, 'bits', 0, 'must name a report')
    reported.push({ eid, bits })
  }
  const events: AnimationEvent[] = []
  for (let i = r.u32(); i > 0; i--) events.push(readEvent(ctx, r, events.length, step))
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
    layers,
    morphs,
    ragdolls,
    physics,
    events,
    droppedEvents,
    reported,
  }
}

const EVENT_KINDS: readonly string[] = ANIMATION_EVENT_KINDS

/** One record of the events section (layout: format.ts), checked; a clip event comes back as the step makes it. */
function readEvent(ctx: AnimationContext, r: Reader, index: number, step: number): AnimationEvent {
  const where = `section "events", event ${index}`
  const text = (length: number): string => {
    const from = r.span(length)
    return decoder.decode(r.bytes.subarray(from, from + length))
  }
  const evStep = r.u32()
  const entity = r.i32()
  const character = r.i32()
  const kind = text(r.u8()) as AnimationEventKind
  checkRange(where, 'step', evStep, 0, step)
  checkRange(where, 'entity', entity, 1, ctx.capacity - 1)
  checkRange(where, 'character', character, 0, ctx.capacity - 1)
  if (!EVENT_KINDS.includes(kind)) {
    throw snapshotError(`${where}: kind ${JSON.stringify(kind)} is not one of ${EVENT_KINDS.join(', ')}`)
  }
  if (kind === 'ragdoll-get-up') {
    const message = text(r.u32())
    const facing = r.u8()
    checkChoice(where, 'facing', facing, [1, 2])
    const clipId = r.i32()
    checkRange(where, 'clip', clipId, -1, ctx.clips.length - 1)
    if (character !== entity)
      throw invalidValue(where, 'character', character, `must be its entity ${entity}`)
    const clip = clipId >= 0 ? ctx.clips[clipId]!.clip.name : ''
    return {
      step: evStep,
      entity,
      character,
      kind,
      message,
      facing: facing === 1 ? 'prone' : 'supine',
      clipId,
      clip,
    }
  }
  if (!(CLIP_EVENT_KINDS as readonly string[]).includes(kind)) {
    return { step: evStep, entity, character, kind: kind as ProblemEventKind, message: text(r.u32()) }
  }
  if (character !== entity) throw invalidValue(where, 'character', character, `must be its entity ${entity}`)
  const layer = r.u8()
  const clipId = r.i32()
  const clip = text(r.u32())
  const name = text(r.u32())
  const time = r.f64()
  const weight = r.f64()
  const fading = r.u8()
  checkRange(where, 'clip id', clipId, 0, ctx.clips.length - 1)
  checkFinite(where, 'time', [time])
  checkRange(where, 'weight', weight, 0, 1)
  checkChoice(where, 'fading', fading, [0, 1])
  return new ClipEventRecord(
    kind as ClipEventKind,
    evStep,
    character,
    layer,
    clip,
    clipId,
    name,
    time,
    weight,
    fading === 1,
  )
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
    const markerWords: [number, number] = [r.u32(), r.u32()]
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
    const myMarkers = markersFingerprint(ctx, ra)
    if (myMarkers[0] !== markerWords[0] || myMarkers[1] !== markerWords[1]) {
      const count = ra.clipIds.reduce((n, id) => n + ctx.clips[id]!.markers.times.length, 0)
      throw snapshotError(
        `asset ${i}'s clip markers (fingerprint ${hexWords(markerWords)}) differ from those of this plugin's ` +
          `asset ${i}, ${ra.asset.source} (${count} markers, fingerprint ${hexWords(myMarkers)}): add the same ` +
          'markers (addMarker) before restoring',
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
  if (alive > maxId) throw snapshotError(`section "entities": ${alive} alive ids of ${maxId}`)
  const seen = new Uint8Array(maxId + 1)
  for (let i = 0; i < maxId; i++) {
    const e = dense[i]!
    if (e < 1 || e > maxId || seen[e] === 1) {
      throw snapshotError(
        `section "entities": the index is not a permutation of 1..${maxId} (id ${e} at ${i})`,
      )
    }
    seen[e] = 1
  }
}

/**
 * Character blocks and free ranges must tile [0, slots) exactly, free ranges be non-empty, sorted and apart,
 * and `used` be the blocks' total.
 */
function checkPool(
  slots: number,
  used: number,
  free: number[],
  characters: CharacterData[],
  layers: LayersData[],
): void {
  for (let i = 0; i < free.length; i += 2) {
    if (free[i + 1] === 0)
      throw invalidValue('section "pool"', `free range ${i / 2} length`, 0, 'must be > 0')
  }
  const pieces: [number, number][] = characters.map((c) => [c.base, POSE_LAYERS * c.count])
  for (const c of layers) for (const l of c.layers) pieces.push([l.base, l.slots])
  for (let i = 0; i < free.length; i += 2) pieces.push([free[i]!, free[i + 1]!])
  pieces.sort((a, b) => a[0] - b[0])
  let end = 0
  for (const [start, length] of pieces) {
    if (start !== end) {
      throw snapshotError(
        `section "pool": ranges do not tile its ${slots} slots (gap or overlap at slot ${start})`,
      )
    }
    end = start + length
  }
  const total =
    characters.reduce((s, c) => s + POSE_LAYERS * c.count, 0) +
    layers.reduce((s, c) => s + c.layers.reduce((t, l) => t + l.slots, 0), 0)
  if (end !== slots || used !== total) {
    throw snapshotError(
      `section "pool": ranges cover ${end} of ${slots} slots with ${used} used (characters hold ${total})`,
    )
  }
  for (let i = 2; i < free.length; i += 2) {
    if (free[i]! <= free[i - 2]!) throw snapshotError('section "pool": free ranges are not sorted by start')
    // freePoseSlots merges neighbours, so a free range never ends where the next one starts.
    if (free[i - 2]! + free[i - 1]! === free[i]!) {
      throw invalidValue(
        'section "pool"',
        `free range ${i / 2} start`,
        free[i]!,
        'touches the range before it',
      )
    }
  }
}
