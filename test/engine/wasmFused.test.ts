/**
 * The fused pass's WebAssembly form (src/engine/fusedSimd.wat, run by systems/fusedCharacters.ts under kernels
 * 'wasm') against the three systems it replaces, on random clips: every slerp branch (the nlerp of nearly equal
 * keys, the short-arc series, the long arc past π/2), STEP and LINEAR translations and scales, channels on
 * time tracks of their own, times before the first key and past the last, joints without channels. The same
 * bits in the pose pool, the scene store and the hash, step after step; and the form did run.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/index.ts'
import { contextOf } from '../../entry/plugin.ts'
import { buildClip, type RawChannel } from '../../src/clip/clip.ts'
import { compileFusedInBackground, setFusedKernel } from '../../src/engine/wasmKernels.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { planOf } from '../../systems/fusedCharacters.ts'
import { propagationKernel } from '../../components/SceneNode.ts'
import { chainAsset } from '../helpers/chainRig.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

afterEach(() => {
  setFusedKernel(true)
  compileFusedInBackground(false)
})

type Quat = [number, number, number, number]

/** A unit quaternion from four numbers (not all tiny). */
function unit(q: Quat): Quat {
  const n = Math.hypot(...q)
  return n < 1e-3 ? [0, 0, 0, 1] : (q.map((x) => x / n) as Quat)
}

const num = (min: number, max: number) => fc.double({ min, max, noNaN: true })
const quat = fc.tuple(num(-1, 1), num(-1, 1), num(-1, 1), num(-1, 1)).map((q) => unit(q as Quat))
/** How far each rotation key moves from the last: the nlerp's, the series', the long arc's ranges. */
const step = fc.constantFrom(1e-5, 0.05, 0.4, 2)

interface JointSpec {
  rotation: { keys: number; step: number; start: Quat; axis: Quat; own: boolean } | null
  translation: 'STEP' | 'LINEAR' | null
  scale: boolean
}

const jointSpec: fc.Arbitrary<JointSpec> = fc.record({
  rotation: fc.option(
    fc.record({ keys: fc.integer({ min: 1, max: 6 }), step, start: quat, axis: quat, own: fc.boolean() }),
    { freq: 4 },
  ),
  translation: fc.constantFrom(null, 'STEP', 'LINEAR'),
  scale: fc.boolean(),
})

/** A chain of the specs' joints and one clip keyed as they say (key times 0.1 apart from `t0`). */
function assetOf(specs: JointSpec[], t0: number): AnimationAsset {
  const base = chainAsset(specs.length - 1)
  const channels: RawChannel[] = []
  specs.forEach((s, j) => {
    const node = { node: j, nodeName: `j${j}` }
    const times = (n: number, own: boolean) =>
      Array.from({ length: n }, (_, k) => t0 + k * (own ? 0.13 : 0.1))
    if (s.rotation !== null) {
      const { keys, step: d, start, axis, own } = s.rotation
      const values: number[] = []
      for (let k = 0; k < keys; k++) {
        // start · (axis, angle k·d): keys d apart along one axis, some past π between neighbours.
        const [ax, ay, az] = unit([axis[0], axis[1], axis[2], 0])
        const h = (k * d) / 2
        const r: Quat = [ax * Math.sin(h), ay * Math.sin(h), az * Math.sin(h), Math.cos(h)]
        const [x, y, z, w] = start
        values.push(
          w * r[0] + x * r[3] + y * r[2] - z * r[1],
          w * r[1] - x * r[2] + y * r[3] + z * r[0],
          w * r[2] + x * r[1] - y * r[0] + z * r[3],
          w * r[3] - x * r[0] - y * r[1] - z * r[2],
        )
      }
      channels.push({ ...node, path: 'rotation', interpolation: 'LINEAR', times: times(keys, own), values })
    }
    if (s.translation !== null) {
      const values = [0, 0.1, 0, 0.05, 0.2, -0.1, -0.2, 0.15, 0.3]
      channels.push({
        ...node,
        path: 'translation',
        interpolation: s.translation,
        times: times(3, false),
        values,
      })
    }
    if (s.scale) {
      const values = [1, 1, 1, 1.5, 0.5, 2, 0.25, 1, 3]
      channels.push({ ...node, path: 'scale', interpolation: 'LINEAR', times: times(3, true), values })
    }
  })
  // A clip of some length (one of a single key would never be sampled again after its first step).
  const values = [1, 1, 1, 1, 1, 1]
  channels.push({ node: 0, nodeName: 'j0', path: 'scale', interpolation: 'STEP', times: [0, 0.3], values })
  return { ...base, clips: [buildClip({ name: 'clip', channels })] }
}

