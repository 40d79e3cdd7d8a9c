/**
 * `npm run bench`: the project's fixed step against three.js's AnimationMixer, side by side in one process
 * (see scripts/bench/run.ts for the method). Prints Markdown tables; `--json` prints the JSON result instead,
 * `--out <file>` also writes it to a file. Exits 1 when a correctness check failed.
 *
 *   node --expose-gc --import tsx scripts/bench.ts [--quick] [--sections crowds,snapshots,retarget,ik]
 *     [--characters 1,100,1000] [--rounds 7]
 *     [--assets fox,rig-linear,rig-cubic] [--crowds playing,moving,idle,layered,blend-space,lod]
 *     [--alloc-steps 1000] [--no-squad]
 *     [--no-split] [--shared-process] [--json] [--out result.json] [--v8-measures] [--kernels js|wasm]
 *     [--compare-kernels] [--compare-workers [--workers 0,2]] [--compare-compression] [--compare-graphs]
 *     [--peers babylon,playcanvas]
 *
 * Each scenario (and the squad comparison) runs in a fresh child process holding one animation plugin, as a
 * game does, on the bench bundled to plain JavaScript (see BenchOptions.isolate and child.ts's bundledChildEntry:
 * under tsx every typed-array access pays a detach check); --shared-process runs them all in this process.
 * --quick: characters 1,100, 5 rounds, 200 allocation steps (a smoke run; targets at 1000 are not measured).
 * --sections snapshots: only the snapshot / restore section (scripts/bench/snapshots.ts), no crowd scenarios;
 * --sections retarget: only the retargeted crowd against a native one (scripts/bench/retargetCrowd.ts).
 *   --sections ik: only IK's cost (feet + aim on the rig's walking crowd at the largest --characters, with and
 *   without: scripts/bench/ik.ts).
 * --v8-measures: what each engine measure of src/engine/v8.ts buys (the scenarios with each off, and all off).
 * --kernels: the plugin's `kernels` option in every scenario (default: the plugin's default, 'wasm' where
 *   WebAssembly SIMD validates).
 * --peers babylon,playcanvas: also Babylon.js and PlayCanvas on the same file and crowds, each checked against
 *   the project and timed in the same rounds (scripts/bench/peers.ts); crowds a peer cannot express are skipped.
 * --compare-kernels [--children 4]: world-matrix propagation with each kernel on the playing crowd, for the
 *   chosen assets (default rig-linear, fox) at the largest character count (default 1000), in alternating child
 *   processes, `--children` per kernel (scripts/bench/kernels.ts).
 * --compare-workers [--workers 0,2] [--children 2] [--main-waits]: the whole step with each count of the plugin's
 *   `workers` option, wall and CPU time (and the calling thread's, on Linux), on the rig's playing crowd ×10,000
 *   and the chosen assets' and crowds' crowds ×1000 (with --characters: every crowd at those counts), in
 *   alternating child processes (scripts/bench/workers.ts);
 *   --main-waits leaves every chunk to the workers, so the calling thread's CPU is the step's serial part.
 * --compare-compression [--assets rig-mixamo,fox] [--children 4]: exact clips against compact ones (loadAsset's
 *   `compress`) on the playing crowd at the largest character count: clip memory per key for both, keys kept,
 *   the world error measured, and sampleTracks' CPU per joint, in alternating child processes
 *   (scripts/bench/compression.ts).
 * --compare-graphs [--children 2]: 1000 Foxes (or the largest of --characters) on a six-state graph against the
 *   same crowd driven by hand calls at the steps the graph decided, in alternating child processes
 *   (scripts/bench/graphs.ts).
 * Run with --expose-gc (the npm script does) so allocation windows start from a collected heap.
 */
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { CROWD_KINDS, type CrowdKind } from './bench/crowd.ts'
import { formatReport } from './bench/report.ts'
import os from 'node:os'
import { formatKernelComparisons, runKernelComparisons } from './bench/kernels.ts'
import {
  COMPRESSION_ASSETS,
  formatCompressionComparisons,
  runCompressionComparisons,
  type CompressionAsset,
} from './bench/compression.ts'
import { formatWorkersComparisons, runWorkersComparisons, workersScenarios } from './bench/workers.ts'
import { runBenchmark } from './bench/run.ts'
import { formatGraphComparison, runGraphComparison } from './bench/graphs.ts'
import { PEER_NAMES, type PeerName } from './bench/peers.ts'
import {
  ASSET_NAMES,
  SECTION_NAMES,
  benchSettings,
  type SectionName,
  type AssetName,
  type BenchOptions,
  type BenchResult,
} from './bench/options.ts'
import { V8_MEASURE_NAMES, type V8Measures } from '../src/engine/v8.ts'
import type { SceneKernels } from '../components/SceneNode.ts'

