import {
  crossTimeline,
  CROSS_END,
  CROSS_MARKER,
  SPAN_AFTER,
  SPAN_BEFORE,
  SPAN_DELTA,
  SPAN_DURATION,
  SPAN_LENGTH,
} from '../src/clip/timeline.ts'
import {
  CLIP_EVENT_KINDS,
  MAX_QUEUED_EVENTS,
  type ClipEvent,
  type ClipEventKind,
  type RegisteredClip,
  type StepState,
} from './state.ts'

/** What a clip event emitter reads and writes: a slice of the plugin's context. */
export type ClipEventsInput = Pick<StepState, 'clips' | 'events' | 'step' | 'droppedEvents' | 'eventPool'>

/**
 * The float inputs of one emitClipEvents call, passed through memory (src/engine/v8.ts); the caller owns the
 * array:
 *
 *   | 0 phase before the step (s) | 1 delta: dt · speed (s, signed; 0 when the phase was held) |
 *   | 2 phase after: advancePhase's result, as stored | 3 the clip's weight in the pose (0..1) |
 */
export const EMIT_BEFORE = 0
export const EMIT_DELTA = 1
export const EMIT_AFTER = 2
export const EMIT_WEIGHT = 3
export const EMIT_INPUT_LENGTH = 4

/** emitClipEvents flags: the clip is the one a cross-fade fades out of (records say `fading: true`). */
export const EMIT_FADING_OUT = 1
/**
 * emitClipEvents flags: the clip starts this step at the phase before (play or crossFade set it, the step shows
 * it without advancing): the markers at exactly that time are met, nothing else.
 */
export const EMIT_START = 2

/** A function that reports one clip's events of one step (see createClipEventEmitter). */
export type ClipEventEmitter = (
  character: number,
  layer: number,
  clipId: number,
  loop: number,
  input: Float64Array,
  flags: number,
  finished: Uint8Array,
  finishedAt: number,
) => void

/**
 * Makes the function a system calls for each clip it advances, right after advancing its phase:
 * `emitClipEvents(character, layer, clipId, loop, input, flags, finished, finishedAt)` appends to `ctx.events`
 * the clip's loops, 'finished' and markers of this step (src/clip/timeline.ts), in order, as ClipEvent records
 * stamped with `ctx.step`. `loop` is the Sampler.loop value the phase advanced under, `input` the layout above,
 * `flags` EMIT_*; `finished[finishedAt]` is the clip's once-only 'finished' flag (Sampler.finished, or
 * CrossFade.fromFinished, or a layer's own), set here when 'finished' is reported and cleared by whoever starts
 * the clip. Allocates nothing when no event fires, and only the records when one does; never throws.
 */
