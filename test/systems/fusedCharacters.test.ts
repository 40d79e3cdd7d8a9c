/**
 * The fused pass (src/engine/fusedSimd.wat, systems/fusedCharacters.ts) against the three-system path it replaces
 * (sampleTracks → blendPoses → propagateTransforms, whose kernels test/engine/ holds to their clean forms and
 * test/oracle/ to three.js): the same bits in every world matrix, local, ANIM pose and flag, and the same hash,
 * step after step, on the bench's crowds of the 64-joint rig and the Fox (characters in different states:
 * playing, fading, paused, finished, layered, levels of detail); a character with a game's
 * node under one of its joints is left to the three systems.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { addEntity } from 'bitecs'
import { makeCrowdPlan, type CrowdKind } from '../../scripts/bench/crowd.ts'
import { createOurCrowd, type OurCrowd } from '../../scripts/bench/ours.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { planOptions } from '../../scripts/bench/scenarioJob.ts'
import { DT, FADE_SECONDS } from '../../scripts/bench/options.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { fusedPlan } from '../../src/engine/fused.ts'
import { setFusedKernel } from '../../src/engine/wasmKernels.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { contextOf } from '../../entry/plugin.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
afterEach(() => setFusedKernel(true))

/** The crowd under kernels 'wasm', with the fused pass or without it (the three systems). */
function crowd(asset: AnimationAsset, name: 'rig-linear' | 'fox', kind: CrowdKind, fused: boolean): OurCrowd {
  setFusedKernel(fused)
  const plan = makeCrowdPlan(asset, 12, kind, {
    ...planOptions(name, kind),
    fadeSeconds: FADE_SECONDS,
    dt: DT,
  })
  return createOurCrowd(plan, 'wasm')
}

/** Everything the step writes that the two paths share: the scene store, the pose pool, the hash. */
function state(c: OurCrowd): { store: Uint8Array[]; pool: Float32Array; hash: string } {
  const ctx = contextOf(c.plugin)
  const s = ctx.sceneGraph.store
  const bytes = (a: ArrayBufferView) =>
    new Uint8Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength))
  return {
    store: [s.translation, s.rotation, s.scale, s.world, s.dirty, s.changed].map(bytes),
    pool: ctx.pool.data.slice(),
    hash: String(c.plugin.hash()),
  }
}

describe('the fused pass', () => {
  const cases: ['rig-linear' | 'fox', CrowdKind][] = [
    ['rig-linear', 'playing'],
    ['rig-linear', 'moving'],
    ['rig-linear', 'idle'],
    ['rig-linear', 'layered'],
    ['fox', 'playing'],
    ['fox', 'moving'],
    ['fox', 'lod'],
  ]
  it.each(cases)('%s %s: the bits of the three systems, step by step', async (name, kind) => {
    const asset = name === 'fox' ? await loadAsset(FOX) : createBenchRig({ joints: 64 })
    const plain = crowd(asset, name, kind, false)
    const fused = crowd(asset, name, kind, true)
    let fusedSteps = 0
    for (let step = 0; step < 40; step++) {
      plain.run(1)
      fused.run(1)
      const ctx = contextOf(fused.plugin)
      // The pass ran (its flags are cleared as it runs; the plan says which characters it takes).
      for (const eid of fused.characters) if (ctx.fused.contiguous[eid] === 1) fusedSteps++
      expect(state(fused)).toEqual(state(plain))
    }
    expect(fusedSteps).toBeGreaterThan(0)
  })

  it('leaves a character with a node of the game under a joint to the three systems', () => {
    const asset = createBenchRig({ joints: 12 })
    const run = (fused: boolean) => {
      const c = crowd(asset, 'rig-linear', 'playing', fused)
      const ctx = contextOf(c.plugin)
      const eid = c.characters[0]!
      // A prop under the jaw (joint 7): it comes before the left leg (8) in the scene order, between the joints.
      const prop = addEntity(c.world)
      addSceneNode(ctx.sceneGraph, prop, ctx.pool.joints[ctx.stores.Pose.base[eid]! + 7]!)
      c.run(10)
      return { c, eid, prop, ctx }
    }
    const a = run(false)
    const b = run(true)
    expect(b.ctx.fused.contiguous[b.eid]).toBe(0)
    expect(b.ctx.fused.contiguous[b.c.characters[1]!]).toBe(1)
    expect(state(b.c)).toEqual(state(a.c))
    const world = (x: typeof a) =>
      Array.from(x.ctx.sceneGraph.store.world.subarray(x.prop * 16, x.prop * 16 + 16))
    expect(world(b)).toEqual(world(a))
  })

  it('takes STEP, LINEAR and slerp channels only', () => {
    const rig = createBenchRig({ joints: 4 })
    const cubic = createBenchRig({ joints: 4, interpolation: 'CUBICSPLINE' })
    const bind = (n: number) => Int32Array.from({ length: n }, (_, c) => c)
    const plan = fusedPlan(
      rig.clips[0]!,
      Int32Array.from(rig.clips[0]!.frameChannels, (ch) => ch.node * 10 + (ch.path === 'rotation' ? 3 : 0)),
      4,
    )
    expect(plan.fusable).toBe(true)
    expect(Array.from(plan.channels.filter((_, i) => i % 3 === 1)).every((c) => c >= 0)).toBe(true)
    expect(fusedPlan(cubic.clips[0]!, bind(cubic.clips[0]!.frameChannels.length).fill(3), 4).fusable).toBe(
      false,
    )
  })
})
