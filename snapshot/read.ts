import { commitRemovals } from 'bitecs'
import { POSE_BUFFERS } from '../components/Pose.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { hexWords, Reader, readU32Array } from '../src/sim/byteStream.ts'
import { checksumWordsFast } from '../src/engine/checksum.ts'
import { invalidValue, snapshotError } from '../src/sim/valueChecks.ts'
import type { ForeignParts, PhysicsPlan, RagdollBodies } from '../src/physics/api.ts'
import {
  CHARACTER_ANIM_IS_LOCALS,
  CHECKSUM_FROM,
  closeSection,
  HEADER_BYTES,
  type Layouts,
  MAGIC,
  openSection,
  SNAPSHOT_VERSION,
  assetFingerprint,
  layoutsOf,
  markersFingerprint,
  retargetsFingerprint,
} from './format.ts'
import { readEntities, type EntitiesData } from './entities.ts'
import { readNodes, type NodesData } from './readNodes.ts'
import { readCharacters, type CharactersData } from './readCharacters.ts'
import { checkRagdollStates, readRagdolls, type RagdollData } from './readRagdolls.ts'
import { readLod, type LodData } from './lod.ts'
import { readClock } from './clock.ts'
import { readEvents, type EventsData } from './events.ts'
import { planStructure, type StructurePlan } from './structure.ts'
import { snapshotState } from './state.ts'
import {
  keepPlan,
  keptPlan,
  sameWords,
  structureMemo,
  type LocalSources,
  type StructureMemo,
} from './memo.ts'

export interface Plan {
  /** The snapshot (copied when it did not start at a multiple of 8 in its buffer). */
  bytes: Uint8Array
  layouts: Layouts
  step: number
  entities: EntitiesData
  pool: { slots: number; used: number; free: number[] }
  nodes: NodesData
  characters: CharactersData
  /** Each kind of per-character state's section as read (ctx.characterData's with a section, in order). */
  characterData: unknown[]
  ragdolls: RagdollData[]
  physics: PhysicsPlan
  /** The physics world's own (non-ragdoll) bodies and constraints now. */
  own: ForeignParts
  events: EventsData
  lod: LodData
  /** The animation clock's rate (the CLCK section). */
  timeScale: number
  structure: StructurePlan
}

/**
 * Reads and checks the whole snapshot against this plugin as it is now; changes nothing. Throws
 * AnimationError('snapshot') naming what does not match, or the section, entity, field and value that is out of
 * range, or the entity the plugin would need and cannot have (structure.ts).
 *
 * A snapshot whose checksum was recomputed after an edit passes the integrity check, so every value is checked
 * here against what apply.ts, the fixed step and cannon-es can take: a plan this accepts must restore without a
 * throw (apply.ts), step without a throw, and keep every world matrix finite. So floats are finite (bounded by
 * their type only: src/sim/valueChecks.ts says why), rotations near unit length, enums and flags in range, sizes
 * and limits where cannon-es and the ragdoll code need them, and ids consistent with each other (alive, scene
 * nodes, no parent cycle, joints unique, ragdoll state, handle and runtime agreeing, bodies and constraints
 * matching the description).
 */