export function createClipEventEmitter(ctx: ClipEventsInput): ClipEventEmitter {
  const span = new Float64Array(SPAN_LENGTH)
  // The call being reported, for the visitor (object references and integers only: a double kept in a closure
  // variable would be boxed at every write).
  let character = 0
  let layer = 0
  let registered: RegisteredClip | null = null
  let source: Float64Array = span
  let fadingOut = false
  let finishedFlags: Uint8Array | null = null
  let finishedAt = 0

  function visit(crossing: number, index: number): void {
    const rc = registered!
    if (crossing === CROSS_END) {
      if (finishedFlags![finishedAt] === 1) return
      finishedFlags![finishedAt] = 1
    }
    if (ctx.events.length >= MAX_QUEUED_EVENTS) {
      ctx.droppedEvents++
      return
    }
    const marker = crossing === CROSS_MARKER
    // Fields written here rather than through a call (v8.ts).
    const r = takeClipEvent(ctx)
    r.kind = CLIP_EVENT_KINDS[crossing]!
    r.step = ctx.step
    r.character = character
    r.entity = character
    r.layer = layer
    r.clip = rc.clip.name
    r.clipId = rc.id
    r.name = marker ? rc.markers.names[index]! : ''
    r.time = marker ? rc.markers.times[index]! : index === 1 ? rc.clip.duration : 0
    r.weight = source[EMIT_WEIGHT]!
    r.fading = fadingOut
    ctx.events.push(r)
  }

  /**
   * What emitClipEvents reports once the quick checks let a clip through. A function of its own so that the
   * quick checks, run for every clip of every character each step, are small enough for V8 to inline into the
   * systems' loops (as one function they were a call per clip).
   */
  function emitCrossings(
    eid: number,
    onLayer: number,
    rc: RegisteredClip,
    loop: number,
    input: Float64Array,
    flags: number,
    finished: Uint8Array,
    at: number,
  ): void {
    const start = (flags & EMIT_START) !== 0
    character = eid
    layer = onLayer
    registered = rc
    source = input
    fadingOut = (flags & EMIT_FADING_OUT) !== 0
    finishedFlags = finished
    finishedAt = at
    const times = rc.markers.times
    if (start) {
      // Local time of the start phase (components/Sampler.ts localTime).
      const d = rc.clip.duration
      const phase = input[EMIT_BEFORE]!
      const t = loop === 2 && phase > d ? 2 * d - phase : phase
      for (let i = 0; i < times.length; i++) if (times[i] === t) visit(CROSS_MARKER, i)
      return
    }
    span[SPAN_BEFORE] = input[EMIT_BEFORE]!
    span[SPAN_DELTA] = input[EMIT_DELTA]!
    span[SPAN_AFTER] = input[EMIT_AFTER]!
    span[SPAN_DURATION] = rc.clip.duration
    crossTimeline(span, loop, times, visit)
  }

  return function emitClipEvents(eid, onLayer, clipId, loop, input, flags, finished, at): void {
    const start = (flags & EMIT_START) !== 0
    const delta = input[EMIT_DELTA]!
    if (!start && delta === 0) return
    // A finished once-clip held at its end (the step pushes it against the end): nothing left to report.
    if (loop === 0 && finished[at] === 1 && input[EMIT_BEFORE] === input[EMIT_AFTER]) return
    const rc = ctx.clips[clipId]!
    // Most steps of most clips: forward, ending inside the clip's first run (advancePhase added the delta
    // without wrapping or clamping), and no markers: crossTimeline would meet nothing.
    if (
      !start &&
      delta > 0 &&
      input[EMIT_BEFORE]! + delta < rc.clip.duration &&
      rc.markers.times.length === 0
    )
      return
    emitCrossings(eid, onLayer, rc, loop, input, flags, finished, at)
  }
}

/**
 * Event records for reuse, one pool per record class (StepState.eventPool: clip events, shared by every
 * emitter of a plugin; .graphEventPool: state machines'). A record is handed out (`issued`) and queued; once the
 * game has removed it from the queue, a later step may take it back (`free`) and overwrite it. So a game that
 * clears the queue gets no allocation per step in steady state, even while events fire: the pool grows to the
 * most records queued at once, then stays.
 */
export interface EventPool<R extends PooledEvent> {
  /** The class of its records (a new one when none is free). */
  readonly record: new () => R
  /** Records to fill: `free[0..freeCount)`. */
  readonly free: R[]
  freeCount: number
  /** Records handed out and not yet taken back, oldest first: `issued[0..issuedCount)`. */
  readonly issued: R[]
  issuedCount: number
  /** The clock of the last reclaim (at most one per step: a queue nobody clears is walked once a step). */
  reclaimedAt: number
  /** Marks records found in the queue during a reclaim. */
  stamp: number
}

/** The clip events' pool. */
export type ClipEventPool = EventPool<ClipEventRecord>

export function createEventPool<R extends PooledEvent>(record: new () => R): EventPool<R> {
  return { record, free: [], freeCount: 0, issued: [], issuedCount: 0, reclaimedAt: -1, stamp: 0 }
}

