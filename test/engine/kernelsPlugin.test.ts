/**
 * The plugin's `kernels: 'wasm'` option on real characters: the same world matrices, hashes and snapshots as
 * kernels 'js' at every step (Foxes, RobotExpressive and the bench's 64-joint rig playing, fading, a ragdoll; the
 * cross-engine scenario), with the WebAssembly pass in each form (f64x2 SIMD, scalar), snapshots across the
 * kernels, its failures, and the default (wasm where SIMD validates). The kernel itself: test/engine/propagate.test.ts.
 */
import { addEntity, createWorld } from 'bitecs'
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { SceneKernels } from '../../components/SceneNode.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { makeCrowdPlan } from '../../scripts/bench/crowd.ts'
import { createOurCrowd } from '../../scripts/bench/ours.ts'
import { simulateCrossEngine } from '../sim/crossEngine.ts'
import { forceKernelForm, type KernelForm } from '../../src/engine/wasmKernels.ts'
import { defaultKernels } from '../../plugin/options.ts'
import { contextOf } from '../../entry/plugin.ts'
import { propagationKernel } from '../../components/SceneNode.ts'

const bitsOf = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length)

describe('kernels: the plugin with kernels wasm', () => {
  let fox: AnimationAsset
  let rig: AnimationAsset
  let robot: AnimationAsset
  beforeAll(async () => {
    fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
    rig = createBenchRig({ joints: 64 })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    forceKernelForm(null)
  })

  /** Foxes, rigs and a robot playing, fading, placed, a Fox knocked over, stepped `steps` times. */
  function run(kernels: SceneKernels, steps: number, each: (p: AnimationPlugin, step: number) => void) {
    const plugin = createAnimationPlugin(createWorld(), { capacity: 1024, kernels })
    const chars = [fox, rig, fox, rig, robot].map((a) => plugin.addCharacter(a))
    plugin.play(chars[0]!, 'Walk')
    plugin.play(chars[1]!, 'Run', { time: 0.3 })
    plugin.play(chars[2]!, 'Survey', { loop: 'once' })
    plugin.play(chars[3]!, 'Walk', { rotation: 'squad' })
    plugin.play(chars[4]!, 'Dance')
    plugin.setTransform(chars[4]!, { position: [0, 0, -3], scale: [0.5, 0.5, 0.5] })
    plugin.setTransform(chars[2]!, { position: [2, 0, 0], rotation: [0, Math.SQRT1_2, 0, Math.SQRT1_2] })
    for (let s = 0; s < steps; s++) {
      if (s === 20) plugin.crossFade(chars[0]!, 'Run', 0.25)
      if (s === 25) plugin.crossFade(chars[4]!, 'Running', 0.2)
      if (s === 30) plugin.ragdoll(chars[2]!)
      plugin.step()
      each(plugin, s)
    }
    return plugin
  }

  it.each(['simd', 'scalar'] as const)(
    'the same world matrices, hash and snapshot at every step of Foxes, rigs and a robot, ragdoll included (%s form)',
    (form: KernelForm) => {
      const js: { world: number[]; hash: string }[] = []
      const record = (p: AnimationPlugin) => ({
        world: Array.from(bitsOf(p.stores.SceneNode.world)),
        hash: p.hash(),
      })
      const a = run('js', 60, (p) => js.push(record(p)))
      forceKernelForm(form)
      const b = run('wasm', 60, (p, s) => expect(record(p), `step ${s}`).toEqual(js[s]))
      expect(b.sceneGraph.kernels).toBe('wasm')
      expect(propagationKernel(b.sceneGraph)!.form).toBe(form)
      expect(a.sceneGraph.stats.recomputed).toBeGreaterThan(100)
      expect(b.snapshot()).toEqual(a.snapshot())
      // Its store arrays are views into one memory that was never grown (a grown one would detach them).
      const { world, translation, dirty } = b.stores.SceneNode
      expect(world.buffer).toBe(translation.buffer)
      expect(dirty.buffer).toBe(b.sceneGraph.order.buffer)
      expect(world.buffer.byteLength).toBeGreaterThan(1024 * 110)
    },
  )

  it('refused nodes: the same kept flags and snapshot bytes, past the listed refusals too', () => {
    // A game's own chain of nodes scaled 1e20 each: half of them refused, more than the graph lists
    // (MAX_REFUSED_NODES); snapshots store their kept world matrices.
    const snap = (kernels: SceneKernels) => {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 1024, kernels })
      plugin.play(plugin.addCharacter(fox), 'Walk')
      let parent = 0
      for (let k = 0; k < 200; k++) {
        const e = addEntity(plugin.world)
        addSceneNode(plugin.sceneGraph, e, parent)
        parent = e
        plugin.stores.SceneNode.scale.fill(1e20, parent * 3, parent * 3 + 3)
      }
      plugin.step()
      // Every other node of the chain refused in the first pass (new nodes are dirty; a refused node keeps the
      // world it had, and its child's product is finite again): more than the graph lists.
      const refused = plugin.sceneGraph.stats.refused
      expect(refused).toBeGreaterThan(64)
      for (let s = 0; s < 2; s++) plugin.step()
      expect(plugin.sceneGraph.kept.reduce((n, k) => n + k, 0)).toBe(refused)
      return { bytes: plugin.snapshot(), kept: Array.from(plugin.sceneGraph.kept) }
    }
    const [js, wasm] = [snap('js'), snap('wasm')]
    expect(wasm.kept).toEqual(js.kept)
    expect(wasm.bytes).toEqual(js.bytes)
  })

  it('restores a js snapshot and a js plugin restores its snapshot: the same simulation after', () => {
    const a = run('js', 40, () => {})
    const b = run('wasm', 40, () => {})
    const into = (kernels: SceneKernels, bytes: Uint8Array) => {
      const p = createAnimationPlugin(createWorld(), { capacity: 1024, kernels })
      p.addAsset(fox)
      p.addAsset(rig)
      p.addAsset(robot)
      p.restore(bytes)
      return p
    }
    const c = into('wasm', a.snapshot())
    const d = into('js', b.snapshot())
    for (let s = 0; s < 30; s++) for (const p of [a, b, c, d]) p.step()
    expect([b.hash(), c.hash(), d.hash()]).toEqual([a.hash(), a.hash(), a.hash()])
  })

  it('runs the cross-engine scenario (ragdolls, get-up, fades; 600 steps) to the same hash at every checkpoint', () => {
    const js = simulateCrossEngine(fox, 'fox')
    const wasm = simulateCrossEngine(fox, 'fox', 'wasm')
    expect(wasm.checkpoints.map((c) => c.hash)).toEqual(js.checkpoints.map((c) => c.hash))
    expect(wasm.events).toEqual(js.events)
  })

  it("refuses kernels 'wasm' with AnimationError where WebAssembly cannot run or give the memory", () => {
    const world = createWorld()
    const real = WebAssembly
    vi.stubGlobal('WebAssembly', undefined)
    expect(() => createAnimationPlugin(world, { kernels: 'wasm' })).toThrow(
      expect.objectContaining({
        kind: 'argument',
        message: expect.stringMatching(/kernels 'wasm' cannot run/),
      }),
    )
    class TooBig {
      constructor() {
        throw new RangeError('WebAssembly.Memory(): could not allocate memory')
      }
    }
    vi.stubGlobal('WebAssembly', { ...real, Memory: TooBig, Module: real.Module, Instance: real.Instance })
    expect(() => createAnimationPlugin(world, { capacity: 4096, kernels: 'wasm' })).toThrow(
      expect.objectContaining({ kind: 'capacity', message: expect.stringMatching(/memory of \d+ bytes/) }),
    )
    vi.unstubAllGlobals()
    // The failures registered nothing: the same world takes a plugin of either kind.
    const ok = createAnimationPlugin(world, { kernels: 'wasm' })
    const c = ok.addCharacter(fox)
    ok.step()
    expect(ok.stores.SceneNode.world[ok.joints(c)[1]! * 16 + 15]).toBe(1)
    expect(() => createAnimationPlugin(createWorld(), { kernels: 'WASM' as never })).toThrow(AnimationError)
  })

  it("is the default where WebAssembly SIMD validates and there are no workers, else 'js'", () => {
    expect(defaultKernels()).toBe('wasm')
    expect(defaultKernels(2)).toBe('js')
    const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
    const kernel = propagationKernel(plugin.sceneGraph)!
    expect(plugin.sceneGraph.kernels).toBe('wasm')
    expect(kernel.fused).not.toBeNull()
    // The pose pool lives in the kernel memory, where the fused pass reads and writes it.
    expect(contextOf(plugin).pool.data.buffer).toBe(kernel.buffer)
    forceKernelForm('scalar')
    expect(defaultKernels()).toBe('js')
    expect(createAnimationPlugin(createWorld(), { capacity: 1024 }).sceneGraph.kernels).toBe('js')
    forceKernelForm(null)
    // A default 'wasm' that cannot have its memory is 'js' (asked for, it is refused: the test above).
    const real = WebAssembly
    class TooBig {
      constructor() {
        throw new RangeError('WebAssembly.Memory(): could not allocate memory')
      }
    }
    vi.stubGlobal('WebAssembly', {
      Memory: TooBig,
      Module: real.Module,
      Instance: real.Instance,
      validate: real.validate.bind(real),
    })
    const world = createWorld()
    const fallback = createAnimationPlugin(world, { capacity: 1024 })
    vi.unstubAllGlobals()
    expect(fallback.sceneGraph.kernels).toBe('js')
    const c = fallback.addCharacter(fox)
    fallback.play(c, 'Walk')
    fallback.step()
    expect(fallback.stores.SceneNode.world[fallback.joints(c)[1]! * 16 + 15]).toBe(1)
  })

  it('the same snapshot bytes on both kernels, step by step, for a crowd of every-channel rigs cross-fading', () => {
    // The pose pool lives in the kernel memory under 'wasm' (a view at an offset): the snapshot reads it there.
    const asset = createBenchRig({ joints: 67, channels: 'all' })
    const plan = makeCrowdPlan(asset, 6, 'moving', { clipA: 0, clipB: 1 })
    const js = createOurCrowd(plan, 'js')
    const wasm = createOurCrowd(plan, 'wasm')
    for (let s = 0; s < 40; s++) {
      js.run(1)
      wasm.run(1)
      const bytes = wasm.plugin.snapshot()
      expect(bytes, `step ${s + 1}`).toEqual(js.plugin.snapshot())
      if (s % 10 === 9) {
        wasm.plugin.restore(bytes)
        js.plugin.restore(bytes)
      }
    }
    expect(wasm.plugin.hash()).toBe(js.plugin.hash())
  })
})