const OPTIONS = {
  quick: { type: 'boolean', default: false },
  sections: { type: 'string' },
  characters: { type: 'string' },
  rounds: { type: 'string' },
  assets: { type: 'string' },
  crowds: { type: 'string' },
  'shared-process': { type: 'boolean' },
  'alloc-steps': { type: 'string' },
  'no-squad': { type: 'boolean', default: false },
  'no-split': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  out: { type: 'string' },
  'v8-measures': { type: 'boolean', default: false },
  kernels: { type: 'string' },
  'compare-kernels': { type: 'boolean', default: false },
  'compare-workers': { type: 'boolean', default: false },
  'compare-compression': { type: 'boolean', default: false },
  'compare-graphs': { type: 'boolean', default: false },
  'main-waits': { type: 'boolean', default: false },
  workers: { type: 'string' },
  children: { type: 'string' },
  peers: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const

/** This file's header comment, the usage `--help` prints. */
function usage(): string {
  const text = readFileSync(fileURLToPath(import.meta.url), 'utf8')
  const header = text.slice(text.indexOf('/**') + 3, text.indexOf('*/'))
  return header.replace(/^ \* ?/gm, '').trim()
}

function parseOptions(): ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'] {
  try {
    return parseArgs({ options: OPTIONS }).values
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message} (npm run bench -- --help lists the options)\n`)
    process.exit(2)
  }
}

const values = parseOptions()
if (values.help) {
  process.stdout.write(`${usage()}\n`)
  process.exit(0)
}

function list<T extends string>(
  text: string | undefined,
  allowed: readonly T[],
  what: string,
): T[] | undefined {
  if (text === undefined) return undefined
  const items = text.split(',').map((s) => s.trim())
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new Error(`--${what}: "${item}" is not one of ${allowed.join(', ')}`)
    }
  }
  return items as T[]
}

function kernelsOption(text: string | undefined): SceneKernels | undefined {
  if (text === undefined || text === 'js' || text === 'wasm') return text
  throw new Error(`--kernels: "${text}" is not js or wasm`)
}

function integer(text: string | undefined, what: string, min: number): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < min) throw new Error(`--${what}: ${text} must be an integer ≥ ${min}`)
  return n
}

const options: BenchOptions = {
  sections: list<SectionName>(values.sections, SECTION_NAMES, 'sections'),
  characters:
    values.characters !== undefined
      ? values.characters.split(',').map((s) => integer(s, 'characters', 1)!)
      : values.quick
        ? [1, 100]
        : undefined,
  rounds: integer(values.rounds, 'rounds', 5) ?? (values.quick ? 5 : undefined),
  // --compare-compression names assets of its own (compression.ts).
  assets: values['compare-compression'] ? undefined : list<AssetName>(values.assets, ASSET_NAMES, 'assets'),
  crowds: list<CrowdKind>(values.crowds, CROWD_KINDS, 'crowds'),
  allocSteps: integer(values['alloc-steps'], 'alloc-steps', 0) ?? (values.quick ? 200 : undefined),
  squad: !values['no-squad'],
  split: !values['no-split'],
  isolate: !values['shared-process'],
  kernels: kernelsOption(values.kernels),
  peers: list<PeerName>(values.peers, PEER_NAMES, 'peers'),
  log: values.json ? undefined : (line) => process.stderr.write(`${line}\n`),
}

if (!(globalThis as { gc?: unknown }).gc) {
  process.stderr.write('note: run with node --expose-gc for clean allocation windows (npm run bench does)\n')
}
if (values['compare-kernels']) {
  const settings = benchSettings(options)
  const assets = options.assets ?? ['rig-linear', 'fox']
  const count = Math.max(...(options.characters ?? [1000]))
  const load = os.loadavg().map((x) => x.toFixed(2))
  const children = integer(values.children, 'children', 2) ?? 4
  const results = await runKernelComparisons(assets, count, children, settings, options.log ?? (() => {}))
  if (values.out !== undefined) await writeFile(values.out, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(
    values.json
      ? `${JSON.stringify(results, null, 2)}\n`
      : `Kernels (load average ${load.join(' ')} at start; per child the median CPU of ${settings.rounds} rounds, then the median over children):\n\n` +
          `${formatKernelComparisons(results)}\n`,
  )
  if (results.some((r) => !r.sameBits)) process.exitCode = 1
  process.exit()
}
if (values['compare-compression']) {
  const settings = benchSettings(options)
  const assets = list<CompressionAsset>(values.assets, COMPRESSION_ASSETS, 'assets') ?? COMPRESSION_ASSETS
  const count = Math.max(...(options.characters ?? [1000]))
  const load = os.loadavg().map((x) => x.toFixed(2))
  const children = integer(values.children, 'children', 2) ?? 4
  const results = await runCompressionComparisons(
    assets,
    count,
    children,
    settings,
    options.log ?? (() => {}),
  )
  if (values.out !== undefined) await writeFile(values.out, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(
    values.json
      ? `${JSON.stringify(results, null, 2)}\n`
      : `Compact clips (load average ${load.join(' ')} at start; per child the median CPU of ${settings.rounds} rounds, then the median over children):\n\n` +
          `${formatCompressionComparisons(results)}\n`,
  )
  process.exit()
}
if (values['compare-workers']) {
  const settings = benchSettings(options)
  const counts =
    values.workers === undefined ? [0, 2] : values.workers.split(',').map((w) => integer(w, 'workers', 0)!)
  const scenarios = workersScenarios(
    options.assets ?? ['rig-linear', 'fox'],
    options.crowds ?? CROWD_KINDS,
    values.characters === undefined ? undefined : options.characters,
  )
  const load = os.loadavg().map((x) => x.toFixed(2))
  const children = integer(values.children, 'children', 1) ?? 2
  const results = await runWorkersComparisons(
    scenarios,
    counts,
    children,
    settings,
    options.log ?? (() => {}),
    values['main-waits'],
  )
  const end = os.loadavg().map((x) => x.toFixed(2))
  if (values.out !== undefined) await writeFile(values.out, `${JSON.stringify(results, null, 2)}\n`)
  process.stdout.write(
    values.json
      ? `${JSON.stringify(results, null, 2)}\n`
      : `Workers (load average ${load.join(' ')} at start, ${end.join(' ')} at the end; per child the median of ${settings.rounds} rounds, then the median over ${children} children):\n\n` +
          `${formatWorkersComparisons(results)}\n`,
  )
  if (results.some((r) => !r.sameBits || r.runs.some((run) => run.workers > 0 && run.workerItems === 0)))
    process.exitCode = 1
  process.exit()
}
if (values['compare-graphs']) {
  const settings = benchSettings(options)
  const count = Math.max(...(options.characters ?? [1000]))
  const load = os.loadavg().map((x) => x.toFixed(2))
  const children = integer(values.children, 'children', 1) ?? 2
  const result = await runGraphComparison(count, children, settings, options.log ?? (() => {}))
  const end = os.loadavg().map((x) => x.toFixed(2))
  if (values.out !== undefined) await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`)
  process.stdout.write(
    values.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : `Graphs (load average ${load.join(' ')} at start, ${end.join(' ')} at the end):\n\n${formatGraphComparison(result)}\n`,
  )
  if (!result.sameBits) process.exitCode = 1
  process.exit()
}
if (values['v8-measures']) {
  await measureV8Measures()
  process.exit(0)
}

