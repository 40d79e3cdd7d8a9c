/**
 * The bookkeeping of a fuzz run (pipeline.ts, forge.ts, calls.ts): `Judge` runs each public call and step,
 * records refusals (AnimationErrors) and broken promises (faults), compares hash() and snapshot() around every
 * failed call, scans the world matrices after every step, and keeps the peak memory and the time spent in its
 * own checks, which are not the run's (pool.ts stops a run by its time in the library).
 */
import { createWorld } from 'bitecs'
import {
  AnimationError,
  createAnimationPlugin,
  type AnimationAsset,
  type AnimationPlugin,
} from '../../entry/index.ts'
import { threadCpuMs } from './cpu.ts'

/** Where in a run something happened. */
export type Stage =
  | 'load'
  | 'addCharacter'
  | 'play'
  | 'steps1'
  | 'ragdoll'
  | 'steps2'
  | 'snapshot'
  | 'restore'
  | 'steps3'
  | 'forge'
  | 'calls'
  | 'pile'

/**
 * A broken promise. `error`: something other than an AnimationError was thrown, or step() threw;
 * `changed`: a call threw and hash() or snapshot() differ from before it; `non-finite`: a world matrix element
 * is NaN or ±∞; `diverged`: the restored plugin's hash differs from the original's; `unbounded`: a step's work
 * grew past its bound (pile.ts), which the time target counts; `corrupt`: a snapshot with bits flipped and its
 * checksum as written was restored.
 */
export interface Fault {
  stage: Stage
  kind: 'error' | 'changed' | 'non-finite' | 'diverged' | 'unbounded' | 'corrupt'
  detail: string
}

/** A refusal: an AnimationError from a call, which the contract allows. */
export interface Refusal {
  stage: Stage
  call: string
  kind: string
  message: string
}

/** Memory of this isolate (heap and array buffers) and of the process (rss), in bytes. */
export interface MemoryPeak {
  /** Largest rise of heapUsed + arrayBuffers over the value at the start of the run. */
  isolate: number
  /** Largest rise of the process's rss (shared by every worker: an upper bound, not this run's own). */
  rss: number
}

export interface RunReport {
  faults: Fault[]
  refusals: Refusal[]
  /**
   * Milliseconds in the library, what the time target judges: the CPU time of the run's thread less that of the
   * judge's own checks (the hash() and snapshot() around each call, the scans of the world matrices), which
   * grow with the rig and are not the run's (cpu.ts: in 10 ms steps, so to ±10 ms a check); where the CPU time
   * cannot be read, `libraryWallMs`.
   */
  ms: number
  /** Whether `ms` is CPU time. */
  cpu: boolean
  /** The run's wall time less the judge's checks. */
  libraryWallMs: number
  /** The run's wall time, checks included. */
  wallMs: number
  memory: MemoryPeak
}

export const describeError = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : `a thrown ${typeof error}: ${String(error)}`

/** Equal bytes (Node's Buffer.equals, a memcmp: a byte loop took 6 ms for a 1.6 MB snapshot). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))
}

/**
 * Told the wall and CPU milliseconds a run's judge has spent in its own checks so far, as they grow (worker.ts
 * passes them to the pool, which stops a run by the time it spends outside them).
 */
let checkListener: ((wallMs: number, cpuMs: number) => void) | null = null
export function onCheckTime(listener: ((wallMs: number, cpuMs: number) => void) | null): void {
  checkListener = listener
}

/** A moment of a run: its wall clock and its thread's CPU clock (null where /proc cannot be read). */
interface Clock {
  wall: number
  cpu: number | null
}
const now = (): Clock => ({ wall: performance.now(), cpu: threadCpuMs() })

/** The first non-finite element of a world-matrix store, or -1. */
export function firstNonFinite(world: Float32Array): number {
  for (let i = 0; i < world.length; i++) {
    const v = world[i]!
    // v - v is 0 for every finite v, NaN for NaN and ±∞: one test instead of two.
    if (v - v !== 0) return i
  }
  return -1
}

/**
 * The bookkeeping of one run: faults, refusals, the peak memory, and the contract checks every stage uses.
 */
export class Judge {
  readonly faults: Fault[] = []
  readonly refusals: Refusal[] = []
  private readonly started = now()
  private readonly baseIsolate: number
  private readonly baseRss: number
  private readonly peak: MemoryPeak = { isolate: 0, rss: 0 }
  /** Time spent in the checks (not counted as the run's): wall and CPU. */
  private checkMs = 0
  private checkCpuMs = 0
  /** The last observation of each plugin, while nothing can have changed it since. */
  private readonly known = new Map<AnimationPlugin, Observation>()
  stage: Stage = 'load'

  constructor() {
    const m = process.memoryUsage()
    this.baseIsolate = m.heapUsed + m.arrayBuffers
    this.baseRss = m.rss
  }

  fault(kind: Fault['kind'], detail: string): void {
    // One fault of a kind per stage is enough to find it again; more only repeat it.
    if (!this.faults.some((f) => f.stage === this.stage && f.kind === kind))
      this.faults.push({ stage: this.stage, kind, detail })
  }

