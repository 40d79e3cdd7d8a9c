/**
 * The whole pipeline on a real asset against an independent implementation: Fox.glb through loadAsset and the
 * plugin (advanceTracks, sampleTracks, blendPoses, propagateTransforms) versus three.js's GLTFLoader,
 * AnimationMixer (crossFadeTo, linear fade, no warp) and updateMatrixWorld.
 *
 * Conventions matched:
 * - Our first step after play/crossFade samples the incoming clip at its start time and advances from the next
 *   step; three advances an action before sampling it. So the first step of a clip is `mixer.update(0)` for a
 *   new mixer, and `startAt(mixer.time + dt)` for an action started mid-run (its first update then advances it
 *   by 0).
 * - Our blend after k steps is k·dt/D; three's fade weight is (mixer.time − fade start)/D, the same after k
 *   updates of dt (up to the float32 of three's weight interpolant times).
 * - Joint world matrices are compared relative to the character root; the character entity is an identity
 *   root and so is gltf.scene.
 */
import { type AnimationAction } from 'three'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadThreeScene } from '../helpers/threeScene.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const DT = 1 / 60

let asset: AnimationAsset
beforeAll(async () => {
  asset = await loadAsset(FOX)
})

describe('the whole pipeline on Fox vs three.js AnimationMixer', () => {
  it('agrees to 1e-4 on every joint world matrix across a Walk→Run cross-fade, with a second character', async () => {
    const world = createWorld()
    const plugin = createAnimationPlugin(world, { capacity: 256, physics: { ground: false } })
    const handle = plugin.addAsset(asset)
    const fox = plugin.addCharacter(handle)
    const other = plugin.addCharacter(handle)
    const threeA = await loadThreeScene(FOX)
    const threeB = await loadThreeScene(FOX)
    expect(threeA.nodes.length).toBe(asset.nodes.length)

    // Character A: Walk, then after step 20 a 0.25 s (15-step) cross-fade to Run.
    plugin.play(fox, 'Walk')
    const walk = threeA.mixer.clipAction(threeA.clip('Walk'))
    walk.play()
    // Character B: Survey from 1.0 s at half speed, then Run backwards after step 35 (a cut).
    plugin.play(other, 'Survey', { time: 1, speed: 0.5 })
    const survey = threeB.mixer.clipAction(threeB.clip('Survey'))
    survey.time = 1
    survey.timeScale = 0.5
    survey.play()

    let run: AnimationAction | null = null
    let worst = 0
    let worstWhere = ''
    const FADE_AT = 20
    const CUT_AT = 35
    for (let k = 1; k <= 70; k++) {
      plugin.step()
      const update = k === 1 ? 0 : DT
      threeA.mixer.update(update)
      threeB.mixer.update(update)
      threeA.scene.updateMatrixWorld(true)
      threeB.scene.updateMatrixWorld(true)
      for (const [e, three] of [
        [fox, threeA],
        [other, threeB],
      ] as const) {
        for (let i = 0; i < asset.nodes.length; i++) {
          const ours = plugin.stores.SceneNode.world.subarray(plugin.jointEntity(e, i) * 16).subarray(0, 16)
          const theirs = three.nodes[i]!.matrixWorld.elements
          for (let c = 0; c < 16; c++) {
            const d = Math.abs(ours[c]! - theirs[c]!)
            if (d > worst) {
              worst = d
              worstWhere = `step ${k}, ${e === fox ? 'fox' : 'other'} node ${i} (${asset.nodes[i]!.name}) [${c}]`
            }
          }
        }
      }
      if (k === FADE_AT) {
        plugin.crossFade(fox, 'Run', 0.25)
        run = threeA.mixer.clipAction(threeA.clip('Run'))
        run.startAt(threeA.mixer.time + DT)
        run.play()
        walk.crossFadeTo(run, 0.25, false)
      }
      if (k > FADE_AT && k < FADE_AT + 15) {
        // Both sides are mid-fade with the same weight.
        expect(plugin.stores.CrossFade.blend[fox]).toBeCloseTo(run!.getEffectiveWeight(), 6)
      }
      if (k === CUT_AT) {
        plugin.play(other, 'Run', { speed: -1, time: 0.5 })
        survey.stop()
        const back = threeB.mixer.clipAction(threeB.clip('Run'))
        back.time = 0.5
        back.timeScale = -1
        back.startAt(threeB.mixer.time + DT)
        back.play()
      }
    }
    expect(plugin.stores.CrossFade.active[fox]).toBe(0)
    expect(walk.isRunning()).toBe(false)
    expect(worst, `worst difference at ${worstWhere}`).toBeLessThan(1e-4)
  })
})
