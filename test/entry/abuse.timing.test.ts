/**
 * Runtime abuse: odd frame times (given to the stepper in a game loop, and as a
 * plugin's fixed step), odd speeds and clip shapes (zero-duration, one-key) and fades between them.
 * The rule, and the setup: test/helpers/abuse.ts.
 */
import { createWorld, getAllEntities } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { createFixedStepper } from '../../src/sim/fixedStep.ts'
import { JOINT_STRIDE } from '../../components/Pose.ts'
import { RAGDOLL_FALLING } from '../../components/Ragdoll.ts'
import { createAnimationPlugin, contextOf } from '../../entry/plugin.ts'
import {
  animLayer,
  createTestPlugin,
  DT,
  expectedLocal,
  expectSameBits,
  expectWorldMatchesThree,
  HEAD,
  HIPS,
  makeTestAsset,
  NOD,
  REST,
  SPINE,
  stepN,
  STILL,
  TURN,
  vecDistance,
  problems,
} from '../helpers/ecs.ts'
import { expectQuatClose, refSlerp } from '../helpers/quat.ts'
import { fox, loadFox, nonFiniteNodes, expectNoLeaks } from '../helpers/abuse.ts'

beforeAll(loadFox)

describe('frame times: the stepper in a game loop', () => {
  it('0 runs nothing, negative/NaN/±∞ are refused before anything runs, 10 s runs the step budget only', () => {
    const { plugin, handle } = createTestPlugin()
    const twin = createTestPlugin()
    const chars = [plugin.addCharacter(handle), plugin.addCharacter(handle)]
    const twins = [twin.plugin.addCharacter(twin.handle), twin.plugin.addCharacter(twin.handle)]
    for (const [p, [a, b]] of [
      [plugin, chars],
      [twin.plugin, twins],
    ] as const) {
      p.play(a!, 'Turn', { speed: -1 })
      p.play(b!, 'Wag', { loop: 'pingpong' })
      p.crossFade(b!, 'Nod', 0.25)
    }
    const stepper = createFixedStepper({ dt: plugin.dt, maxStepsPerFrame: 5 })
    // [frame seconds, steps expected, refused]
    const frames: [number, number, boolean][] = [
      [DT, 1, false],
      [0, 0, false],
      [-DT, 0, true],
      [Number.NaN, 0, true],
      [Infinity, 0, true],
      [-Infinity, 0, true],
      [DT / 2, 0, false],
      [DT / 2, 1, false],
      [10, 5, false],
      [DT, 1, false],
      [-0, 0, false],
      [DT, 1, false],
    ]
    let total = 0
    for (const [seconds, steps, refused] of frames) {
      const alpha = stepper.alpha
      let ran = -1
      try {
        ran = stepper.advance(seconds, () => plugin.step())
      } catch (error) {
        // A game loop that catches and carries on.
        expect(refused, `frame ${seconds} threw`).toBe(true)
        expect(error).toBeInstanceOf(AnimationError)
        expect((error as AnimationError).message).toBe(
          `FixedStepper.advance: frame time ${seconds} s must be a finite number >= 0`,
        )
        expect(stepper.alpha).toBe(alpha)
        ran = 0
      }
      if (!refused) expect(ran, `frame ${seconds}`).toBe(steps)
      expect(stepper.alpha).toBeGreaterThanOrEqual(0)
      expect(stepper.alpha).toBeLessThan(1)
      total += ran
      expect(contextOf(plugin).step).toBe(total)
      expect(stepper.steps).toBe(total)
    }
    // The plugin saw exactly the steps the stepper ran and nothing else: equal to a twin stepped directly.
    stepN(twin.plugin, total)
    expect(plugin.hash()).toBe(twin.plugin.hash())
    expect(nonFiniteNodes(plugin)).toEqual([])
    expect(problems(plugin)).toEqual([])
  })

  it('a plugin refuses a negative or infinite fixed step; a legal but huge one (10 s) keeps everything finite', () => {
    const world = createWorld()
    for (const dt of [-DT, Infinity, -Infinity]) {
      expect(() => createAnimationPlugin(world, { dt })).toThrow(
        `createAnimationPlugin: dt ${dt} s must be a finite number > 0`,
      )
    }
    expect(getAllEntities(world)).toEqual([])
    const huge = createAnimationPlugin(world, { dt: 10, capacity: 1024 })
    const nodes = huge.stores.SceneNode
    const [a, b, c] = [0, 3, 6].map((x) => {
      const e = huge.addCharacter(fox)
      nodes.scale.fill(0.01, e * 3, e * 3 + 3)
      nodes.translation[e * 3] = x
      return e
    }) as [number, number, number]
    huge.play(a, 'Walk', { speed: 3 })
    huge.play(b, 'Run', { loop: 'pingpong', speed: -7 })
    huge.play(c, 'Survey', { loop: 'once' })
    huge.step()
    huge.crossFade(b, 'Walk', 0.5)
    huge.ragdoll(c, { impulse: { joint: 'b_Hip_01', impulse: [0, 50, 0] } })
    for (let k = 0; k < 6; k++) {
      huge.step()
      expect(nonFiniteNodes(huge), `step ${k}`).toEqual([])
      expectNoLeaks(huge)
    }
    // A 0.5 s fade is over after one 10 s step; clip times stay wrapped into their clips.
    expect(huge.stores.CrossFade.active[b]).toBe(0)
    const { Sampler } = huge.stores
    for (const e of [a, b]) {
      const clip = contextOf(huge).clips[Sampler.clip[e]!]!.clip
      expect(Sampler.time[e]).toBeGreaterThanOrEqual(0)
      expect(Sampler.time[e]).toBeLessThan(2 * clip.duration)
    }
    // A body falls 98 m/s faster per 10 s step, but the ground stops it and its joints are projected back
    // together (src/physics/ragdoll.ts): it lies there, finite, and nothing diverged to report.
    expect(huge.stores.Ragdoll.active[c]).toBe(RAGDOLL_FALLING)
    expect(problems(huge)).toEqual([])
  })
})

