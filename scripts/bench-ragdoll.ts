/**
 * `npm run bench:ragdoll`: what ragdolls cost per fixed step, for 1, 10 and 100 Fox ragdolls placed apart (a
 * 2 m grid) and piled (dropped onto one spot), what the ragdoll layer adds on top of cannon-es's own step, where
 * the time of a pile goes, and what a step allocates.
 *
 *   node --expose-gc --import tsx scripts/bench-ragdoll.ts [--counts 1,10,100] [--layouts apart,piled]
 *     [--steps 600] [--rounds 3] [--tunings]
 *
 * Cost. For each layout and count, a plugin with N Foxes (assets/, centimetres, character scale 0.01) walking, all
 * ragdolled at step 30 (apart: with a hit each), then `steps` steps, each system timed, in three windows: all
 * of them, the fall (the first 2 s) and lying (the second half; ragdolls at rest sleep: src/physics/sleep.ts).
 * Columns (ms per step, medians of the rounds; the machine is shared, so ±20 % run to run):
 *   step, CPU  the whole plugin step, wall and this process's CPU time; per ragdoll: CPU / N (the target:
 *              ≤ 0.5 ms at 100 apart)
 *   cannon-es  its world.step, inside stepRagdolls
 *   ragdolls   stepRagdolls less cannon-es (anchors, motors, joint projection, read-back, ramps)
 *   blend, propagate, sample   the other systems (they run with or without ragdolls)
 * The pile: cannon-es's own profile of the same scenes stepped bare (World.doProfiling: broadphase, narrowphase,
 * contact equations, solver, integration) and its contact and solver-equation counts, beside the grid's.
 *
 * Target lines: the 100-apart rows against ≤ 0.5 ms of CPU per ragdoll per step, each window. Build: CPU ms of
 * the step that spawns one ragdoll (the largest description, 64 bodies, and a Fox) against ≤ 5 ms.
 *
 * Allocation: heap bytes per step in the steady state (exact: used heap before and after a window of steps with
 * no GC; scripts/bench/measure.ts), of A's whole step and of B's bare cannon-es step, for 10 ragdolls lying
 * apart and for a mix (limp, partial, powered with a held root, per-joint weights): A − B is what the plugin
 * adds. --tunings adds the cannon-es configurations compared side by side (broadphase, cannon-es's own contact
 * bookkeeping, its own solver, sleeping, iterations).
 */
import { createWorld } from 'bitecs'
import { GSSolver, NaiveBroadphase, World, type World as PhysicsWorld } from 'cannon-es'
import { parseArgs } from 'node:util'
import { loadAsset } from '../src/gltf/load.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../entry/plugin.ts'
import { collectGarbage, createGcTracker, measureAllocation, median } from './bench/measure.ts'
import { MAX_RAGDOLL_BODIES } from '../src/physics/description.ts'
import { chainAsset, chainDescription } from '../test/helpers/chainRig.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const DT = 1 / 60
/** Issue 17's targets: CPU ms per ragdoll per step at 100 apart, and CPU ms to build one ragdoll's bodies. */
const RAGDOLL_STEP_TARGET = 0.5
const RAGDOLL_BUILD_TARGET = 5
/** Fresh worlds a build is timed in (see buildTimes). */
const BUILD_WORLDS = 24
const BUILD_WARMUP = 3

const { values } = parseArgs({
  options: {
    counts: { type: 'string', default: '1,10,100' },
    layouts: { type: 'string', default: 'apart,piled' },
    steps: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '3' },
    tunings: { type: 'boolean', default: false },
  },
})
const counts = values.counts.split(',').map(Number)
const steps = Number(values.steps)
const rounds = Number(values.rounds)
type Layout = 'apart' | 'piled' | 'mixed'
const layouts = values.layouts.split(',') as Layout[]
for (const l of layouts) if (l !== 'apart' && l !== 'piled') throw new Error(`--layouts: "${l}"`)

interface Scene {
  plugin: AnimationPlugin
  characters: number[]
}

