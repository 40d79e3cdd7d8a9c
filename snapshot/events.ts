import type { AnimationContext, AnimationEvent } from '../plugin/context.ts'
import { isClipEvent, isGraphEvent } from '../systems/state.ts'
import {
  ANIMATION_EVENT_KINDS,
  CLIP_EVENT_KINDS,
  GET_UP_FACINGS,
  GRAPH_EVENT_KINDS,
  type AnimationEventKind,
  type ClipEventKind,
  type GraphEventKind,
  type ProblemEventKind,
} from '../systems/state.ts'
import { ClipEventRecord } from '../systems/clipEvents.ts'
import { GraphEventRecord } from '../systems/graphEvents.ts'
import { MAX_LAYERS } from '../systems/layerState.ts'
import { wordsOfArray, type Reader } from '../src/sim/byteStream.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import {
  checkChoice,
  checkFinite,
  checkFlags,
  checkRange,
  invalidValue,
  snapshotError,
} from '../src/sim/valueChecks.ts'
import { decoder, REPORTED_POSE, REPORTED_WORLD } from './format.ts'

/**
 * The snapshot's "events" section:
 *
 *   u32 clip events dropped (ctx.droppedEvents)
 *   u32 reported × (u32 entity, u32 bits: REPORTED_POSE its 'pose-non-finite', REPORTED_WORLD its
 *       'world-non-finite' was reported), ascending entities
 *   u32 count × (u32 step, i32 entity, i32 character, text kind, then
 *     a problem report: text message;
 *     a get-up report: text message, u8 facing (1 prone, 2 supine), i32 clip id;
 *     a state machine's event: u8 layer, text layer name, text from, text to (its state follows from the kind);
 *     a clip event: u8 layer, i32 clip id, text clip name, text marker name, f64 time, f64 weight, u8 fading)
 *   where a text is u32 byte length and its UTF-8 bytes.
 */

/** Doubles on their way to the writer: through a typed array they are not boxed (see Writer.vec3). */
const D = new Float64Array(2)

export function writeEvents(ctx: AnimationContext, w: Writer): void {
  w.u32(ctx.droppedEvents)
  const countAt = w.at()
  w.u32(0)
  let count = 0
  // Four ids a word: most of the id range has no report.
  const pose = wordsOfArray(ctx.poseReported)
  const world = wordsOfArray(ctx.worldReported)
  const words = ctx.capacity >>> 2
  for (let k = 0; k <= words; k++) {
    if (k < words && (pose[k]! | world[k]!) === 0) continue
    for (let e = 4 * k; e < 4 * k + 4 && e < ctx.capacity; e++) {
      const bits = (ctx.poseReported[e] ? REPORTED_POSE : 0) | (ctx.worldReported[e] ? REPORTED_WORLD : 0)
      if (e === 0 || bits === 0) continue
      w.u32(e)
      w.u32(bits)
      count++
    }
  }
  w.setU32(countAt, count)
  w.u32(ctx.events.length)
  for (let i = 0; i < ctx.events.length; i++) writeEvent(w, ctx.events[i]!)
}

function writeEvent(w: Writer, ev: AnimationEvent): void {
  w.u32(ev.step)
  w.i32(ev.entity)
  w.i32(ev.character)
  w.utf8(ev.kind)
  if (ev.kind === 'ragdoll-get-up') {
    w.utf8(ev.message)
    w.u8(GET_UP_FACINGS.indexOf(ev.facing) + 1)
    w.i32(ev.clipId)
    return
  }
  if (isGraphEvent(ev)) {
    w.u8(ev.layer)
    w.utf8(ev.layerName)
    w.utf8(ev.from)
    w.utf8(ev.to)
    return
  }
  if (!isClipEvent(ev)) {
    w.utf8(ev.message)
    return
  }
  w.u8(ev.layer)
  w.i32(ev.clipId)
  w.utf8(ev.clip)
  w.utf8(ev.name)
  D[0] = ev.time
  D[1] = ev.weight
  w.raw(D, 0, 2)
  w.u8(ev.fading ? 1 : 0)
}

export interface EventsData {
  events: AnimationEvent[]
  droppedEvents: number
  /** Entities whose problem reports were made (REPORTED_* bits), ascending. */
  reported: { eid: number; bits: number }[]
}