export function createClipEventPool(): ClipEventPool {
  return createEventPool(ClipEventRecord)
}

// The pool's arrays only grow (counts, not push/pop): V8 gives an array's storage back when it shrinks, and
// allocates it again when it grows.
function put<R>(list: R[], at: number, r: R): void {
  if (at < list.length) list[at] = r
  else list.push(r)
}

/**
 * A record of `pool` to fill: a free one, else one reclaimed from those the game removed from `events`, else a
 * new one.
 */
export function takeEvent<R extends PooledEvent>(
  pool: EventPool<R>,
  events: readonly unknown[],
  step: number,
): R {
  if (pool.freeCount === 0 && pool.reclaimedAt !== step) reclaimEvents(pool, events, step)
  const record = pool.freeCount > 0 ? pool.free[--pool.freeCount]! : new pool.record()
  put(pool.issued, pool.issuedCount++, record)
  return record
}

function takeClipEvent(ctx: ClipEventsInput): ClipEventRecord {
  return takeEvent(ctx.eventPool, ctx.events, ctx.step)
}

/** Moves the issued records that are no longer in `events` to the free list, keeping the others' order. */
function reclaimEvents<R extends PooledEvent>(
  pool: EventPool<R>,
  events: readonly unknown[],
  step: number,
): void {
  pool.reclaimedAt = step
  const { free, issued } = pool
  const n = pool.issuedCount
  let kept = 0
  if (events.length > 0) {
    const stamp = ++pool.stamp
    for (let i = 0; i < events.length; i++) {
      const e = events[i]
      if (e instanceof pool.record) e.mark(stamp)
    }
    for (let i = 0; i < n; i++) {
      const r = issued[i]!
      if (r.marked(stamp)) issued[kept++] = r
      else put(free, pool.freeCount++, r)
    }
  } else {
    for (let i = 0; i < n; i++) put(free, pool.freeCount++, issued[i]!)
  }
  pool.issuedCount = kept
}

/** What a pooled record has besides its fields: the pool's mark (not enumerable: equality and JSON skip it). */
export abstract class PooledEvent {
  #stamp = 0

  mark(stamp: number): void {
    this.#stamp = stamp
  }

  marked(stamp: number): boolean {
    return this.#stamp === stamp
  }
}

/**
 * A ClipEvent as the step makes it: its fields, with the message written only when read. Records are reused
 * (ClipEventPool): the fields are readonly to the game, and rewritten by `set` only after the game removed the
 * record from the queue. `toJSON` (and so a copy made with it) includes the message.
 */
export class ClipEventRecord extends PooledEvent implements ClipEvent {
  kind: ClipEventKind = 'loop'
  step = 0
  character = 0
  entity = 0
  layer = 0
  clip = ''
  clipId = 0
  name = ''
  time = 0
  weight = 0
  fading = false

  /** Fills the record; returns it. */
  set(
    kind: ClipEventKind,
    step: number,
    character: number,
    layer: number,
    clip: string,
    clipId: number,
    name: string,
    time: number,
    weight: number,
    fading: boolean,
  ): this {
    this.kind = kind
    this.step = step
    this.character = character
    this.entity = character
    this.layer = layer
    this.clip = clip
    this.clipId = clipId
    this.name = name
    this.time = time
    this.weight = weight
    this.fading = fading
    return this
  }

  get message(): string {
    const what =
      this.kind === 'marker'
        ? `met marker "${this.name}" at ${this.time} s`
        : this.kind === 'loop'
          ? `looped at ${this.time === 0 ? 'its start' : 'its end'} (${this.time} s)`
          : `finished at ${this.time === 0 ? 'its start' : 'its end'} (${this.time} s)`
    const fading = this.fading ? `, fading out (weight ${this.weight})` : ''
    return `character ${this.character} layer ${this.layer}: clip "${this.clip}" ${what}${fading}`
  }

  toJSON(): ClipEvent {
    return { ...this, message: this.message }
  }
}
