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
export type ClipEventsInput = Pick<StepState, 'clips' | 'events' | 'step' | 'droppedEvents'>

/**
 * The float inputs of one emitClipEvents call, passed through memory (V8 boxes a float argument of a call it
 * does not inline, ARCHITECTURE.md); the caller owns the array:
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
    ctx.events.push(
      new ClipEventRecord(
        CLIP_EVENT_KINDS[crossing]!,
        ctx.step,
        character,
        layer,
        rc.clip.name,
        rc.id,
        marker ? rc.markers.names[index]! : '',
        marker ? rc.markers.times[index]! : index === 1 ? rc.clip.duration : 0,
        source[EMIT_WEIGHT]!,
        fadingOut,
      ),
    )
  }

  return function emitClipEvents(eid, onLayer, clipId, loop, input, flags, finished, at): void {
    const start = (flags & EMIT_START) !== 0
    if (!start && input[EMIT_DELTA] === 0) return
    // A finished once-clip held at its end (the step pushes it against the end): nothing left to report.
    if (loop === 0 && finished[at] === 1 && input[EMIT_BEFORE] === input[EMIT_AFTER]) return
    const rc = ctx.clips[clipId]!
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
}

/**
 * A ClipEvent as the step makes it: its fields, with the message written only when read (so a record is the
 * step's only allocation). `toJSON` includes the message.
 */
export class ClipEventRecord implements ClipEvent {
  readonly kind: ClipEventKind
  readonly step: number
  readonly character: number
  readonly entity: number
  readonly layer: number
  readonly clip: string
  readonly clipId: number
  readonly name: string
  readonly time: number
  readonly weight: number
  readonly fading: boolean

  constructor(
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
  ) {
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
