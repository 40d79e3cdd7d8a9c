/**
 * Layers against three.js's AnimationMixer on RobotExpressive, world matrix by world matrix (relative to the
 * character root, as test/entry/fox.test.ts does):
 *
 * - additive: our additive layer (default reference: the clip's own pose at time 0) against
 *   `AnimationUtils.makeClipAdditive` + `AdditiveAnimationBlendMode` at the same weight, over a base clip;
 * - masked override: our override layer masked to a subtree at weight w against three playing the base clip's
 *   tracks filtered to outside the mask at weight 1, its tracks inside the mask at 1 − w and the layer clip's
 *   tracks filtered to the mask at w (three's mixer normalizes by accumulated weight, so this split is what
 *   "slerp from the result below toward the layer by w" is in three's terms).
 *
 * Conventions as in fox.test.ts: our first step after play shows the start time (three: `update(0)`).
 */
import {
  AdditiveAnimationBlendMode,
  AnimationClip,
  AnimationUtils,
  PropertyBinding,
  type Object3D,
} from 'three'
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadThreeScene, type ThreeScene } from '../helpers/threeScene.ts'
import { poseDistanceFromBase } from '../helpers/layers.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'
const DT = 1 / 60

/** The clip's tracks whose target node is (`inside`) or is not in `nodes`. */
function filterClip(
  three: ThreeScene,
  clip: AnimationClip,
  nodes: Set<Object3D>,
  inside: boolean,
): AnimationClip {
  const tracks = clip.tracks.filter((t) => {
    const target = PropertyBinding.findNode(three.scene, PropertyBinding.parseTrackName(t.name).nodeName)
    return nodes.has(target as Object3D) === inside
  })
  return new AnimationClip(`${clip.name}-${inside ? 'in' : 'out'}`, clip.duration, tracks)
}

/** The worst world-matrix difference over every node of character `eid` against three's nodes. */
function worstDifference(
  plugin: AnimationPlugin,
  eid: number,
  asset: AnimationAsset,
  three: ThreeScene,
): number {
  let worst = 0
  for (let i = 0; i < asset.nodes.length; i++) {
    const ours = plugin.stores.SceneNode.world.subarray(plugin.jointEntity(eid, i) * 16).subarray(0, 16)
    const theirs = three.nodes[i]!.matrixWorld.elements
    for (let c = 0; c < 16; c++) worst = Math.max(worst, Math.abs(ours[c]! - theirs[c]!))
  }
  return worst
}

let asset: AnimationAsset
beforeAll(async () => {
  asset = await loadAsset(ROBOT)
})

describe('layers vs three.js AnimationMixer on RobotExpressive', () => {
  for (const weight of [1, 0.6]) {
    it(`an additive layer at weight ${weight} over a base clip agrees to 2e-4 in every world matrix`, async () => {
      const plugin = createAnimationPlugin(createWorld(), { physics: { ground: false } })
      const eid = plugin.addCharacter(asset)
      plugin.play(eid, 'Idle')
      plugin.setLayer(eid, 1, { mode: 'additive', weight })
      plugin.play(eid, 'Yes', { layer: 1 })

      const three = await loadThreeScene(ROBOT)
      three.mixer.clipAction(three.clip('Idle')).play()
      const additive = AnimationUtils.makeClipAdditive(three.clip('Yes').clone())
      const action = three.mixer.clipAction(additive)
      action.blendMode = AdditiveAnimationBlendMode
      action.setEffectiveWeight(weight)
      action.play()

      let worst = 0
      let moved = 0
      for (let k = 1; k <= 90; k++) {
        plugin.step()
        three.mixer.update(k === 1 ? 0 : DT)
        three.scene.updateMatrixWorld(true)
        worst = Math.max(worst, worstDifference(plugin, eid, asset, three))
        if (k === 45) moved = poseDistanceFromBase(plugin, eid)
      }
      expect(moved, 'the additive layer moves the pose').toBeGreaterThan(1e-3)
      expect(worst).toBeLessThan(2e-4)
    })
  }

  for (const weight of [1, 0.6]) {
    it(`an upper-body masked override at weight ${weight} agrees to 2e-4 with three's filtered tracks`, async () => {
      const plugin = createAnimationPlugin(createWorld(), { physics: { ground: false } })
      const eid = plugin.addCharacter(asset)
      plugin.play(eid, 'Walking')
      plugin.setLayer(eid, 1, { mask: ['Abdomen'], weight })
      plugin.play(eid, 'Wave', { layer: 1 })

      const three = await loadThreeScene(ROBOT)
      const maskRoot = three.nodes[maskNode(plugin, eid, 'Abdomen')]!
      const inside = new Set<Object3D>()
      maskRoot.traverse((o) => void inside.add(o))
      const walk = three.clip('Walking')
      const wave = three.clip('Wave')
      three.mixer.clipAction(filterClip(three, walk, inside, false)).play()
      const walkIn = three.mixer.clipAction(filterClip(three, walk, inside, true))
      walkIn.setEffectiveWeight(1 - weight)
      walkIn.play()
      const waveIn = three.mixer.clipAction(filterClip(three, wave, inside, true))
      waveIn.setEffectiveWeight(weight)
      waveIn.play()

      let worst = 0
      for (let k = 1; k <= 90; k++) {
        plugin.step()
        three.mixer.update(k === 1 ? 0 : DT)
        three.scene.updateMatrixWorld(true)
        worst = Math.max(worst, worstDifference(plugin, eid, asset, three))
      }
      expect(inside.size).toBeGreaterThan(10)
      expect(worst).toBeLessThan(2e-4)
    })
  }
})

/** glTF node index of a character's joint, by name (the plugin's lookup, which prefers skin joints). */
function maskNode(plugin: AnimationPlugin, eid: number, name: string): number {
  const entity = plugin.jointEntity(eid, name)
  const j = Array.from(plugin.joints(eid)).indexOf(entity)
  return contextOf(plugin).assets[0]!.jointNodes[j]!
}
