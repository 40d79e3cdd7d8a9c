import type { Clip } from '../src/clip/clip.ts'
import { sampleChannelFrom } from '../src/engine/sample.ts'
import { multiplyQuat, normalizeQuat } from '../src/math/quat.ts'
import {
  accumulateRigid,
  blendRigid,
  finishRigidSum,
  identityRigid,
  invertMultiplyRigid,
  multiplyRigid,
  powerRigid,
  RIGID,
  twistY,
} from '../src/math/rigid.ts'
import { JOINT_STRIDE, R_OFFSET } from '../src/math/poseLayout.ts'
import type { Rig } from '../src/skeleton/rig.ts'
import { EMIT_AFTER, EMIT_BEFORE, EMIT_DELTA, EMIT_WEIGHT } from './clipEvents.ts'
import { MODE_ADDITIVE, type AnimLayerStore } from '../components/AnimLayer.ts'
import type { Layer } from './layerState.ts'

/**
 * Root motion: a character's root joint's travel, taken out of its pose and given to its entity.
 *
 * The joint's transform in the character's space is M = P·L: L its local pose, P its ancestors at their rest
 * pose (in every rig we know they do not move: an armature's root nodes). Its root part R(M) is, for
 * 'horizontal', the translation on the ground plane (x, 0, z) and the heading (the twist about +y of its
 * rotation relative to its rest rotation); for 'full', the whole translation and that relative rotation. Each
 * step:
 * - every clip that plays (either side of a cross-fade, every layer, every blend-space point) adds its joint's
 *   motion over the step, δ = R(before)⁻¹·R(after) — over a loop wrap R(before)⁻¹·R(end) · R(start)⁻¹·R(after)
 *   (no snap back), ping-pong and 'once' along their local time — weighted by its share of its layer
 *   (addRootMotionSource);
 * - layers compose those by weight × the joint's mask weight: an override layer lerps the result below toward
 *   its own, an additive one adds its weighted motion on top (composeRootMotionLayer);
 * - extractRootMotion turns the result into the entity's motion in the character's own space, Δ = R0·δ·R0⁻¹
 *   (R0 the rest pose's root part: the character turns about its joint, not about its origin), moves the entity
 *   by it and writes the joint's pose with its root part replaced by R0's, so the pose stays over the entity.
 * The hips then move in the world as the clip moves them, without a jump at any wrap.
 */

export const ROOT_MOTION_OFF = 0
export const ROOT_MOTION_HORIZONTAL = 1
export const ROOT_MOTION_FULL = 2

/** RootMotionState.i: the mode (ROOT_MOTION_*), the joint index, 1 to move the entity (0: only report). */
export const RM_MODE = 0
export const RM_JOINT = 1
export const RM_APPLY = 2
export const RM_INTS = 3
/**
 * RootMotionState.f, rigid transforms of 7 (src/math/rigid.ts): the last step's delta of the entity (character
 * space), the layer being summed and its weight, the layers' result. The sums and the result are the identity
 * (weight 0) between steps.
 */
export const RM_DELTA = 0
export const RM_SUM = 7
export const RM_SUM_WEIGHT = 14
export const RM_TOTAL = 15
export const RM_FLOATS = 22

/**
 * RootMotionState.frame, made from the asset and joint (not state): P as a rigid transform and its scale, the
 * inverse of the joint's rest rotation in character space, and R0's translation.
 */
const FRAME_PARENT = 0
const FRAME_SCALE = 7
const FRAME_REST_INVERSE = 10
const FRAME_ROOT = 14
const FRAME_LENGTH = 17

/** A character's root motion (ctx.rootMotion[eid]; undefined while it is off). */
export interface RootMotionState {
  readonly i: Int32Array
  readonly f: Float64Array
  readonly frame: Float64Array
}

