/**
 * Emotes as a game plays them: crossFade on an empty layer fades the layer in from the layers below, stopLayer
 * fades it out, and a finished 'once' clip is faded into again by the same crossFade (on layer 0 as on any
 * layer), where a clip still playing stays a no-op.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

function setup(): { anim: AnimationPlugin; eid: number } {
  const anim = createAnimationPlugin(createWorld())
  const eid = anim.addCharacter(anim.addAsset(robot))
  anim.play(eid, 'Walking')
  anim.setLayer(eid, 1, { mask: ['Abdomen'] })
  return { anim, eid }
}

function steps(anim: AnimationPlugin, n: number): void {
  for (let i = 0; i < n; i++) anim.step()
}

describe('emotes on a layer', () => {
  it('crossFade on an empty layer ramps its weight from 0, and again after stopLayer', () => {
    const { anim, eid } = setup()
    const dt = anim.dt
    for (let round = 0; round < 2; round++) {
      anim.crossFade(eid, 'Wave', 0.2, { layer: 1, loop: 'once' })
      anim.step()
      const first = anim.getLayer(eid, 1)
      expect(first.clip).toBe('Wave')
      expect(first.weight).toBeCloseTo(dt / 0.2, 12)
      expect(first.targetWeight).toBe(1)
      steps(anim, 12)
      expect(anim.getLayer(eid, 1).weight).toBe(1)
      anim.stopLayer(eid, 1, 0.3)
      steps(anim, 19)
      expect(anim.getLayer(eid, 1).clip).toBeNull()
    }
  })

  it('fades in to the weight setLayer gave the layer', () => {
    const { anim, eid } = setup()
    anim.setLayer(eid, 1, { weight: 0.6 })
    anim.crossFade(eid, 'Wave', 0.5, { layer: 1 })
    anim.step()
    expect(anim.getLayer(eid, 1).weight).toBeCloseTo((0.6 * anim.dt) / 0.5, 12)
    steps(anim, 40)
    expect(anim.getLayer(eid, 1).weight).toBe(0.6)
  })

  it('a cut (0 s) on an empty layer shows it at its weight at once', () => {
    const { anim, eid } = setup()
    anim.crossFade(eid, 'Wave', 0, { layer: 1 })
    anim.step()
    expect(anim.getLayer(eid, 1).weight).toBe(1)
  })

  it('a finished once clip is faded into again from its start; a playing one is left alone', () => {
    const { anim, eid } = setup()
    anim.crossFade(eid, 'Wave', 0.2, { layer: 1, loop: 'once' })
    steps(anim, 150) // Wave lasts ~1.8 s
    const held = anim.getLayer(eid, 1)
    expect(held.time).toBeCloseTo(robot.clips.find((c) => c.name === 'Wave')!.duration, 6)
    const before = anim.hash()
    anim.crossFade(eid, 'Wave', 0.2, { layer: 1, loop: 'once' })
    expect(anim.hash()).not.toBe(before)
    anim.step()
    const again = anim.getLayer(eid, 1)
    expect(again.time).toBeLessThan(0.1)
    expect(again.fade).not.toBeNull()
    // Mid-play, the same call changes nothing.
    steps(anim, 10)
    const playing = anim.hash()
    anim.crossFade(eid, 'Wave', 0.2, { layer: 1, loop: 'once' })
    expect(anim.hash()).toBe(playing)
  })

  it('on layer 0 too', () => {
    const anim = createAnimationPlugin(createWorld())
    const eid = anim.addCharacter(anim.addAsset(robot))
    anim.play(eid, 'Jump', { loop: 'once' })
    steps(anim, 120)
    const done = anim.getLayer(eid, 0)
    expect(done.clip).toBe('Jump')
    const before = anim.hash()
    anim.crossFade(eid, 'Jump', 0.1, { loop: 'once' })
    expect(anim.hash()).not.toBe(before)
    anim.step()
    expect(anim.getLayer(eid, 0).time).toBeLessThan(0.1)
    const playing = anim.hash()
    anim.crossFade(eid, 'Jump', 0.1, { loop: 'once' })
    expect(anim.hash()).toBe(playing)
  })
})
