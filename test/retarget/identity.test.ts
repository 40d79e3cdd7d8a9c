/**
 * A rig retargeted onto itself with the identity map plays its clips bit for bit (issue 35): two characters
 * of one asset, one playing a clip and one the clip `retarget` made of it, have the same world matrices to the
 * last bit at every step. With translation 'all' on every shipped rig and on generated humanoids; with the
 * default 'hips-scaled' on the rigs whose clips translate only their hips (the hips carry their translation
 * scaled by 1, the others keep rest translations, which these clips do not change).
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createHumanoid } from '../../scripts/humanoid/asset.ts'
import { randomHumanoidOptions } from '../../scripts/humanoid/skeleton.ts'
import type { TranslationMode } from '../../src/retarget/plan.ts'
import { identityMap, pluginWith } from '../helpers/retarget.ts'

const SHIPPED = [
  'Fox/glTF-Binary/Fox.glb',
  'RobotExpressive/RobotExpressive.glb',
  'RiggedFigure/glTF-Binary/RiggedFigure.glb',
  'RiggedSimple/glTF-Binary/RiggedSimple.glb',
  'SimpleSkin/glTF/SimpleSkin.gltf',
  'Mannequin/Mannequin.glb',
]
/** The shipped rigs whose clips translate only one joint, their hips. */
const HIPS_ONLY = ['Fox/glTF-Binary/Fox.glb', 'Mannequin/Mannequin.glb']

const assets = new Map<string, AnimationAsset>()
beforeAll(async () => {
  for (const file of SHIPPED) assets.set(file, await loadAsset(`assets/${file}`))
})

/**
 * Steps two characters of `asset`, one playing each clip and one its retarget onto itself, `steps` steps
 * each; returns how many world-matrix floats differed in their bits (0 expected) and how many were compared.
 */
function compare(
  asset: AnimationAsset,
  translation: TranslationMode,
  steps: number,
): { differ: number; compared: number } {
  const anim = pluginWith(asset)
  const clips = asset.clips.map((c) => c.name)
  const names = anim.retarget(asset, asset, { map: identityMap(asset), prefix: 'self ', translation })
  const world = anim.stores.SceneNode.world
  let differ = 0
  let compared = 0
  clips.forEach((clip, i) => {
    const a = anim.addCharacter(asset)
    const b = anim.addCharacter(asset)
    anim.play(a, clip)
    anim.play(b, names[i]!)
    const ja = anim.joints(a)
    const jb = anim.joints(b)
    for (let s = 0; s < steps; s++) {
      anim.step()
      for (let k = 0; k < ja.length; k++) {
        const x = new Uint32Array(world.buffer, world.byteOffset + ja[k]! * 64, 16)
        const y = new Uint32Array(world.buffer, world.byteOffset + jb[k]! * 64, 16)
        for (let e = 0; e < 16; e++) if (x[e] !== y[e]) differ++
        compared += 16
      }
    }
    anim.removeCharacter(a)
    anim.removeCharacter(b)
  })
  return { differ, compared }
}

describe('a rig retargeted onto itself with the identity map: bit-identical world matrices', () => {
  it.each(SHIPPED)("%s, translation 'all'", (file) => {
    const { differ, compared } = compare(assets.get(file)!, 'all', 90)
    expect(compared).toBeGreaterThan(0)
    expect(differ).toBe(0)
  })

  it.each(HIPS_ONLY)("%s, translation 'hips-scaled'", (file) => {
    expect(compare(assets.get(file)!, 'hips-scaled', 90).differ).toBe(0)
  })

  it('generated humanoids of any naming, proportions, rest pose, axes and units, both modes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.constantFrom<TranslationMode>('all', 'hips-scaled'),
        fc.integer({ min: 1, max: 80 }),
        (seed, mode, steps) => {
          const asset = createHumanoid(randomHumanoidOptions(seed), ['Walk', 'Wave'])
          expect(compare(asset, mode, steps).differ).toBe(0)
        },
      ),
      { numRuns: 12 },
    )
  })
})
