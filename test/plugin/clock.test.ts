/**
 * The animation clock's time scale (setTimeScale): 1 changes no bit; another scale moves every clip, fade and
 * layer weight ramp by scale × dt a step, and 0 freezes them; it is in hash() and snapshots; bad scales are
 * refused, changing nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

const DT = 1 / 60

/** A robot walking, fading to a run on layer 0, waving on a masked layer that fades in, a blend space on 2. */
function scene(scale: number | null): { p: AnimationPlugin; a: number; b: number } {
  const p = createAnimationPlugin(createWorld(), { capacity: 1024, physics: { ground: false } })
  const a = p.addCharacter(robot)
  const b = p.addCharacter(robot)
  if (scale !== null) p.setTimeScale(scale)
  p.play(a, 'Walking')
  p.crossFade(a, 'Running', 0.5)
  p.setLayer(a, 1, { mask: ['Abdomen'], weight: 0 })
  p.play(a, 'Wave', { layer: 1 })
  p.setLayer(a, 1, { weight: 1, fadeSeconds: 0.4 })
  p.playBlendSpace(
    b,
    [
      { clip: 'Walking', at: 0 },
      { clip: 'Running', at: 1 },
    ],
    { parameter: 0.5, layer: 2 },
  )
  return { p, a, b }
}

const worlds = (p: AnimationPlugin, eid: number): Float32Array => {
  const out: number[] = []
  for (const e of p.joints(eid)) out.push(...p.stores.SceneNode.world.subarray(e * 16, e * 16 + 16))
  return Float32Array.from(out)
}

describe('setTimeScale', () => {
  it('at 1 (the default) changes no bit', () => {
    const x = scene(null)
    const y = scene(1)
    for (let s = 0; s < 40; s++) {
      x.p.step()
      y.p.step()
    }
    expect(y.p.timeScale).toBe(1)
    expect(worlds(y.p, y.a)).toEqual(worlds(x.p, x.a))
    expect(worlds(y.p, y.b)).toEqual(worlds(x.p, x.b))
    expect(y.p.hash()).toBe(x.p.hash())
  })

  it('moves clips, fades and weight ramps by scale × dt a step', () => {
    const { p, a } = scene(0.5)
    for (let s = 0; s < 30; s++) p.step()
    // The first step shows the start; 29 more of half a step each.
    expect(p.getLayer(a, 0).time).toBeCloseTo(29 * 0.5 * DT, 12)
    expect(p.getLayer(a, 0).fade!.blend).toBeCloseTo((30 * 0.5 * DT) / 0.5, 12)
    expect(p.getLayer(a, 1).weight).toBeCloseTo((30 * 0.5 * DT) / 0.4, 12)
    // Twice the steps of the normal rate to end the fade.
    for (let s = 30; s < 59; s++) p.step()
    expect(p.getLayer(a, 0).fade).not.toBeNull()
    p.step()
    expect(p.getLayer(a, 0).fade).toBeNull()
  })

  it('at 0 freezes the pose, the fades and the ramps; back to 1 they go on', () => {
    const { p, a, b } = scene(null)
    for (let s = 0; s < 10; s++) p.step()
    p.setTimeScale(0)
    p.step()
    const frozen = [worlds(p, a), worlds(p, b), p.getLayer(a, 0).fade!.blend, p.getLayer(a, 1).weight]
    for (let s = 0; s < 20; s++) p.step()
    expect([worlds(p, a), worlds(p, b), p.getLayer(a, 0).fade!.blend, p.getLayer(a, 1).weight]).toEqual(
      frozen,
    )
    p.setTimeScale(1)
    p.step()
    expect(p.getLayer(a, 0).fade!.blend).toBeGreaterThan(frozen[2] as number)
  })

  it('is in hash() and snapshots: a restore keeps the scale and steps on the same', () => {
    const { p } = scene(0.75)
    for (let s = 0; s < 12; s++) p.step()
    const bytes = p.snapshot()
    const copy = createAnimationPlugin(createWorld(), { capacity: 1024, physics: { ground: false } })
    copy.addAsset(robot)
    copy.restore(bytes)
    expect(copy.timeScale).toBe(0.75)
    expect(copy.hash()).toBe(p.hash())
    for (let s = 0; s < 20; s++) {
      p.step()
      copy.step()
      expect(copy.hash()).toBe(p.hash())
    }
    const before = p.hash()
    p.setTimeScale(0.5)
    expect(p.hash()).not.toBe(before)
  })

  it.each([NaN, -1, Infinity, -0.5, '1', undefined, null])('refuses %s, changing nothing', (bad) => {
    const { p } = scene(null)
    p.step()
    const hash = p.hash()
    expect(() => p.setTimeScale(bad as never)).toThrow(AnimationError)
    expect(() => p.setTimeScale(bad as never)).toThrow(/^setTimeScale\(/)
    expect(p.hash()).toBe(hash)
    expect(p.timeScale).toBe(1)
  })
})
