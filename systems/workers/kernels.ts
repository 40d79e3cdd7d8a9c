/**
 * The work the `workers` option splits across threads, as functions of a `WorkView` that the main thread
 * (over its context) and each worker (over the same shared arrays, systems/workers/worker.ts) make alike: the
 * same code on the same values, so the same bits whichever thread runs a character.
 *
 * Each phase works on a list of items and a contiguous share of it per participant (the main thread is
 * participant 0, worker w is w + 1): shares depend only on the list's length, never on timing.
 */
import type { Clip } from '../../src/clip/clip.ts'
import { sampleClipChannels } from '../../src/clip/sample.ts'
import { LAYER_ANIM, layerOffset } from '../../components/Pose.ts'
import { ROTATION_SQUAD } from '../../components/Sampler.ts'
import type { PoseWriter } from '../poseWriter.ts'

/** Control words (an Int32Array on shared memory) of the barrier and the phases' results. */
export const CTL_GENERATION = 0
export const CTL_PHASE = 1
export const CTL_PENDING = 2
export const CTL_VERSION = 3
export const CTL_COUNT = 4
export const CTL_ANY_REFUSED = 5
export const CTL_PARTICIPANTS = 6
/** Most worker threads a plugin may have. */
export const MAX_WORKERS = 64
/** Propagation: participant p's range of the order is [CTL_SPLIT + p, CTL_SPLIT + p + 1). */
export const CTL_SPLIT = 8
/** Per worker w: 1 once it has its first message applied. */
export const CTL_READY = CTL_SPLIT + MAX_WORKERS + 2
/** Per worker w: items it worked on so far (a test checks the workers took part). */
export const CTL_DONE = CTL_READY + MAX_WORKERS
/** Per participant p: the nodes its propagation range recomputed, and refused. */
export const CTL_RECOMPUTED = CTL_DONE + MAX_WORKERS
export const CTL_REFUSED = CTL_RECOMPUTED + MAX_WORKERS + 1
export const CTL_LENGTH = CTL_REFUSED + MAX_WORKERS + 1
/** Per participant p, the nodes its propagation range refused, from p · REFUSED_LIST (MAX_REFUSED_NODES). */
export const REFUSED_LIST = 64

export const PHASE_SAMPLE = 1
export const PHASE_WRITE = 2
export const PHASE_PROPAGATE = 3
export const PHASE_QUIT = 4

/** What the phases read and write: shared arrays, and per character the objects the main thread sent. */
export interface WorkView {
  readonly Pose: { readonly base: Uint32Array; readonly count: Uint16Array }
  readonly Sampler: {
    readonly clip: Int32Array
    readonly lastTime: Float64Array
    readonly rotation: Uint8Array
  }
  /** The pose pool's arrays (replaced when the pool grows). */
  readonly pool: { data: Float32Array; joints: Int32Array }
  /** Per clip id, the built clip. */
  readonly clips: (Clip | undefined)[]
  /** Per character, its clip's binding and its key cursors. */
  readonly binding: (Int32Array | undefined)[]
  readonly cursors: (Uint32Array | undefined)[]
  /** The phase's items (character ids). */
  readonly items: Int32Array
  /** Per character: the joints the last write-out refused (blendPoses repairs them). */
  readonly poseRefused: Uint32Array
  readonly control: Int32Array
}

/** Items [start, end) of `count` for participant `p` of `parts`. */
export function shareStart(count: number, p: number, parts: number): number {
  return Math.floor((count * p) / parts)
}

/** sampleClips's sample of a playing character without a fade or layers, into its ANIM layer. */
export function sampleItems(v: WorkView, start: number, end: number): void {
  const { Pose, Sampler, items, clips, binding, cursors } = v
  const data = v.pool.data
  for (let i = start; i < end; i++) {
    const eid = items[i]!
    const anim = layerOffset(Pose.base[eid]!, Pose.count[eid]!, LAYER_ANIM)
    const squad = Sampler.rotation[eid] === ROTATION_SQUAD
    const clip = clips[Sampler.clip[eid]!]!
    sampleClipChannels(data, anim, clip, binding[eid]!, Sampler.lastTime, eid, cursors[eid]!, 0, squad)
  }
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
    writePose(data, joints, layerOffset(base, n, LAYER_ANIM), base, n, refused)
    poseRefused[eid] = refused[0]!
    if (refused[0] !== 0) Atomics.store(v.control, CTL_ANY_REFUSED, 1)
  }
}
