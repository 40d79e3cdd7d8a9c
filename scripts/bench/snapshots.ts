/**
 * The benchmark's "snapshot / restore" section: what a rollback game pays. A crowd of a Mixamo-sized rig read from
 * a file (the generated rig, rig.ts: 67 joints, every channel animated as a Mixamo export's are, written as a
 * .glb by rigFile.ts and loaded by readAsset) playing with half of it cross-fading (crowd.ts's moving crowd), and
 * the same crowd with every tenth character in a ragdoll (knocked over 1 s before the timing, falling and landing):
 *
 *   snapshot()       a new buffer each time
 *   snapshotInto     into one of a ring of buffers made once (allocation measured too: 0 B in steady state)
 *   restore          in place, into the running plugin (a rewind: the same characters, other values)
 *   step             one fixed step of the same crowd, for scale
 *   rollback         restore a snapshot 8 steps back, then 8 × (snapshotInto + step) to come back to now;
 *                    rollbacks per second = 1000 / its ms
 *
 * CPU ms per call (process.cpuUsage), median of interleaved rounds, in a fresh process running the bundled
 * bench (run.ts), as the crowd scenarios are. Bytes: the snapshot's length (what each feature adds:
 * scripts/snapshotSizes.ts).
 */
import { createBenchRig } from './rig.ts'
import { writeRigFile } from './rigFile.ts'
import { readAsset } from '../../src/gltf/read.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { makeCrowdPlan } from './crowd.ts'
import { createOurCrowd } from './ours.ts'
import {
  measureAllocation,
  median,
  runRounds,
  type Allocation,
  type GcTracker,
  type Side,
} from './measure.ts'

export const SNAPSHOT_CHARACTERS = 100
export const SNAPSHOT_JOINTS = 67
export const ROLLBACK_STEPS = 8

export interface SnapshotCrowdResult {
  crowd: 'playing and cross-fading' | 'with 10 ragdolling'
  characters: number
  joints: number
  ragdolls: number
  bytes: number
  /** Median CPU ms per call, and every round's. */
  snapshotMs: number
  snapshotIntoMs: number
  restoreMs: number
  stepMs: number
  rollbackMs: number
  rollbacksPerSecond: number
  rounds: Record<'snapshot' | 'snapshotInto' | 'restore' | 'step' | 'rollback', number[]>
  /** Heap bytes per snapshotInto (steady state). */
  allocation: Allocation
}

export interface SnapshotSettings {
  rounds: number
  roundMs: number
  roundSteps: number
  allocSteps: number
}

/** Both crowds, one after the other (each its own plugin; run.ts gives the section a process of its own). */
export async function measureSnapshots(
  settings: SnapshotSettings,
  tracker: GcTracker,
  log: (line: string) => void,
): Promise<SnapshotCrowdResult[]> {
  const out: SnapshotCrowdResult[] = []
  const asset = await mixamoSizedRig()
  for (const ragdolls of [0, 10]) {
    const r = await measureCrowd(asset, ragdolls, settings, tracker)
    log(
      `snapshot / restore, ${r.crowd}: ${r.bytes} bytes, snapshot ${r.snapshotMs.toFixed(3)} ms, snapshotInto ` +
        `${r.snapshotIntoMs.toFixed(3)} ms, restore ${r.restoreMs.toFixed(3)} ms, ${r.rollbacksPerSecond.toFixed(0)} rollbacks/s`,
    )
    out.push(r)
  }
  return out
}

/** The generated rig with every channel animated, through a .glb and readAsset (see the header). */
export async function mixamoSizedRig(): Promise<AnimationAsset> {
  const rig = createBenchRig({ joints: SNAPSHOT_JOINTS, channels: 'all' })
  return readAsset(await writeRigFile(rig), `${rig.source}.glb`)
}

/** The timed crowd (ragdolling every tenth character, up to `ragdolls`), 60 steps on. */
function crowdOf(asset: AnimationAsset, ragdolls: number) {
  const plan = makeCrowdPlan(asset, SNAPSHOT_CHARACTERS, 'moving', { clipA: 0, clipB: 1 })
  const crowd = createOurCrowd(plan)
  for (let i = 0; i < ragdolls; i++) {
    crowd.plugin.ragdoll(crowd.characters[10 * i]!, { impulse: { joint: 'spine1', impulse: [5, 1, 0] } })
  }
  crowd.run(60)
  return crowd
}

