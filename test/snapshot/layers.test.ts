/**
 * Layers in snapshots: a scene using every kind of layer state (a masked override fading in, an additive layer
 * mid-fade between two clips, a 2D blend space on a layer, a 1D blend space on layer 0 of a second character,
 * a paused layer, a stopping layer) restores into a fresh plugin and steps on with the same hash every step;
 * forged layer values are refused, changing nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { layoutsOf } from '../../snapshot/format.ts'
import { forge, mapSnapshot } from '../helpers/forge.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

const OPTIONS = { capacity: 512, physics: { ground: false } } as const

function fresh(): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), OPTIONS)
  plugin.addAsset(robot)
  return plugin
}

function scene(): { plugin: AnimationPlugin; a: number; b: number } {
  const plugin = fresh()
  const a = plugin.addCharacter(robot)
  const b = plugin.addCharacter(robot)
  plugin.play(a, 'Walking')
  plugin.setLayer(a, 1, { mask: ['Abdomen', { joint: 'Neck', weight: 0.5 }], weight: 0 })
  plugin.play(a, 'Wave', { layer: 1 })
  plugin.setLayer(a, 1, { weight: 1, fadeSeconds: 0.5 })
  plugin.setLayer(a, 2, { mode: 'additive', weight: 0.7 })
  plugin.play(a, 'Yes', { layer: 2 })
  plugin.playBlendSpace(
    a,
    [
      { clip: 'Idle', at: [0, 0] },
      { clip: 'Dance', at: [1, 0] },
      { clip: 'Punch', at: [0, 1] },
    ],
    { layer: 3, parameter: [0.3, 0.3], sync: false },
  )
  plugin.setLayer(a, 3, { weight: 0.4, mask: ['Shoulder.R'] })
  plugin.playBlendSpace(
    b,
    [
      { clip: 'Walking', at: 0 },
      { clip: 'Running', at: 1 },
    ],
    { parameter: 0.25 },
  )
  plugin.play(b, 'ThumbsUp', { layer: 1 })
  plugin.pause(b, { layer: 1 })
  for (let k = 0; k < 20; k++) plugin.step()
  plugin.crossFade(a, 'No', 0.4, { layer: 2 })
  plugin.stopLayer(a, 3, 0.5)
  plugin.setBlendParameter(b, 0.8)
  for (let k = 0; k < 5; k++) plugin.step()
  return { plugin, a, b }
}

describe('layers in snapshots', () => {
  it('restore gives the same hash after every later step', () => {
    const { plugin } = scene()
    const bytes = plugin.snapshot()
    const copy = fresh()
    copy.restore(bytes)
    expect(copy.hash()).toBe(plugin.hash())
    expect(copy.snapshot()).toEqual(bytes)
    for (let k = 0; k < 60; k++) {
      plugin.step()
      copy.step()
      expect(copy.hash(), `step ${k}`).toBe(plugin.hash())
    }
  })

  it('forged layer numbers and poses are refused, changing nothing', () => {
    const { plugin, a } = scene()
    const bytes = plugin.snapshot()
    const map = mapSnapshot(bytes, layoutsOf(contextOf(plugin)))
    const layers = map.layers.get(a)!
    expect(layers.length).toBe(4)
    // The OUT buffer's first stored rotation (its joint's paths before it: translation or not).
    const out = layers[1]!
    const masks = out.block[0]!
    let rotation = out.blockFloats[0]!
    let j = 0
    const floats = (m: number) => (m & 1 ? 3 : 0) + (m & 2 ? 4 : 0) + (m & 4 ? 3 : 0)
    for (; (bytes[masks + j]! & 2) === 0; j++) rotation += 4 * floats(bytes[masks + j]!)
    rotation += 4 * (bytes[masks + j]! & 1 ? 3 : 0)
    const edits = [
      { offset: layers[1]!.fields.get('AnimLayer.weight')!, kind: 'f64', value: 2 },
      { offset: layers[1]!.fields.get('Sampler.speed')!, kind: 'f64', value: NaN },
      { offset: layers[2]!.fields.get('AnimLayer.mode')!, kind: 'u8', value: 5 },
      { offset: layers[2]!.fields.get('Sampler.clip')!, kind: 'i32', value: 9999 },
      { offset: rotation, kind: 'f32', value: 0 }, // OUT joint j's rotation x… length 0
      { offset: rotation + 4 * 3, kind: 'f32', value: 0 },
      { offset: rotation + 4 * 1, kind: 'f32', value: 0 },
      { offset: rotation + 4 * 2, kind: 'f32', value: 0 },
      { offset: masks + 1, kind: 'u8', value: 9 }, // a path mask with a bit outside T, R, S
    ] as const
    for (const [index, edit] of [[0], [1], [2], [3], [4, 5, 6, 7], [8]].entries()) {
      const forged = forge(
        bytes,
        edit.map((e) => edits[e]!),
      )
      const target = fresh()
      const before = target.hash()
      expect(() => target.restore(forged), `forgery ${index}`).toThrowError(/restore: snapshot/)
      expect(target.hash()).toBe(before)
      target.restore(bytes)
      expect(target.hash()).toBe(plugin.hash())
    }
  })
})
