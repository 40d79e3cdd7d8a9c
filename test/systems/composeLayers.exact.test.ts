/**
 * Layers (systems/advanceTracks.ts, sampleTracks.ts, composeLayers.ts) on the shipped rigs: exact properties, bit for bit: a layer at weight 0 changes
 * nothing; an unmasked override at weight 1 shows exactly its clip; a mask leaves every joint outside it
 * exactly as the layers below; making the stack keeps the current pose.
 * Setup: test/helpers/layers.ts.
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf } from '../../entry/plugin.ts'
import {
  assets,
  setup,
  locals,
  worlds,
  bits,
  subtree,
  scenario,
  MASK_JOINT,
  loadAssets,
} from '../helpers/layers.ts'

beforeAll(loadAssets)

describe('layers: exact properties', () => {
  it('a layer at weight 0 changes nothing, bit for bit (any clip, mode, mask)', () => {
    fc.assert(
      fc.property(scenario, fc.boolean(), (s, masked) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const a = setup(asset)
        const b = setup(asset)
        for (const { plugin, eid } of [a, b])
          plugin.play(eid, clips[s.base % clips.length]!, { time: s.time })
        b.plugin.setLayer(b.eid, 3, {
          weight: 0,
          mode: s.additive ? 'additive' : 'override',
          mask: masked ? [MASK_JOINT[s.rig]!] : null,
        })
        b.plugin.play(b.eid, clips[s.layerClip % clips.length]!, { layer: 3, speed: s.speed })
        for (let k = 0; k < s.steps; k++) {
          if (k === s.fadeAt) {
            for (const { plugin, eid } of [a, b])
              plugin.crossFade(eid, clips[(s.base + 1) % clips.length]!, 0.2)
          }
          a.plugin.step()
          b.plugin.step()
        }
        expect(bits(worlds(b.plugin, b.eid))).toEqual(bits(worlds(a.plugin, a.eid)))
      }),
      { numRuns: 25 },
    )
  })

  it('an unmasked override at weight 1 shows exactly its clip, bit for bit', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const shown = clips[s.layerClip % clips.length]!
        const a = setup(asset)
        const b = setup(asset)
        a.plugin.play(a.eid, shown, { time: s.time, speed: s.speed })
        b.plugin.play(b.eid, clips[s.base % clips.length]!)
        b.plugin.play(b.eid, shown, { layer: 2, time: s.time, speed: s.speed })
        for (let k = 0; k < s.steps; k++) {
          a.plugin.step()
          b.plugin.step()
        }
        expect(bits(locals(b.plugin, b.eid))).toEqual(bits(locals(a.plugin, a.eid)))
      }),
      { numRuns: 25 },
    )
  })

  it('a mask leaves every joint outside it exactly as the layers below', () => {
    fc.assert(
      fc.property(scenario, fc.double({ min: 0, max: 1, noNaN: true }), (s, weight) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const a = setup(asset)
        const b = setup(asset)
        for (const { plugin, eid } of [a, b])
          plugin.play(eid, clips[s.base % clips.length]!, { time: s.time })
        b.plugin.setLayer(b.eid, 1, {
          weight,
          mode: s.additive ? 'additive' : 'override',
          mask: [MASK_JOINT[s.rig]!],
        })
        b.plugin.play(b.eid, clips[s.layerClip % clips.length]!, { layer: 1, speed: s.speed })
        for (let k = 0; k < s.steps; k++) {
          a.plugin.step()
          b.plugin.step()
        }
        const inside = subtree(b.plugin, b.eid, MASK_JOINT[s.rig]!)
        const la = locals(a.plugin, a.eid)
        const lb = locals(b.plugin, b.eid)
        for (let j = 0; j < la.length / 10; j++) {
          if (inside.has(j)) continue
          expect(bits(lb.slice(j * 10, j * 10 + 10)), `joint ${j}`).toEqual(
            bits(la.slice(j * 10, j * 10 + 10)),
          )
        }
      }),
      { numRuns: 25 },
    )
  })

  it('a masked layer samples only the joints inside its mask, which show what the whole-body layer shows', () => {
    fc.assert(
      fc.property(scenario, fc.double({ min: 0, max: 1, noNaN: true }), (s, weight) => {
        const asset = assets[s.rig]!
        const clips = asset.clips.map((c) => c.name)
        const whole = setup(asset)
        const masked = setup(asset)
        for (const { plugin, eid } of [whole, masked]) {
          plugin.play(eid, clips[s.base % clips.length]!, { time: s.time })
          const mode = s.additive ? 'additive' : 'override'
          const mask = plugin === masked.plugin ? [MASK_JOINT[s.rig]!] : null
          plugin.setLayer(eid, 1, { weight, mode, mask })
          plugin.play(eid, clips[s.layerClip % clips.length]!, { layer: 1, speed: s.speed })
          // A fade inside the layer half way through: its outgoing clip is sampled masked too.
          for (let k = 0; k < s.steps; k++) {
            if (k === s.steps >> 1) plugin.crossFade(eid, clips[s.base % clips.length]!, 0.3, { layer: 1 })
            plugin.step()
          }
        }
        const inside = subtree(masked.plugin, masked.eid, MASK_JOINT[s.rig]!)
        const lw = locals(whole.plugin, whole.eid)
        const lm = locals(masked.plugin, masked.eid)
        for (const j of inside) {
          expect(bits(lm.slice(j * 10, j * 10 + 10)), `joint ${j}`).toEqual(
            bits(lw.slice(j * 10, j * 10 + 10)),
          )
        }
        // What the layer holds outside its mask was never sampled: still the block's rest pose.
        const ctx = contextOf(masked.plugin)
        const layer = ctx.layers[masked.eid]!.layers[1]!
        const n = masked.plugin.joints(masked.eid).length
        const rest = ctx.assets[ctx.stores.Pose.asset[masked.eid]!]!.rest
        const out = ctx.pool.data.subarray(layer.base * 10, (layer.base + n) * 10)
        const outside = [...Array(n).keys()].filter((j) => !inside.has(j))
        if (s.additive) return // an additive layer's OUT is a difference from its reference
        for (const j of outside) {
          expect(bits(out.slice(j * 10, j * 10 + 10)), `joint ${j}`).toEqual(
            bits(rest.slice(j * 10, j * 10 + 10)),
          )
        }
      }),
      { numRuns: 25 },
    )
  })
})

describe('layers: making the stack keeps the current pose', () => {
  it('a crossFade on layer 0 right after the first setLayer fades from the pose shown, not the rest pose', () => {
    const a = setup(assets.robot!)
    const b = setup(assets.robot!)
    for (const { plugin, eid } of [a, b]) {
      plugin.play(eid, 'Walking')
      for (let k = 0; k < 20; k++) plugin.step()
      plugin.crossFade(eid, 'Running', 0.5)
      for (let k = 0; k < 5; k++) plugin.step()
    }
    b.plugin.setLayer(b.eid, 1, { weight: 0 })
    // Mid-fade: the fade into Idle starts from the frozen blend of what is shown.
    for (const { plugin, eid } of [a, b]) {
      plugin.crossFade(eid, 'Idle', 0.3)
      for (let k = 0; k < 5; k++) plugin.step()
    }
    expect(bits(worlds(b.plugin, b.eid))).toEqual(bits(worlds(a.plugin, a.eid)))
  })
})
