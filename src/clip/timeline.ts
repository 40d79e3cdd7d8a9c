/**
 * What a clip's play head crosses in one step: its loop wraps and ping-pong turns, the moment a 'once' clip runs
 * into its end, and its markers, each reported once per crossing, in the order the head meets them. Pure and
 * allocation-free: the caller gives the step's motion and a visitor, and keeps any state (a 'finished' flag)
 * itself. Used for a character's clip and for the clip it fades out of (systems/clipEvents.ts), and by any
 * layer that plays a clip with a phase, a speed and a loop mode.
 *
 * The play phase (components/Sampler.ts) lives on a line cut into segments one clip long:
 *
 *   repeat     | 0 ──▶ d | 0 ──▶ d | …       a boundary between segments is a wrap (d ≡ 0)
 *   ping-pong  | 0 ──▶ d | d ──▶ 0 | …       boundaries alternate: a turn at d, a wrap at 0 (phase 2d ≡ 0)
 *   once       | 0 ──▶ d |                   clamped: the head stops at either end
 *
 * Crossing rule: the head "meets" what lies on its path after where it was and up to where it lands, moving
 * forwards (phase (before, after]) or backwards ([after, before)). Landing on a marker or an end meets it;
 * leaving one does not. So a marker is met once per pass, also across any number of wraps in one step, and a
 * step of speed 0 meets nothing. What lies on a boundary is met in this order: the markers at the time being
 * left (repeat: d going forwards, 0 going backwards; ping-pong: the turn's own time), the wrap or turn, then,
 * for repeat, the markers at the time arrived at (0 going forwards, d going backwards). A marker at exactly 0
 * and one at exactly d are two markers of a repeating clip (both met at each wrap), and one point of a
 * ping-pong clip's path (met once per turn). Markers at one time are met in their order in the list (by
 * time, then as added), whichever way the head moves.
 *
 * Bounds: a step reports at most MAX_BOUNDARIES_PER_STEP wraps and turns (a clip far shorter than one step at
 * its speed); the ones beyond, and the markers between them, are skipped, and the markers after the last wrap
 * still show. A clip of duration 0 reports only CROSS_END (a 'once' clip, any nonzero delta). Never throws.
 */

/** A marker was met; `index` is its place in the marker times. */
export const CROSS_MARKER = 0
/** A repeating clip wrapped or a ping-pong clip turned; `index` is the end met: 0 (time 0) or 1 (duration). */
export const CROSS_LOOP = 1
/**
 * A 'once' clip's step ended against the end it plays towards (`index` 1: the duration going forwards, 0: time
 * 0 going backwards). Reported on every such step, also while it stays there: the caller reports 'finished'
 * once (see emitClipEvents).
 */
export const CROSS_END = 2

/** What crossTimeline reports, in order: `kind` one of CROSS_*, `index` as each describes. */
export type CrossingVisitor = (kind: number, index: number) => void

/** Wraps and turns reported per step at most (see the header). */
export const MAX_BOUNDARIES_PER_STEP = 16

/** Sampler.loop's values (components/Sampler.ts: LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG). */
const ONCE = 0
const PINGPONG = 2

/**
 * The step's motion, read by crossTimeline, written by the caller (floats through memory: src/engine/v8.ts):
 *
 *   | 0 phase before (s) | 1 delta: dt · speed (s, signed) | 2 phase after (s) | 3 clip duration (s) |
 *
 * Phase after is advancePhase(before, delta, duration, loop), exactly (components/Sampler.ts): crossings are
 * counted against it, so they agree with the time the sampler shows.
 */
export const SPAN_BEFORE = 0
export const SPAN_DELTA = 1
export const SPAN_AFTER = 2
export const SPAN_DURATION = 3
export const SPAN_LENGTH = 4

/**
 * Reports, in order, what the play head crosses moving by `span` (layout above) under `loop` (0 once, 1 repeat,
 * 2 ping-pong), with `times` the clip's marker times in seconds, ascending, each in [0, duration]. Nothing for a
 * delta of 0 or any value of `span` that is not finite.
 */
