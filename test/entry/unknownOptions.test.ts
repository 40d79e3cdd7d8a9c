/**
 * An options object with a key the call does not take (a misspelt `fade` for `fadeSeconds`) is an
 * AnimationError 'argument' naming the key and the call, and the call changes nothing (hash() and snapshot()
 * bytes equal before and after); the same object without the stray key is accepted.
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

type Call = (anim: AnimationPlugin, eid: number, extra: object) => void

/** Each call with the stray key merged into one of its option objects; `true`: the character ragdolls first. */
const calls: [string, Call, boolean?][] = [
  ['play', (a, e, x) => a.play(e, 'Wave', { layer: 1, ...x })],
  ['crossFade', (a, e, x) => a.crossFade(e, 'Running', 0.3, { loop: 'repeat', ...x })],
  ['setLayer', (a, e, x) => a.setLayer(e, 1, { weight: 0.5, ...x })],
  [
    'setLayer reference',
    (a, e, x) => a.setLayer(e, 2, { mode: 'additive', reference: { clip: 'Idle', ...x } }),
  ],
  ['playBlendSpace', (a, e, x) => a.playBlendSpace(e, points, { parameter: 0.5, ...x })],
  [
    'playBlendSpace point',
    (a, e, x) => a.playBlendSpace(e, [{ clip: 'Walking', at: 0, ...x }, points[1]!], { parameter: 0.5 }),
  ],
  ['setBlendParameter', (a, e, x) => a.setBlendParameter(e, 0.3, { layer: 3, ...x })],
  ['setSpeed', (a, e, x) => a.setSpeed(e, 2, { ...x })],
  ['setTime', (a, e, x) => a.setTime(e, 0.1, { ...x })],
  ['pause', (a, e, x) => a.pause(e, { ...x })],
  ['setTransform', (a, e, x) => a.setTransform(e, { position: [1, 0, 0], ...x })],
  ['setLod', (a, _e, x) => a.setLod({ near: 5, far: 10, ...x })],
  ['setRootMotion', (a, e, x) => a.setRootMotion(e, { mode: 'horizontal', ...x })],
  ['ragdoll', (a, e, x) => a.ragdoll(e, { ...x })],
  ['ragdoll impulse', (a, e, x) => a.ragdoll(e, { impulse: { joint: 'Head', impulse: [1, 0, 0], ...x } })],
  ['getUp', (a, e, x) => a.getUp(e, { ...x }), true],
  ['getUp play', (a, e, x) => a.getUp(e, { play: { speed: 1, ...x } }), true],
]

const points = [
  { clip: 'Walking', at: 0 },
  { clip: 'Running', at: 1 },
]

function setup(ragdoll = false): { anim: AnimationPlugin; eid: number } {
  const anim = createAnimationPlugin(createWorld())
  const eid = anim.addCharacter(anim.addAsset(robot))
  anim.play(eid, 'Walking')
  anim.playBlendSpace(eid, points, { layer: 3, parameter: 0.2 })
  anim.step()
  if (ragdoll) {
    anim.ragdoll(eid)
    anim.step()
  }
  return { anim, eid }
}

describe('an unknown option key', () => {
  for (const [name, call, ragdoll] of calls) {
    it(`${name}: refused, naming the key; nothing changes`, () => {
      const { anim, eid } = setup(ragdoll)
      const hash = anim.hash()
      const bytes = anim.snapshot()
      let error: unknown
      try {
        call(anim, eid, { fadeSecond: 0.2 })
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(AnimationError)
      expect((error as AnimationError).kind).toBe('argument')
      expect((error as Error).message).toContain('"fadeSecond"')
      expect(anim.hash()).toBe(hash)
      expect(anim.snapshot()).toEqual(bytes)
      // Without the stray key the same call goes through (the refusal was the key's).
      call(anim, eid, {})
    })
  }

  it('createAnimationPlugin and addCharacter', () => {
    expect(() => createAnimationPlugin(createWorld(), { capcity: 10 } as never)).toThrow(/"capcity"/)
    expect(() => createAnimationPlugin(createWorld(), { physics: { gravty: [0, -9, 0] } } as never)).toThrow(
      /"gravty"/,
    )
    const anim = createAnimationPlugin(createWorld())
    expect(() => anim.addCharacter(robot, { parnt: 1 } as never)).toThrow(/"parnt"/)
  })

  it('keys from a prototype are not the caller’s and are ignored', () => {
    const { anim, eid } = setup()
    const options = Object.create({ inherited: 1 }) as { weight?: number }
    options.weight = 0.25
    anim.setLayer(eid, 1, options)
    expect(anim.getLayer(eid, 1).targetWeight).toBe(0.25)
  })
})