/** Root motion in `mode` on joint `joint` of a character of `rig`; delta, sums and result the identity. */
export function createRootMotionState(
  rig: Rig,
  mode: number,
  joint: number,
  apply: boolean,
): RootMotionState {
  const i = Int32Array.of(mode, joint, apply ? 1 : 0)
  const f = new Float64Array(RM_FLOATS)
  identityRigid(f, RM_DELTA)
  identityRigid(f, RM_TOTAL)
  f[RM_SUM + 6] = 0
  const frame = new Float64Array(FRAME_LENGTH)
  identityRigid(frame, FRAME_PARENT)
  frame.fill(1, FRAME_SCALE, FRAME_SCALE + 3)
  const chain: number[] = []
  for (let a = rig.jointParents[joint]!; a >= 0; a = rig.jointParents[a]!) chain.unshift(a)
  const local = new Float64Array(RIGID)
  for (const a of chain) {
    loadScaled(local, rig.rest, a * JOINT_STRIDE, frame, FRAME_SCALE)
    multiplyRigid(frame, FRAME_PARENT, frame, FRAME_PARENT, local, 0)
    for (let k = 0; k < 3; k++)
      frame[FRAME_SCALE + k] = frame[FRAME_SCALE + k]! * rig.rest[a * JOINT_STRIDE + 7 + k]!
  }
  loadScaled(local, rig.rest, joint * JOINT_STRIDE, frame, FRAME_SCALE)
  multiplyRigid(local, 0, frame, FRAME_PARENT, local, 0)
  frame[FRAME_REST_INVERSE] = -local[3]!
  frame[FRAME_REST_INVERSE + 1] = -local[4]!
  frame[FRAME_REST_INVERSE + 2] = -local[5]!
  frame[FRAME_REST_INVERSE + 3] = local[6]!
  normalizeQuat(frame, FRAME_REST_INVERSE)
  frame[FRAME_ROOT] = local[0]!
  frame[FRAME_ROOT + 1] = mode === ROOT_MOTION_FULL ? local[1]! : 0
  frame[FRAME_ROOT + 2] = local[2]!
  return { i, f, frame }
}

/** A joint's local (translation × `scale`, rotation) from 10 pose floats, as a rigid transform. */
function loadScaled(out: Float64Array, pose: Float32Array, o: number, scale: Float64Array, so: number): void {
  out[0] = pose[o]! * scale[so]!
  out[1] = pose[o + 1]! * scale[so + 1]!
  out[2] = pose[o + 2]! * scale[so + 2]!
  out[3] = pose[o + 3]!
  out[4] = pose[o + 4]!
  out[5] = pose[o + 5]!
  out[6] = pose[o + 6]!
}

// Working memory of one call at a time (the step does not re-enter): rigid transforms at multiples of RIGID.
const work = new Float64Array(10 * RIGID)
const LOCAL = 0
const M = RIGID
const AT_A = 2 * RIGID
const AT_B = 3 * RIGID
const SEG = 4 * RIGID
const RUN = 5 * RIGID
const LOOP = 6 * RIGID
const POWER = 7 * RIGID
const SCRATCH = 8 * RIGID
const SOURCE = 9 * RIGID
/** The joint's local pose at a time: its rest, then the clip's channels on it. */
const joint32 = new Float32Array(JOINT_STRIDE)
/** [0] the time sampled; [1] a count (powerRigid); [2] a weight. */
const value = new Float64Array(3)
const cursor = new Uint32Array(1)
/** The channels of the clip on the joint: translation, rotation (-1: none). */
const channelOf = new Int32Array(2)

/** The root part (see the header) of the joint's local pose held at `pose[o ..]`, at `out[oo ..]`. */
function rootPartOf(out: Float64Array, oo: number, state: RootMotionState, pose: Float32Array, o: number) {
  const frame = state.frame
  loadScaled(work, pose, o, frame, FRAME_SCALE)
  multiplyRigid(work, M, frame, FRAME_PARENT, work, LOCAL)
  // The rotation relative to the rest's, in character space.
  multiplyQuat(work, M + 3, work, M + 3, frame, FRAME_REST_INVERSE)
  out[oo] = work[M]!
  out[oo + 2] = work[M + 2]!
  if (state.i[RM_MODE] === ROOT_MOTION_FULL) {
    out[oo + 1] = work[M + 1]!
    for (let k = 3; k < RIGID; k++) out[oo + k] = work[M + k]!
  } else {
    out[oo + 1] = 0
    twistY(out, oo + 3, work, M + 3)
  }
}

/** The root part of the clip's pose of the joint at clip-local time value[0], at work[at ..]. */
function rootAt(at: number, state: RootMotionState, rest: Float32Array, clip: Clip, squad: boolean): void {
  const j = state.i[RM_JOINT]! * JOINT_STRIDE
  for (let k = 0; k < 7; k++) joint32[k] = rest[j + k]!
  const channels = clip.frameChannels
  if (channelOf[0]! >= 0) sampleChannelFrom(joint32, 0, channels[channelOf[0]!]!, value, 0, cursor, 0, false)
  if (channelOf[1]! >= 0) sampleChannelFrom(joint32, 3, channels[channelOf[1]!]!, value, 0, cursor, 0, squad)
  rootPartOf(work, at, state, joint32, 0)
}

/** work[SEG] = R(a)⁻¹·R(b) for the clip-local times a = value[0] on entry and b = `to[ti]`. */
function segment(
  state: RootMotionState,
  rest: Float32Array,
  clip: Clip,
  squad: boolean,
  to: Float64Array,
  ti: number,
) {
  rootAt(AT_A, state, rest, clip, squad)
  value[0] = to[ti]!
  rootAt(AT_B, state, rest, clip, squad)
  invertMultiplyRigid(work, SEG, work, AT_A, work, AT_B)
}

