/**
 * A ragdoll whose bodies cannot be built (degenerate or huge world scales, a place too far out) is never
 * started: ragdoll() throws AnimationError('ragdoll') and changes nothing; a pose that becomes unbuildable
 * between ragdoll() and the hand-off is reported and left to its animation (src/physics/ragdoll.ts
 * unbuildableBody).
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { RAGDOLL_MAX_EXTENT } from '../../src/physics/buildable.ts'
import { makeHumanoidAsset } from '../helpers/humanoid.ts'
import { problems } from '../helpers/ecs.ts'

const humanoid = makeHumanoidAsset()

function placed(scale: number, position: [number, number, number] = [0, 0, 0]) {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
  const c = plugin.addCharacter(humanoid)
  plugin.setTransform(c, { scale: [scale, scale, scale], position })
  plugin.step()
  return { plugin, c }
}

function refuses(plugin: AnimationPlugin, c: number, pattern: RegExp): void {
  const hash = plugin.hash()
  const bytes = plugin.snapshot()
  const bodies = plugin.physics.bodies.length
  let thrown: unknown
  try {
    plugin.ragdoll(c)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(AnimationError)
  expect((thrown as AnimationError).kind).toBe('ragdoll')
  expect((thrown as AnimationError).message).toMatch(pattern)
  expect(plugin.hash()).toBe(hash)
  expect(plugin.snapshot()).toEqual(bytes)
  plugin.step()
  expect(plugin.physics.bodies.length).toBe(bodies)
  expect(plugin.stores.Ragdoll.active[c]).toBe(RAGDOLL_OFF)
}

describe('ragdoll(): bodies that cannot be built', () => {
  it('refuses a character scaled by 10^-15 (bodies of no size) or by 10^12, and one placed 10^10 out', () => {
    const tiny = placed(1e-15)
    refuses(tiny.plugin, tiny.c, /body 0 .* would have radius .*e-1\d/)
    const huge = placed(1e12)
    refuses(huge.plugin, huge.c, /would have (radius|length) .*at most|from/)
    const far = placed(1, [1e10, 0, 0])
    refuses(far.plugin, far.c, /would be at x = /)
  })

  it(`starts one at the limits' edge (scale 10^6: bodies well under ${RAGDOLL_MAX_EXTENT})`, () => {
    const { plugin, c } = placed(1e6)
    plugin.ragdoll(c)
    plugin.step()
    expect(plugin.stores.Ragdoll.active[c]).toBe(RAGDOLL_FALLING)
    expect(plugin.physics.bodies.length).toBeGreaterThan(1)
  })

  it('a pose scaled up after ragdoll() is reported at the hand-off and keeps animating, no bodies built', () => {
    const { plugin, c } = placed(1)
    plugin.ragdoll(c)
    plugin.setTransform(c, { scale: [1e12, 1e12, 1e12] })
    plugin.events.length = 0
    plugin.step()
    expect(plugin.physics.bodies.length).toBe(1)
    expect(plugin.stores.Ragdoll.active[c]).toBe(RAGDOLL_OFF)
    const reports = problems(plugin)
    expect(reports.map((e) => e.kind)).toEqual(['ragdoll-exploded'])
    expect(reports[0]!.message).toMatch(/cannot be built/)
  })
})
