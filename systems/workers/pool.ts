/**
 * The main thread's side of the `workers` option: N worker threads over shared memory, and the phases of a
 * step they share (systems/workers/kernels.ts). Every thread, this one included, claims chunks of a phase's
 * items from a shared counter until none is left; an item's work touches only its own data, so the result is
 * the same bits whoever did it, for any number of workers, and the same as without them.
 *
 * The barrier: the main thread writes the phase and bumps CTL_GENERATION (Atomics.add, then notify); each
 * worker wakes from Atomics.wait, claims chunks, decrements CTL_PENDING; the main thread, its own chunks done,
 * waits for 0 (Atomics.wait in Node; a browser's main thread may not wait, so it spins on Atomics.load). Until
 * every worker has started (CTL_READY) the main thread does every item itself, which gives the same bits: a
 * browser starts a worker only once the page's thread returns to its event loop.
 *
 * What a worker needs besides the shared stores is posted as it appears, before the phase that needs it: the
 * pool's arrays when the pool grows or a restore replaces them, clips when assets are added, a character's
 * binding and key cursors when they change (its cursors are moved to shared memory then). Nothing is allocated
 * per step in steady state.
 */
import type { Clip } from '../../src/clip/clip.ts'
import { sharedCopy } from '../../src/engine/shared.ts'
import type { StepState } from '../state.ts'
import type { PropagatedGraph, PropagationPass } from '../../src/engine/propagate.ts'
import { poseWriter } from '../../src/engine/poseWriter.ts'
import {
  CTL_ANY_REFUSED,
  CTL_COUNT,
  CTL_GENERATION,
  CTL_LENGTH,
  CTL_NEXT,
  CTL_PENDING,
  CTL_PHASE,
  CTL_READY,
  CTL_VERSION,
  MAX_RANGES,
  PHASE_PROPAGATE,
  PHASE_QUIT,
  RANGE_LISTS,
  RANGE_NODES,
  RANGE_RECOMPUTED,
  RANGE_REFUSED,
  RANGE_START,
  RANGES_LENGTH,
  REFUSED_LIST,
  workPhase,
  type Participant,
  type WorkView,
} from './kernels.ts'
import { WORKER_GLOBAL, WORKER_SOURCE } from './workerSource.ts'
import type { CharacterUpdate, UpdateMessage, WorkerMessage } from './worker.ts'

export { CTL_DONE, CTL_GENERATION, MAX_WORKERS, PHASE_SAMPLE, PHASE_WRITE } from './kernels.ts'

/** A started worker, as the code that started it exposes it. */
export interface WorkerHandle {
  post(message: WorkerMessage): void
  terminate(): void
}

/**
 * Starts a worker from the script `source`, which defines the global `global`; the worker calls
 * `global.startWorker(listen)` with its way of receiving messages.
 */
export type WorkerSpawner = (source: string, global: string, onError: () => void) => WorkerHandle

/** Node's worker_threads as much of it as is used here (no Node types in the library's public types). */
interface NodeWorkerThreads {
  Worker: new (
    source: string,
    options: { eval: boolean },
  ) => {
    postMessage(m: unknown): void
    terminate(): unknown
    unref(): void
    on(event: 'error', listener: () => void): void
  }
}

/**
 * How workers start here, or null (none can): Node's worker_threads (through process.getBuiltinModule, Node
 * ≥ 20.16, so nothing Node-only is imported), else a Web Worker from a Blob.
 */
export function workerSpawner(): WorkerSpawner | null {
  const scope = globalThis as {
    process?: { getBuiltinModule?: (name: string) => unknown }
    Worker?: new (url: string) => Worker
    Blob?: typeof Blob
  }
  const threads = scope.process?.getBuiltinModule?.('node:worker_threads') as NodeWorkerThreads | undefined
  if (threads !== undefined) {
    return (source, global, onError) => {
      const start = `\n${global}.startWorker((h) => require('node:worker_threads').parentPort.on('message', h))\n`
      const worker = new threads.Worker(source + start, { eval: true })
      worker.on('error', onError)
      // A game that forgets dispose() still exits: the workers wait on shared memory, not on its event loop.
      worker.unref()
      return { post: (m) => worker.postMessage(m), terminate: () => void worker.terminate() }
    }
  }
  if (typeof scope.Worker !== 'function' || typeof scope.Blob !== 'function') return null
  return (source, global, onError) => {
    const start = `\n${global}.startWorker((h) => { self.onmessage = (e) => h(e.data) })\n`
    const url = URL.createObjectURL(new Blob([source, start], { type: 'text/javascript' }))
    const worker = new scope.Worker!(url)
    worker.onerror = onError
    return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate() }
  }
}

