/**
 * `npm run bench:ragdoll`: what the project's ragdoll hand-off costs on top of cannon-es's own step, for 1, 10 and
 * 50 ragdolls, side by side in one process; and how cannon-es tunings change both.
 *
 *   npx tsx scripts/bench-ragdoll.ts [--counts 1,10,50] [--steps 300] [--rounds 3]
 *     [--overhead cannon,plugin] [--configs cannon,plugin,sap,sleep,iter-5,iter-20]
 *
 * --overhead: configurations whose overhead tables are printed; --configs: those whose cannon-es step alone is
 * compared side by side at the end (the before/after of the tunings; the first one is the baseline).
 *
 * Method. For each cannon-es configuration and ragdoll count, two identical plugins (A and B) are built: N Foxes
 * (assets/, centimetres, character scale 0.01) on a 2 m grid walking, all ragdolled at step 30 with a hit.
 * One step later both cannon-es worlds hold bit-identical bodies. Then, interleaved step by step:
 *   A  runs the whole plugin step (sampleClips, stepRagdolls with its physics.step, blendPoses, propagate…);
 *   B  runs only `physics.step(dt)` on its own cannon-es world: bare cannon-es, the same work (checked at the end:
 *      every body of A and B must have the same position bits, else the row is marked DIVERGED).
 * A's systems are timed one by one (and A's physics.step inside stepRagdolls), so the table shows
 *   cannon     B's bare cannon-es step (ms per step)
 *   readback   stepRagdolls minus its physics.step (read-back into joint-local poses, weight ramp)
 *   blend      blendPoses (ANIM/PHYS blend, write into the scene graph)
 *   propagate  propagateTransforms (world matrices of the changed joints)
 *   overhead   readback + blend + propagate, as a share of cannon (the target: under 10 %)
 *   sample     sampleClips (animation sampling, which runs with or without ragdolls), for reference
 * over all measured steps ("all": the fall and the rest) and over the last half ("rest": lying still).
 * Also the largest cone/twist limit excess seen (radians beyond each constraint's limit), to show what a tuning
 * buys in quality (cannon-es's own twist measure, the angle between its twist tangents). Times are medians of
 * per-window sums over the rounds; on a shared 2-core machine they vary ±20 % run to run.
 */
import { createWorld } from 'bitecs'
import { NaiveBroadphase, SAPBroadphase, type GSSolver, type World as PhysicsWorld } from 'cannon-es'
import { parseArgs } from 'node:util'
import { loadAsset } from '../src/gltf/load.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../entry/plugin.ts'
import { contextOf } from '../entry/plugin.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const DT = 1 / 60

interface Config {
  name: string
  what: string
  apply(world: PhysicsWorld): void
}

const CONFIGS: Config[] = [
  {
    name: 'cannon',
    what: 'before: cannon-es defaults (NaiveBroadphase, collideConnected filter, GSSolver 10 iterations)',
    apply: (w) => {
      w.broadphase = new NaiveBroadphase()
      w.broadphase.setWorld(w)
    },
  },
  {
    name: 'plugin',
    what: "after: the plugin's own world (RagdollBroadphase: sweep and prune dropping linked pairs; 10 iterations)",
    apply: () => {},
  },
  {
    name: 'sap',
    what: "cannon-es's SAPBroadphase with the collideConnected filter",
    apply: (w) => {
      w.broadphase = new SAPBroadphase(w)
    },
  },
  {
    name: 'sleep',
    what: "the plugin's world with allowSleep (bodies under 0.1 m/s and rad/s for 1 s stop being simulated)",
    apply: (w) => {
      w.allowSleep = true
    },
  },
  {
    name: 'iter-5',
    what: "the plugin's world with 5 solver iterations",
    apply: (w) => {
      ;(w.solver as GSSolver).iterations = 5
    },
  },
  {
    name: 'iter-20',
    what: "the plugin's world with 20 solver iterations",
    apply: (w) => {
      ;(w.solver as GSSolver).iterations = 20
    },
  },
]