describe('speeds and clip shapes', () => {
  it('a fade from a clip playing backwards into a paused one follows the closed forms', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const other = plugin.addCharacter(handle)
    plugin.play(a, 'Turn', { speed: -1, time: 0.3 })
    plugin.play(other, 'Wag', { speed: -0.5 })
    stepN(plugin, 3) // Turn at 0.3, 0.3 − dt, 0.3 − 2dt
    plugin.crossFade(a, 'Nod', 0.5, { speed: 0, time: 0.1 })
    for (let k = 1; k <= 40; k++) {
      plugin.step()
      const w = Math.min(1, (k * DT) / 0.5)
      const turnT = (((0.3 - (2 + k) * DT) % 1) + 1) % 1
      const from = expectedLocal(TURN, HIPS, turnT).t
      const to = expectedLocal(NOD, HIPS, 0.1).t
      const pose = animLayer(plugin, a)
      const want = k < 30 ? from.map((x, i) => x + (to[i]! - x) * w) : to
      expect(vecDistance(pose.subarray(0, 3), want), `step ${k}`).toBeLessThan(2e-6)
      const fromR = expectedLocal(TURN, SPINE, turnT).r
      const toR = expectedLocal(NOD, SPINE, 0.1).r
      expectQuatClose(pose, k < 30 ? refSlerp(fromR, toR, w) : toR, 2e-6, SPINE * JOINT_STRIDE + 3)
    }
    expect(plugin.stores.Sampler.time[a]).toBe(0.1)
    // Wag backwards at half speed: 43 steps back from 0, wrapped into [0, 2).
    expect(plugin.stores.Sampler.time[other]).toBeCloseTo(2 - 42 * DT * 0.5, 12)
    expect(nonFiniteNodes(plugin)).toEqual([])
  })

  it('zero-duration and one-key clips play and fade in and out, in every loop mode and speed, without NaN', () => {
    // "Late": one key at 0.4 s (duration 0.4); "Still": one key at 0 (duration 0).
    const late = {
      name: 'Late',
      channels: [
        {
          node: HEAD,
          nodeName: 'head',
          path: 'translation' as const,
          interpolation: 'LINEAR' as const,
          times: [0.4],
          values: [0.25, 0.5, 0.75],
        },
      ],
    }
    const { plugin } = createTestPlugin()
    const handle = plugin.addAsset(makeTestAsset('with-late', [late]))
    const cases = [
      ['Still', 'once', 0],
      ['Still', 'repeat', -2],
      ['Still', 'pingpong', 3],
      ['Late', 'once', -1],
      ['Late', 'repeat', 0],
      ['Late', 'pingpong', 5],
    ] as const
    const chars = cases.map(() => plugin.addCharacter(handle))
    chars.forEach((c) => plugin.play(c, 'Turn', { time: 0.5 }))
    plugin.step()
    cases.forEach(([clip, loop, speed], i) =>
      plugin.crossFade(chars[i]!, clip, 0.1, { loop, speed, time: 0.2 }),
    )
    for (let k = 1; k <= 10; k++) {
      plugin.step()
      for (const c of chars) expect(animLayer(plugin, c).every(Number.isFinite), `step ${k}`).toBe(true)
    }
    // After the fade: the single key's value (or rest where the clip does not reach).
    cases.forEach(([clip], i) => {
      const pose = animLayer(plugin, chars[i]!)
      if (clip === 'Still')
        expectQuatClose(pose, expectedLocal(STILL, SPINE, 0).r, 2e-6, SPINE * JOINT_STRIDE + 3)
      else
        expectSameBits(
          pose.subarray(HEAD * JOINT_STRIDE, HEAD * JOINT_STRIDE + 3),
          new Float32Array([0.25, 0.5, 0.75]),
        )
      expect(Array.from(pose.subarray(0, 3)), 'hips back to rest').toEqual(REST[HIPS]!.t)
      const time = plugin.stores.Sampler.time[chars[i]!]!
      expect(time).toBeGreaterThanOrEqual(0)
      expect(time).toBeLessThanOrEqual(clip === 'Still' ? 0 : 0.8)
    })
    // …and fade out of them again.
    chars.forEach((c) => plugin.crossFade(c, 'Nod', 0.1))
    stepN(plugin, 7)
    for (const c of chars) {
      expect(plugin.stores.CrossFade.active[c]).toBe(0)
      expect(
        vecDistance(animLayer(plugin, c).subarray(0, 3), expectedLocal(NOD, HIPS, 6 * DT).t),
      ).toBeLessThan(2e-6)
    }
    expect(nonFiniteNodes(plugin)).toEqual([])
    expectWorldMatchesThree(plugin)
  })

  it('a cross-fade to the clip a fade is already heading to changes nothing, even with duration 0', () => {
    const { plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    stepN(plugin, 3)
    plugin.crossFade(a, 'Nod', 0.5)
    stepN(plugin, 4)
    const hash = plugin.hash()
    plugin.crossFade(a, 'Nod', 0.1, { speed: -1 })
    plugin.crossFade(a, NOD, 0)
    expect(plugin.hash()).toBe(hash)
    // After the fade, too: a game may ask for the clip its state wants every frame, with a cut.
    stepN(plugin, 30)
    const after = plugin.hash()
    plugin.crossFade(a, 'Nod', 0)
    expect(plugin.hash()).toBe(after)
  })
})
