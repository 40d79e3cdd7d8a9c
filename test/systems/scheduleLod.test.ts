/**
 * Update-rate levels of detail (systems/scheduleLod.ts, plugin/lod.ts): the same Fox crowd run twice, without
 * levels of detail and with them, step by step.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { lodPhases, lodSampled } from '../../systems/scheduleLod.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
let fox: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset(FOX)
})

/** Where each test character stands (x, world units) and what it does; the LOD camera is at the origin. */
const CAST = [
  { x: 1, clip: 'Walk' }, // near: every step
  { x: 10, clip: 'Run' }, // every 2nd step
  { x: 50, clip: 'Walk' }, // every 4th step
  { x: 60, clip: 'Survey' }, // every 4th, cross-fades to Run at step 9 over 0.2 s, then cut to Walk, once
  { x: 70, clip: 'Run', speed: -1.3 }, // every 4th, backwards
] as const
const LOD = { near: 5, far: 20, camera: [0, 0, 0] as [number, number, number] }

function crowd(lod: boolean): { plugin: AnimationPlugin; ids: number[] } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 512 })
  const handle = plugin.addAsset(fox)
  const ids = CAST.map((c) => {
    const eid = plugin.addCharacter(handle)
    plugin.setTransform(eid, { position: [c.x, 0, 0] })
    plugin.play(eid, c.clip, { speed: 'speed' in c ? c.speed : 1, time: 0.1 })
    return eid
  })
  if (lod) plugin.setLod(LOD)
  return { plugin, ids }
}

/** What the script does at step k (before it), on both plugins alike. */
function script(plugin: AnimationPlugin, ids: number[], k: number): void {
  if (k === 9) plugin.crossFade(ids[3]!, 'Run', 0.2)
  if (k === 31) plugin.play(ids[3]!, 'Walk', { loop: 'once', time: 0.5 })
  if (k === 33) plugin.play(ids[2]!, 'Run', { time: 0.2 })
}

/** The character's and its joints' world matrices, as one array. */
function worlds(plugin: AnimationPlugin, eid: number): Float32Array {
  const entities = [eid, ...plugin.joints(eid)]
  const out = new Float32Array(16 * entities.length)
  entities.forEach((e, i) => out.set(plugin.stores.SceneNode.world.subarray(16 * e, 16 * e + 16), 16 * i))
  return out
}

const same = (a: Float32Array, b: Float32Array): boolean =>
  a.length === b.length && a.every((x, i) => Object.is(x, b[i]))

