/**
 * `npm run bench:load`: what loading a file costs as it grows, against issue 33's goals: loading (and
 * snapshotting the result) linear in the file's size, and a 30 MB file within the limits loaded in ≤ 2 s.
 *
 *   node --import tsx scripts/bench-load.ts [--rounds 3]
 *
 * Files, each made in memory from a shipped model or the bench rig (scripts/bench/rig.ts, rigFile.ts):
 *   copies N    Fox with its animations replaced by N copies of its first (21 channels of 83 keys), the case
 *               that once took 5.5 s at N = 1000: a copy builds nothing (src/gltf/animationCopies.ts)
 *   aliases N   the same, but each copy's samplers read accessors of their own over the same bytes: nothing is
 *               shared, so every copy is built (the most work a file's bytes can ask for; MAX_KEYS bounds it)
 *   rig S s     the 67-joint bench rig, every channel animated, CUBICSPLINE, 30 keys a second over S seconds:
 *               a real animation file's proportions (S = 41: 30 MB, within the limits)
 *
 * Per file: its size, and the CPU time (this process's, median of the rounds) of readAsset alone and of the
 * whole path a game takes (readAsset, addCharacter, a step, snapshot, restore into a fresh plugin), with ms per
 * MB. Linear: each kind's ms per MB at its largest size against its smallest, which must stay within 2× (the
 * machine is shared; a superlinear part grows with the size it multiplies). Refusals (a file over a limit)
 * are timed too: they must cost little.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createWorld } from 'bitecs'
import { readAsset } from '../src/gltf/read.ts'
import { AnimationError } from '../src/errors.ts'
import { createAnimationPlugin } from '../entry/plugin.ts'
import { createBenchRig } from './bench/rig.ts'
import { writeRigFile } from './bench/rigFile.ts'
import { median } from './bench/measure.ts'
import { joinGlb, splitGlb, type Json } from '../test/helpers/gltfFiles.ts'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } })
const rounds = Number(values.rounds)
const fox = splitGlb(new Uint8Array(readFileSync('assets/Fox/glTF-Binary/Fox.glb')))

/** Fox with `n` copies of its first animation; with `alias`, each copy reads accessors of its own. */
function foxCopies(n: number, alias: boolean): Uint8Array {
  const json = structuredClone(fox.json)
  const first = json.animations[0] as Json
  json.animations = Array.from({ length: n }, (_, k) => {
    const animation = { ...structuredClone(first), name: `copy ${k}` }
    if (alias) {
      for (const sampler of animation.samplers as Json[]) {
        for (const key of ['input', 'output']) {
          json.accessors.push({ ...json.accessors[sampler[key]] })
          sampler[key] = json.accessors.length - 1
        }
      }
    }
    return animation
  })
  return joinGlb(json, fox.bin)
}

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** CPU ms of readAsset, and of the whole path; null when the file is refused (with the refusal's time). */
async function timeFile(bytes: Uint8Array): Promise<{ read: number; path: number; refused: string | null }> {
  const start = cpuMs()
  let asset
  try {
    asset = await readAsset(bytes, 'bench.glb')
  } catch (error) {
    if (!(error instanceof AnimationError)) throw error
    return { read: cpuMs() - start, path: cpuMs() - start, refused: error.message }
  }
  const read = cpuMs() - start
  const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
  const c = plugin.addCharacter(asset)
  plugin.play(c, asset.clips.length - 1)
  plugin.step()
  const snapshot = plugin.snapshot()
  const other = createAnimationPlugin(createWorld(), { capacity: 1024 })
  other.addAsset(asset)
  other.restore(snapshot)
  return { read, path: cpuMs() - start, refused: null }
}

interface Row {
  kind: string
  label: string
  mb: number
  read: number
  path: number
  refused: string | null
}

async function measure(kind: string, label: string, bytes: Uint8Array): Promise<Row> {
  await timeFile(bytes) // warm-up: the same code paths optimized for every size
  const runs = []
  for (let r = 0; r < rounds; r++) runs.push(await timeFile(bytes))
  const row: Row = {
    kind,
    label,
    mb: bytes.length / 1e6,
    read: median(runs.map((x) => x.read)),
    path: median(runs.map((x) => x.path)),
    refused: runs[0]!.refused,
  }
  const perMb = (ms: number): string => (ms / row.mb).toFixed(0)
  console.log(
    `${label.padEnd(16)} ${row.mb.toFixed(1).padStart(6)} MB  readAsset ${row.read.toFixed(0).padStart(5)} ms ` +
      `(${perMb(row.read)} ms/MB)  whole path ${row.path.toFixed(0).padStart(5)} ms (${perMb(row.path)} ms/MB)` +
      (row.refused ? `  refused: ${row.refused.slice(0, 90)}` : ''),
  )
  return row
}

const rows: Row[] = []
for (const n of [500, 1000, 2000, 4096, 5000])
  rows.push(await measure('copies', `copies ${n}`, foxCopies(n, false)))
for (const n of [300, 600, 1200, 1300])
  rows.push(await measure('aliases', `aliases ${n}`, foxCopies(n, true)))
for (const seconds of [10, 20, 41]) {
  const rig = createBenchRig({ joints: 67, channels: 'all', interpolation: 'CUBICSPLINE', seconds })
  rows.push(await measure('rig', `rig ${seconds} s`, await writeRigFile(rig)))
}

console.log('\nTargets:')
for (const kind of ['copies', 'aliases', 'rig']) {
  const loaded = rows.filter((r) => r.kind === kind && r.refused === null)
  const [small, large] = [loaded[0]!, loaded[loaded.length - 1]!]
  const ratio = large.path / large.mb / (small.path / small.mb)
  console.log(
    `  ${kind}: whole path ${(small.path / small.mb).toFixed(0)} → ${(large.path / large.mb).toFixed(0)} ms/MB ` +
      `from ${small.mb.toFixed(1)} to ${large.mb.toFixed(1)} MB (×${ratio.toFixed(2)}, linear: ≤ ×2) ` +
      `${ratio <= 2 ? 'met' : 'NOT MET'}`,
  )
}
const thirty = rows.find((r) => r.label === 'rig 41 s')!
console.log(
  `  a ${thirty.mb.toFixed(1)} MB file within the limits: whole path ${thirty.path.toFixed(0)} ms (≤ 2000) ` +
    `${thirty.refused === null && thirty.path <= 2000 ? 'met' : 'NOT MET'}`,
)
const refusals = rows.filter((r) => r.refused !== null)
console.log(
  `  files over a limit refused in ${refusals.map((r) => `${r.read.toFixed(0)} ms`).join(', ')} ` +
    `(${refusals.map((r) => r.label).join(', ')})`,
)
