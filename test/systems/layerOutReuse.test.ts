/**
 * A clip layer's OUT is not re-filled with its base pose when it samples the same channels over the same base as
 * the step before (Layer.outBase): that must never change a bit. Two characters get the same random calls; the
 * second has its layers' record cleared before every step, so it re-fills OUT every time.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

const assets: AnimationAsset[] = []
beforeAll(async () => {
  assets.push(await loadAsset('assets/RobotExpressive/RobotExpressive.glb'))
  assets.push(await loadAsset('assets/Fox/glTF-Binary/Fox.glb'))
})

const MASK_JOINT = ['Abdomen', 'b_Spine02_03']

const call = fc.record({
  kind: fc.constantFrom('play', 'crossFade', 'mask', 'unmask', 'additive', 'override', 'stop', 'blend'),
  layer: fc.integer({ min: 1, max: 2 }),
  clip: fc.nat(20),
  steps: fc.integer({ min: 0, max: 6 }),
})

function apply(
  plugin: AnimationPlugin,
  eid: number,
  asset: number,
  c: typeof call extends fc.Arbitrary<infer T> ? T : never,
): void {
  const clips = assets[asset]!.clips.map((x) => x.name)
  const clip = clips[c.clip % clips.length]!
  const other = clips[(c.clip + 1) % clips.length]!
  if (c.kind === 'play') plugin.play(eid, clip, { layer: c.layer, time: 0.1 * c.clip })
  else if (c.kind === 'crossFade') plugin.crossFade(eid, clip, 0.05, { layer: c.layer })
  else if (c.kind === 'mask') plugin.setLayer(eid, c.layer, { mask: [MASK_JOINT[asset]!] })
  else if (c.kind === 'unmask') plugin.setLayer(eid, c.layer, { mask: null })
  else if (c.kind === 'additive') plugin.setLayer(eid, c.layer, { mode: 'additive' })
  else if (c.kind === 'override') plugin.setLayer(eid, c.layer, { mode: 'override' })
  else if (c.kind === 'stop') plugin.stopLayer(eid, c.layer)
  else
    plugin.playBlendSpace(
      eid,
      [
        { clip, at: 0 },
        { clip: other, at: 1 },
      ],
      { layer: c.layer, parameter: 0.3 },
    )
}

describe('layer OUT reuse', () => {
  it('gives the same bits as re-filling OUT every step, through any sequence of layer calls', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1 }),
        fc.array(call, { minLength: 1, maxLength: 12 }),
        (asset, calls) => {
          const run = (refill: boolean): string => {
            const plugin = createAnimationPlugin(createWorld(), { capacity: 256, physics: { ground: false } })
            const eid = plugin.addCharacter(assets[asset]!)
            plugin.play(eid, assets[asset]!.clips[0]!.name)
            const ctx = contextOf(plugin)
            const hashes: string[] = []
            for (const c of calls) {
              apply(plugin, eid, asset, c)
              for (let s = 0; s < c.steps + 1; s++) {
                if (refill) for (const layer of ctx.layers[eid]?.layers ?? []) if (layer) layer.outBase = null
                plugin.step()
                hashes.push(plugin.hash())
              }
            }
            return hashes.join(' ')
          }
          expect(run(false)).toBe(run(true))
        },
      ),
      { numRuns: 40 },
    )
  })
})
