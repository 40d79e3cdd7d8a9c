/**
 * Runtime abuse: characters and joints removed behind the plugin's back, their ids
 * recycled, and running out of ids and pose slots.
 * The rule, and the setup: test/helpers/abuse.ts.
 */
import { addEntity, entityExists, getAllEntities, removeComponent, removeEntity } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import {
  animLayer,
  createTestPlugin,
  expectSameBits,
  expectWorldMatchesThree,
  HEAD,
  HIPS,
  localOf,
  SPINE,
  stepN,
  problems,
} from '../helpers/ecs.ts'
import { contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { loadFox, nonFiniteNodes, characters, expectNoLeaks, foxPlugin, bodyState } from '../helpers/abuse.ts'

beforeAll(loadFox)

describe('characters removed behind the plugin’s back', () => {
  for (const how of ['removeCharacter', 'removeEntity', 'removeComponent'] as const) {
    it(`${how} mid-fade and mid-ragdoll frees joints, pose slots and bodies; the others carry on`, () => {
      const { world, plugin, add } = foxPlugin()
      const game = addEntity(world)
      const fading = add(0)
      const falling = add(4)
      const walker = add(8)
      plugin.play(fading, 'Walk')
      plugin.play(falling, 'Run')
      plugin.play(walker, 'Walk', { speed: -1 })
      stepN(plugin, 10)
      plugin.crossFade(fading, 'Survey', 1)
      plugin.ragdoll(falling, { impulse: { joint: 'b_Spine02_03', impulse: [0.5, 0, 0] } })
      stepN(plugin, 10)
      expect(plugin.stores.CrossFade.active[fading]).toBe(1)
      expect(plugin.stores.Ragdoll.weight[falling]).toBeGreaterThan(0)
      expect(plugin.physics.bodies.length).toBeGreaterThan(1)
      const goneJoints = [fading, falling].flatMap((c) => Array.from(plugin.joints(c)))

      // The same walker alone in another world, for a bitwise comparison afterwards.
      const twin = foxPlugin()
      const twinWalker = twin.add(8)
      twin.plugin.play(twinWalker, 'Walk', { speed: -1 })
      stepN(twin.plugin, 20)

      for (const c of [fading, falling]) {
        if (how === 'removeCharacter') plugin.removeCharacter(c)
        else if (how === 'removeEntity') removeEntity(world, c)
        else removeComponent(world, c, plugin.stores.Pose)
      }
      expect(characters(plugin)).toEqual([walker])
      expectNoLeaks(plugin, how === 'removeComponent' ? 2 : 0)
      // The entity itself stays only when the game removed just the component; its joints go either way.
      for (const c of [fading, falling]) {
        expect(entityExists(world, c)).toBe(how === 'removeComponent')
        expect(() => plugin.play(c, 'Walk')).toThrow(`play: entity ${c} is not a character of this plugin`)
      }
      for (const j of goneJoints) expect(entityExists(world, j)).toBe(false)
      expect(entityExists(world, game)).toBe(true)
      for (let k = 0; k < 30; k++) {
        plugin.step()
        twin.plugin.step()
        expectSameBits(animLayer(plugin, walker), animLayer(twin.plugin, twinWalker), `walker, step ${k}`)
      }
      expect(nonFiniteNodes(plugin)).toEqual([])
      expect(problems(plugin)).toEqual([])
      expectNoLeaks(plugin, how === 'removeComponent' ? 2 : 0)
    })
  }

  it('recycled ids after removeEntity mid-ragdoll start clean and ragdoll exactly like a fresh character', () => {
    const { world, plugin, add } = foxPlugin()
    const a = add(0)
    const joints = Array.from(plugin.joints(a))
    plugin.play(a, 'Run')
    stepN(plugin, 5)
    plugin.ragdoll(a)
    stepN(plugin, 5)
    const reference = foxPlugin()
    const fresh = reference.add(0)
    removeEntity(world, a)
    expectNoLeaks(plugin)
    const again = add(0)
    // bitecs recycles last-in first-out: the removal order (joints children first, then the character) gives
    // the same ids in the same roles.
    expect(again).toBe(a)
    expect(Array.from(plugin.joints(again))).toEqual(joints)
    expect(fresh).toBe(a)
    // The same entity data as a character made on a never-used id in a fresh world…
    const mine = plugin.stores as unknown as Record<string, Record<string, ArrayLike<number>>>
    const theirs = reference.plugin.stores as unknown as Record<string, Record<string, ArrayLike<number>>>
    for (const store of ['Sampler', 'CrossFade', 'Ragdoll', 'Pose']) {
      for (const [field, column] of Object.entries(mine[store]!)) {
        if (field === 'base') continue // where in the pool differs
        expect(Object.is(column[again], theirs[store]![field]![fresh]), `${store}.${field}`).toBe(true)
      }
    }
    const { Sampler, Ragdoll } = plugin.stores
    expect(contextOf(plugin).ragdolls[again]).toBeUndefined()
    expect(Ragdoll.active[again]).toBe(RAGDOLL_OFF)
    expect(Sampler.clip[again]).toBe(-1)
    // …and the same future, bit for bit.
    for (const p of [plugin, reference.plugin]) {
      p.play(again, 'Walk')
      stepN(p, 5)
      p.ragdoll(again, { impulse: { joint: 'b_Hip_01', impulse: [0, 0, 1] } })
      stepN(p, 20)
    }
    expectSameBits(animLayer(plugin, again), animLayer(reference.plugin, again), 'ANIM')
    expectSameBits(bodyState(plugin, again), bodyState(reference.plugin, again), 'bodies')
    expectNoLeaks(plugin)
  })

  it('a removal between the plugin’s systems, by a game system in its own pipeline, is picked up at once', () => {
    const { world, plugin, add } = foxPlugin()
    const a = add(0)
    const b = add(4)
    plugin.play(a, 'Walk')
    plugin.play(b, 'Survey')
    stepN(plugin, 3)
    plugin.ragdoll(a)
    plugin.crossFade(b, 'Run', 0.5)
    stepN(plugin, 3)
    const [advance, sample, ragdolls, blend, propagate] = plugin.systems
    const pipelines = [
      [advance, sample, () => removeEntity(world, a), ragdolls, blend, propagate],
      [advance, sample, ragdolls, () => removeEntity(world, b), blend, propagate],
    ]
    for (const pipeline of pipelines) for (const system of pipeline) system!(world)
    expect(characters(plugin)).toEqual([])
    expectNoLeaks(plugin)
    stepN(plugin, 2)
    expect(nonFiniteNodes(plugin)).toEqual([])
  })

  it('a joint entity the game removes is no longer written; its recycled id is left alone', () => {
    const { world, plugin, handle } = createTestPlugin()
    const a = plugin.addCharacter(handle)
    const twin = plugin.addCharacter(handle)
    for (const c of [a, twin]) plugin.play(c, 'Nod')
    plugin.step()
    const head = plugin.jointEntity(a, 'head')
    removeEntity(world, head)
    expect(() => plugin.jointEntity(a, 'head')).toThrow(
      `jointEntity(${a}): joint "head" was removed from the world`,
    )
    expect(plugin.joints(a)[HEAD]).toBe(0)
    // The game reuses the id for a node of its own, and moves it.
    const mine = addEntity(world)
    expect(mine).toBe(head)
    addSceneNode(plugin.sceneGraph, mine)
    plugin.stores.SceneNode.translation.set([7, 8, 9], mine * 3)
    stepN(plugin, 10)
    expect(localOf(plugin, mine).t).toEqual([7, 8, 9])
    // The character's other joints animate exactly like its twin's.
    for (const node of [HIPS, SPINE]) {
      expect(localOf(plugin, plugin.joints(a)[node]!)).toEqual(localOf(plugin, plugin.joints(twin)[node]!))
    }
    // Removing the character leaves the game's node alone.
    plugin.removeCharacter(a)
    expect(entityExists(world, mine)).toBe(true)
    expect(localOf(plugin, mine).t).toEqual([7, 8, 9])
    expectNoLeaks(plugin, 1)
    expectWorldMatchesThree(plugin)
  })
})

describe('capacity', () => {
  it('ids and pose slots freed by removeEntity are reused; when exhausted, adding throws and changes nothing', () => {
    // Capacity 13: ids 1..12, two characters of 6 entities; the pool holds exactly two (2 × 25 slots).
    const { world, plugin, handle } = createTestPlugin({ capacity: 13, maxPoseSlots: 50 })
    const a = plugin.addCharacter(handle)
    const b = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    plugin.play(b, 'Wag')
    for (let round = 0; round < 5; round++) {
      const hash = plugin.hash()
      expect(() => plugin.addCharacter(handle)).toThrow(AnimationError)
      expect(plugin.hash()).toBe(hash)
      // The game frees one character its own way; the next one takes its place, in ids and slots.
      const victim = round % 2 === 0 ? a : b
      removeEntity(world, victim)
      const next = plugin.addCharacter(handle)
      expect(next).toBe(victim)
      plugin.play(next, round % 2 === 0 ? 'Turn' : 'Wag')
      stepN(plugin, 3)
      expectNoLeaks(plugin)
    }
    expect(getAllEntities(world).length).toBe(12)
    expectWorldMatchesThree(plugin)
  })
})

describe('a character removed by an argument while the call reads it', () => {
  // Each call reads an options object whose first property read removes its character (the game's getter,
  // through the plugin or through bitecs); the call then stops on the missing character's state.
  const calls: Record<string, (plugin: AnimationPlugin, c: number, o: object) => unknown> = {
    play: (plugin, c, o) => plugin.play(c, 'Nod', o),
    crossFade: (plugin, c, o) => plugin.crossFade(c, 'Nod', 0.5, o),
    setLayer: (plugin, c, o) => plugin.setLayer(c, 1, o),
    setSpeed: (plugin, c, o) => plugin.setSpeed(c, 1, o),
    ragdoll: (plugin, c, o) => plugin.ragdoll(c, o),
    hit: (plugin, c, o) => plugin.hit(c, 'head', [0, 0, 1], o),
    setRagdollMotors: (plugin, c, o) => plugin.setRagdollMotors(c, o),
    playBlendSpace: (plugin, c, o) =>
      plugin.playBlendSpace(
        c,
        [
          { clip: 'Nod', at: 0 },
          { clip: 'Turn', at: 1 },
        ],
        o as { parameter: number },
      ),
  }
  for (const [name, call] of Object.entries(calls)) {
    for (const how of ['removeCharacter', 'removeEntity'] as const) {
      it(`${name}, ${how} in a getter: says the character was removed during the call`, () => {
        const { world, plugin, handle } = createTestPlugin()
        const a = plugin.addCharacter(handle)
        const b = plugin.addCharacter(handle)
        for (const c of [a, b]) plugin.play(c, 'Turn')
        plugin.step()
        let reads = 0
        const remover = new Proxy(
          {},
          {
            get() {
              if (reads++ === 0) {
                if (how === 'removeCharacter') plugin.removeCharacter(a)
                else removeEntity(world, a)
              }
              return undefined
            },
          },
        )
        let thrown: unknown
        try {
          call(plugin, a, remover)
        } catch (error) {
          thrown = error
        }
        expect(reads).toBeGreaterThan(0)
        expect(thrown).toBeInstanceOf(AnimationError)
        expect((thrown as AnimationError).kind).toBe('argument')
        expect((thrown as AnimationError).message).toBe(
          `${name}: character ${a} was removed during the call (by a getter or Proxy of an argument)`,
        )
        expect(characters(plugin)).toEqual([b])
        expectNoLeaks(plugin)
        stepN(plugin, 2)
        expect(problems(plugin)).toEqual([])
      })
    }
  }
})