/** The workers of one plugin and the phases they share. */
export interface Parallel {
  readonly workers: number
  /** The control words (tests read CTL_DONE to see the workers took part). */
  readonly control: Int32Array
  /** Adds a character to the sample phase's items (sending its binding and cursors first if they changed). */
  queueSample(eid: number): void
  /**
   * Adds a fading character (no layers) to the sample phase's items: FROM (at the time advanceTracks left in
   * CrossFade.from.local), TO and their blend into ANIM.
   */
  queueFade(eid: number): void
  /** Adds a character to the write phase's items. */
  queue(eid: number): void
  /** Runs `phase` over the queued items, and empties the queue. */
  run(phase: number): void
  /** Per character: joints its write-out refused (the write phase sets it; blendPoses repairs and clears). */
  readonly poseRefused: Uint32Array
  /** 1 when the last write phase refused a joint. */
  anyRefused(): boolean
  /** Propagation over order[0, n) in subtree-aligned ranges (this thread's with `pass`), stats and list merged. */
  propagate(graph: PropagatedGraph, pass: PropagationPass, n: number): void
  /** Items (characters and ranges) the phases ran since the workers started. */
  readonly dispatched: () => number
  /**
   * Whether this thread claims work too (default true). Tests set false, so that the workers do every item and
   * their counts (CTL_DONE) add up to `dispatched`.
   */
  mainWorks: boolean
  /** Resolves once every worker has started (tests and the benchmark wait for it). */
  ready(): Promise<void>
  /** Stops the workers. */
  dispose(): void
}

/**
 * Starts `workers` workers over the context's stores, which must already be on shared memory
 * (plugin/options.ts, which also checks that workers can start here).
 */
