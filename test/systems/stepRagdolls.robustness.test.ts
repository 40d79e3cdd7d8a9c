/**
 * stepRagdolls: the same steps give the same bits in fresh worlds; ragdolls that come
 * and go leave cannon-es as it was; bad calls are refused and change nothing; a ragdoll that explodes is caught
 * (and a fast fall is not taken for one).
 * Setup and the independent side: test/helpers/stepRagdolls.ts.
 */
import { addEntity } from 'bitecs'
import type { Body } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { HUMANOID_RAGDOLL } from '../helpers/humanoid.ts'
import { problems } from '../helpers/ecs.ts'
import {
  fox,
  loadFox,
  humanoid,
  newPlugin,
  addWalker,
  run,
  ragdollOf,
  hasNaN,
  fullHash,
} from '../helpers/stepRagdolls.ts'

beforeAll(loadFox)

describe('stepRagdolls: determinism', () => {
  function scenario(hitX: number): string {
    const p = newPlugin()
    const a = addWalker(p, fox)
    const b = addWalker(p, humanoid, [3, 0, 0])
    run(p, 600, (s) => {
      if (s === 99) p.ragdoll(a, { impulse: { joint: 'b_Spine02_03', impulse: [hitX, 0, 1] } })
      if (s === 249) p.ragdoll(b, { rate: 3 })
      if (s === 399) p.getUp(a, { clip: 'Survey' })
    })
    return fullHash(p)
  }

  it('gives the same hash over 600 steps in fresh worlds, with two characters going ragdoll at different steps', () => {
    const first = scenario(4)
    expect(scenario(4)).toBe(first)
    // The hash sees the physics: a hit 1e-9 N·s harder changes it.
    expect(scenario(4 + 1e-9)).not.toBe(first)
  })
})

describe('stepRagdolls: no leaks', () => {
  it('adding and removing 100 ragdolls (removeCharacter, and getUp to the end) leaves cannon-es as it was', () => {
    const p = newPlugin()
    const keep = addWalker(p, humanoid, [5, 0, 0])
    run(p, 5)
    p.ragdoll(keep)
    run(p, 2)
    const physics = p.physics
    const broadphase = physics.broadphase as unknown as { axisList: Body[] }
    const counts = () => ({
      bodies: physics.bodies.length,
      constraints: physics.constraints.length,
      byId: Object.keys((physics as unknown as { idToBodyMap: object }).idToBodyMap).length,
      sweep: broadphase.axisList.length,
      pose: contextOf(p).pool.used,
    })
    const start = counts()
    expect(start.bodies).toBeGreaterThan(1)
    for (let i = 0; i < 100; i++) {
      const c = addWalker(p, i % 10 === 0 ? fox : humanoid, [0, 0, 2 * (i % 3)])
      run(p, 3)
      p.ragdoll(c, { impulse: { joint: i % 10 === 0 ? 'b_Hip_01' : 'pelvis', impulse: [1, 0, 0] } })
      run(p, 3)
      expect(physics.bodies.length).toBeGreaterThan(start.bodies)
      if (i % 2 === 0) p.removeCharacter(c)
      else {
        p.getUp(c, { rate: 30 })
        for (let s = 0; s < 10 && p.stores.Ragdoll.active[c] !== RAGDOLL_OFF; s++) p.step()
        expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_OFF)
        p.removeCharacter(c)
      }
      expect(counts()).toEqual(start)
    }
    run(p, 2)
    expect(counts()).toEqual(start)
    for (const contact of physics.contacts) {
      expect(physics.bodies).toContain(contact.bi)
      expect(physics.bodies).toContain(contact.bj)
    }
    expect(p.stores.Ragdoll.active[keep]).toBe(RAGDOLL_FALLING)
  })
})