/**
 * N walking Foxes, ragdolled at step 30 and stepped until every ragdoll has spawned. apart: a 2 m grid, each hit; piled: within 0.4 m
 * of one spot, 0.35 m above one another, falling onto each other; mixed: apart, a quarter each limp, partial
 * (a foreleg), powered (root held) and limp with per-joint weights. `tune` changes the cannon-es world first.
 */
function buildScene(asset: AnimationAsset, count: number, layout: Layout, tune?: (w: PhysicsWorld) => void) {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 1 << 14 })
  tune?.(plugin.physics)
  const side = Math.ceil(Math.sqrt(count))
  const characters: number[] = []
  for (let i = 0; i < count; i++) {
    const c = plugin.addCharacter(asset)
    const at: [number, number, number] =
      layout === 'piled'
        ? [0.2 * Math.cos(i * 2.4), 0.35 * i, 0.2 * Math.sin(i * 2.4)]
        : [2 * (i % side), 0, 2 * Math.floor(i / side)]
    plugin.setTransform(c, {
      position: at,
      rotation: [0, Math.sin(i), 0, Math.cos(i)],
      scale: [0.01, 0.01, 0.01],
    })
    plugin.play(c, 'Walk', { time: (i * 0.137) % 0.7 })
    characters.push(c)
  }
  for (let s = 0; s < 30; s++) plugin.step()
  characters.forEach((c, i) => {
    const hit = { joint: 'b_Spine02_03', impulse: [2 + (i % 3), 0, (i % 5) - 2] as [number, number, number] }
    if (layout === 'piled') plugin.ragdoll(c)
    else if (layout === 'apart') plugin.ragdoll(c, { impulse: hit })
    else if (i % 4 === 0) plugin.ragdoll(c, { impulse: hit })
    else if (i % 4 === 1) {
      plugin.ragdoll(c, { root: 'b_LeftUpperArm_09', impulse: { ...hit, joint: 'b_LeftForeArm_010' } })
    } else if (i % 4 === 2) plugin.ragdoll(c, { motors: { strength: 1, holdRoot: true } })
    else plugin.ragdoll(c, { impulse: hit })
  })
  plugin.step()
  // A step spawns at most RAGDOLL_SPAWN_BODIES ragdoll bodies: the rest spawn in the next steps.
  const ragdolls = contextOf(plugin).ragdolls
  while (characters.some((c) => ragdolls[c]?.instance === null)) plugin.step()
  characters.forEach((c, i) => {
    if (layout === 'mixed' && i % 4 === 3) plugin.setRagdollWeight(c, { weight: 0.5, joints: 'b_Neck_04' })
  })
  return { plugin, characters }
}

interface Timing {
  step: number
  /** This process's CPU time over the step (the machine is shared: wall time grows with others' load). */
  cpu: number
  cannon: number
  ragdolls: number
  blend: number
  propagate: number
  sample: number
}