/** Times a segment() reads as its end: the clip's start (0) and end (its duration), and an after time. */
const ends = new Float64Array(3)

/**
 * Adds one clip's root motion over this step to the layer being summed (see the header): the clip `clipId`'s
 * channels bound by `binding`, its phase moved under `loop` as `input` says (systems/clipEvents.ts EMIT_*
 * layout: before, delta, after), with weight input[EMIT_WEIGHT], its share of its layer. `rest` is the
 * character's rest pose. A clip that does not move the joint adds no motion, with its weight.
 */
export function addRootMotionSource(
  state: RootMotionState,
  rest: Float32Array,
  clip: Clip,
  binding: Int32Array,
  loop: number,
  input: Float64Array,
  squad: boolean,
): void {
  const joint = state.i[RM_JOINT]! * JOINT_STRIDE
  channelOf[0] = -1
  channelOf[1] = -1
  for (let c = 0; c < binding.length; c++) {
    const o = binding[c]!
    if (o === joint) channelOf[0] = c
    else if (o === joint + R_OFFSET) channelOf[1] = c
  }
  identityRigid(work, SOURCE)
  const before = input[EMIT_BEFORE]!
  const delta = input[EMIT_DELTA]!
  const after = input[EMIT_AFTER]!
  const d = clip.duration
  const moves = (channelOf[0]! >= 0 || channelOf[1]! >= 0) && delta !== 0 && d > 0
  if (moves && before - before === 0 && after - after === 0 && delta - delta === 0) {
    clipMotion(state, rest, clip, loop, input, squad)
    // A motion past float64's range (an absurd speed on a travelling clip) moves nothing.
    let sum = 0
    for (let k = 0; k < RIGID; k++) sum += work[SOURCE + k]!
    if (sum - sum !== 0) identityRigid(work, SOURCE)
  }
  value[2] = input[EMIT_WEIGHT]!
  accumulateRigid(state.f, RM_SUM, work, SOURCE, value, 2)
  state.f[RM_SUM_WEIGHT] = state.f[RM_SUM_WEIGHT]! + value[2]!
}

/** The motion of the phase input[EMIT_BEFORE] → input[EMIT_AFTER] (by input[EMIT_DELTA]) at work[SOURCE]. */
function clipMotion(
  state: RootMotionState,
  rest: Float32Array,
  clip: Clip,
  loop: number,
  input: Float64Array,
  squad: boolean,
): void {
  const before = input[EMIT_BEFORE]!
  const after = input[EMIT_AFTER]!
  const d = clip.duration
  ends[0] = 0
  ends[1] = d
  if (loop !== 1) {
    // 'once' and ping-pong follow their local time; a ping-pong turn retraces the way it came.
    value[0] = loop === 2 && before > d ? 2 * d - before : before
    ends[2] = loop === 2 && after > d ? 2 * d - after : after
    segment(state, rest, clip, squad, ends, 2)
    copyRigid(SOURCE, SEG)
    return
  }
  ends[2] = after
  // Whole wraps between the unwrapped end and the phase stored (src/clip/timeline.ts counts them alike).
  const wraps = Math.round((before + input[EMIT_DELTA]! - after) / d)
  value[0] = before
  if (wraps === 0) {
    segment(state, rest, clip, squad, ends, 2)
    copyRigid(SOURCE, SEG)
    return
  }
  const forward = wraps > 0
  // To the end it wraps at, each whole loop in between, then from the other end to `after`.
  segment(state, rest, clip, squad, ends, forward ? 1 : 0)
  copyRigid(RUN, SEG)
  const whole = forward ? wraps - 1 : -wraps - 1
  if (whole > 0) {
    value[0] = forward ? 0 : d
    segment(state, rest, clip, squad, ends, forward ? 1 : 0)
    copyRigid(LOOP, SEG)
    value[1] = whole
    powerRigid(work, POWER, work, LOOP, value, 1, work, SCRATCH)
    multiplyRigid(work, RUN, work, RUN, work, POWER)
  }
  value[0] = forward ? 0 : d
  segment(state, rest, clip, squad, ends, 2)
  multiplyRigid(work, SOURCE, work, RUN, work, SEG)
}

function copyRigid(to: number, from: number): void {
  for (let k = 0; k < RIGID; k++) work[to + k] = work[from + k]!
}

/**
 * Closes the layer summed since the last call: its motion (the sum, the rest of a unit weight as no motion)
 * goes onto the result by `layer`'s weight (its AnimLayer row) × the joint's mask weight, lerped toward
 * (override) or added (additive); the sum restarts. `layer` null: the character's only layer, at weight 1.
 */
