/**
 * A worker thread of the `workers` option. Bundled with everything it imports into one script
 * (systems/workers/workerSource.ts, made by scripts/build-worker.mjs), which the main thread starts from text:
 * Node's worker_threads (entry/nodeWorkers.ts) or a browser's Worker (systems/workers/pool.ts).
 *
 * Messages (structured clones, applied in order) bring the shared arrays and, as they appear, clips and each
 * character's binding and key cursors. A step's phases come through the control words: the main thread bumps
 * CTL_GENERATION and notifies; this thread claims chunks of work until none is left, decrements CTL_PENDING and notifies when it is the
 * last. When the main thread has sent messages this thread has not applied (CTL_VERSION), it goes back to its
 * event loop to receive them first. Nothing is allocated per phase.
 */
import { adoptClip, type Clip } from '../../src/clip/clip.ts'
import { primeSampler } from '../../src/engine/v8.ts'
import type { SceneNodeStore } from '../../components/SceneNode.ts'
import { poseWriter } from '../../src/engine/poseWriter.ts'
import { createPropagationPass } from '../../src/engine/propagate.ts'
import {
  CTL_DONE,
  CTL_GENERATION,
  CTL_PENDING,
  CTL_PHASE,
  CTL_READY,
  CTL_VERSION,
  PHASE_QUIT,
  REFUSED_LIST,
  workPhase,
  type Participant,
  type WorkView,
} from './kernels.ts'

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
  readonly CrossFade: WorkView['CrossFade']
  readonly nodes: SceneNodeStore
  readonly order: Int32Array
  readonly kept: Uint8Array
  /** The propagation ranges and their results (kernels.ts RANGE_*). */
  readonly ranges: Int32Array
}

/** Later messages: what changed since the last one (each part optional). */
export interface UpdateMessage {
  readonly kind: 'update'
  readonly version: number
  readonly pool?: { data: Float32Array; joints: Int32Array }
  readonly clips?: readonly (readonly [number, Clip])[]
  /** Per character: id, binding, cursors, the outgoing clip's binding, the fade's paths. */
  readonly characters?: readonly CharacterUpdate[]
}

export type CharacterUpdate = readonly [
  number,
  Int32Array | undefined,
  Uint32Array | undefined,
  Int32Array | undefined,
  Uint8Array | undefined,
]

export type WorkerMessage = InitMessage | UpdateMessage

/** Starts the worker: `listen` subscribes to the main thread's messages (Node's parentPort or a Worker's self). */
export function startWorker(listen: (handler: (message: WorkerMessage) => void) => void): void {
  primeSampler()
  let view: WorkView | null = null
  let index = 0
  let applied = 0
  let seen = 0
  let who: Participant | null = null

  function apply(message: WorkerMessage): void {
    if (message.kind === 'init') {
      index = message.index
      view = {
        Pose: message.Pose,
        Sampler: message.Sampler,
        CrossFade: message.CrossFade,
        pool: { data: new Float32Array(0), joints: new Int32Array(0) },
        clips: [],
        binding: [],
        cursors: [],
        fromBinding: [],
        fadePaths: [],
        items: message.items,
        poseRefused: message.poseRefused,
        control: message.control,
        ranges: message.ranges,
      }
      const refusedList = new Int32Array(REFUSED_LIST)
      who = {
        writePose: poseWriter(message.nodes),
        pass: createPropagationPass(message.nodes, message.order, refusedList, message.kept),
        refusedList,
        refused: new Uint32Array(1),
      }
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
      for (const [eid, binding, cursors, fromBinding, fadePaths] of message.characters ?? []) {
        view.binding[eid] = binding
        view.cursors[eid] = cursors
        view.fromBinding[eid] = fromBinding
        view.fadePaths[eid] = fadePaths
      }
    }
    applied = message.version
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
        control[CTL_DONE + index] = control[CTL_DONE + index]! + workPhase(v, phase, who!)
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