describe('levels of detail', () => {
  it('a near character is bit for bit as without; a far one as at full rate on its sampled steps, held between', () => {
    const full = crowd(false)
    const lod = crowd(true)
    expect(lod.ids).toEqual(full.ids)
    let held = 0
    let sampled = 0
    let previous = lod.ids.map((e) => worlds(lod.plugin, e))
    for (let k = 0; k < 60; k++) {
      script(full.plugin, full.ids, k)
      script(lod.plugin, lod.ids, k)
      const step = k
      full.plugin.step()
      lod.plugin.step()
      // Events and clip times advance every step alike.
      expect(lod.plugin.events.map((e) => `${e.kind} ${e.character} ${e.step}`)).toEqual(
        full.plugin.events.map((e) => `${e.kind} ${e.character} ${e.step}`),
      )
      full.plugin.events.length = 0
      lod.plugin.events.length = 0
      const phases = lodPhases(lod.ids.map((e) => lod.plugin.lodRate(e)))
      lod.ids.forEach((eid, i) => {
        expect(lod.plugin.stores.Sampler.time[eid], `time of ${i} at step ${k}`).toBe(
          full.plugin.stores.Sampler.time[eid],
        )
        const rate = lod.plugin.lodRate(eid)
        expect(rate, `rate of ${i}`).toBe(k === 0 ? 1 : [1, 2, 4, 4, 4][i])
        const now = worlds(lod.plugin, eid)
        if (k === 0 || lodSampled(step, phases[i]!, rate)) {
          expect(same(now, worlds(full.plugin, eid)), `character ${i} at its sampled step ${k}`).toBe(true)
          if (rate > 1) sampled++
        } else {
          expect(same(now, previous[i]!), `character ${i} held at step ${k}`).toBe(true)
          held++
        }
      })
      previous = lod.ids.map((e) => worlds(lod.plugin, e))
    }
    // 59 scheduled steps: one of 2 sampled at rate 2, one of 4 at rate 4 (three characters).
    expect(sampled).toBeGreaterThanOrEqual(29 + 3 * 14)
    expect(held).toBeGreaterThanOrEqual(29 + 3 * 44)
  })

  it('spreads each rate over the steps evenly, in contiguous stretches of the character list', () => {
    // lodPhases on its own: every rate's characters split into equal, contiguous shares.
    const rates = Array.from({ length: 1003 }, (_, i) => [1, 2, 4, 4, 2, 4, 1][(i * 7919) % 7]!)
    const phases = lodPhases(rates)
    for (const rate of [2, 4]) {
      const mine = phases.filter((_, i) => rates[i] === rate)
      for (let p = 1; p < mine.length; p++) expect(mine[p]).toBeGreaterThanOrEqual(mine[p - 1]!)
      const counts = Array.from({ length: rate }, (_, p) => mine.filter((x) => x === p).length)
      expect(
        Math.max(...counts) - Math.min(...counts),
        `rate ${rate}: ${counts.join(', ')}`,
      ).toBeLessThanOrEqual(1)
    }
    // The system: 203 Foxes all far, each step samples a quarter of them (50 or 51), each one every 4th step.
    const plugin = createAnimationPlugin(createWorld(), { capacity: 8192 })
    const handle = plugin.addAsset(fox)
    const ids = Array.from({ length: 203 }, () => plugin.addCharacter(handle))
    plugin.setLod({ near: 0, far: 0, camera: [0, -100, 0] })
    const sampled = new Map(ids.map((e) => [e, 0]))
    for (let k = 0; k < 8; k++) {
      plugin.step()
      const now = ids.filter((e) => contextOf(plugin).lod.skip[e] === 0)
      expect(now.length === 50 || now.length === 51, `step ${k}: ${now.length}`).toBe(true)
      for (const e of now) sampled.set(e, sampled.get(e)! + 1)
    }
    expect(new Set(sampled.values())).toEqual(new Set([2]))
  })

  it('costs follow the schedule: world matrices recomputed per step (a count, not a time)', () => {
    const recomputed = (lod: boolean, x: number): number => {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 8192 })
      const handle = plugin.addAsset(fox)
      for (let i = 0; i < 100; i++) {
        const eid = plugin.addCharacter(handle)
        plugin.setTransform(eid, { position: [x + i, 0, 0] })
        plugin.play(eid, 'Walk', { time: i * 0.01 })
      }
      if (lod) plugin.setLod({ near: 10, far: 200 })
      for (let k = 0; k < 8; k++) plugin.step()
      let sum = 0
      for (let k = 0; k < 40; k++) {
        plugin.step()
        sum += plugin.sceneGraph.stats.recomputed
      }
      return sum / 40
    }
    const full = recomputed(false, 300)
    expect(recomputed(true, 300) / full).toBeCloseTo(1 / 4, 1)
    expect(recomputed(true, 50) / full).toBeCloseTo(1 / 2, 1)
    expect(recomputed(true, 0) / full).toBeGreaterThan(0.5) // 10 of 100 near
  })

  it('characters with layers or an active ragdoll run at full rate', () => {
    const { plugin, ids } = crowd(true)
    plugin.setLayer(ids[2]!, 1, { weight: 0.5 })
    plugin.ragdoll(ids[3]!)
    for (let k = 0; k < 3; k++) plugin.step()
    expect(ids.map((e) => plugin.lodRate(e))).toEqual([1, 2, 1, 1, 4])
  })

  it('is in hash() and snapshots once used; a restored plugin keeps the schedule', () => {
    const a = crowd(false)
    const b = crowd(false)
    expect(b.plugin.hash()).toBe(a.plugin.hash())
    const bytes = a.plugin.snapshot().length
    b.plugin.setLod(null) // off when it was never on: no change
    expect(b.plugin.hash()).toBe(a.plugin.hash())
    b.plugin.setLodCamera([0, 0, 0])
    expect(b.plugin.hash()).not.toBe(a.plugin.hash())
    // The snapshot's LODS section is always there; now it holds the camera, and says a call was made.
    expect(b.plugin.snapshot().length).toBe(bytes)
    expect(b.plugin.snapshot()).not.toEqual(a.plugin.snapshot())

    const { plugin } = crowd(true)
    for (let k = 0; k < 7; k++) plugin.step()
    plugin.setLodCamera([30, 0, 0])
    const copy = createAnimationPlugin(createWorld(), { capacity: 512 })
    copy.addAsset(fox)
    copy.restore(plugin.snapshot())
    expect(copy.hash()).toBe(plugin.hash())
    for (let k = 0; k < 12; k++) {
      plugin.step()
      copy.step()
      expect(copy.hash()).toBe(plugin.hash())
    }
    plugin.setLod(null)
    copy.setLod(null)
    plugin.step()
    copy.step()
    expect(copy.hash()).toBe(plugin.hash())
  })

  it('refuses a snapshot whose lod section is out of range', () => {
    const { plugin } = crowd(true)
    plugin.step()
    const bytes = plugin.snapshot()
    // near (f64) is the second-to-last value: make it negative, recompute the checksum as an editor would.
    const edited = bytes.slice()
    const view = new DataView(edited.buffer)
    view.setFloat64(edited.length - 16, -1, true)
    const copy = createAnimationPlugin(createWorld(), { capacity: 512 })
    copy.addAsset(fox)
    expect(() => copy.restore(edited)).toThrow(AnimationError)
  })

  it('refuses bad options, changing nothing', () => {
    const { plugin } = crowd(false)
    plugin.setLod(LOD)
    const hash = plugin.hash()
    for (const o of [
      { near: -1, far: 2 },
      { near: 3, far: 2 },
      { near: 1, far: Infinity },
      { near: 1, far: 2, camera: [0, NaN, 0] },
      { near: 1 },
    ]) {
      expect(() => plugin.setLod(o as never)).toThrow(AnimationError)
    }
    expect(() => plugin.setLodCamera([1, 2] as never)).toThrow(AnimationError)
    expect(() => plugin.lodRate(9999)).toThrow(AnimationError)
    expect(plugin.hash()).toBe(hash)
  })
})
