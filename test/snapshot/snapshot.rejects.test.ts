/**
 * Snapshot and restore (snapshot/) on real Fox characters: a snapshot that cannot be restored is refused, changing nothing.
 * Setup: test/helpers/snapshot.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { addEntity, entityExists } from 'bitecs'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { SNAPSHOT_VERSION } from '../../snapshot/format.ts'
import { buildClip } from '../../src/clip/clip.ts'
import {
  fox,
  foxGltf,
  other,
  loadAssets,
  OPTIONS,
  build,
  run,
  fresh,
  entityIndex,
  rejects,
  resealed,
  sectionBody,
} from '../helpers/snapshot.ts'

beforeAll(loadAssets)

describe('restore rejects, changing nothing', () => {
  let bytes: Uint8Array
  beforeAll(() => {
    const s = build()
    run(s, 0, 100)
    bytes = s.plugin.snapshot()
  })

  /** A fresh target; after `f` throws, it must be exactly as fresh as before, and still accept the snapshot. */
  function rejectsUnchanged(f: (plugin: AnimationPlugin) => void, pattern: RegExp) {
    const target = fresh()
    const pristine = fresh().plugin.hash()
    rejects(() => f(target.plugin), pattern)
    expect(target.plugin.hash()).toBe(pristine)
    expect(entityIndex(target.world).maxId).toBe(0)
    expect(target.plugin.physics.bodies).toHaveLength(1)
    expect(contextOf(target.plugin).ragdolls.filter(Boolean)).toHaveLength(0)
    target.plugin.restore(bytes)
  }

  it('a snapshot of another format version', () => {
    const other = bytes.slice()
    new DataView(other.buffer).setUint16(4, SNAPSHOT_VERSION + 1, true)
    rejectsUnchanged(
      (p) => p.restore(other),
      new RegExp(`format version ${SNAPSHOT_VERSION + 1}; this build reads version ${SNAPSHOT_VERSION} only`),
    )
  })

  it('something that is not a snapshot', () => {
    const json = new TextEncoder().encode(JSON.stringify({ hello: 'world', padding: 'x'.repeat(64) }))
    rejectsUnchanged(
      (p) => p.restore(json),
      /does not start with "EASN" \(45 41 53 4e\) but with 7b 22 68 65/,
    )
    rejectsUnchanged(
      (p) => p.restore([1, 2, 3] as unknown as Uint8Array),
      /expected the Uint8Array of a snapshot, got \[1,2,3\]/,
    )
  })

  it('a truncated snapshot', () => {
    rejectsUnchanged(
      (p) => p.restore(bytes.subarray(0, bytes.length - 1)),
      new RegExp(`truncated: ${bytes.length - 1} of its ${bytes.length} bytes`),
    )
    rejectsUnchanged(
      (p) => p.restore(bytes.subarray(0, 20)),
      /truncated: 20 bytes, shorter than the 48-byte header/,
    )
    // Cut inside a section, with a header that agrees: the section reader notices.
    rejectsUnchanged(
      (p) => p.restore(resealed(bytes.subarray(0, 304))),
      /section "nodes": length \d+ runs past the snapshot's end/,
    )
    // A free-range count as large as the pool allows: its ranges run past the section's end.
    const long = bytes.slice()
    const view = new DataView(long.buffer)
    const pool = sectionBody(long, 'POOL')
    view.setUint32(pool + 8, view.getUint32(pool, true), true)
    rejectsUnchanged(
      (p) => p.restore(resealed(long)),
      /truncated in section "pool": \d+ bytes needed at offset \d+, the section has \d+/,
    )
    const longer = new Uint8Array(bytes.length + 3)
    longer.set(bytes)
    rejectsUnchanged(
      (p) => p.restore(longer),
      new RegExp(`is ${bytes.length} bytes, but ${bytes.length + 3} were given`),
    )
  })

  it('a corrupt snapshot (one bit flipped)', () => {
    const flipped = bytes.slice()
    flipped[Math.floor(bytes.length / 2)]! ^= 0x10
    rejectsUnchanged(
      (p) => p.restore(flipped),
      /is corrupt: checksum [0-9a-f]{16} of its contents differs from the recorded [0-9a-f]{16}/,
    )
  })

  it('a corrupt snapshot (bit 30 flipped both ways in two words 32·k apart, which a sum misses)', () => {
    const target = fresh()
    const pristine = target.plugin.hash()
    const w = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2)
    let pairs = 0
    for (let i = 12; i + 32 < w.length && pairs < 300; i += 5) {
      for (let j = i + 32; j < w.length && pairs < 300; j += 32 * 7) {
        // Opposite flips: one word's bit goes 0 → 1, the other's 1 → 0, so a sum of the words stays the same.
        if (((w[i]! ^ w[j]!) & (1 << 30)) === 0) continue
        const flipped = bytes.slice()
        const v = new Int32Array(flipped.buffer)
        v[i]! ^= 1 << 30
        v[j]! ^= 1 << 30
        rejects(() => target.plugin.restore(flipped), /is corrupt: checksum/)
        pairs++
      }
    }
    expect(pairs).toBe(300)
    expect(target.plugin.hash()).toBe(pristine)
  })

  it('a plugin with another capacity, dt or pose pool size', () => {
    rejects(() => fresh({ capacity: 2048 }).plugin.restore(bytes), /has capacity 1024, this plugin 2048/)
    rejects(
      () => fresh({ ...OPTIONS, dt: 1 / 30 }).plugin.restore(bytes),
      /has dt 0.016666666666666666 s, this plugin 0.03333333333333333 s/,
    )
    rejects(
      () => fresh({ ...OPTIONS, maxPoseSlots: 999 }).plugin.restore(bytes),
      /has maxPoseSlots 16384, this plugin 999/,
    )
  })

  it('a plugin with other physics: no ground, another ground height, other gravity', () => {
    rejects(
      () => fresh({ ...OPTIONS, physics: { ground: false } }).plugin.restore(bytes),
      /non-ragdoll static body at physics index 0; this plugin's physics world has only 0 bodies there/,
    )
    rejects(
      () => fresh({ ...OPTIONS, physics: { ground: 1 } }).plugin.restore(bytes),
      /static body 0 is at \(0, 0, 0\), this plugin's at \(0, 1, 0\)/,
    )
    rejects(
      () => fresh({ ...OPTIONS, physics: { gravity: [0, -1.62, 0] } }).plugin.restore(bytes),
      /has gravity \(0, -9.82, 0\), this plugin's physics world \(0, -1.62, 0\)/,
    )
  })

  it('a different asset set: none, another asset, Fox twice, Fox with one key changed', () => {
    rejects(
      () => fresh(OPTIONS, []).plugin.restore(bytes),
      /has 1 assets, this plugin 0: add the same assets in the same order/,
    )
    rejects(
      () => fresh(OPTIONS, [other]).plugin.restore(bytes),
      /asset 0 \(26 joints, 3 clips, fingerprint [0-9a-f]{16}\) differs from this plugin's asset 0, .*RiggedFigure.glb \(\d+ joints, 1 clips, fingerprint [0-9a-f]{16}\)/,
    )
    rejects(() => fresh(OPTIONS, [fox, foxGltf]).plugin.restore(bytes), /has 1 assets, this plugin 2/)
    // The same Fox with one key of one channel moved by 1e-3 (rebuilt with buildClip, as a loader would).
    const walk = fox.clips[1]!
    const rebuilt = buildClip({
      name: walk.name,
      channels: walk.channels.map((ch, i) => {
        const values = Float32Array.from(ch.values)
        if (i === 3) values[5] = values[5]! + 1e-3
        return { node: ch.node, path: ch.path, interpolation: ch.interpolation, times: ch.times, values }
      }),
    })
    const changed: AnimationAsset = { ...fox, clips: fox.clips.map((c, i) => (i === 1 ? rebuilt : c)) }
    rejects(
      () => fresh(OPTIONS, [changed]).plugin.restore(bytes),
      /asset 0 \(26 joints, 3 clips, fingerprint [0-9a-f]{16}\) differs/,
    )
  })

  it('a world where a game entity holds an id the snapshot’s plugin needs (and one where none does)', () => {
    // The snapshot's world: game entity 1, character a at 2 and its joints after it.
    const used = fresh()
    const game = [addEntity(used.world), addEntity(used.world), addEntity(used.world)]
    const before = { hash: used.plugin.hash(), bytes: used.plugin.snapshot() }
    rejects(() => used.plugin.restore(bytes), /needs entity 2 for its character 2, and it is the game's now/)
    expect(used.plugin.hash()).toBe(before.hash)
    expect(used.plugin.snapshot()).toEqual(before.bytes)
    expect(entityIndex(used.world).maxId).toBe(3)
    expect(game.every((e) => entityExists(used.world, e))).toBe(true)
    // A world whose game entity is the snapshot's own (id 1): restored around it.
    const ok = fresh()
    const one = addEntity(ok.world)
    ok.plugin.restore(bytes)
    const original = build()
    run(original, 0, 100)
    expect(ok.plugin.hash()).toBe(original.plugin.hash())
    expect(entityExists(ok.world, one)).toBe(true)
  })

  it('a disposed plugin', () => {
    const gone = fresh()
    gone.plugin.dispose()
    expect(() => gone.plugin.restore(bytes)).toThrow(/restore: the animation plugin was disposed/)
    expect(() => gone.plugin.snapshot()).toThrow(/snapshot: the animation plugin was disposed/)
  })
})