export function crossTimeline(span: Float64Array, loop: number, times: Float64Array, visit: CrossingVisitor) {
  const before = span[SPAN_BEFORE]!
  const delta = span[SPAN_DELTA]!
  const after = span[SPAN_AFTER]!
  const d = span[SPAN_DURATION]!
  if (delta === 0 || !(delta - delta === 0 && before - before === 0 && after - after === 0 && d - d === 0))
    return
  if (loop === ONCE) {
    crossOnce(span, times, visit)
    return
  }
  if (!(d > 0)) return
  const pingpong = loop === PINGPONG
  const segments = pingpong ? 2 : 1
  // Whole periods between the unwrapped end of the motion and the wrapped phase advancePhase gave.
  const periods = Math.round((before + delta - after) / (segments * d))
  if (!(periods - periods === 0)) return
  const s0 = pingpong && before >= d ? 1 : 0
  const s1 = pingpong && after >= d ? 1 : 0
  // Is the head exactly on a boundary (offset 0 in its segment) before, after?
  const onBoundary0 = before === s0 * d
  const onBoundary1 = after === s1 * d
  // Boundaries j·d with before < j·d ≤ the unwrapped end (forwards), or end ≤ j·d < before (backwards).
  const forward = delta > 0
  let boundaries = forward
    ? periods * segments + s1 - s0
    : s0 - s1 - periods * segments + (onBoundary0 ? 0 : 1) - (onBoundary1 ? 0 : 1)
  if (!(boundaries > 0)) boundaries = 0
  if (boundaries === 0) {
    // The common case: the head stays inside one segment, and meets a marker only between its two local times.
    // Looked for here, without a call, so that the walks below run only when something is met (they are large,
    // and a call V8 does not inline boxes floats: src/engine/v8.ts).
    let from = pingpong && before > d ? 2 * d - before : before
    // Leaving a boundary backwards starts from the end of the segment before it (walkBackward).
    if (!forward && onBoundary0) from = pingpong && s0 === 0 ? 0 : d
    const to = pingpong && after > d ? 2 * d - after : after
    const lo = from < to ? from : to
    const hi = from < to ? to : from
    let near = false
    for (let i = 0; i < times.length && !near; i++) near = times[i]! >= lo && times[i]! <= hi
    if (!near) return
  }
  if (forward) walkForward(span, pingpong, s1, boundaries, times, visit)
  else walkBackward(span, pingpong, s1, onBoundary1, boundaries, times, visit)
}

/** Once: markers on the path (before, after] or [after, before), then the end if the motion ends against it. */
function crossOnce(span: Float64Array, times: Float64Array, visit: CrossingVisitor): void {
  const before = span[SPAN_BEFORE]!
  const after = span[SPAN_AFTER]!
  if (span[SPAN_DELTA]! > 0) {
    for (let i = 0; i < times.length; i++) {
      const t = times[i]!
      if (t > after) break
      if (t > before) visit(CROSS_MARKER, i)
    }
    if (after >= span[SPAN_DURATION]!) visit(CROSS_END, 1)
  } else {
    for (let i = times.length - 1; i >= 0; i--) {
      const t = times[i]!
      if (t < after) break
      if (t < before) i = visitRun(times, i, visit)
    }
    if (after <= 0) visit(CROSS_END, 0)
  }
}

/**
 * Walks the segments forwards (phase rising) from `before` to `after`, meeting each segment's markers and each
 * boundary's group. Segment s's local time rises with the phase (repeat, ping-pong's first half) or falls
 * (ping-pong's second half); a boundary at the start of the second half is the turn (local d), any other a
 * wrap (local 0, which for repeat is also d).
 */
function walkForward(
  span: Float64Array,
  pingpong: boolean,
  s1: number,
  boundaries: number,
  times: Float64Array,
  visit: CrossingVisitor,
): void {
  const d = span[SPAN_DURATION]!
  const before = span[SPAN_BEFORE]!
  range[END] = d
  let s = pingpong && before >= d ? 1 : 0
  range[FROM] = pingpong && before > d ? 2 * d - before : before
  const walked = boundaries < MAX_BOUNDARIES_PER_STEP ? boundaries : MAX_BOUNDARIES_PER_STEP
  for (let b = 0; b < walked; b++) {
    // The rest of segment s (local time rising in segment 0), then the boundary at the start of the next.
    meetSegmentRest(times, s === 0, visit)
    s = pingpong ? 1 - s : 0
    meetBoundary(times, s, pingpong, true, visit)
    range[FROM] = s === 0 ? 0 : d
  }
  if (boundaries > walked) {
    s = s1
    range[FROM] = s === 0 ? 0 : d
  }
  const after = span[SPAN_AFTER]!
  range[TO] = pingpong && after > d ? 2 * d - after : after
  if (s === 0) markersUp(times, true, visit)
  else markersDown(times, true, visit)
}

