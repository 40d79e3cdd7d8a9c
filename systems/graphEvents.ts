/**
 * A state machine's events (GraphEvent, systems/state.ts): records from their own pool (StepState.graphEventPool,
 * reused as clip events' are: systems/clipEvents.ts), stamped with the clock.
 */
import { PooledEvent, takeEvent } from './clipEvents.ts'
import { MAX_QUEUED_EVENTS, type GraphEvent, type GraphEventKind, type StepState } from './state.ts'

/** What emitting a state machine's event reads and writes: a slice of the plugin's context. */
export type GraphEventsInput = Pick<StepState, 'events' | 'step' | 'droppedEvents' | 'graphEventPool'>

/**
 * Appends a GraphEvent of character `eid`'s graph layer `layerName` (driving plugin layer `layer`) to the queue, or
 * counts it in droppedEvents when the queue holds MAX_QUEUED_EVENTS. Allocates only a record when no reused one
 * is free; never throws.
 */
export function emitGraphEvent(
  ctx: GraphEventsInput,
  kind: GraphEventKind,
  eid: number,
  layer: number,
  layerName: string,
  from: string,
  to: string,
): void {
  if (ctx.events.length >= MAX_QUEUED_EVENTS) {
    ctx.droppedEvents++
    return
  }
  ctx.events.push(
    takeEvent(ctx.graphEventPool, ctx.events, ctx.step).set(kind, ctx.step, eid, layer, layerName, from, to),
  )
}

/** A GraphEvent as the step makes it (see ClipEventRecord): its fields, the message written when read. */
export class GraphEventRecord extends PooledEvent implements GraphEvent {
  kind: GraphEventKind = 'state-enter'
  step = 0
  character = 0
  entity = 0
  layer = 0
  layerName = ''
  state = ''
  from = ''
  to = ''

  /** Fills the record (`state` follows from the kind); returns it. */
  set(
    kind: GraphEventKind,
    step: number,
    character: number,
    layer: number,
    layerName: string,
    from: string,
    to: string,
  ): this {
    this.kind = kind
    this.step = step
    this.character = character
    this.entity = character
    this.layer = layer
    this.layerName = layerName
    this.state = kind === 'state-exit' ? from : to
    this.from = from
    this.to = to
    return this
  }

  get message(): string {
    const where = `character ${this.character} layer ${this.layer} ("${this.layerName}")`
    switch (this.kind) {
      case 'state-enter':
        return `${where}: entered state "${this.to}"${this.from === '' ? '' : ` from "${this.from}"`}`
      case 'state-exit':
        return `${where}: left state "${this.from}"${this.to === '' ? '' : ` for "${this.to}"`}`
      case 'transition-start':
        return `${where}: transition from "${this.from}" to "${this.to}" started`
      default:
        return `${where}: transition from "${this.from}" to "${this.to}" ended`
    }
  }

  toJSON(): GraphEvent {
    return { ...this, message: this.message }
  }
}
