/**
 * The work the `workers` option splits across threads, as functions of a `WorkView` that the main thread
 * (over its context) and each worker (over the same shared arrays, systems/workers/worker.ts) make alike: the
 * same code on the same values, so the same bits whichever thread runs a character.
 *
 * Each phase works on a list of items (characters in entity order, or subtree-aligned ranges of the scene's
 * order), claimed in chunks from a shared counter by whichever participant is free (the main thread and every
 * worker). An item's work reads and writes only that item's own data, so who does it, and when, cannot change a
 * bit; what depends on order (the refused nodes' list) is kept per range and merged in range order.
 */
import type { Clip } from '../../src/clip/clip.ts'
import { sampleClipChannels } from '../../src/engine/sample.ts'
import { POSE_ANIM, POSE_FROM, POSE_TO, poseOffset } from '../../components/Pose.ts'
import { blendPosesAt } from '../../src/engine/blend.ts'
import { ROTATION_SQUAD } from '../../components/Sampler.ts'
import type { PoseWriter } from '../../src/engine/poseWriter.ts'
import type { PropagationPass } from '../../src/engine/propagate.ts'
import { PROPAGATION_CHUNK } from '../../src/engine/v8.ts'

/** Control words (an Int32Array on shared memory) of the barrier and the phases. */
export const CTL_GENERATION = 0
export const CTL_PHASE = 1
export const CTL_PENDING = 2
export const CTL_VERSION = 3
/** The phase's item count (characters, or propagation ranges). */
export const CTL_COUNT = 4
export const CTL_ANY_REFUSED = 5
/** The next chunk to claim (Atomics.add). */
export const CTL_NEXT = 6
/** Most worker threads a plugin may have. */
export const MAX_WORKERS = 64
/** Per worker w: 1 once it has its first message applied. */
export const CTL_READY = 8
/** Per worker w: items it worked on so far (a test checks the workers took part). */
export const CTL_DONE = CTL_READY + MAX_WORKERS
export const CTL_LENGTH = CTL_DONE + MAX_WORKERS

/** Characters per claimed chunk: ~1000 joints, long against a claim, short against a step. */
export const CHUNK = 16

/**
 * Propagation ranges, in one shared Int32Array: bounds (range r is order[RANGE_START + r, RANGE_START + r + 1)),
 * then per range the nodes it recomputed and refused, then its refused list (REFUSED_LIST each).
 */
export const MAX_RANGES = 256
export const REFUSED_LIST = 64
export const RANGE_START = 0
export const RANGE_RECOMPUTED = MAX_RANGES + 1
export const RANGE_REFUSED = RANGE_RECOMPUTED + MAX_RANGES
export const RANGE_LISTS = RANGE_REFUSED + MAX_RANGES
export const RANGES_LENGTH = RANGE_LISTS + MAX_RANGES * REFUSED_LIST
/** Nodes a propagation range aims at (a range ends at the first root past it). */
export const RANGE_NODES = 2048

export const PHASE_SAMPLE = 1
export const PHASE_WRITE = 2
export const PHASE_PROPAGATE = 3
export const PHASE_QUIT = 4

/** What the phases read and write: shared arrays, and per character the objects the main thread sent. */
export interface WorkView {
  readonly Pose: { readonly base: Uint32Array; readonly count: Uint16Array }
  readonly Sampler: {
    readonly clip: Int32Array
    /** A track's clip-local time this step (advanceTracks's). */
    readonly local: Float64Array
    readonly rotation: Uint8Array
  }
  /** The fades (layer 0's at the character's id) and the tracks they leave (their clip-local time this step). */
  readonly CrossFade: {
    readonly from: {
      readonly clip: Int32Array
      readonly rotation: Uint8Array
      readonly local: Float64Array
    }
    readonly blend: Float64Array
  }
  /** The pose pool's arrays (replaced when the pool grows). */
  readonly pool: { data: Float32Array; joints: Int32Array }
  /** Per clip id, the built clip. */
  readonly clips: (Clip | undefined)[]
  /** Per character, its clip's binding and its key cursors. */
  readonly binding: (Int32Array | undefined)[]
  readonly cursors: (Uint32Array | undefined)[]
  /** Per fading character: the outgoing clip's binding and the paths its fade blends. */
  readonly fromBinding: (Int32Array | undefined)[]
  readonly fadePaths: (Uint8Array | undefined)[]
  /** The phase's items (character ids). */
  readonly items: Int32Array
  /** Per character: the joints the last write-out refused (blendPoses repairs them). */
  readonly poseRefused: Uint32Array
  readonly control: Int32Array
  readonly ranges: Int32Array
}