describe('stepRagdolls: bad input', () => {
  const bad = (over: Record<string, unknown>) => ({
    description: { bodies: [{ ...HUMANOID_RAGDOLL.bodies[0]!, ...over }] } as typeof HUMANOID_RAGDOLL,
  })
  const cases: [string, () => Parameters<AnimationPlugin['ragdoll']>[1], string][] = [
    [
      'a joint the skeleton lacks',
      () => bad({ joint: 'tail' }),
      'generated-humanoid: ragdoll body 0 ("tail"): the skeleton has no joint "tail"',
    ],
    [
      'mass 0',
      () => bad({ mass: 0 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): mass 0 must be a finite number > 0',
    ],
    [
      'a negative radius',
      () => bad({ radius: -0.1 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): radius -0.1 must be a finite number > 0',
    ],
    [
      'length 0',
      () => bad({ length: 0 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): length 0 must be a finite number > 0',
    ],
    [
      'a cone limit of 4 rad',
      () => bad({ coneAngle: 4 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): coneAngle 4 rad must be in (0, π]',
    ],
    [
      'a negative twist limit',
      () => bad({ twistAngle: -1 }),
      'generated-humanoid: ragdoll body 0 ("pelvis"): twistAngle -1 rad must be in [0, π]',
    ],
    ['rate 0', () => ({ rate: 0 }), 'ragdoll(CHAR): rate 0 per second must be a finite number > 0'],
    [
      'an infinite rate',
      () => ({ rate: Infinity }),
      'ragdoll(CHAR): rate Infinity per second must be a finite number > 0',
    ],
    [
      'a hit at a missing joint',
      () => ({ impulse: { joint: 'tail', impulse: [1, 0, 0] } }),
      'ragdoll(CHAR): generated-humanoid has no scene node "tail"',
    ],
    [
      'a NaN hit',
      () => ({ impulse: { joint: 'chest', impulse: [NaN, 0, 0] } }),
      'ragdoll(CHAR): impulse [NaN,0,0] must be three finite numbers',
    ],
  ]

  /** A plugin with two humanoids, one of them already ragdolling; and its twin that never sees a bad call. */
  function pair(): [AnimationPlugin, AnimationPlugin] {
    const make = () => {
      const p = newPlugin()
      addWalker(p, humanoid)
      const b = addWalker(p, humanoid, [3, 0, 0])
      run(p, 10)
      p.ragdoll(b)
      run(p, 5)
      return p
    }
    return [make(), make()]
  }

  it('rejects each bad ragdoll() with an AnimationError naming it, and a failed call changes nothing', () => {
    const [p, twin] = pair()
    const [a, b] = [1, p.joints(1).length + 2]
    expect(p.stores.Ragdoll.active[b]).toBe(RAGDOLL_FALLING)
    for (const target of [a, b]) {
      for (const [what, options, message] of cases) {
        const before = fullHash(p)
        let error: unknown
        try {
          p.ragdoll(target, options())
        } catch (e) {
          error = e
        }
        expect(error, what).toBeInstanceOf(AnimationError)
        expect((error as Error).message, what).toBe(message.replace('CHAR', String(target)))
        expect(fullHash(p), what).toBe(before)
      }
    }
    run(p, 30)
    run(twin, 30)
    expect(fullHash(p)).toBe(fullHash(twin))
  })

  it('rejects a ragdoll on an entity without a pose, and applyImpulse / getUp on a character not ragdolling', () => {
    const [p, twin] = pair()
    const joint = p.joints(1)[2]!
    const plain = addEntity(p.world)
    const removed = addWalker(p, humanoid, [6, 0, 0])
    p.removeCharacter(removed)
    const before = fullHash(p)
    for (const e of [joint, plain, removed, 0, -1, 1.5, 1e9]) {
      expect(() => p.ragdoll(e)).toThrow(
        new AnimationError('argument', `ragdoll: entity ${e} is not a character of this plugin`),
      )
    }
    expect(() => p.applyImpulse(1, 'chest', [1, 0, 0])).toThrow(
      new AnimationError('argument', 'applyImpulse(1): character 1 is not ragdolling (call ragdoll() first)'),
    )
    expect(() => p.getUp(1)).toThrow(
      new AnimationError('argument', 'getUp(1): character 1 is not ragdolling'),
    )
    expect(fullHash(p)).toBe(before)
    run(p, 20)
    run(twin, 20)
    expect(p.hash()).toBe(twin.hash())
  })
})

describe('stepRagdolls: explosions', () => {
  const blowUps: [string, (b: Body) => void][] = [
    ['a NaN velocity', (b) => b.velocity.set(NaN, 0, 0)],
    ['a NaN force', (b) => b.force.set(0, NaN, 0)],
    ['a huge velocity', (b) => b.velocity.set(0, 5e3, 0)],
    ['a huge spin', (b) => b.angularVelocity.set(0, 0, 1e4)],
  ]
  for (const [what, blowUp] of blowUps) {
    it(`catches ${what}: one event, the character back on its animated pose, never NaN in the scene graph`, () => {
      const p = newPlugin()
      const doll = addWalker(p, humanoid)
      const twin = addWalker(p, humanoid)
      const other = addWalker(p, humanoid, [4, 0, 0])
      run(p, 10)
      p.ragdoll(doll)
      p.ragdoll(other)
      run(p, 20)
      const { r } = ragdollOf(p, doll)
      blowUp(r.bodies[2]!)
      const atStep = contextOf(p).step
      p.step()
      // A non-finite state is caught before cannon-es steps (plugin.ts), a huge one after: either way, one event.
      expect(problems(p)).toEqual([
        {
          step: atStep,
          character: doll,
          entity: doll,
          kind: 'ragdoll-exploded',
          message: expect.stringMatching(new RegExp(`^character ${doll}: .*; back to animation$`)),
        },
      ])
      expect(p.stores.Ragdoll.active[doll]).toBe(RAGDOLL_OFF)
      expect(p.stores.Ragdoll.weight[doll]).toBe(0)
      for (const b of r.bodies) expect(p.physics.bodies).not.toContain(b)
      const S = p.stores.SceneNode
      const dj = p.joints(doll)
      const tj = p.joints(twin)
      run(p, 30, () => {
        expect(hasNaN(S.world)).toBe(false)
        dj.forEach((e, j) => {
          for (let k = 0; k < 16; k++) expect(S.world[e * 16 + k]).toBe(S.world[tj[j]! * 16 + k])
        })
      })
      expect(problems(p)).toHaveLength(1)
      expect(p.stores.Ragdoll.active[other]).toBe(RAGDOLL_FALLING)
      expect(ragdollOf(p, other).r.bodies.every((b) => p.physics.bodies.includes(b))).toBe(true)
      // The PHYS layer of the exploded ragdoll is never shown again: its weight stays 0.
      expect(p.stores.Ragdoll.weight[doll]).toBe(0)
    })
  }

  it('does not take a fast fall in a centimetre world for an explosion (limit = 20 s of free fall)', () => {
    const p = newPlugin({ physics: { gravity: [0, -982, 0] } })
    const c = p.addCharacter(fox)
    const d = p.addCharacter(fox)
    p.stores.SceneNode.translation[d * 3] = 300
    p.stores.SceneNode.translation[c * 3 + 1] = 150
    p.stores.SceneNode.dirty[c] = 1
    p.stores.SceneNode.dirty[d] = 1
    p.play(c, 'Run')
    p.play(d, 'Run')
    run(p, 20)
    p.ragdoll(c)
    p.ragdoll(d)
    let fastest = 0
    run(p, 120, () => {
      for (const b of ragdollOf(p, c).r.bodies) fastest = Math.max(fastest, b.velocity.length())
    })
    // Dropped from 1.5 m above the ground, bodies pass 5 m/s = 500 cm/s, far over the 200 units/s of a metre world.
    expect(fastest).toBeGreaterThan(500)
    expect(problems(p)).toEqual([])
    expect(p.stores.Ragdoll.active[c]).toBe(RAGDOLL_FALLING)
  })
})