/** `steps` steps of the scene's plugin, each system timed, cannon-es's step inside stepRagdolls too; ms per step. */
function measure(a: Scene): Record<Window, Timing> {
  const pa = a.plugin
  const physicsA = pa.physics
  const rawStep = physicsA.step.bind(physicsA)
  let physicsMs = 0
  physicsA.step = (dt: number) => {
    const t = performance.now()
    rawStep(dt)
    physicsMs += performance.now() - t
    return physicsA
  }
  // By name: the step's order has systems before and after these (scheduleLod, extractRootMotion, …).
  const named = (name: string) => {
    const i = pa.systems.findIndex((f) => f.name === name)
    if (i < 0) throw new Error(`bench-ragdoll: no system ${name}`)
    return i
  }
  const ragdollAt = named('stepRagdolls')
  const blendAt = named('blendPoses')
  const propagateAt = named('propagateTransforms')
  if (blendAt !== ragdollAt + 1 || propagateAt !== blendAt + 1) throw new Error('bench-ragdoll: system order')
  const before = pa.systems.slice(0, ragdollAt)
  const [stepRagdolls, blend, propagate] = pa.systems.slice(ragdollAt, propagateAt + 1)
  const rest = pa.systems.slice(propagateAt + 1)
  const world = pa.world
  const zero = (): Timing => ({ step: 0, cpu: 0, cannon: 0, ragdolls: 0, blend: 0, propagate: 0, sample: 0 })
  const out: Record<Window, Timing> = { all: zero(), falling: zero(), lying: zero() }
  for (let s = 0; s < steps; s++) {
    const cpu = process.cpuUsage()
    const t0 = performance.now()
    for (const system of before) system(world)
    const t1 = performance.now()
    physicsMs = 0
    stepRagdolls!(world)
    const t2 = performance.now()
    blend!(world)
    const t3 = performance.now()
    propagate!(world)
    const t4 = performance.now()
    for (const system of rest) system(world)
    const t5 = performance.now()
    const used = process.cpuUsage(cpu)
    for (const w of windowsOf(s)) {
      const t = out[w]
      t.step += t5 - t0
      t.cpu += (used.user + used.system) / 1000
      t.cannon += physicsMs
      t.ragdolls += t2 - t1 - physicsMs
      t.blend += t3 - t2
      t.propagate += t4 - t3
      t.sample += t1 - t0
    }
  }
  physicsA.step = rawStep
  for (const w of WINDOWS) {
    const n = w === 'all' ? steps : w === 'falling' ? Math.min(steps, FALLING) : steps - Math.floor(steps / 2)
    for (const k of Object.keys(out[w]) as (keyof Timing)[]) out[w][k] /= n
  }
  return out
}

/** The windows a step counts in: all; the first FALLING steps (the fall); the second half (lying). */
type Window = 'all' | 'falling' | 'lying'
const WINDOWS: Window[] = ['all', 'falling', 'lying']
const FALLING = 120
function windowsOf(s: number): Window[] {
  const w: Window[] = ['all']
  if (s < FALLING) w.push('falling')
  if (s >= Math.floor(steps / 2)) w.push('lying')
  return w
}

const asset = await loadAsset(FOX)
// Warm-up: let the JIT see every path once before anything is measured.
measure(buildScene(asset, 4, 'apart'))

console.log(
  `Fox ragdolls, ${steps} steps of ${(DT * 1000).toFixed(2)} ms; ms per step, median of ${rounds} rounds\n`,
)
console.log(
  '| layout | ragdolls | window | step | CPU | CPU per ragdoll | cannon-es | ragdolls | blend | propagate | sample |',
)
console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|')
/** CPU ms per ragdoll per step of each window at 100 apart, for the target lines after the table. */
const targets: string[] = []
for (const layout of layouts) {
  for (const n of counts) {
    const runs: Record<Window, Timing>[] = []
    for (let r = 0; r < rounds; r++) {
      runs.push(measure(buildScene(asset, n, layout)))
      collectGarbage()
    }
    for (const w of WINDOWS) {
      const per = (k: keyof Timing): number => median(runs.map((x) => x[w][k]))
      const cells = (['cannon', 'ragdolls', 'blend', 'propagate', 'sample'] as const).map((k) =>
        per(k).toFixed(3),
      )
      console.log(
        `| ${layout} | ${n} | ${w} | ${per('step').toFixed(3)} | ${per('cpu').toFixed(3)} | ` +
          `${(per('cpu') / n).toFixed(3)} | ${cells.join(' | ')} |`,
      )
      if (layout === 'apart' && n === 100) {
        const each = per('cpu') / n
        const verdict = each <= RAGDOLL_STEP_TARGET ? 'met' : 'NOT met'
        targets.push(`  ${w.padEnd(7)} ${each.toFixed(3)} ms per ragdoll per step: ${verdict}`)
      }
    }
  }
}
if (targets.length > 0) {
  console.log(
    `\nTarget: ≤ ${RAGDOLL_STEP_TARGET} ms of CPU per ragdoll per step, 100 ragdolls apart, each window`,
  )
  for (const line of targets) console.log(line)
}
console.log(`\n${buildTimes()}`)

