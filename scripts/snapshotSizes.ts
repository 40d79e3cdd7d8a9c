/**
 * What each feature adds to a snapshot, on a Mixamo-sized file: the bench's rig (67 joints, every channel
 * animated, as a Mixamo export's: scripts/bench/rig.ts) written as a .glb and read by readAsset (bench/
 * snapshots.ts mixamoSizedRig). `characters` characters set up the same way, stepped 60 times, then
 * `snapshot().length`. Bytes are exact and the same on every machine (no timing), so the table in
 * docs/guides/rollback.md is this script's output:
 *
 *   npx tsx scripts/snapshotSizes.ts            # 100 characters, a Markdown table
 *
 * Each row is one set-up of every character; "per character" is (bytes − the empty plugin's) / characters and
 * "over playing" what the feature adds to a character that only plays a clip.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../entry/index.ts'
import { createBenchRig, RIG_UPPER_BODY } from './bench/rig.ts'
import { mixamoSizedRig } from './bench/snapshots.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'

export interface SnapshotSizeRow {
  feature: string
  bytes: number
  perCharacter: number
  overPlaying: number
}

/** A feature: what every character does on top of being added (its index spreads phases and parameters). */
type Setup = (anim: AnimationPlugin, eid: number, i: number) => void

const play: Setup = (anim, eid, i) => anim.play(eid, 'Walk', { time: (i * 0.618) % 2 })
const fade: Setup = (anim, eid, i) => {
  play(anim, eid, i)
  anim.crossFade(eid, 'Run', 3600)
}
const blendSpace: Setup = (anim, eid, i) => {
  const points = ['Idle', 'Walk', 'Run'].map((clip, at) => ({ clip, at }))
  anim.playBlendSpace(eid, points, { parameter: 0.1 + ((i * 0.618) % 1.8) })
}
const override: Setup = (anim, eid, i) => {
  anim.setLayer(eid, 1, { mask: [RIG_UPPER_BODY], weight: 0.7 })
  anim.play(eid, 'Run', { layer: 1, time: (i * 0.382) % 2 })
}
const additive: Setup = (anim, eid) => {
  anim.setLayer(eid, 2, { mode: 'additive', weight: 0.5 })
  anim.play(eid, 'Idle', { layer: 2 })
}

export const FEATURES: readonly { feature: string; setup: Setup }[] = [
  { feature: 'playing a clip', setup: play },
  { feature: 'cross-fading', setup: fade },
  { feature: 'root motion', setup: (a, e, i) => (play(a, e, i), a.setRootMotion(e, { mode: 'horizontal' })) },
  { feature: 'an override layer (upper body)', setup: (a, e, i) => (play(a, e, i), override(a, e, i)) },
  { feature: 'an additive layer', setup: (a, e, i) => (play(a, e, i), additive(a, e, i)) },
  {
    feature: 'two layers (override + additive)',
    setup: (a, e, i) => (play(a, e, i), override(a, e, i), additive(a, e, i)),
  },
  { feature: 'a 3-point blend space', setup: blendSpace },
  {
    feature: 'a blend space and two layers',
    setup: (a, e, i) => (blendSpace(a, e, i), override(a, e, i), additive(a, e, i)),
  },
  {
    feature: 'a ragdoll (falling)',
    setup: (a, e, i) => (play(a, e, i), a.ragdoll(e, { impulse: { joint: 'spine1', impulse: [5, 1, 0] } })),
  },
]

function snapshotBytes(
  asset: AnimationAsset,
  characters: number,
  setup: Setup | null,
  steps: number,
): number {
  // Characters apart on a grid, so ragdolls do not pile up.
  const anim = createAnimationPlugin(createWorld(), {
    capacity: 128 + characters * 70,
    maxPoseSlots: 1 << 20,
  })
  for (let i = 0; i < characters && setup; i++) {
    const eid = anim.addCharacter(asset)
    anim.setTransform(eid, { position: [(i % 10) * 3, 0, Math.floor(i / 10) * 3] })
    setup(anim, eid, i)
  }
  for (let k = 0; k < steps; k++) anim.step()
  return anim.snapshot().length
}

/**
 * Snapshot bytes of every feature's crowd of `characters`, after `steps` steps, of `asset` (default: the rig with
 * every channel animated, made in memory: the same clips the file holds).
 */
export function snapshotSizes(
  characters = 100,
  steps = 60,
  asset: AnimationAsset = createBenchRig({ joints: 67, channels: 'all' }),
): SnapshotSizeRow[] {
  const empty = snapshotBytes(asset, 0, null, 0)
  const rows = FEATURES.map(({ feature, setup }) => {
    const bytes = snapshotBytes(asset, characters, setup, steps)
    return { feature, bytes, perCharacter: (bytes - empty) / characters, overPlaying: 0 }
  })
  for (const row of rows) row.overPlaying = row.perCharacter - rows[0]!.perCharacter
  return rows
}

/** The rows as the rollback guide's Markdown table. */
export function formatSnapshotSizes(rows: readonly SnapshotSizeRow[], characters: number): string {
  const kb = (n: number) => `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} KB`
  return [
    `| every character (${characters} of 67 joints) | snapshot | per character | over playing |`,
    '| --- | ---: | ---: | ---: |',
    ...rows.map(
      (r, i) =>
        `| ${r.feature} | ${kb(r.bytes)} | ${kb(r.perCharacter)} | ${i === 0 ? '' : `+${kb(r.overPlaying)}`} |`,
    ),
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const characters = Number(process.argv[2] ?? 100)
  console.log(formatSnapshotSizes(snapshotSizes(characters, 60, await mixamoSizedRig()), characters))
}
