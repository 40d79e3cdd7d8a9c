/**
 * Layer 0 is the base layer: it cannot be additive (an additive layer adds a difference to the layers below,
 * and layer 0 has none). The refusal changes nothing; the other settings of layer 0 and additive layers above
 * it are accepted.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'

let robot: AnimationAsset
beforeAll(async () => {
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

describe('setLayer on layer 0', () => {
  it('refuses additive, changing nothing', () => {
    const anim = createAnimationPlugin(createWorld())
    const eid = anim.addCharacter(anim.addAsset(robot))
    anim.play(eid, 'Walking')
    anim.step()
    const hash = anim.hash()
    const bytes = anim.snapshot()
    let error: unknown
    try {
      anim.setLayer(eid, 0, { mode: 'additive', weight: 0.5 })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AnimationError)
    expect((error as Error).message).toMatch(/layer 0 is the base layer/)
    expect(anim.hash()).toBe(hash)
    expect(anim.snapshot()).toEqual(bytes)
    expect(anim.getLayer(eid, 0).mode).toBe('override')
    anim.setLayer(eid, 0, { mode: 'override', weight: 0.5 })
    anim.setLayer(eid, 1, { mode: 'additive' })
    expect(anim.getLayer(eid, 1).mode).toBe('additive')
  })
})