/** Steps a small crowd of the asset playing its clip from `starts` at `speeds`; the state after each step. */
function run(asset: AnimationAsset, starts: number[], speeds: number[], fused: boolean, steps: number) {
  setFusedKernel(fused)
  const world = createWorld()
  const plugin = createAnimationPlugin(world, { capacity: 256, kernels: 'wasm' })
  const handle = plugin.addAsset(asset)
  const eids = starts.map((time, i) => {
    const eid = plugin.addCharacter(handle)
    plugin.play(eid, 'clip', { time, speed: speeds[i]! })
    return eid
  })
  const ctx = contextOf(plugin)
  const states: { pool: Uint8Array; store: Uint8Array[]; hash: string }[] = []
  const bytes = (a: ArrayBufferView) =>
    new Uint8Array(a.buffer.slice(a.byteOffset, a.byteOffset + a.byteLength))
  for (let s = 0; s < steps; s++) {
    plugin.step()
    const st = ctx.sceneGraph.store
    states.push({
      pool: bytes(ctx.pool.data),
      store: [st.translation, st.rotation, st.scale, st.world, st.dirty, st.changed].map(bytes),
      hash: String(plugin.hash()),
    })
  }
  const placed = eids.map(
    (eid) =>
      planOf(
        ctx.fused,
        ctx.clips[ctx.stores.Sampler.clip[eid]!]!.clip,
        ctx.binding[eid]!,
        ctx.stores.Pose.count[eid]!,
      ).wasmTable,
  )
  return { states, placed, kernel: propagationKernel(ctx.sceneGraph) }
}

describe('the fused pass in WebAssembly', () => {
  it('gives the three systems’ bits on random clips, step by step', () => {
    fc.assert(
      fc.property(
        fc.array(jointSpec, { minLength: 2, maxLength: 9 }),
        fc.constantFrom(0, 0.05),
        fc.array(fc.tuple(num(0, 1.2), fc.constantFrom(1, 0.5, 1.7, -1)), { minLength: 1, maxLength: 3 }),
        (specs, t0, plays) => {
          const asset = assetOf(specs, t0)
          const starts = plays.map((p) => p[0])
          const speeds = plays.map((p) => p[1])
          const on = run(asset, starts, speeds, true, 24)
          const off = run(asset, starts, speeds, false, 24)
          expect(on.kernel!.fused).not.toBeNull()
          expect(off.kernel!.fused).toBeNull()
          // It ran: each character's plan has its table in the kernel memory.
          for (const t of on.placed) expect(t).toBeGreaterThanOrEqual(0)
          for (let s = 0; s < on.states.length; s++)
            expect(on.states[s], `step ${s + 1}`).toEqual(off.states[s])
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 40), seed: Number(process.env.SEED ?? 40) },
    )
  })

  it.each(['compile', 'instantiate'] as const)(
    'made in the background (%s, as on a page’s main thread): the same bits before it arrives and after',
    async (how) => {
      const fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
      const crowd = (kernels: 'js' | 'wasm') => {
        const plugin = createAnimationPlugin(createWorld(), { capacity: 512, kernels })
        const chars = [0, 1, 2, 3].map(() => plugin.addCharacter(fox))
        chars.forEach((c, i) => plugin.play(c, i % 2 === 0 ? 'Walk' : 'Run', { time: 0.1 * i }))
        return { plugin, chars }
      }
      const js = crowd('js')
      if (how === 'compile') compileFusedInBackground(true)
      else {
        // The module compiled, its synchronous instantiation refused (as on a page's main thread, past 4 KB).
        const real = WebAssembly
        class Refusing {
          constructor(module: WebAssembly.Module, imports: WebAssembly.Imports) {
            const fused = real.Module.exports(module).some((e) => e.name === 'fade')
            if (fused) throw new RangeError('refused on the main thread')
            return new real.Instance(module, imports)
          }
        }
        vi.stubGlobal('WebAssembly', {
          Module: real.Module,
          Memory: real.Memory,
          Instance: Refusing,
          validate: real.validate.bind(real),
          compile: real.compile.bind(real),
          instantiate: real.instantiate.bind(real),
        })
      }
      const wasm = crowd('wasm')
      vi.unstubAllGlobals()
      const kernel = propagationKernel(contextOf(wasm.plugin).sceneGraph)!
      expect(kernel.fused).toBeNull()
      const step = (s: number) => {
        if (s === 6) for (const p of [js, wasm]) p.plugin.crossFade(p.chars[1]!, 'Survey', 0.3)
        js.plugin.step()
        wasm.plugin.step()
        expect(wasm.plugin.snapshot(), `step ${s}`).toEqual(js.plugin.snapshot())
      }
      for (let s = 0; s < 4; s++) step(s)
      for (let i = 0; i < 200 && kernel.fused === null; i++) await new Promise((r) => setTimeout(r, 5))
      expect(kernel.fused).not.toBeNull()
      let fades = 0
      const fade = kernel.fused!.fade
      Object.assign(kernel.fused!, { fade: (...args: Parameters<typeof fade>) => (fades++, fade(...args)) })
      for (let s = 4; s < 30; s++) step(s)
      expect(fades).toBeGreaterThan(0)
    },
  )
})