/**
 * Build time: CPU ms of the step that spawns one ragdoll's bodies (its step without it subtracted), in fresh
 * worlds: the largest description (64 capsules on a chain, test/helpers/chainRig.ts) and a Fox's generated one.
 * Mean and best of BUILD_WORLDS after BUILD_WARMUP (cold code: 17–19 ms of CPU for the chain on a loaded
 * 2-core machine); the target is the mean's. A mean, not a median: the process's CPU time advances in the
 * kernel's ticks (a Fox's build reads 0 or ~4 ms), which only a sum over many builds evens out.
 */
function buildTimes(): string {
  const cpu = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const rigs = [
    { name: `${MAX_RAGDOLL_BODIES}-body chain`, asset: chainAsset(MAX_RAGDOLL_BODIES) },
    { name: 'Fox (scale 0.01)', asset },
  ]
  const lines = [
    `Build: CPU ms of the spawning step, ${BUILD_WORLDS} fresh worlds after ${BUILD_WARMUP} (target ≤ ${RAGDOLL_BUILD_TARGET})`,
  ]
  for (const rig of rigs) {
    const ms: number[] = []
    // The first worlds warm the JIT up and are not counted.
    for (let i = -BUILD_WARMUP; i < BUILD_WORLDS; i++) {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
      const c = plugin.addCharacter(rig.asset)
      if (rig.asset === asset) plugin.setTransform(c, { scale: [0.01, 0.01, 0.01] })
      for (let s = 0; s < 3; s++) plugin.step()
      // A step without the build, the mean of four, to take away.
      let t = cpu()
      for (let s = 0; s < 4; s++) plugin.step()
      const plain = (cpu() - t) / 4
      const chain = rig.asset !== asset
      plugin.ragdoll(c, chain ? { description: chainDescription(MAX_RAGDOLL_BODIES) } : {})
      // The garbage of earlier worlds is collected before, not in, the build.
      collectGarbage()
      t = cpu()
      plugin.step()
      if (i >= 0) ms.push(Math.max(0, cpu() - t - plain))
    }
    const m = ms.reduce((a, b) => a + b, 0) / ms.length
    const verdict = m <= RAGDOLL_BUILD_TARGET ? 'met' : 'NOT met'
    lines.push(
      `  ${rig.name.padEnd(16)} mean ${m.toFixed(2)}, best ${Math.min(...ms).toFixed(2)}: ${verdict}`,
    )
  }
  return lines.join('\n')
}

/** cannon-es's own profile of a bare world over `steps` steps: ms per step per phase, contacts, equations. */
function profile(layout: Layout, n: number): string {
  const { plugin } = buildScene(asset, n, layout)
  const w = plugin.physics
  w.doProfiling = true
  const sum = { broadphase: 0, narrowphase: 0, makeContactConstraints: 0, solve: 0, integrate: 0 }
  let contacts = 0
  let equations = 0
  for (let s = 0; s < steps; s++) {
    w.step(DT)
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += w.profile[k]
    contacts += w.contacts.length
    // What the solver iterated over: every enabled constraint equation, and each contact's and friction's.
    for (const c of w.constraints) for (const e of c.equations) if (e.enabled) equations++
    equations += w.contacts.length + w.frictionEquations.length
  }
  const ms = (k: keyof typeof sum) => (sum[k] / steps).toFixed(3)
  return (
    `| ${layout} | ${n} | ${ms('broadphase')} | ${ms('narrowphase')} | ${ms('makeContactConstraints')} | ` +
    `${ms('solve')} | ${ms('integrate')} | ${(contacts / steps).toFixed(0)} | ${(equations / steps).toFixed(0)} |`
  )
}