export function readPlan(ctx: AnimationContext, input: Uint8Array): Plan {
  const bytes = input.byteOffset % 8 === 0 ? input : input.slice()
  checkHeader(bytes)
  const layouts = layoutsOf(ctx)
  const r = new Reader(bytes, 12)
  const checksum = new Uint32Array([r.u32(), r.u32()])
  const actual = new Uint32Array(2)
  checksumWordsFast(r.ints, CHECKSUM_FROM >>> 2, bytes.length >>> 2, actual)
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
  openSection(r, 'ASET', 'assets')
  readAssets(ctx, r)
  closeSection(r)

  const memo = structureMemo(ctx)
  openSection(r, 'ENTS', 'entities')
  const entities = readEntitiesOnce(r, memo)

  openSection(r, 'POOL', 'pool')
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
  closeSection(r)

  openSection(r, 'NODE', 'nodes')
  const nodes = readNodes(r, entities, ctx.capacity, memo)
  closeSection(r)

  openSection(r, 'CHAR', 'characters')
  const characters = readCharacters(ctx, r, layouts, entities, nodes, step, memo)
  closeSection(r)
  checkLocals(nodes, characters, memo)

  // Layers, morph weights, root motion, …: the section of each kind of per-character state that has one.
  const characterData: unknown[] = []
  const blocks: (readonly [number, number])[] = []
  for (const datum of ctx.characterData) {
    const section = datum.snapshot
    if (section === undefined) continue
    openSection(r, section.tag, section.name)
    const plan = section.read(ctx, r, characters)
    closeSection(r)
    characterData.push(plan)
    if (section.blocks) for (const b of section.blocks(plan)) blocks.push(b)
  }
  checkPool(slots, used, free, characters, blocks)

  openSection(r, 'RAGD', 'ragdolls')
  const ragdolls = readRagdolls(ctx, r, characters)
  closeSection(r)
  checkRagdollStates(characters, ragdolls)

  const state = snapshotState(ctx)
  commitRemovals(ctx.world)
  const own = ownPhysics(ctx, state.characters)
  openSection(r, 'PHYS', 'physics')
  const sizes = new Map<number, { bodies: number; constraints: number }>()
  for (const rd of ragdolls) {
    if (rd.instance)
      sizes.set(rd.eid, {
        bodies: rd.instance.bodyCount + rd.instance.anchorCount,
        constraints: rd.instance.constraintCount,
      })
  }
  const physics = ctx.physics.readWorld(r, own, sizes)
  closeSection(r)

  openSection(r, 'EVNT', 'events')
  const events = readEvents(ctx, r, step)
  closeSection(r)

  openSection(r, 'LODS', 'lod')
  const lod = readLod(r)
  closeSection(r)

  openSection(r, 'CLCK', 'clock')
  const timeScale = readClock(r)
  closeSection(r)
  if (r.at() !== bytes.length) {
    throw snapshotError(`has ${bytes.length - r.at()} unread bytes after its last section`)
  }
  let structure = keptPlan(memo, ctx, nodes.structure, characters, state.characters)
  if (structure === null) {
    structure = planStructure(ctx, entities, nodes, characters, state.characters)
    keepPlan(memo, ctx, structure, nodes.structure, characters)
  }
  return {
    bytes,
    layouts,
    step,
    entities,
    pool: { slots, used, free },
    nodes,
    characters,
    characterData,
    ragdolls,
    physics,
    own,
    events,
    lod,
    timeScale,
    structure,
  }
}

/**
 * The entities section's body, closed: as the memo has it when its words are those last read (memo.ts), else
 * read, checked to its end and kept.
 */
function readEntitiesOnce(r: Reader, memo: StructureMemo): EntitiesData {
  const at = r.at()
  const words = (r.limit - at) >>> 2
  if (memo.entities !== null && sameWords(r.ints, at >>> 2, memo.entitiesBytes, words)) {
    r.span(r.limit - at)
    closeSection(r)
    return memo.entities
  }
  const entities = readEntities(r)
  closeSection(r)
  memo.entities = entities
  memo.entitiesBytes = r.ints.slice(at >>> 2, (at >>> 2) + words)
  return entities
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
  if (total % 8 !== 0) throw snapshotError(`is ${total} bytes, not a multiple of 8`)
}