  sampleMemory(): void {
    const start = performance.now()
    const m = process.memoryUsage()
    this.peak.isolate = Math.max(this.peak.isolate, m.heapUsed + m.arrayBuffers - this.baseIsolate)
    this.peak.rss = Math.max(this.peak.rss, m.rss - this.baseRss)
    this.checkMs += performance.now() - start
  }

  /**
   * Runs a public call of `plugin` (or a loader call, `plugin` null). Returns [true, result] when it returned;
   * [false] when it threw an AnimationError (recorded as a refusal, after checking that hash() and snapshot()
   * did not change) or anything else (a fault).
   */
  call<T>(plugin: AnimationPlugin | null, label: string, run: () => T): [true, T] | [false] {
    const before = plugin ? this.observe(plugin) : null
    if (plugin) this.known.delete(plugin)
    let result: T
    try {
      result = run()
    } catch (error) {
      this.sampleMemory()
      if (!(error instanceof AnimationError)) {
        this.fault('error', `${label} threw ${describeError(error)}`)
        return [false]
      }
      this.refusals.push({ stage: this.stage, call: label, kind: error.kind, message: error.message })
      if (plugin && before) {
        const after = this.observe(plugin)
        const start = now()
        const hashChanged = after.hash !== before.hash
        const bytesChanged = !hashChanged && !sameBytes(after.snapshot, before.snapshot)
        this.checked(start)
        if (hashChanged) this.fault('changed', `${label} failed and changed hash()`)
        else if (bytesChanged) this.fault('changed', `${label} failed and changed the snapshot() bytes`)
      }
      return [false]
    }
    this.sampleMemory()
    return [true, result]
  }

  /** hash() and snapshot() of a plugin, remembered until a call or step may change them. */
  private observe(plugin: AnimationPlugin): Observation {
    const cached = this.known.get(plugin)
    if (cached) return cached
    const start = now()
    const o = observe(plugin)
    this.known.set(plugin, o)
    this.checked(start)
    return o
  }

  /** Counts the time since `start` as the judge's own, and tells the listener. */
  private checked(start: Clock): void {
    const end = now()
    this.checkMs += end.wall - start.wall
    if (start.cpu !== null && end.cpu !== null) this.checkCpuMs += end.cpu - start.cpu
    checkListener?.(this.checkMs, this.checkCpuMs)
  }

  /** plugin.hash(), counted as the judge's own time (comparing an original with its restored copy). */
  hash(plugin: AnimationPlugin): string {
    const start = now()
    const h = plugin.hash()
    this.checked(start)
    return h
  }

  /** One plugin.step(), which must not throw; then the world matrices must be finite. */
  step(plugin: AnimationPlugin, label: string): boolean {
    this.known.delete(plugin)
    try {
      plugin.step()
    } catch (error) {
      this.fault('error', `${label}: step() threw ${describeError(error)}`)
      return false
    }
    this.sampleMemory()
    return this.finite(plugin, label)
  }

  finite(plugin: AnimationPlugin, label: string): boolean {
    const world = plugin.stores.SceneNode.world
    const start = now()
    const at = firstNonFinite(world)
    this.checked(start)
    if (at === -1) return true
    const e = Math.floor(at / 16)
    const m = Array.from(world.subarray(e * 16, e * 16 + 16))
    this.fault('non-finite', `${label}: entity ${e} world matrix [${m.join(', ')}]`)
    return false
  }

  report(): RunReport {
    this.sampleMemory()
    const end = now()
    const wallMs = end.wall - this.started.wall
    const libraryWallMs = wallMs - this.checkMs
    const cpu = end.cpu !== null && this.started.cpu !== null
    return {
      faults: this.faults,
      refusals: this.refusals,
      ms: cpu ? end.cpu! - this.started.cpu! - this.checkCpuMs : libraryWallMs,
      cpu,
      libraryWallMs,
      wallMs,
      memory: { ...this.peak },
    }
  }
}

interface Observation {
  hash: string
  snapshot: Uint8Array
}

/** hash() and snapshot() of a plugin; a thrown AnimationError counts as a state (a disposed plugin's). */
export function observe(plugin: AnimationPlugin): Observation {
  const read = <T>(f: () => T, fallback: T): T => {
    try {
      return f()
    } catch (error) {
      if (error instanceof AnimationError) return fallback
      throw error
    }
  }
  return {
    hash: read(() => plugin.hash(), 'threw'),
    snapshot: read(() => plugin.snapshot(), new Uint8Array(0)),
  }
}

/** A fresh world and plugin with the asset registered: where a snapshot of it can be restored. */
export function freshPlugin(
  judge: Judge,
  asset: AnimationAsset,
  options: { capacity: number },
): AnimationPlugin | null {
  const made = judge.call(null, 'createAnimationPlugin', () => createAnimationPlugin(createWorld(), options))
  if (!made[0]) return null
  const plugin = made[1]
  return judge.call(plugin, 'addAsset(asset)', () => plugin.addAsset(asset))[0] ? plugin : null
}