const { values } = parseArgs({
  options: {
    counts: { type: 'string', default: '1,10,50' },
    steps: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    configs: { type: 'string', default: CONFIGS.map((c) => c.name).join(',') },
    overhead: { type: 'string', default: 'cannon,plugin' },
  },
})
const counts = values.counts.split(',').map(Number)
const steps = Number(values.steps)
const rounds = Number(values.rounds)
const pick = (list: string, what: string): Config[] =>
  list.split(',').map((name) => {
    const c = CONFIGS.find((x) => x.name === name)
    if (!c) throw new Error(`--${what}: "${name}" is not one of ${CONFIGS.map((x) => x.name).join(', ')}`)
    return c
  })
/** Configurations compared side by side (cannon-es alone), and those whose overhead tables are printed. */
const configs = pick(values.configs, 'configs')
const overheadConfigs = pick(values.overhead, 'overhead')

interface Scene {
  plugin: AnimationPlugin
  characters: number[]
}

function buildScene(asset: AnimationAsset, count: number, config: Config): Scene {
  const plugin = createAnimationPlugin(createWorld())
  config.apply(plugin.physics)
  const S = plugin.stores.SceneNode
  const side = Math.ceil(Math.sqrt(count))
  const characters: number[] = []
  for (let i = 0; i < count; i++) {
    const c = plugin.addCharacter(asset)
    S.scale.fill(0.01, c * 3, c * 3 + 3)
    S.translation[c * 3] = 2 * (i % side)
    S.translation[c * 3 + 2] = 2 * Math.floor(i / side)
    S.dirty[c] = 1
    plugin.play(c, 'Walk', { time: (i * 0.137) % 0.7 })
    characters.push(c)
  }
  for (let s = 0; s < 30; s++) plugin.step()
  characters.forEach((c, i) =>
    plugin.ragdoll(c, { impulse: { joint: 'b_Spine02_03', impulse: [2 + (i % 3), 0, (i % 5) - 2] } }),
  )
  plugin.step()
  return { plugin, characters }
}

interface Timing {
  cannon: number
  readback: number
  blend: number
  propagate: number
  sample: number
  other: number
}

const zero = (): Timing => ({ cannon: 0, readback: 0, blend: 0, propagate: 0, sample: 0, other: 0 })

/** Runs `steps` interleaved steps of A (whole plugin) and B (bare cannon-es); per-window sums in ms. */
function measure(a: Scene, b: Scene): { all: Timing; rest: Timing; excess: number; same: boolean } {
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
  const [advance, sample, stepRagdolls, blend, propagate] = pa.systems
  const world = pa.world
  const all = zero()
  const rest = zero()
  let excess = 0
  for (let s = 0; s < steps; s++) {
    const t0 = performance.now()
    advance!(world)
    const t1 = performance.now()
    sample!(world)
    const t2 = performance.now()
    physicsMs = 0
    stepRagdolls!(world)
    const t3 = performance.now()
    blend!(world)
    const t4 = performance.now()
    propagate!(world)
    const t5 = performance.now()
    contextOf(pa).step++
    const c0 = performance.now()
    b.plugin.physics.step(DT)
    const c1 = performance.now()
    for (const w of s >= steps / 2 ? [all, rest] : [all]) {
      w.cannon += c1 - c0
      w.readback += t3 - t2 - physicsMs
      w.blend += t4 - t3
      w.propagate += t5 - t4
      w.sample += t2 - t1
      w.other += t1 - t0
    }
    if (s % 10 === 0) excess = Math.max(excess, limitExcess(pa))
  }
  physicsA.step = rawStep
  const ba = pa.physics.bodies
  const bb = b.plugin.physics.bodies
  const same =
    ba.length === bb.length &&
    ba.every((x, i) => {
      const y = bb[i]!
      return x.position.x === y.position.x && x.position.y === y.position.y && x.position.z === y.position.z
    })
  return { all, rest, excess, same }
}