/**
 * `--v8-measures`: the chosen scenarios with every engine measure on, with each one off alone, and with all off
 * (src/engine/v8.ts), each scenario in its own process: what each measure still buys, as the project's ms per
 * step and its change against all on.
 */
async function measureV8Measures(): Promise<void> {
  const variants: (keyof V8Measures)[][] = [[], ...V8_MEASURE_NAMES.map((n) => [n]), [...V8_MEASURE_NAMES]]
  const runs: { off: string; result: BenchResult }[] = []
  for (const off of variants) {
    const name = off.length === 0 ? 'all on' : off.length > 1 ? 'all off' : `${off[0]} off`
    options.log?.(`v8 measures: ${name}`)
    const result = await runBenchmark({
      ...options,
      squad: false,
      split: false,
      isolate: true,
      v8MeasuresOff: off,
    })
    runs.push({ off: name, result })
  }
  const base = runs[0]!.result.scenarios
  const header = ['scenario', ...runs.map((r) => r.off)]
  const rows = base.map((sc, i) => {
    const cells = runs.map((r) => {
      const ms = r.result.scenarios[i]!.ours?.msPerStep ?? NaN
      const ref = sc.ours?.msPerStep ?? NaN
      return r === runs[0] ? ms.toFixed(3) : `${ms.toFixed(3)} (${(((ms - ref) / ref) * 100).toFixed(1)} %)`
    })
    return [`${sc.asset} ${sc.crowd} ×${sc.characters}`, ...cells]
  })
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`
  process.stdout.write(
    [
      "Engine measures (src/engine/v8.ts): the project's CPU ms per step, and its change against all on",
      '',
      line(header),
      line(header.map(() => '---')),
      ...rows.map(line),
      '',
    ].join('\n'),
  )
}

const result = await runBenchmark(options)
const json = JSON.stringify(result, null, 2)
if (values.out !== undefined) await writeFile(values.out, `${json}\n`)
process.stdout.write(values.json ? `${json}\n` : `${formatReport(result)}\n`)
if (!result.ok) process.exitCode = 1
