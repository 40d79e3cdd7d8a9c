/**
 * The `workers` option: the same bits for any number of worker threads. Fox and rig characters playing,
 * fading, layered, placed, ragdolling, added and removed mid-run, snapshot and restore: hash() at every step
 * and snapshot bytes equal for workers 0, 1, 2 and 4 with the workers started, and with the workers doing every
 * item (CTL_DONE).
 * Also: refused world matrices listed as one pass lists them, the option's checks, dispose, and the generated
 * worker script being its sources'.
 */
import { readFileSync } from 'node:fs'
import { addEntity, createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { bundleWorker, WORKER_MODULE, workerModuleText } from '../../scripts/build-worker.mjs'
import { CTL_DONE, CTL_GENERATION } from '../../systems/workers/pool.ts'
import { runCrossEngineScenario } from '../sim/crossEngine.ts'

const COUNTS = [0, 1, 2, 4]

describe('workers', () => {
  let fox: AnimationAsset
  let rig: AnimationAsset
  beforeAll(async () => {
    fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    rig = createBenchRig({ joints: 64 })
  })

  /** A plugin with `workers` threads, started (so they take part from the first step). */
  async function started(workers: number): Promise<AnimationPlugin> {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 8192, workers })
    await contextOf(plugin).parallel?.ready()
    return plugin
  }

  /** Items each worker worked on so far. */
  const done = (p: AnimationPlugin) => {
    const par = contextOf(p).parallel!
    return Array.from({ length: par.workers }, (_, w) => par.control[CTL_DONE + w]!)
  }

  /**
   * 24 characters of both assets in every state a step knows, changing as it goes; `each` sees every step.
   * Returns the plugin after `steps` steps.
   */
  async function scenario(
    workers: number,
    steps: number,
    each: (p: AnimationPlugin, s: number) => void,
    mainWorks = true,
  ): Promise<AnimationPlugin> {
    const p = await started(workers)
    if (workers > 0) contextOf(p).parallel!.mainWorks = mainWorks
    const chars: number[] = []
    const add = (i: number) => {
      const c = p.addCharacter(i % 3 === 0 ? fox : rig)
      const clips = i % 3 === 0 ? ['Walk', 'Run', 'Survey'] : ['Walk', 'Run', 'Idle']
      p.play(c, clips[i % 3]!, {
        time: (i * 0.37) % 1,
        speed: i % 5 === 4 ? -0.5 : 1,
        loop: i % 7 === 6 ? 'once' : 'repeat',
        rotation: i % 4 === 3 ? 'squad' : 'slerp',
      })
      p.setTransform(c, { position: [i, 0, -i] })
      chars.push(c)
      return c
    }
    for (let i = 0; i < 24; i++) add(i)
    for (let s = 0; s < steps; s++) {
      if (s === 5) for (let i = 0; i < 24; i += 4) p.crossFade(chars[i]!, 'Run', 0.2)
      if (s === 8) p.setLayer(chars[1]!, 1, { weight: 0.5 })
      if (s === 9) p.play(chars[1]!, 'Run', { layer: 1 })
      if (s === 12) p.ragdoll(chars[3]!)
      if (s === 15) for (const i of [2, 7, 11]) p.removeCharacter(chars[i]!)
      if (s === 16) for (let i = 24; i < 30; i++) add(i)
      if (s === 20) p.pause(chars[5]!)
      if (s === 24) p.setTime(chars[6]!, 0.1)
      if (s === 28) p.crossFade(chars[26]!, 'Idle', 0.3, { rotation: 'squad' })
      p.step()
      each(p, s)
      p.events.length = 0
    }
    return p
  }

  it('hash() at every step and the snapshot are the same bits for workers 0, 1, 2 and 4', async () => {
    const reference: string[] = []
    const a = await scenario(0, 40, (p) => reference.push(p.hash()))
    // A step that changes nothing would make the comparison vacuous.
    expect(new Set(reference).size).toBe(40)
    for (const workers of COUNTS.slice(1)) {
      const hashes: string[] = []
      const b = await scenario(workers, 40, (p) => hashes.push(p.hash()))
      expect(hashes, `workers ${workers}`).toEqual(reference)
      expect(b.snapshot(), `workers ${workers}`).toEqual(a.snapshot())
      b.dispose()
    }
  })

  it('the workers do the work: with the main thread only waiting, their items add up to every item run', async () => {
    const reference: string[] = []
    await scenario(0, 20, (p) => reference.push(p.hash()))
    const hashes: string[] = []
    const p = await scenario(3, 20, (q) => hashes.push(q.hash()), false)
    expect(hashes).toEqual(reference)
    const par = contextOf(p).parallel!
    // Three phases a step over ~25 characters and one propagation range: well over 20 · 3 items.
    expect(par.dispatched()).toBeGreaterThan(60)
    const items = done(p)
    expect(items.reduce((a, b) => a + b, 0)).toBe(par.dispatched())
    p.dispose()
  })

  it('the cross-engine scenario (ragdolls, get-ups, fades; 600 steps) gives the same hashes and events with 2 workers', async () => {
    // As the e2e page runs it in Chromium (e2e/determinism): the workers started first, then taking part.
    const bytes = new Uint8Array(readFileSync('assets/Fox/glTF-Binary/Fox.glb'))
    const one = await runCrossEngineScenario(bytes)
    const two = await runCrossEngineScenario(bytes, 'js', 2)
    expect(two.checkpoints.map((c) => c.hash)).toEqual(one.checkpoints.map((c) => c.hash))
    expect(two.events).toEqual(one.events)
    expect(two.workerItems).toBeGreaterThan(0)
  })

  it('restore: a snapshot of either kind restored into the other, or rewound in place, runs on to the same bits', async () => {
    const a = await scenario(0, 30, () => {})
    const b = await scenario(2, 30, () => {})
    const taken = b.snapshot()
    const into = async (workers: number, bytes: Uint8Array) => {
      const p = await started(workers)
      p.addAsset(fox)
      p.addAsset(rig)
      p.restore(bytes)
      return p
    }
    const c = await into(2, a.snapshot())
    const d = await into(0, taken)
    for (let s = 0; s < 20; s++) for (const p of [a, b, c, d]) p.step()
    expect([b.hash(), c.hash(), d.hash()]).toEqual([a.hash(), a.hash(), a.hash()])
    // Rewound in place: the workers read the restored stores (and cursors) on the next step.
    const later = b.hash()
    b.restore(taken)
    for (let s = 0; s < 20; s++) b.step()
    expect(b.hash()).toBe(later)
    for (const p of [b, c]) p.dispose()
  })

  it('refused world matrices: the same count, list, kept flags and snapshot as one pass, across ranges', async () => {
    const snap = async (workers: number) => {
      const p = await started(workers)
      for (let i = 0; i < 8; i++) p.play(p.addCharacter(rig), 'Walk')
      // Four chains of the game's own nodes, scaled 1e20 each: every other node refused, in every range.
      for (let chain = 0; chain < 4; chain++) {
        let parent = 0
        for (let k = 0; k < 60; k++) {
          const e = addEntity(p.world)
          addSceneNode(p.sceneGraph, e, parent)
          parent = e
          p.stores.SceneNode.scale.fill(1e20, parent * 3, parent * 3 + 3)
        }
        // Past RANGE_NODES (2048) nodes in all: the refusals fall in more than one propagation range.
        for (let i = 0; i < 12; i++) p.play(p.addCharacter(i % 2 === 0 ? fox : rig), 'Walk')
      }
      p.step()
      const g = p.sceneGraph
      expect(p.sceneGraph.orderLength).toBeGreaterThan(2048)
      const first = {
        refused: g.stats.refused,
        recomputed: g.stats.recomputed,
        list: Array.from(g.refusedNodes),
      }
      for (let s = 0; s < 2; s++) p.step()
      return { first, kept: Array.from(g.kept), bytes: p.snapshot(), hash: p.hash() }
    }
    const one = await snap(0)
    expect(one.first.refused).toBeGreaterThan(64)
    for (const workers of [1, 4]) expect(await snap(workers), `workers ${workers}`).toEqual(one)
  })

  it('refuses a bad workers option with AnimationError; dispose stops the workers', async () => {
    for (const workers of [-1, 1.5, 65, NaN, '2', true]) {
      expect(() => createAnimationPlugin(createWorld(), { workers } as never)).toThrow(AnimationError)
    }
    expect(() => createAnimationPlugin(createWorld(), { workers: 2, kernels: 'wasm' })).toThrow(
      /kernels 'js'/,
    )
    const p = await started(2)
    const control = contextOf(p).parallel!.control
    const generation = control[CTL_GENERATION]!
    p.dispose()
    expect(control[CTL_GENERATION]).toBe(generation + 1)
    expect(() => p.step()).toThrow(AnimationError)
  })

  it('is its sources bundled (node scripts/build-worker.mjs regenerates it)', async () => {
    const expected = workerModuleText(await bundleWorker())
    expect(
      readFileSync(WORKER_MODULE, 'utf8'),
      `${WORKER_MODULE} is stale: run node scripts/build-worker.mjs`,
    ).toBe(expected)
  })
})