export function createParallel(ctx: StepState, workers: number): Parallel {
  const spawn = workerSpawner()!
  const capacity = ctx.capacity
  const control = new Int32Array(new SharedArrayBuffer(CTL_LENGTH * 4))
  const items = new Int32Array(new SharedArrayBuffer(capacity * 4))
  const poseRefused = new Uint32Array(new SharedArrayBuffer(capacity * 4))
  const ranges = new Int32Array(new SharedArrayBuffer(RANGES_LENGTH * 4))
  const clips: (Clip | undefined)[] = []
  const view: WorkView = {
    Pose: ctx.stores.Pose,
    Sampler: ctx.stores.Sampler,
    CrossFade: ctx.stores.CrossFade,
    pool: ctx.pool,
    clips,
    binding: ctx.binding,
    cursors: ctx.cursors,
    fromBinding: ctx.fromBinding,
    fadePaths: ctx.fadePaths,
    items,
    poseRefused,
    control,
    ranges,
  }
  const graph = ctx.sceneGraph
  // The main thread's tools; its pass is the propagation system's (propagate), over the graph's refused list.
  const who: { -readonly [K in keyof Participant]: Participant[K] } = {
    writePose: poseWriter(graph.store),
    pass: null as unknown as PropagationPass,
    refusedList: graph.refusedNodes,
    refused: new Uint32Array(1),
  }
  let canWait = true
  try {
    Atomics.wait(control, CTL_PHASE, 1, 0)
  } catch {
    canWait = false
  }

  let version = 1
  control[CTL_VERSION] = version
  const handles: WorkerHandle[] = []
  for (let w = 0; w < workers; w++) {
    const handle = spawn(WORKER_SOURCE, WORKER_GLOBAL, failed)
    handles.push(handle)
    handle.post({
      kind: 'init',
      version,
      index: w,
      control,
      items,
      poseRefused,
      Pose: { base: ctx.stores.Pose.base, count: ctx.stores.Pose.count },
      Sampler: {
        clip: ctx.stores.Sampler.clip,
        local: ctx.stores.Sampler.local,
        rotation: ctx.stores.Sampler.rotation,
      },
      CrossFade: {
        from: {
          clip: ctx.stores.CrossFade.from.clip,
          rotation: ctx.stores.CrossFade.from.rotation,
          local: ctx.stores.CrossFade.from.local,
        },
        blend: ctx.stores.CrossFade.blend,
      },
      nodes: graph.store,
      order: graph.order,
      kept: graph.kept,
      ranges,
    })
  }

  let count = 0
  let dispatched = 0
  let allReady = false
  let broken = false
  let sentData: Float32Array | null = null
  const sentCursors: (Uint32Array | undefined)[] = []
  const sentBinding: (Int32Array | undefined)[] = []
  const sentFromBinding: (Int32Array | undefined)[] = []
  const sentPaths: (Uint8Array | undefined)[] = []
  let characters: CharacterUpdate[] = []

  /** Sends what a character's samples need when any of it changed (its cursors and paths moved to shared memory). */
  function sync(eid: number): void {
    const binding = ctx.binding[eid]
    const fromBinding = ctx.fromBinding[eid]
    if (
      ctx.cursors[eid] === sentCursors[eid] &&
      binding === sentBinding[eid] &&
      fromBinding === sentFromBinding[eid] &&
      ctx.fadePaths[eid] === sentPaths[eid]
    )
      return
    const cursors = shared(ctx.cursors, eid)
    const paths = shared(ctx.fadePaths, eid)
    sentCursors[eid] = cursors
    sentBinding[eid] = binding
    sentFromBinding[eid] = fromBinding
    sentPaths[eid] = paths
    characters.push([eid, binding, cursors, fromBinding, paths])
  }

  /**
   * A worker that failed (it cannot, short of a bug or the engine running out of memory) is never waited for
   * again: from the next phase on, this thread does every item (the same bits).
   */
  function failed(): void {
    broken = true
    allReady = false
  }

  function started(): boolean {
    if (broken) return false
    if (allReady) return true
    for (let w = 0; w < workers; w++) if (Atomics.load(control, CTL_READY + w) !== 1) return false
    allReady = true
    return true
  }

  /** Posts what changed since the last message (not per step: only when something did). */
  function flush(): void {
    let message: { -readonly [K in keyof UpdateMessage]: UpdateMessage[K] } | null = null
    if (ctx.pool.data !== sentData) {
      sentData = ctx.pool.data
      message = { kind: 'update', version: 0, pool: { data: ctx.pool.data, joints: ctx.pool.joints } }
    }
    if (clips.length < ctx.clips.length) {
      message ??= { kind: 'update', version: 0 }
      const added: [number, Clip][] = []
      for (let id = clips.length; id < ctx.clips.length; id++) {
        clips[id] = ctx.clips[id]!.clip
        added.push([id, clips[id]!])
      }
      message.clips = added
    }
    if (characters.length > 0) {
      message ??= { kind: 'update', version: 0 }
      message.characters = characters
      characters = []
    }
    if (message === null) return
    message.version = ++version
    for (const handle of handles) handle.post(message)
    Atomics.store(control, CTL_VERSION, version)
  }

  /** Runs `phase` over `n` items (characters or ranges): the workers and this thread, until all are done. */
  function runPhase(phase: number, n: number): void {
    control[CTL_COUNT] = n
    control[CTL_PHASE] = phase
    Atomics.store(control, CTL_NEXT, 0)
    if (!started()) {
      // The same work, all on this thread, until every worker is there to claim its part.
      workPhase(view, phase, who)
      return
    }
    dispatched += n
    Atomics.store(control, CTL_PENDING, workers)
    Atomics.add(control, CTL_GENERATION, 1)
    Atomics.notify(control, CTL_GENERATION)
    if (parallel.mainWorks) workPhase(view, phase, who)
    for (;;) {
      const pending = Atomics.load(control, CTL_PENDING)
      if (pending === 0) return
      if (canWait) Atomics.wait(control, CTL_PENDING, pending)
    }
  }

  const parallel: Parallel = {
    workers,
    control,
    mainWorks: true,
    dispatched: () => dispatched,
    poseRefused,
    queueSample(eid) {
      sync(eid)
      items[count++] = eid
    },
    queueFade(eid) {
      sync(eid)
      items[count++] = -eid
    },
    queue(eid) {
      items[count++] = eid
    },
    run(phase) {
      const n = count
      count = 0
      control[CTL_ANY_REFUSED] = 0
      if (n === 0) return
      flush()
      runPhase(phase, n)
    },
    anyRefused: () => Atomics.load(control, CTL_ANY_REFUSED) === 1,
    propagate(g, pass, n) {
      flush()
      who.pass = pass
      // Ranges of about RANGE_NODES nodes, each from a root to the next root past its aim: the order is
      // depth-first, so a root's subtree is contiguous and a range holds whole subtrees.
      const aim = Math.max(RANGE_NODES, Math.ceil(n / MAX_RANGES))
      const parent = g.store.parent
      const order = g.order
      let r = 0
      ranges[RANGE_START] = 0
      for (let i = 0; i < n;) {
        i = i + aim < n ? i + aim : n
        while (i < n && parent[order[i]!] !== 0) i++
        ranges[RANGE_START + ++r] = i
      }
      runPhase(PHASE_PROPAGATE, r)
      // As one pass over the whole order lists them: range after range.
      let recomputed = 0
      let total = 0
      const list = g.refusedNodes
      for (let k = 0; k < r; k++) {
        recomputed += ranges[RANGE_RECOMPUTED + k]!
        const refused = ranges[RANGE_REFUSED + k]!
        for (let j = 0; j < refused && j < REFUSED_LIST && total + j < list.length; j++)
          list[total + j] = ranges[RANGE_LISTS + k * REFUSED_LIST + j]!
        total += refused
      }
      g.stats.recomputed = recomputed
      g.stats.refused = total
    },
    ready() {
      return new Promise((resolve) => {
        const poll = (): void => void (started() ? resolve() : setTimeout(poll, 5))
        poll()
      })
    },
    dispose() {
      control[CTL_PHASE] = PHASE_QUIT
      Atomics.add(control, CTL_GENERATION, 1)
      Atomics.notify(control, CTL_GENERATION)
      for (const handle of handles) handle.terminate()
      handles.length = 0
    },
  }
  return parallel
}

/** `arrays[eid]` on shared memory (a copy put in its place the first time), or undefined. */
function shared<T extends Uint32Array | Uint8Array>(arrays: (T | undefined)[], eid: number): T | undefined {
  const array = arrays[eid]
  if (array === undefined || array.buffer instanceof SharedArrayBuffer) return array
  const copy = sharedCopy(array)
  arrays[eid] = copy
  return copy
}