async function measureCrowd(
  asset: AnimationAsset,
  ragdolls: number,
  settings: SnapshotSettings,
  tracker: GcTracker,
): Promise<SnapshotCrowdResult> {
  const crowd = crowdOf(asset, ragdolls)
  const { plugin } = crowd
  const size = plugin.snapshot().length
  const buffer = new Uint8Array(2 * size)
  const ring = Array.from({ length: ROLLBACK_STEPS }, () => new Uint8Array(2 * size))
  const lengths = new Int32Array(ring.length)
  // snapshotInto's own ring (the rollback's keeps the lengths of what it holds).
  const other = Array.from({ length: ROLLBACK_STEPS }, () => new Uint8Array(2 * size))
  const here = buffer.subarray(0, plugin.snapshotInto(buffer))
  // The rollback's ring: the states before each of the 8 steps after `here`; a rollback restores the first and
  // runs them again, saving each state as a game does, and so ends where it began.
  for (let k = 0; k < ROLLBACK_STEPS; k++) {
    lengths[k] = plugin.snapshotInto(ring[k]!)
    plugin.step()
  }
  const rollback = (): void => {
    plugin.restore(ring[0]!.subarray(0, lengths[0]))
    for (let k = 0; k < ROLLBACK_STEPS; k++) {
      lengths[k] = plugin.snapshotInto(ring[k]!)
      plugin.step()
    }
  }
  let slot = 0
  const sides: Side[] = [
    { name: 'snapshot', run: (n) => repeat(n, () => plugin.snapshot()) },
    { name: 'snapshotInto', run: (n) => repeat(n, () => plugin.snapshotInto(other[slot++ % other.length]!)) },
    { name: 'restore', run: (n) => repeat(n, () => plugin.restore(here)) },
    { name: 'step', run: (n) => repeat(n, () => plugin.step()) },
    { name: 'rollback', run: (n) => repeat(n, rollback) },
  ]
  // Warm-up (every path optimized; tests set a few roundSteps), then rounds of ~roundMs each per side; the
  // rollback's last so the state timed last is the ring's. restore(here) between sides keeps every side at the
  // same state.
  const warm = runRounds(sides, settings.roundSteps || 20, 2)
  const per = sides.map((_, i) => median(warm.cpuMsPerStep[i]!))
  plugin.restore(here)
  const timed = roundsEach(sides, per, settings, () => plugin.restore(here))
  const ms = (i: number): number => median(timed[i]!)
  plugin.restore(here)
  // Three windows' worth first (3000 calls by default): long enough for every function of the path to reach V8's
  // optimizing tier (a loaded machine compiles late; until then a path boxes its floats, which the measure
  // would count).
  const window = settings.allocSteps || 200
  sides[1]!.run(3 * window)
  const allocation = await measureAllocation(sides[1]!, window, tracker)
  return {
    crowd: ragdolls === 0 ? 'playing and cross-fading' : 'with 10 ragdolling',
    characters: SNAPSHOT_CHARACTERS,
    joints: crowd.joints,
    ragdolls,
    bytes: here.length,
    snapshotMs: ms(0),
    snapshotIntoMs: ms(1),
    restoreMs: ms(2),
    stepMs: ms(3),
    rollbackMs: ms(4),
    rollbacksPerSecond: 1000 / ms(4),
    rounds: {
      snapshot: timed[0]!,
      snapshotInto: timed[1]!,
      restore: timed[2]!,
      step: timed[3]!,
      rollback: timed[4]!,
    },
    allocation,
  }
}

function repeat(n: number, f: () => unknown): void {
  for (let i = 0; i < n; i++) f()
}

/** `settings.rounds` interleaved rounds, each side run for ~roundMs (from its warm-up cost `per`). */
function roundsEach(
  sides: readonly Side[],
  per: readonly number[],
  settings: SnapshotSettings,
  between: () => void,
): number[][] {
  const out = sides.map(() => [] as number[])
  for (let r = 0; r < settings.rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = r % 2 === 0 ? k : sides.length - 1 - k
      const calls = settings.roundSteps || Math.max(3, Math.min(2000, Math.ceil(settings.roundMs / per[i]!)))
      const timed = runRounds([sides[i]!], calls, 1)
      out[i]!.push(timed.cpuMsPerStep[0]![0]!)
      between()
    }
  }
  return out
}

/** The budgets: bytes ≤ 1 MB; snapshot and restore ≤ 1 ms, ≤ 2 ms with 10 ragdolling. */
export function snapshotTargets(results: readonly SnapshotCrowdResult[]) {
  return results.flatMap((r) => {
    const limit = r.ragdolls > 0 ? 2 : 1
    const name = `${r.characters}×${r.joints} ${r.crowd}`
    const ms = (x: number): string => `${x.toFixed(3)} ms`
    return [
      {
        name: `snapshot size ${name}`,
        goal: '≤ 1 MB',
        measured: `${(r.bytes / 1e6).toFixed(3)} MB`,
        met: r.bytes <= 1e6,
      },
      {
        name: `snapshot ${name}`,
        goal: `≤ ${limit} ms`,
        measured: `snapshot() ${ms(r.snapshotMs)}, snapshotInto ${ms(r.snapshotIntoMs)}`,
        met: r.snapshotMs <= limit && r.snapshotIntoMs <= limit,
      },
      {
        name: `restore ${name}`,
        goal: `≤ ${limit} ms`,
        measured: ms(r.restoreMs),
        met: r.restoreMs <= limit,
      },
      {
        name: `snapshotInto allocation ${name}`,
        goal: '0 bytes per call (steady state)',
        measured: `${r.allocation.bytesPerStep.toFixed(1)} B/call`,
        met: r.allocation.bytesPerStep === 0,
      },
    ]
  })
}

/** The section's table (report.ts adds it after the crowds'). */
export function formatSnapshots(results: readonly SnapshotCrowdResult[], rounds: number): string[] {
  if (results.length === 0) return []
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`
  const lines = [
    `Snapshot / restore (${results[0]!.characters} characters of the ${results[0]!.joints}-joint rig, half of them ` +
      `cross-fading; CPU ms per call, median of ${rounds} interleaved rounds; restore in place; a rollback restores ` +
      `the state of ${ROLLBACK_STEPS} steps ago and runs them again, saving each):`,
    '',
    row([
      'crowd',
      'bytes',
      'snapshot()',
      'snapshotInto',
      'restore',
      'step',
      `rollback of ${ROLLBACK_STEPS}`,
      'rollbacks/s',
      'snapshotInto B/call',
    ]),
    row(Array(9).fill('---')),
  ]
  for (const r of results) {
    lines.push(
      row([
        r.crowd,
        String(r.bytes),
        r.snapshotMs.toFixed(3),
        r.snapshotIntoMs.toFixed(3),
        r.restoreMs.toFixed(3),
        r.stepMs.toFixed(3),
        r.rollbackMs.toFixed(2),
        r.rollbacksPerSecond.toFixed(0),
        r.allocation.bytesPerStep.toFixed(1),
      ]),
    )
  }
  return lines
}