/** walkForward's mirror: the phase falls from `before` to `after`. */
function walkBackward(
  span: Float64Array,
  pingpong: boolean,
  s1: number,
  onBoundary1: boolean,
  boundaries: number,
  times: Float64Array,
  visit: CrossingVisitor,
): void {
  const d = span[SPAN_DURATION]!
  const before = span[SPAN_BEFORE]!
  range[END] = d
  let s = pingpong && before >= d ? 1 : 0
  range[FROM] = pingpong && before > d ? 2 * d - before : before
  if (before === s * d) {
    // Standing on the start of s: that boundary was met when the head arrived; go on from the segment before.
    s = pingpong ? 1 - s : 0
    range[FROM] = s === 0 ? d : 0
  }
  const walked = boundaries < MAX_BOUNDARIES_PER_STEP ? boundaries : MAX_BOUNDARIES_PER_STEP
  for (let b = 0; b < walked; b++) {
    // Back through segment s to its start (local time falling in segment 0), then that boundary.
    meetSegmentRest(times, s !== 0, visit)
    meetBoundary(times, s, pingpong, false, visit)
    s = pingpong ? 1 - s : 0
    range[FROM] = s === 0 ? d : 0
  }
  if (boundaries > walked) {
    s = s1
    range[FROM] = s === 0 ? d : 0
  }
  // Landing exactly on a boundary: it was the last thing met.
  if (onBoundary1) return
  const after = span[SPAN_AFTER]!
  range[TO] = pingpong && after > d ? 2 * d - after : after
  if (s === 0) markersDown(times, true, visit)
  else markersUp(times, true, visit)
}

/**
 * The markers from range's FROM to the end of a segment, that end excluded (it is a boundary's): up to the
 * duration when local time rises, down to 0 when it falls.
 */
function meetSegmentRest(times: Float64Array, rising: boolean, visit: CrossingVisitor): void {
  if (rising) {
    range[TO] = range[END]!
    markersUp(times, false, visit)
  } else {
    range[TO] = 0
    markersDown(times, false, visit)
  }
}

/**
 * What lies on the boundary at the start of segment s (see the header): ping-pong, the markers at the turn
 * or wrap and the loop; repeat, the markers at the time left, the loop, the markers at the time arrived at.
 */
function meetBoundary(
  times: Float64Array,
  s: number,
  pingpong: boolean,
  forward: boolean,
  visit: CrossingVisitor,
): void {
  if (pingpong) {
    markersAt(times, s === 1, visit)
    visit(CROSS_LOOP, s)
    return
  }
  markersAt(times, forward, visit)
  visit(CROSS_LOOP, forward ? 1 : 0)
  markersAt(times, !forward, visit)
}

/** The marker helpers' bounds (local times, s) and the duration, passed through memory like `span`. */
const range = new Float64Array(3)
const FROM = 0
const TO = 1
const END = 2

/** Markers with from < t < to (t ≤ to when `closed`), ascending. */
function markersUp(times: Float64Array, closed: boolean, visit: CrossingVisitor): void {
  const from = range[FROM]!
  const to = range[TO]!
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!
    if (t > to || (t === to && !closed)) break
    if (t > from) visit(CROSS_MARKER, i)
  }
}

/** Markers with to < t < from (to ≤ t when `closed`), descending (equal times among themselves ascending). */
function markersDown(times: Float64Array, closed: boolean, visit: CrossingVisitor): void {
  const from = range[FROM]!
  const to = range[TO]!
  for (let i = times.length - 1; i >= 0; i--) {
    const t = times[i]!
    if (t < to || (t === to && !closed)) break
    if (t < from) i = visitRun(times, i, visit)
  }
}

/** Visits the run of markers at times[last]'s time, ascending, ending at `last`; returns the run's first index. */
function visitRun(times: Float64Array, last: number, visit: CrossingVisitor): number {
  let first = last
  while (first > 0 && times[first - 1] === times[last]) first--
  for (let k = first; k <= last; k++) visit(CROSS_MARKER, k)
  return first
}

/** Markers at exactly the duration (`atEnd`: range's END) or exactly 0, ascending. */
function markersAt(times: Float64Array, atEnd: boolean, visit: CrossingVisitor): void {
  if (!atEnd) {
    for (let i = 0; i < times.length && times[i] === 0; i++) visit(CROSS_MARKER, i)
    return
  }
  const d = range[END]!
  // Times are ≤ d: the ones at d are the last, a run in ascending order.
  let first = times.length
  while (first > 0 && times[first - 1]! >= d) first--
  for (let i = first; i < times.length; i++) visit(CROSS_MARKER, i)
}