/**
 * sampleTracks's samples of characters without layers: a character's clip into ANIM; for a fading one (an item
 * of −eid) the outgoing clip into FROM (unless it fades from a frozen pose), its clip into TO and their blend
 * into ANIM.
 */
export function sampleItems(v: WorkView, start: number, end: number): void {
  const { Pose, Sampler, items, clips, binding, cursors } = v
  const data = v.pool.data
  for (let i = start; i < end; i++) {
    const item = items[i]!
    if (item < 0) {
      sampleFade(v, -item)
      continue
    }
    const eid = item
    const anim = poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM)
    const squad = Sampler.rotation[eid] === ROTATION_SQUAD
    const clip = clips[Sampler.clip[eid]!]!
    sampleClipChannels(data, anim, clip, binding[eid]!, Sampler.local, eid, cursors[eid]!, 0, squad)
  }
}

function sampleFade(v: WorkView, eid: number): void {
  const { Pose, Sampler, CrossFade } = v
  const data = v.pool.data
  const n = Pose.count[eid]!
  const base = Pose.base[eid]!
  const cursors = v.cursors[eid]!
  const from = poseOffset(base, n, POSE_FROM)
  const fromId = CrossFade.from.clip[eid]!
  if (fromId >= 0) {
    const fromSquad = CrossFade.from.rotation[eid] === ROTATION_SQUAD
    const fromBinding = v.fromBinding[eid]!
    sampleClipChannels(
      data,
      from,
      v.clips[fromId]!,
      fromBinding,
      CrossFade.from.local,
      eid,
      cursors,
      cursors.length >>> 1,
      fromSquad,
    )
  }
  const to = poseOffset(base, n, POSE_TO)
  const squad = Sampler.rotation[eid] === ROTATION_SQUAD
  const clip = v.clips[Sampler.clip[eid]!]!
  sampleClipChannels(data, to, clip, v.binding[eid]!, Sampler.local, eid, cursors, 0, squad)
  const anim = poseOffset(base, n, POSE_ANIM)
  blendPosesAt(data, anim, data, from, data, to, n, CrossFade.blend, eid, v.fadePaths[eid] ?? null)
}

/** blendPoses's write-out of a character's ANIM layer into its joints' nodes (no ragdoll weight). */
export function writeItems(
  v: WorkView,
  writePose: PoseWriter,
  refused: Uint32Array,
  start: number,
  end: number,
): void {
  const { Pose, items, poseRefused } = v
  const { data, joints } = v.pool
  for (let i = start; i < end; i++) {
    const eid = items[i]!
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    writePose(data, joints, poseOffset(base, n, POSE_ANIM), base, n, refused)
    poseRefused[eid] = refused[0]!
    if (refused[0] !== 0) Atomics.store(v.control, CTL_ANY_REFUSED, 1)
  }
}

/** One participant's tools: its pose writer and propagation pass (over its own refused list) and scratch. */
export interface Participant {
  readonly writePose: PoseWriter
  readonly pass: PropagationPass
  /** The list `pass` writes refused nodes to (REFUSED_LIST or more long). */
  readonly refusedList: Int32Array
  readonly refused: Uint32Array
}

/**
 * Works on the current phase's chunks until none is left; returns the items done. The main thread and every
 * worker run this for each phase.
 */
export function workPhase(v: WorkView, phase: number, who: Participant): number {
  const control = v.control
  const count = control[CTL_COUNT]!
  let done = 0
  if (phase === PHASE_PROPAGATE) {
    const ranges = v.ranges
    for (let r = Atomics.add(control, CTL_NEXT, 1); r < count; r = Atomics.add(control, CTL_NEXT, 1)) {
      const end = ranges[RANGE_START + r + 1]!
      let recomputed = 0
      for (let s = ranges[RANGE_START + r]!; s < end; s += PROPAGATION_CHUNK)
        recomputed += who.pass.pass(s, s + PROPAGATION_CHUNK < end ? s + PROPAGATION_CHUNK : end)
      const refused = who.pass.takeRefused()
      ranges[RANGE_RECOMPUTED + r] = recomputed
      ranges[RANGE_REFUSED + r] = refused
      for (let k = 0; k < refused && k < REFUSED_LIST; k++)
        ranges[RANGE_LISTS + r * REFUSED_LIST + k] = who.refusedList[k]!
      done++
    }
    return done
  }
  for (let c = Atomics.add(control, CTL_NEXT, 1); c * CHUNK < count; c = Atomics.add(control, CTL_NEXT, 1)) {
    const start = c * CHUNK
    const end = start + CHUNK < count ? start + CHUNK : count
    if (phase === PHASE_SAMPLE) sampleItems(v, start, end)
    else writeItems(v, who.writePose, who.refused, start, end)
    done += end - start
  }
  return done
}