function readAssets(ctx: AnimationContext, r: Reader): void {
  const count = r.u16()
  for (let i = 0; i < count; i++) {
    const words: [number, number] = [r.u32(), r.u32()]
    const retargetWords: [number, number] = [r.u32(), r.u32()]
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
    const myRetargets = retargetsFingerprint(ctx, ra)
    if (myRetargets[0] !== retargetWords[0] || myRetargets[1] !== retargetWords[1]) {
      const own = ra.asset.clips.length
      const names = ra.clipIds.slice(own).map((id) => JSON.stringify(ctx.clips[id]!.clip.name))
      throw snapshotError(
        `asset ${i}'s retargeted clips (${clips - own}, fingerprint ${hexWords(retargetWords)}) differ from ` +
          `those of this plugin's asset ${i}, ${ra.asset.source} (${names.length}${names.length > 0 ? `: ${names.join(', ')}` : ''}; ` +
          `fingerprint ${hexWords(myRetargets)}): make the same retarget calls, in the same order among the ` +
          'addAsset calls, before restoring',
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

/**
 * Every node's local transform comes from exactly one place: the nodes section, or its character's ANIM. Once
 * for the same node and character structure, stored runs and characters whose ANIM the locals are (memo.ts).
 */
function checkLocals(nodes: NodesData, chars: CharactersData, memo: StructureMemo): void {
  const known = memo.locals
  if (
    known !== null &&
    known.nodes === nodes.structure &&
    known.characters === chars.structure &&
    sameLocalSources(known, nodes, chars)
  ) {
    return
  }
  checkLocalSources(nodes, chars)
  const anim = new Uint8Array(chars.count)
  for (let i = 0; i < chars.count; i++) anim[i] = chars.flags[i]! & CHARACTER_ANIM_IS_LOCALS
  memo.locals = {
    nodes: nodes.structure,
    characters: chars.structure,
    runs: nodes.localRuns.slice(),
    anim,
  }
}

function sameLocalSources(known: LocalSources, nodes: NodesData, chars: CharactersData): boolean {
  const runs = nodes.localRuns
  if (known.runs.length !== runs.length || known.anim.length !== chars.count) return false
  for (let k = 0; k < runs.length; k++) if (known.runs[k] !== runs[k]) return false
  for (let i = 0; i < chars.count; i++) {
    if (known.anim[i] !== (chars.flags[i]! & CHARACTER_ANIM_IS_LOCALS)) return false
  }
  return true
}

function checkLocalSources(nodes: NodesData, chars: CharactersData): void {
  const source = new Uint8Array(nodes.count)
  const runs = nodes.localRuns
  for (let k = 0; k < runs.length; k += 2) {
    for (let e = runs[k]!; e < runs[k]! + runs[k + 1]!; e++) source[nodes.position[e]! - 1]! += 1
  }
  for (let i = 0; i < chars.count; i++) {
    if ((chars.flags[i]! & CHARACTER_ANIM_IS_LOCALS) === 0) continue
    const from = chars.jointsFrom[i]!
    for (let j = 0; j < chars.n[i]!; j++) {
      const e = chars.joints[from + j]!
      if (e !== 0) source[nodes.position[e]! - 1]! += 2
    }
  }
  for (let i = 0; i < nodes.count; i++) {
    if (source[i] === 1 || source[i] === 2) continue
    throw invalidValue(
      `section "nodes", scene node ${nodes.ids[i]}`,
      'local transform',
      source[i]!,
      source[i] === 0
        ? 'is not stored (nor is it a joint of a character whose ANIM it is)'
        : 'is stored twice',
    )
  }
}

/** The physics world's bodies and constraints that no character's ragdoll holds now, in world order. */
function ownPhysics(ctx: AnimationContext, characters: readonly number[]): ForeignParts {
  const live: RagdollBodies[] = []
  for (const eid of characters) {
    const r = ctx.ragdolls[eid]?.instance
    if (r) live.push(r)
  }
  return ctx.physics.foreignParts(live)
}

/**
 * Character blocks, layer blocks and free ranges must tile [0, slots) exactly, free ranges be non-empty, sorted
 * and apart, and `used` be the blocks' total.
 */
function checkPool(
  slots: number,
  used: number,
  free: number[],
  characters: CharactersData,
  blocks: readonly (readonly [number, number])[],
): void {
  for (let i = 0; i < free.length; i += 2) {
    if (free[i + 1] === 0)
      throw invalidValue('section "pool"', `free range ${i / 2} length`, 0, 'must be > 0')
  }
  const pieces: [number, number][] = []
  let total = 0
  for (let i = 0; i < characters.count; i++) {
    pieces.push([characters.base[i]!, POSE_BUFFERS * characters.n[i]!])
    total += POSE_BUFFERS * characters.n[i]!
  }
  for (const [start, length] of blocks) {
    pieces.push([start, length])
    total += length
  }
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
