/**
 * The soak test: a crowd of Fox characters run for a long simulated time, headless and as fast as the machine
 * goes, while a seeded random director keeps changing everything — clips and cross-fades at random speeds
 * (0 and negative included), ragdolls with random hits, get-ups, characters removed (by removeCharacter and by
 * bitecs's own removeEntity) and new ones added on the recycled ids. Every `checkEvery` steps it asserts:
 *
 *   - every SceneNode's local and world transform is finite;
 *   - the physics world holds exactly the bodies and constraints of the live ragdolls (plus the static ground);
 *   - the pose pool's `used` equals the sum of the live characters' blocks, and used + free = its size;
 *   - the SceneNodes are exactly the characters and their joints;
 *   - no 'pose-non-finite' event (nothing was forced in, so a non-finite pose would be a bug);
 *
 * and every `heapEvery` steps it samples `process.memoryUsage().heapUsed` after a full GC. The heap must stay
 * flat: it is reported as first / last / min / max, and judged after a warm-up (the first WARM_UP of the run,
 * while pools, caches and compiled code grow to their working size): the last sample may exceed the first one
 * after warm-up by less than the tolerance, and so may the least-squares trend of the samples after warm-up,
 * projected over the whole run.
 *
 *   npm run soak -- [--characters 100] [--minutes 60] [--seed 1] [--check-every 600] [--heap-every 6000] [--json]
 *
 * (`npm run soak` runs `node --expose-gc --import tsx scripts/soak.ts`; without --expose-gc heap samples are
 * taken without a GC and are noisy.) Exits 1 on a failed check or a growing heap. The CI form is
 * test/systems/soak.test.ts (20 characters, a few simulated minutes). Run from the repository root (the Fox is
 * read from assets/).
 *
 * Deterministic: the director uses its own PRNG (mulberry32, seeded), never Math.random or a clock, so one seed
 * gives one run; the final state hash is printed to compare runs.
 */
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { createWorld, query, removeEntity } from 'bitecs'
import { loadAsset } from '../src/gltf/load.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { POSE_BUFFERS } from '../components/Pose.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../components/Ragdoll.ts'
import { createAnimationPlugin, type AnimationPlugin, type AssetHandle } from '../entry/plugin.ts'
import type { LoopMode } from '../components/Sampler.ts'
import { mulberry32 } from './random.ts'
import { contextOf } from '../entry/plugin.ts'
import { MB, formatSoak, heapVerdict, slope } from './soakReport.ts'
import { ragdollInstance } from '../src/physics/ragdoll.ts'

export const FOX_PATH = 'assets/Fox/glTF-Binary/Fox.glb'

export interface SoakOptions {
  /** Characters alive at any time (removals are replaced at once). */
  characters: number
  /** Simulated seconds. */
  seconds: number
  seed: number
  /** Fixed steps between invariant checks. */
  checkEvery: number
  /** Fixed steps between heap samples (each after a full GC when `gc` is given). */
  heapEvery: number
  /** A full garbage collection (`globalThis.gc` under --expose-gc), or null to sample without one. */
  gc: (() => void) | null
  /** Called after each heap sample, for progress output. */
  progress?: (sample: HeapSample, report: SoakProgress) => void
  /** The Fox asset, if already loaded. */
  asset?: AnimationAsset
}

export interface HeapSample {
  step: number
  heapUsed: number
}

export interface SoakProgress {
  step: number
  steps: number
  stepMs: number
}

export interface SoakReport {
  options: Omit<SoakOptions, 'gc' | 'progress' | 'asset'> & { gc: boolean }
  steps: number
  simulatedSeconds: number
  /** Wall time inside plugin.step() only, and in total (with the director, checks and GCs). */
  stepSeconds: number
  wallSeconds: number
  /** CPU time of the process over the run (user + system): the measure that holds on a shared machine. */
  cpuSeconds: number
  /** Fixed steps per wall second (steps only), and simulated seconds per wall second. */
  stepsPerSecond: number
  realtimeFactor: number
  checks: number
  actions: Record<string, number>
  events: Record<string, number>
  maxRagdolls: number
  maxBodies: number
  poolSlots: number
  heap: {
    samples: HeapSample[]
    first: number
    last: number
    min: number
    max: number
    /** The first sample at or after the warm-up. */
    warm: HeapSample
    /** Least-squares slope of the samples from `warm` on, bytes per simulated minute. */
    slopePerMinute: number
  }
  hash: string
}