/** Largest angle (radians) by which any cone or twist limit is exceeded right now. */
function limitExcess(plugin: AnimationPlugin): number {
  let worst = 0
  for (const c of plugin.physics.constraints) {
    const cone = c as unknown as {
      bodyA: { quaternion: { vmult(v: unknown): { dot(v: unknown): number } } }
      bodyB: { quaternion: { vmult(v: unknown): unknown } }
      axisA?: unknown
      axisB?: unknown
      angle?: number
      twistAngle?: number
      twistEquation?: { axisA: { dot(v: unknown): number }; axisB: unknown }
    }
    if (cone.axisA === undefined || cone.angle === undefined) continue
    const a = cone.bodyA.quaternion.vmult(cone.axisA)
    const b = cone.bodyB.quaternion.vmult(cone.axisB)
    worst = Math.max(worst, Math.acos(Math.min(1, a.dot(b))) - cone.angle)
    const t = cone.twistEquation!
    worst = Math.max(worst, Math.acos(Math.min(1, t.axisA.dot(t.axisB))) - cone.twistAngle!)
  }
  return worst
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const asset = await loadAsset(FOX)
// Warm-up: let the JIT see every path once before anything is measured.
{
  const a = buildScene(asset, 4, CONFIGS[0]!)
  const b = buildScene(asset, 4, CONFIGS[0]!)
  measure(a, b)
}

console.log(
  `ragdoll overhead on top of cannon-es, ${steps} steps of ${(DT * 1000).toFixed(2)} ms, Fox ragdolls`,
)
console.log(`ms per step (median of ${rounds} runs); overhead = (readback + blend + propagate) / cannon\n`)
for (const config of overheadConfigs) {
  console.log(`### ${config.name}: ${config.what}\n`)
  console.log(
    '| ragdolls | window | cannon | readback | blend | propagate | overhead | sample | max limit excess | check |',
  )
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---|')
  for (const n of counts) {
    const runs: ReturnType<typeof measure>[] = []
    for (let r = 0; r < rounds; r++)
      runs.push(measure(buildScene(asset, n, config), buildScene(asset, n, config)))
    for (const window of ['all', 'rest'] as const) {
      const per = (k: keyof Timing): number =>
        median(runs.map((x) => x[window][k])) / (window === 'all' ? steps : steps / 2)
      const cannon = per('cannon')
      const over = per('readback') + per('blend') + per('propagate')
      console.log(
        `| ${n} | ${window} | ${cannon.toFixed(3)} | ${per('readback').toFixed(3)} | ${per('blend').toFixed(3)} | ` +
          `${per('propagate').toFixed(3)} | ${((100 * over) / cannon).toFixed(1)} % | ${per('sample').toFixed(3)} | ` +
          `${window === 'all' ? median(runs.map((x) => x.excess)).toFixed(2) + ' rad' : ''} | ` +
          `${runs.every((x) => x.same) ? 'same bodies' : 'DIVERGED'} |`,
      )
    }
  }
  console.log('')
}

/**
 * Before/after of the tunings on cannon-es alone, fair on a busy machine: one scene per configuration, their
 * bare cannon-es worlds stepped round-robin (each step: every configuration once, in rotating order), so load
 * from other processes falls on all of them alike.
 */
function compareConfigs(n: number): void {
  const scenes = configs.map((c) => buildScene(asset, n, c))
  const ms = configs.map(() => 0)
  for (let s = 0; s < steps; s++) {
    for (let k = 0; k < scenes.length; k++) {
      const i = (s + k) % scenes.length
      const t = performance.now()
      scenes[i]!.plugin.physics.step(DT)
      ms[i]! += performance.now() - t
    }
  }
  const base = ms[0]!
  console.log(
    `| ${n} | ` +
      configs
        .map(
          (c, i) =>
            `${(ms[i]! / steps).toFixed(2)}${i > 0 ? ` (${((100 * ms[i]!) / base).toFixed(0)} %)` : ''}`,
        )
        .join(' | ') +
      ' |',
  )
}

console.log(
  `### cannon-es step alone, configurations side by side (ms per step, share of ${configs[0]!.name})\n`,
)
console.log(`| ragdolls | ${configs.map((c) => c.name).join(' | ')} |`)
console.log(`|---:|${configs.map(() => '---:').join('|')}|`)
for (const n of counts) compareConfigs(n)
