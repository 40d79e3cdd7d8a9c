/**
 * plugin/ functions on a bare context (createContext), without createAnimationPlugin: no systems, no observers.
 */
import { createWorld, entityExists, hasComponent, removeEntity } from 'bitecs'
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createContext } from '../../plugin/options.ts'
import { addAsset } from '../../plugin/assets.ts'
import {
  addCharacter,
  characterIds,
  forgetJoint,
  jointEntity,
  joints,
  releaseCharacter,
} from '../../plugin/characters.ts'
import { crossFade, play } from '../../plugin/playback.ts'
import { AnimationError } from '../../src/errors.ts'
import { HEAD, HIPS, makeTestAsset, PROP, REST, TAIL } from '../helpers/ecs.ts'
import { HANG_MS } from '../helpers/hang.ts'

function setup() {
  const world = createWorld()
  const ctx = createContext(world, { capacity: 64 })
  return { world, ctx, asset: makeTestAsset() }
}

describe('plugin/characters on a bare context', () => {
  it('addCharacter makes a character entity and one SceneNode per rig joint, parents first', () => {
    const { world, ctx, asset } = setup()
    const a = addCharacter(ctx, asset)
    const b = addCharacter(ctx, addAsset(ctx, asset))
    expect(characterIds(ctx)).toEqual([a, b])
    expect(ctx.assets).toHaveLength(1) // the same asset object registers once
    const ja = joints(ctx, a)
    expect(ja).toHaveLength(REST.length)
    const nodes = ctx.sceneGraph.store
    for (const e of ja) expect(hasComponent(world, e, nodes)).toBe(true)
    // Joint 0 (hips) hangs under the character; every joint's parent entity is its parent joint's entity.
    const rig = ctx.assets[0]!
    for (let j = 0; j < ja.length; j++) {
      const pj = rig.jointParents[j]!
      expect(nodes.parent[ja[j]!]).toBe(pj < 0 ? a : ja[pj])
      expect(ctx.jointOwner[ja[j]!]).toBe(a)
    }
    expect(jointEntity(ctx, a, HEAD)).toBe(ja[rig.nodeJoint[HEAD]!])
    expect(jointEntity(ctx, b, 'tail')).toBe(joints(ctx, b)[rig.nodeJoint[TAIL]!])
    // The rest pose is written before any step.
    const prop = jointEntity(ctx, a, PROP)
    expect(Array.from(nodes.translation.subarray(prop * 3, prop * 3 + 3))).toEqual(REST[PROP]!.t)
  })

  it('releaseCharacter frees the joints, the pose slots and the per-character arrays', () => {
    const { world, ctx, asset } = setup()
    const a = addCharacter(ctx, asset)
    const b = addCharacter(ctx, asset)
    play(ctx, a, 0)
    crossFade(ctx, a, 1, 0.5)
    const ja = joints(ctx, a)
    const used = ctx.pool.used
    releaseCharacter(ctx, a)
    expect(ctx.pool.used).toBe(used / 2)
    for (const e of ja) expect(entityExists(world, e)).toBe(false)
    expect(ctx.cursors[a]).toBeUndefined()
    expect(ctx.fadePaths[a]).toBeUndefined()
    expect(ctx.stores.Sampler.clip[a]).toBe(-1)
    expect(ctx.stores.CrossFade.active[a]).toBe(0)
    // The other character is untouched.
    expect(joints(ctx, b)).toHaveLength(REST.length)
  })

  it('a joint the game removed is forgotten: jointEntity then throws instead of naming entity 0', () => {
    const { world, ctx, asset } = setup()
    const a = addCharacter(ctx, asset)
    const tail = jointEntity(ctx, a, TAIL)
    removeEntity(world, tail)
    forgetJoint(ctx, tail)
    expect(() => jointEntity(ctx, a, TAIL)).toThrow(
      `jointEntity(${a}): joint ${TAIL} was removed from the world`,
    )
    expect(jointEntity(ctx, a, HIPS)).toBeGreaterThan(0)
  })

  it('keeps its per-character arrays packed, so the step never looks a character up in a hash table', () => {
    // V8 keeps an array whose elements are written far apart as a dictionary; %HasDictionaryElements needs a flag,
    // so the check runs in a process of its own (test/helpers/packedArrays.ts).
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', 'test/helpers/packedArrays.ts'],
      { encoding: 'utf8', timeout: HANG_MS },
    )
    expect(JSON.parse(out)).toEqual([])
  })

  it('runs out of entity ids cleanly: nothing is left behind', () => {
    const world = createWorld()
    const ctx = createContext(world, { capacity: 4 })
    const asset = makeTestAsset()
    const used = ctx.pool.used
    expect(() => addCharacter(ctx, asset)).toThrow(AnimationError)
    expect(ctx.pool.used).toBe(used)
    expect(characterIds(ctx)).toEqual([])
  })
})