/** The director's PRNG (mulberry32, scripts/random.ts). */
export const createRandom = mulberry32

const CLIPS = ['Survey', 'Walk', 'Run'] as const
const LOOPS: readonly LoopMode[] = ['once', 'repeat', 'pingpong']
/** Speeds the director picks from (the last entry is replaced by a random one in [-2, 2)). */
const SPEEDS = [1, 1, 0.5, 2, 0, -1, -0.5, Number.NaN]
/** Fraction of the run that counts as warm-up for the heap verdict. */
export const WARM_UP = 0.2
/** Grid spacing of the characters, metres. */
const SPACING = 3

/** Runs the soak; throws an Error naming the step and what failed as soon as a check fails. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const { characters: count, seed, checkEvery, heapEvery, gc } = options
  const asset = options.asset ?? (await loadAsset(FOX_PATH))
  const world = createWorld()
  // Capacity: the live entities plus headroom; bitecs recycles ids, so it does not grow with the run.
  const plugin = createAnimationPlugin(world, { capacity: (count + 8) * (asset.nodes.length + 2) + 64 })
  const handle = plugin.addAsset(asset)
  const steps = Math.round(options.seconds / plugin.dt)
  const random = createRandom(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const actions: Record<string, number> = {}
  const events: Record<string, number> = {}
  const count1 = (table: Record<string, number>, key: string) => (table[key] = (table[key] ?? 0) + 1)

  // Grid slot → character entity.
  const slots: number[] = []
  for (let i = 0; i < count; i++) slots.push(addFox(plugin, handle, i))
  // Hits land mostly on the heavy bodies. A hit on the head (0.6 kg) spins that body past stepRagdolls's
  // explosion limit (200 rad/s) even at 5 N·s: the ragdoll ends at once with a 'ragdoll-exploded' event, which
  // keeps that path in the soak too (counted in `events`).
  const hitJoints = ['b_Hip_01', 'b_Hip_01', 'b_Spine01_02', 'b_Spine02_03', 'b_Tail01_012', 'b_Head_05']

  const randomSpeed = () => {
    const s = pick(SPEEDS)
    return Number.isNaN(s) ? random() * 4 - 2 : s
  }
  /** N·s; the Fox ragdoll weighs 30 kg. */
  const randomImpulse = (): [number, number, number] => [
    (random() * 2 - 1) * 12,
    random() * 8,
    (random() * 2 - 1) * 12,
  ]

  /** Once per simulated second: every character may do something, and one may leave for a new one. */
  function direct(): void {
    const { Ragdoll } = plugin.stores
    for (let i = 0; i < slots.length; i++) {
      const c = slots[i]!
      const r = random()
      const state = Ragdoll.active[c]!
      if (state === RAGDOLL_FALLING) {
        if (r < 0.3) {
          const withClip = random() < 0.7
          plugin.getUp(c, withClip ? { clip: pick(CLIPS), fadeSeconds: random() * 0.5 } : {})
          count1(actions, withClip ? 'getUp+clip' : 'getUp')
        } else if (r < 0.4) {
          plugin.applyImpulse(c, pick(hitJoints), randomImpulse())
          count1(actions, 'hit')
        }
      } else if (state !== RAGDOLL_OFF) {
        // Getting up: sometimes it falls again before it is up.
        if (r < 0.1) {
          plugin.ragdoll(c, { impulse: { joint: pick(hitJoints), impulse: randomImpulse() } })
          count1(actions, 'ragdoll-again')
        }
      } else if (r < 0.25) {
        const fade = random() < 0.1 ? 0 : random()
        plugin.crossFade(c, pick(CLIPS), fade, { speed: randomSpeed(), loop: pick(LOOPS) })
        count1(actions, 'crossFade')
      } else if (r < 0.35) {
        plugin.play(c, pick(CLIPS), { speed: randomSpeed(), loop: pick(LOOPS), time: random() * 2 - 0.5 })
        count1(actions, 'play')
      } else if (r < 0.37) {
        plugin.ragdoll(c, { impulse: { joint: pick(hitJoints), impulse: randomImpulse() } })
        count1(actions, 'ragdoll')
      }
    }
    if (random() < 0.5) {
      const i = Math.floor(random() * slots.length)
      const c = slots[i]!
      // Half through the plugin, half the way a game's own cleanup would (bitecs removeEntity on the entity).
      if (random() < 0.5) {
        plugin.removeCharacter(c)
        count1(actions, 'removeCharacter')
      } else {
        removeEntity(world, c)
        count1(actions, 'removeEntity')
      }
      slots[i] = addFox(plugin, handle, i)
      count1(actions, 'add')
    }
  }

  let maxRagdolls = 0
  let maxBodies = 0
  let checks = 0
  function check(step: number): void {
    checks++
    const fail = (what: string): never => {
      throw new Error(`soak seed ${seed}, step ${step} (${(step * plugin.dt).toFixed(2)} s): ${what}`)
    }
    const { Pose } = plugin.stores
    const live = Array.from(query(world, [Pose]))
    if (live.length !== slots.length) fail(`${live.length} characters alive, ${slots.length} expected`)
    let blocks = 0
    let joints = 0
    let bodies = 0
    let constraints = 0
    let ragdolls = 0
    for (const c of live) {
      blocks += POSE_BUFFERS * Pose.count[c]!
      joints += Pose.count[c]!
      const instance = ragdollInstance(contextOf(plugin).ragdolls[c]?.instance)
      if (instance) {
        ragdolls++
        bodies += instance.bodies.length
        constraints += instance.constraints.length
      }
    }
    const pool = contextOf(plugin).pool
    if (pool.used !== blocks) fail(`pose pool used ${pool.used}, live characters hold ${blocks} slots`)
    let free = 0
    for (let i = 1; i < pool.free.length; i += 2) free += pool.free[i]!
    if (pool.used + free !== pool.slots)
      fail(`pose pool: used ${pool.used} + free ${free} ≠ ${pool.slots} slots`)
    const dynamic = plugin.physics.bodies.filter((b) => b.mass > 0).length
    if (dynamic !== bodies)
      fail(`${dynamic} dynamic bodies in the physics world, live ragdolls have ${bodies}`)
    if (plugin.physics.constraints.length !== constraints) {
      fail(
        `${plugin.physics.constraints.length} constraints in the physics world, ragdolls have ${constraints}`,
      )
    }
    const nodes = plugin.stores.SceneNode
    const members = query(world, [nodes])
    if (members.length !== live.length + joints) {
      fail(`${members.length} SceneNodes, ${live.length} characters with ${joints} joints`)
    }
    for (let i = 0; i < members.length; i++) {
      const e = members[i]!
      let sum = 0
      for (let k = 0; k < 16; k++) sum += nodes.world[e * 16 + k]!
      for (let k = 0; k < 3; k++) sum += nodes.translation[e * 3 + k]! + nodes.scale[e * 3 + k]!
      for (let k = 0; k < 4; k++) sum += nodes.rotation[e * 4 + k]!
      if (!(sum - sum === 0)) fail(`SceneNode ${e} has a non-finite local or world transform`)
    }
    for (const event of plugin.events) {
      count1(events, event.kind)
      if (event.kind === 'pose-non-finite') fail(`unexpected event: ${event.message}`)
    }
    plugin.events.length = 0
    maxRagdolls = Math.max(maxRagdolls, ragdolls)
    maxBodies = Math.max(maxBodies, bodies)
  }

  const heap: HeapSample[] = []
  const sampleHeap = (step: number) => {
    if (gc) {
      gc()
      gc()
    }
    heap.push({ step, heapUsed: process.memoryUsage().heapUsed })
  }

  const perSecond = Math.round(1 / plugin.dt)
  const started = performance.now()
  const cpu0 = process.cpuUsage()
  let stepMs = 0
  sampleHeap(0)
  for (let step = 1; step <= steps; step++) {
    if (step % perSecond === 1 || perSecond === 1) direct()
    const t0 = performance.now()
    plugin.step()
    stepMs += performance.now() - t0
    if (step % checkEvery === 0 || step === steps) check(step)
    if (step % heapEvery === 0 || step === steps) {
      sampleHeap(step)
      options.progress?.(heap[heap.length - 1]!, { step, steps, stepMs })
    }
  }
  const wallSeconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpu0)
  const values = heap.map((h) => h.heapUsed)
  let warm = heap.findIndex((h) => h.step >= WARM_UP * steps && h.step > 0)
  if (warm < 0) warm = heap.length - 1
  const report: SoakReport = {
    options: {
      characters: count,
      seconds: options.seconds,
      seed,
      checkEvery,
      heapEvery,
      gc: gc !== null,
    },
    steps,
    simulatedSeconds: steps * plugin.dt,
    stepSeconds: stepMs / 1000,
    wallSeconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    stepsPerSecond: steps / (stepMs / 1000),
    realtimeFactor: (steps * plugin.dt) / wallSeconds,
    checks,
    actions,
    events,
    maxRagdolls,
    maxBodies,
    poolSlots: contextOf(plugin).pool.slots,
    heap: {
      samples: heap,
      first: values[0]!,
      last: values[values.length - 1]!,
      min: Math.min(...values),
      max: Math.max(...values),
      warm: heap[warm]!,
      slopePerMinute: slope(heap.slice(warm), plugin.dt),
    },
    hash: plugin.hash(),
  }
  plugin.dispose()
  return report
}

