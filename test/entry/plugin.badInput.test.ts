/**
 * createAnimationPlugin (entry/plugin.ts): bad public calls are refused with an AnimationError naming what and
 * where, and change nothing.
 */
import { addEntity, createWorld, getAllEntities, query, removeEntity } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { createAnimationPlugin, type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { createTestPlugin, expectWorldMatchesThree, stepN } from '../helpers/ecs.ts'
import { expectError } from '../helpers/pluginCalls.ts'

describe('bad input', () => {
  /** World state a failed call must leave exactly as it was. */
  function state(plugin: AnimationPlugin) {
    return {
      hash: plugin.hash(),
      entities: getAllEntities(plugin.world).slice(),
      used: contextOf(plugin).pool.used,
      free: contextOf(plugin).pool.free.slice(),
      nodes: query(plugin.world, [plugin.stores.SceneNode]).length,
    }
  }

  it('rejects each bad call with a message naming what, where and the numbers, and changes nothing', () => {
    const { world, plugin, handle } = createTestPlugin()
    const game = addEntity(world)
    const gameNode = addEntity(world)
    addSceneNode(plugin.sceneGraph, gameNode)
    const a = plugin.addCharacter(handle)
    const fading = plugin.addCharacter(handle)
    plugin.play(a, 'Turn')
    plugin.play(fading, 'Nod')
    stepN(plugin, 4)
    plugin.crossFade(fading, 'Wag', 0.5)
    stepN(plugin, 2)
    const joint = plugin.joints(a)[1]!
    const before = state(plugin)
    const names = '"Turn", "Nod", "Wag", "Still"'
    const bad: [() => unknown, AnimationError['kind'], ...string[]][] = [
      [() => plugin.play(a, 'Jump'), 'argument', `play: no clip named "Jump" (synthetic-rig has ${names})`],
      [() => plugin.crossFade(fading, 'Jump', 0.2), 'argument', 'crossFade: no clip named "Jump"'],
      [() => plugin.play(a, 4), 'argument', 'play: clip index 4 is out of range (synthetic-rig has 4 clips)'],
      [() => plugin.play(a, -1), 'argument', 'clip index -1 is out of range'],
      [() => plugin.play(a, 1.5), 'argument', 'clip index 1.5 is out of range'],
      [() => plugin.clipId(a, 9), 'argument', 'clipId: clip index 9 is out of range'],
      [() => plugin.play(game, 'Turn'), 'argument', `play: entity ${game} is not a character of this plugin`],
      [
        () => plugin.play(joint, 'Turn'),
        'argument',
        `play: entity ${joint} is not a character of this plugin`,
      ],
      [() => plugin.play(0, 'Turn'), 'argument', 'entity 0 is not a character'],
      [() => plugin.play(100000, 'Turn'), 'argument', 'entity 100000 is not a character'],
      [() => plugin.play(Number.NaN, 'Turn'), 'argument', 'entity NaN is not a character'],
      [() => plugin.crossFade(game, 'Nod', 0.2), 'argument', `crossFade: entity ${game} is not a character`],
      [() => plugin.removeCharacter(game), 'argument', `removeCharacter: entity ${game} is not a character`],
      [() => plugin.joints(gameNode), 'argument', `joints: entity ${gameNode} is not a character`],
      [
        () => plugin.crossFade(a, 'Nod', -0.5),
        'argument',
        'crossFade(',
        '"Nod", -0.5): duration -0.5 s must be',
      ],
      [
        () => plugin.crossFade(fading, 'Nod', Number.NaN),
        'argument',
        'duration NaN s must be a finite number ≥ 0',
      ],
      [
        () => plugin.crossFade(a, 'Nod', Infinity),
        'argument',
        'duration Infinity s must be a finite number ≥ 0',
      ],
      [
        () => plugin.play(a, 'Nod', { speed: Number.NaN }),
        'argument',
        `play(${a}, "Nod"): speed NaN is not a finite`,
      ],
      [
        () => plugin.play(a, 'Nod', { speed: -Infinity }),
        'argument',
        'speed -Infinity is not a finite number',
      ],
      [() => plugin.crossFade(fading, 'Turn', 0.2, { speed: Infinity }), 'argument', 'speed Infinity is not'],
      [() => plugin.play(a, 'Nod', { time: Infinity }), 'argument', 'time Infinity s is not a finite number'],
      [() => plugin.crossFade(fading, 'Turn', 0.2, { time: Number.NaN }), 'argument', 'time NaN s is not'],
      [() => plugin.crossFade(a, 'Nod', 0, { time: Number.NaN }), 'argument', 'time NaN s is not'],
      [
        () => plugin.play(a, 'Nod', { loop: 'bounce' as 'once' }),
        'argument',
        'loop "bounce" is not one of once, repeat, pingpong',
      ],
      [
        () => plugin.play(a, 'Nod', { rotation: 'nlerp' as 'slerp' }),
        'argument',
        'rotation "nlerp" is not slerp',
      ],
      [
        () => plugin.jointEntity(a, 'wing'),
        'argument',
        `jointEntity(${a}): synthetic-rig has no scene node "wing"`,
      ],
      [() => plugin.jointEntity(a, 5), 'argument', 'has no scene node 5'],
      [() => plugin.jointEntity(a, 1.5), 'argument', 'has no scene node 1.5'],
      [() => plugin.addCharacter(handle, { parent: game }), 'argument', `parent ${game} is not a SceneNode`],
      [() => plugin.addCharacter(handle, { parent: 9999 }), 'argument', 'parent 9999 is not a SceneNode'],
    ]
    for (const [call, kind, ...parts] of bad) {
      expectError(call, kind, ...parts)
      expect(state(plugin)).toEqual(before)
    }
    // Still working: the fade carries on and ends as scheduled (0.5 s = 30 steps, 2 done).
    stepN(plugin, 27)
    expect(plugin.stores.CrossFade.active[fading]).toBe(1)
    plugin.step()
    expect(plugin.stores.CrossFade.active[fading]).toBe(0)
  })

  it('rejects bad plugin options before touching the world', () => {
    const world = createWorld()
    const e = addEntity(world)
    for (const [options, part] of [
      [{ capacity: 1 }, 'capacity 1 must be an integer in [2, 16777216]'],
      [{ capacity: 2.5 }, 'capacity 2.5 must be'],
      [{ dt: 0 }, 'dt 0 s must be a finite number > 0'],
      [{ dt: Number.NaN }, 'dt NaN s must be'],
      [{ maxPoseSlots: 0 }, 'maxPoseSlots 0 must be an integer in [1, 67108864]'],
      [{ maxPoseSlots: Number.NaN }, 'maxPoseSlots NaN must be'],
    ] as const) {
      expectError(() => createAnimationPlugin(world, options), 'argument', `createAnimationPlugin: ${part}`)
    }
    expect(getAllEntities(world)).toEqual([e])
  })

  it('entity capacity exhausted: the message names the capacity, and the world is as it was', () => {
    // capacity 18: ids 1..17. Each character takes 1 + 5 entities and 25 pose slots; with the default pool
    // bound (5 slots per id, 90) the ids run out first.
    const { world, plugin, handle } = createTestPlugin({ capacity: 18 })
    const game = [addEntity(world), addEntity(world)]
    const a = plugin.addCharacter(handle) // 3..8
    const b = plugin.addCharacter(handle) // 9..14
    // A recycled id: the next character would get ids 1, 15, 16, 17, 18; 18 is one too many.
    removeEntity(world, game[0]!)
    plugin.play(a, 'Turn')
    plugin.step()
    const before = state(plugin)
    expectError(
      () => plugin.addCharacter(handle),
      'capacity',
      "addCharacter: entity id 18 is beyond the plugin's capacity 18",
      'a character of synthetic-rig needs 6 entities; raise the capacity option',
    )
    expect(state(plugin)).toEqual(before)
    // The world's entity index is intact: the next plain entity gets the recycled id, as before the call.
    expect(addEntity(world)).toBe(game[0])
    expect(b).toBe(9)
    plugin.step()
    expectWorldMatchesThree(plugin)
  })

  it('pose pool exhausted: the message names the slots, and the world is as it was', () => {
    const { world, plugin, handle } = createTestPlugin({ maxPoseSlots: 60 })
    plugin.addCharacter(handle)
    plugin.addCharacter(handle)
    const before = state(plugin)
    expectError(
      () => plugin.addCharacter(handle),
      'capacity',
      'pose pool exhausted: 25 joint slots needed, 50 of 60 in use',
      'maxPoseSlots',
    )
    expect(state(plugin)).toEqual(before)
    expect(getAllEntities(world).length).toBe(12)
  })
})