const largest = Math.max(...counts)
console.log(`\nWhere a cannon-es step goes (its own profile, ms per step), ${largest} ragdolls\n`)
console.log(
  '| layout | ragdolls | broadphase | narrowphase | contact equations | solver | integrate | contacts | equations |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const layout of ['apart', 'piled'] as const) console.log(profile(layout, largest))

/**
 * Heap bytes per step, 10 ragdolls lying, steady state: cannon-es's own step (its world stepped bare), the whole
 * plugin step, and the plugin step around a cannon-es step that does nothing (so every ragdoll path runs —
 * anchors, motors, projection, read-back, blend — on bodies that hold still): what the plugin adds.
 */
async function allocation(layout: Layout): Promise<string> {
  const a = buildScene(asset, 10, layout)
  // Lying still first; then every path has run many times.
  for (let s = 0; s < 600; s++) a.plugin.step()
  const physics = a.plugin.physics
  const tracker = createGcTracker()
  const run = (f: () => void) => (k: number) => {
    for (let i = 0; i < k; i++) f()
  }
  const bare = await measureAllocation({ name: 'cannon', run: run(() => physics.step(DT)) }, 1000, tracker)
  const whole = await measureAllocation({ name: 'plugin', run: run(() => a.plugin.step()) }, 1000, tracker)
  const raw = physics.step
  physics.step = () => physics
  const own = await measureAllocation({ name: 'layer', run: run(() => a.plugin.step()) }, 1000, tracker)
  physics.step = raw
  tracker.stop()
  const f = (x: { bytesPerStep: number; method: string }) => `${x.bytesPerStep.toFixed(0)} (${x.method})`
  return `| ${layout} | ${f(bare)} | ${f(whole)} | ${f(own)} |`
}

if (collectGarbage()) {
  console.log('\nHeap bytes per step, 10 ragdolls lying, steady state\n')
  console.log('| scene | cannon-es step | whole plugin step | plugin step, cannon-es idle |')
  console.log('|---|---:|---:|---:|')
  for (const layout of ['apart', 'mixed'] as const) console.log(await allocation(layout))
} else console.log('\n(allocation: run with node --expose-gc)')

if (values.tunings) {
  const configs: { name: string; apply(w: PhysicsWorld): void }[] = [
    { name: 'plugin', apply: () => {} },
    {
      name: 'naive',
      apply: (w) => {
        w.broadphase = new NaiveBroadphase()
        w.broadphase.setWorld(w)
      },
    },
    {
      // cannon-es's own contact bookkeeping (src/physics/cannonPatches/contactBook.ts replaces it): same bits, its cost.
      name: 'cannon-book',
      apply: (w) => {
        const fresh = new World()
        w.collisionMatrix = fresh.collisionMatrix
        w.collisionMatrixPrevious = fresh.collisionMatrixPrevious
        w.bodyOverlapKeeper = fresh.bodyOverlapKeeper
        w.shapeOverlapKeeper = fresh.shapeOverlapKeeper
      },
    },
    // cannon-es's own solver (src/physics/cannonPatches/solver.ts iterates the same way over typed arrays): same bits.
    { name: 'gs-solver', apply: (w) => void (w.solver = new GSSolver()) },
    { name: 'sleep', apply: (w) => void (w.allowSleep = true) },
    { name: 'iter-5', apply: (w) => void ((w.solver as GSSolver).iterations = 5) },
    { name: 'iter-20', apply: (w) => void ((w.solver as GSSolver).iterations = 20) },
  ]
  console.log(
    '\ncannon-es step alone, configurations side by side, round-robin (ms per step, share of plugin)\n',
  )
  console.log(`| layout | ragdolls | ${configs.map((c) => c.name).join(' | ')} |`)
  console.log(`|---|---:|${configs.map(() => '---:').join('|')}|`)
  for (const layout of layouts) {
    for (const n of counts) {
      const scenes = configs.map((c) => buildScene(asset, n, layout, c.apply))
      const ms = configs.map(() => 0)
      for (let s = 0; s < steps; s++) {
        for (let k = 0; k < scenes.length; k++) {
          const i = (s + k) % scenes.length
          const t = performance.now()
          scenes[i]!.plugin.physics.step(DT)
          ms[i]! += performance.now() - t
        }
      }
      const cells = configs.map(
        (_, i) => `${(ms[i]! / steps).toFixed(2)} (${((100 * ms[i]!) / ms[0]!).toFixed(0)} %)`,
      )
      console.log(`| ${layout} | ${n} | ${cells.join(' | ')} |`)
    }
  }
}