export function composeRootMotionLayer(state: RootMotionState, A: AnimLayerStore, layer: Layer | null): void {
  const f = state.f
  finishRigidSum(f, RM_SUM, f, RM_SUM_WEIGHT)
  const mask = layer?.mask ?? null
  value[2] = layer === null ? 1 : A.weight[layer.slot]! * (mask === null ? 1 : mask[state.i[RM_JOINT]!]!)
  if (layer !== null && A.mode[layer.slot] === MODE_ADDITIVE) {
    if (value[2]! > 0) {
      identityRigid(work, SCRATCH)
      blendRigid(work, SCRATCH, work, SCRATCH, f, RM_SUM, value, 2)
      for (let k = 0; k < 3; k++) f[RM_TOTAL + k] = f[RM_TOTAL + k]! + work[SCRATCH + k]!
      multiplyQuat(f, RM_TOTAL + 3, f, RM_TOTAL + 3, work, SCRATCH + 3)
      normalizeQuat(f, RM_TOTAL + 3)
    }
  } else if (value[2]! >= 1) {
    // The layer hides everything below it (and a lone layer 0 gives its sum as it is, bit for bit).
    for (let k = 0; k < RIGID; k++) f[RM_TOTAL + k] = f[RM_SUM + k]!
  } else if (value[2]! > 0) {
    blendRigid(f, RM_TOTAL, f, RM_TOTAL, f, RM_SUM, value, 2)
  }
  for (let k = 0; k < RIGID; k++) f[RM_SUM + k] = 0
  f[RM_SUM_WEIGHT] = 0
}

/**
 * Ends the step's sums: writes the entity's delta (the result conjugated by R0, or the identity when `paused`)
 * at f[RM_DELTA] and sets the result back to the identity. A character without layers composes its one sum
 * here.
 */
export function finishRootMotionStep(
  state: RootMotionState,
  A: AnimLayerStore,
  layered: boolean,
  paused: boolean,
): void {
  const f = state.f
  if (!layered) composeRootMotionLayer(state, A, null)
  if (paused) {
    identityRigid(f, RM_DELTA)
  } else {
    // Δ = R0·δ·R0⁻¹ with R0 a translation r: (δ.t + r − δ.q·r, δ.q).
    const frame = state.frame
    work[SCRATCH] = -frame[FRAME_ROOT]!
    work[SCRATCH + 1] = -frame[FRAME_ROOT + 1]!
    work[SCRATCH + 2] = -frame[FRAME_ROOT + 2]!
    work[SCRATCH + 3] = 0
    work[SCRATCH + 4] = 0
    work[SCRATCH + 5] = 0
    work[SCRATCH + 6] = 1
    multiplyRigid(f, RM_DELTA, f, RM_TOTAL, work, SCRATCH)
    for (let k = 0; k < 3; k++) f[RM_DELTA + k] = f[RM_DELTA + k]! + frame[FRAME_ROOT + k]!
  }
  identityRigid(f, RM_TOTAL)
}

/**
 * Writes the joint's pose at `pose[o ..]` (10 floats) with its root part replaced by the rest pose's: 'full'
 * puts its translation and rotation at rest; 'horizontal' keeps its height and its rotation but the heading,
 * and puts it over its rest place on the ground plane.
 */
export function extractRootPose(state: RootMotionState, pose: Float32Array, o: number, rest: Float32Array) {
  if (state.i[RM_MODE] === ROOT_MOTION_FULL) {
    const j = state.i[RM_JOINT]! * JOINT_STRIDE
    for (let k = 0; k < 7; k++) pose[o + k] = rest[j + k]!
    return
  }
  const frame = state.frame
  loadScaled(work, pose, o, frame, FRAME_SCALE)
  multiplyRigid(work, M, frame, FRAME_PARENT, work, LOCAL)
  // The heading H (relative to rest), then M' = (R0.t + (0, M.y, 0), H⁻¹·M.q), back into the parent's space.
  multiplyQuat(work, SCRATCH, work, M + 3, frame, FRAME_REST_INVERSE)
  twistY(work, SCRATCH, work, SCRATCH)
  work[SCRATCH + 1] = -work[SCRATCH + 1]!
  multiplyQuat(work, M + 3, work, SCRATCH, work, M + 3)
  work[M] = frame[FRAME_ROOT]!
  work[M + 2] = frame[FRAME_ROOT + 2]!
  invertMultiplyRigid(work, LOCAL, frame, FRAME_PARENT, work, M)
  for (let k = 0; k < 3; k++) pose[o + k] = work[LOCAL + k]! / frame[FRAME_SCALE + k]!
  for (let k = 3; k < 7; k++) pose[o + k] = work[LOCAL + k]!
}