/** Adds a Fox (centimetres, so its root is scaled to 0.01) at grid slot i, playing Walk. */
function addFox(plugin: AnimationPlugin, handle: AssetHandle, i: number): number {
  const c = plugin.addCharacter(handle)
  const nodes = plugin.stores.SceneNode
  const side = 10
  nodes.translation[c * 3] = (i % side) * SPACING
  nodes.translation[c * 3 + 2] = Math.floor(i / side) * SPACING
  nodes.scale.fill(0.01, c * 3, c * 3 + 3)
  nodes.dirty[c] = 1
  plugin.play(c, 'Walk')
  return c
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      characters: { type: 'string', default: '100' },
      minutes: { type: 'string', default: '60' },
      seed: { type: 'string', default: '1' },
      'check-every': { type: 'string', default: '600' },
      'heap-every': { type: 'string', default: '6000' },
      tolerance: { type: 'string', default: '4' },
      json: { type: 'boolean', default: false },
    },
  })
  const num = (name: keyof typeof values, min: number): number => {
    const n = Number(values[name])
    if (!(Number.isFinite(n) && n >= min))
      throw new Error(`--${name}: ${values[name]} must be a number ≥ ${min}`)
    return n
  }
  const gc = (globalThis as { gc?: () => void }).gc ?? null
  if (!gc) console.error('soak: run with node --expose-gc (npm run soak does) for meaningful heap samples')
  const report = await runSoak({
    characters: num('characters', 1),
    seconds: num('minutes', 1 / 60) * 60,
    seed: num('seed', 0),
    checkEvery: num('check-every', 1),
    heapEvery: num('heap-every', 1),
    gc,
    progress: (sample, p) => {
      if (values.json) return
      const pct = ((100 * p.step) / p.steps).toFixed(0)
      console.error(
        `  ${pct}% step ${p.step}: heap ${MB(sample.heapUsed)}, ${((p.stepMs / p.step) * 1).toFixed(3)} ms/step`,
      )
    },
  })
  const tolerance = num('tolerance', 0) * 1048576
  const { flat, growth, trend } = heapVerdict(report, tolerance)
  if (values.json) console.log(JSON.stringify({ ...report, flat }, null, 2))
  else {
    console.log(formatSoak(report))
    console.log(
      `heap ${flat ? 'flat' : 'GROWING'}: last − first after warm-up ${MB(growth)}, trend over the run ${MB(trend)} ` +
        `(tolerance ${MB(tolerance)})`,
    )
  }
  if (!flat) process.exitCode = 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error)
    process.exitCode = 1
  })
}
