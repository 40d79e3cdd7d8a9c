/**
 * `npm run bench:pile`: the CPU one fixed step costs when a pile of ragdolls is handed to physics at once (issue
 * 33: 100 characters placed 1 cm apart at one point, every one ragdolled in the same step). Prints, per step
 * after the hand-off, this process's CPU ms (process.cpuUsage: user + system), the contacts and solver
 * equations of the physics step, and the 'ragdoll-limited' events the step reported.
 *
 *   node --import tsx scripts/bench-pile.ts [--asset fox|robot|humanoid|<path to .glb>] [--count 100]
 *     [--spacing 0.01] [--steps 30] [--scale <character scale>] [--warm 0]
 *
 * --warm N: the same pile N times first, in plugins of their own in this process, untimed: the measured pile's
 * steps then cost what a game's later piles cost, without V8 compiling the ragdoll and cannon-es code it runs
 * for the first time (process.cpuUsage counts the compiler's threads too).
 *
 * The target: every step ≤ 50 ms of CPU for 100 characters. The machine is shared, so a number is good to
 * ±20 % or so; the counts are exact (the same every run).
 */
import { createWorld } from 'bitecs'
import { parseArgs } from 'node:util'
import { loadAsset } from '../src/gltf/load.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { createAnimationPlugin } from '../entry/plugin.ts'
import { makeHumanoidAsset } from '../test/helpers/humanoid.ts'

const { values } = parseArgs({
  options: {
    asset: { type: 'string', default: 'fox' },
    count: { type: 'string', default: '100' },
    spacing: { type: 'string', default: '0.01' },
    steps: { type: 'string', default: '30' },
    scale: { type: 'string' },
    warm: { type: 'string', default: '0' },
  },
})

const ASSETS: Record<string, { path: string; scale: number; clip: string } | undefined> = {
  fox: { path: 'assets/Fox/glTF-Binary/Fox.glb', scale: 0.01, clip: 'Walk' },
  robot: { path: 'assets/RobotExpressive/RobotExpressive.glb', scale: 0.4, clip: 'Walking' },
}

async function load(name: string): Promise<{ asset: AnimationAsset; scale: number; clip: string | null }> {
  if (name === 'humanoid') return { asset: makeHumanoidAsset(), scale: 1, clip: 'Walk' }
  const known = ASSETS[name]
  if (known) return { asset: await loadAsset(known.path), scale: known.scale, clip: known.clip }
  const asset = await loadAsset(name)
  return { asset, scale: 1, clip: asset.clips[0]?.name ?? null }
}

const { asset, scale: defaultScale, clip } = await load(values.asset)
const count = Number(values.count)
const spacing = Number(values.spacing)
const steps = Number(values.steps)
const scale = values.scale === undefined ? defaultScale : Number(values.scale)

/** A plugin with the pile placed, animated 10 steps and every character ragdolled (spawning from the next step). */
function pile(): ReturnType<typeof createAnimationPlugin> {
  const p = createAnimationPlugin(createWorld(), { capacity: 1 << 14 })
  const characters: number[] = []
  for (let i = 0; i < count; i++) {
    const c = p.addCharacter(asset)
    p.setTransform(c, { position: [i * spacing, 0, 0], scale: [scale, scale, scale] })
    if (clip !== null) p.play(c, clip, { time: (i * 0.037) % 0.5 })
    characters.push(c)
  }
  for (let s = 0; s < 10; s++) p.step()
  for (const c of characters) p.ragdoll(c)
  return p
}

for (let w = 0; w < Number(values.warm); w++) {
  const warm = pile()
  for (let s = 0; s < steps; s++) warm.step()
  warm.dispose()
}
const p = pile()

const world = p.physics
console.log(
  `${count} × ${values.asset} at ${spacing} m apart, scale ${scale}, ${values.warm} piles before: CPU ms per step after the hand-off`,
)
console.log('| step | CPU ms | contacts | contact + friction equations | limited |')
console.log('|---:|---:|---:|---:|---:|')
let worst = 0
for (let s = 0; s < steps; s++) {
  const events = p.events.length
  const t = process.cpuUsage()
  p.step()
  const d = process.cpuUsage(t)
  const ms = (d.user + d.system) / 1000
  worst = Math.max(worst, ms)
  const limited = p.events.slice(events).filter((e) => e.kind === 'ragdoll-limited').length
  const equations = world.contacts.length + world.frictionEquations.length
  console.log(`| ${s + 1} | ${ms.toFixed(1)} | ${world.contacts.length} | ${equations} | ${limited} |`)
}
console.log(`worst step: ${worst.toFixed(1)} ms of CPU`)
const kinds = (kind: string) => p.events.filter((e) => e.kind === kind).length
console.log(
  `events: ${kinds('ragdoll-limited')} ragdoll-limited, ${kinds('ragdoll-exploded')} ragdoll-exploded`,
)
