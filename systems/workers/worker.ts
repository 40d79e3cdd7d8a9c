/**
 * A worker thread of the `workers` option. Bundled with everything it imports into one script
 * (systems/workers/workerSource.ts, made by scripts/build-worker.mjs), which the main thread starts from text:
 * Node's worker_threads (entry/nodeWorkers.ts) or a browser's Worker (systems/workers/pool.ts).
 *
 * Messages (structured clones, applied in order) bring the shared arrays and, as they appear, clips and each
 * character's binding and key cursors. A step's phases come through the control words: the main thread bumps
 * CTL_GENERATION and notifies; this thread works its share, decrements CTL_PENDING and notifies when it is the
 * last. When the main thread has sent messages this thread has not applied (CTL_VERSION), it goes back to its
 * event loop to receive them first. Nothing is allocated per phase.
 */
import { adoptClip, type Clip } from '../../src/clip/clip.ts'
import { primeSampler } from '../../src/engine/v8.ts'
import type { SceneNodeStore } from '../../components/SceneNode.ts'
import { poseWriter, type PoseWriter } from '../poseWriter.ts'
import { createPropagationPass, type PropagationPass } from '../propagationPass.ts'
import {
  CTL_COUNT,
  CTL_DONE,
  CTL_GENERATION,
  CTL_PARTICIPANTS,
  CTL_PENDING,
  CTL_PHASE,
  CTL_READY,
  CTL_RECOMPUTED,
  CTL_REFUSED,
  CTL_SPLIT,
  CTL_VERSION,
  PHASE_PROPAGATE,
  PHASE_QUIT,
  PHASE_SAMPLE,
  PHASE_WRITE,
  REFUSED_LIST,
  sampleItems,
  shareStart,
  writeItems,
  type WorkView,
} from './kernels.ts'
import { PROPAGATION_CHUNK } from '../../src/engine/v8.ts'

/** The first message: this worker's index and every shared array. */
export interface InitMessage {
  readonly kind: 'init'
  readonly version: number
  readonly index: number
  readonly control: Int32Array
  readonly items: Int32Array
  readonly poseRefused: Uint32Array
  readonly Pose: WorkView['Pose']
  readonly Sampler: WorkView['Sampler']
  readonly nodes: SceneNodeStore
  readonly order: Int32Array
  readonly kept: Uint8Array
  /** Participant p's propagation refused list at p · REFUSED_LIST. */
  readonly refusedLists: Int32Array
}

/** Later messages: what changed since the last one (each part optional). */
export interface UpdateMessage {
  readonly kind: 'update'
  readonly version: number
  readonly pool?: { data: Float32Array; joints: Int32Array }
  readonly clips?: readonly (readonly [number, Clip])[]
  /** Per character: id, binding, cursors. */
  readonly characters?: readonly (readonly [number, Int32Array | undefined, Uint32Array | undefined])[]
}

export type WorkerMessage = InitMessage | UpdateMessage

/** Starts the worker: `listen` subscribes to the main thread's messages (Node's parentPort or a Worker's self). */
export function startWorker(listen: (handler: (message: WorkerMessage) => void) => void): void {
  primeSampler()
  let view: WorkView | null = null
  let index = 0
  let applied = 0
  let seen = 0
  let writePose: PoseWriter | null = null
  let propagation: PropagationPass | null = null
  let refusedLists: Int32Array | null = null
  const refused = new Uint32Array(1)

  function apply(message: WorkerMessage): void {
    if (message.kind === 'init') {
      index = message.index
      view = {
        Pose: message.Pose,
        Sampler: message.Sampler,
        pool: { data: new Float32Array(0), joints: new Int32Array(0) },
        clips: [],
        binding: [],
        cursors: [],
        items: message.items,
        poseRefused: message.poseRefused,
        control: message.control,
      }
      writePose = poseWriter(message.nodes)
      refusedLists = message.refusedLists
      const participant = index + 1
      const list = refusedLists.subarray(participant * REFUSED_LIST, (participant + 1) * REFUSED_LIST)
      propagation = createPropagationPass(message.nodes, message.order, list, message.kept)
      seen = Atomics.load(message.control, CTL_GENERATION)
      Atomics.store(message.control, CTL_READY + index, 1)
    } else if (view !== null) {
      if (message.pool) {
        view.pool.data = message.pool.data
        view.pool.joints = message.pool.joints
      }
      for (const [id, clip] of message.clips ?? []) {
        adoptClip(clip)
        view.clips[id] = clip
      }
      for (const [eid, binding, cursors] of message.characters ?? []) {
        view.binding[eid] = binding
        view.cursors[eid] = cursors
      }
    }
    applied = message.version
  }

  function work(v: WorkView, phase: number): number {
    const control = v.control
    const parts = control[CTL_PARTICIPANTS]!
    const participant = index + 1
    if (phase === PHASE_PROPAGATE) {
      const start = control[CTL_SPLIT + participant]!
      const end = control[CTL_SPLIT + participant + 1]!
      let recomputed = 0
      for (let s = start; s < end; s += PROPAGATION_CHUNK) {
        recomputed += propagation!.pass(s, s + PROPAGATION_CHUNK < end ? s + PROPAGATION_CHUNK : end)
      }
      control[CTL_RECOMPUTED + participant] = recomputed
      control[CTL_REFUSED + participant] = propagation!.takeRefused()
      return end - start
    }
    const count = control[CTL_COUNT]!
    const start = shareStart(count, participant, parts)
    const end = shareStart(count, participant + 1, parts)
    if (phase === PHASE_SAMPLE) sampleItems(v, start, end)
    else if (phase === PHASE_WRITE) writeItems(v, writePose!, refused, start, end)
    return end - start
  }

  /** Runs phases until the main thread has messages this worker has not applied (or says quit). */
  function run(): void {
    const v = view
    if (v === null) return
    const control = v.control
    for (;;) {
      Atomics.wait(control, CTL_GENERATION, seen)
      const generation = Atomics.load(control, CTL_GENERATION)
      if (generation === seen) continue
      if (Atomics.load(control, CTL_VERSION) !== applied) return
      seen = generation
      const phase = control[CTL_PHASE]!
      if (phase === PHASE_QUIT) return
      try {
        control[CTL_DONE + index] = control[CTL_DONE + index]! + work(v, phase)
      } finally {
        // Whatever happened, the main thread must not wait for this thread forever.
        if (Atomics.sub(control, CTL_PENDING, 1) === 1) Atomics.notify(control, CTL_PENDING)
      }
    }
  }

  listen((message) => {
    apply(message)
    run()
  })
}