export function readEvents(ctx: AnimationContext, r: Reader, step: number): EventsData {
  const droppedEvents = r.u32()
  const reported: { eid: number; bits: number }[] = []
  for (let i = r.u32(); i > 0; i--) {
    const eid = r.u32()
    const bits = r.u32()
    const where = `section "events", reported entity ${reported.length}`
    if (!(eid >= 1 && eid < ctx.capacity))
      throw snapshotError(`${where}: entity ${eid} is not an id below capacity ${ctx.capacity}`)
    if (reported.length > 0 && eid <= reported[reported.length - 1]!.eid) {
      throw snapshotError(`${where}: entity ${eid} is not after the one before it (ascending ids)`)
    }
    checkFlags(where, 'bits', bits, REPORTED_POSE | REPORTED_WORLD)
    if (bits === 0) throw invalidValue(where, 'bits', 0, 'must name a report')
    reported.push({ eid, bits })
  }
  const events: AnimationEvent[] = []
  for (let i = r.u32(); i > 0; i--) events.push(readEvent(ctx, r, events.length, step))
  return { events, droppedEvents, reported }
}

const EVENT_KINDS: readonly string[] = ANIMATION_EVENT_KINDS

/** One record of the events section, checked; a clip event comes back as the step makes it. */
function readEvent(ctx: AnimationContext, r: Reader, index: number, step: number): AnimationEvent {
  const where = `section "events", event ${index}`
  const text = (): string => {
    const length = r.u32()
    const from = r.span(length)
    return decoder.decode(r.bytes.subarray(from, from + length))
  }
  const evStep = r.u32()
  const entity = r.i32()
  const character = r.i32()
  const kind = text() as AnimationEventKind
  checkRange(where, 'step', evStep, 0, step)
  checkRange(where, 'entity', entity, 1, ctx.capacity - 1)
  checkRange(where, 'character', character, 0, ctx.capacity - 1)
  if (!EVENT_KINDS.includes(kind)) {
    throw snapshotError(`${where}: kind ${JSON.stringify(kind)} is not one of ${EVENT_KINDS.join(', ')}`)
  }
  if (kind === 'ragdoll-get-up') {
    const message = text()
    const facing = r.u8()
    checkChoice(where, 'facing', facing, [1, 2, 3])
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
      facing: GET_UP_FACINGS[facing - 1]!,
      clipId,
      clip,
    }
  }
  if ((GRAPH_EVENT_KINDS as readonly string[]).includes(kind)) {
    if (character !== entity)
      throw invalidValue(where, 'character', character, `must be its entity ${entity}`)
    const layer = r.u8()
    checkRange(where, 'layer', layer, 0, MAX_LAYERS - 1)
    const layerName = text()
    const from = text()
    const to = text()
    return new GraphEventRecord().set(kind as GraphEventKind, evStep, character, layer, layerName, from, to)
  }
  if (!(CLIP_EVENT_KINDS as readonly string[]).includes(kind)) {
    return { step: evStep, entity, character, kind: kind as ProblemEventKind, message: text() }
  }
  if (character !== entity) throw invalidValue(where, 'character', character, `must be its entity ${entity}`)
  const layer = r.u8()
  const clipId = r.i32()
  const clip = text()
  const name = text()
  const time = r.f64()
  const weight = r.f64()
  const fading = r.u8()
  checkRange(where, 'clip id', clipId, 0, ctx.clips.length - 1)
  checkFinite(where, 'time', [time])
  checkRange(where, 'weight', weight, 0, 1)
  checkChoice(where, 'fading', fading, [0, 1])
  return new ClipEventRecord().set(
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

/** The queue, the dropped count and the problem reports made, as the snapshot has them (every other cleared). */
export function applyEvents(ctx: AnimationContext, d: EventsData): void {
  ctx.events.length = 0
  for (const ev of d.events) ctx.events.push(ev)
  ctx.droppedEvents = d.droppedEvents
  ctx.poseReported.fill(0)
  ctx.worldReported.fill(0)
  for (const { eid, bits } of d.reported) {
    ctx.poseReported[eid] = bits & REPORTED_POSE ? 1 : 0
    ctx.worldReported[eid] = bits & REPORTED_WORLD ? 1 : 0
  }
}
