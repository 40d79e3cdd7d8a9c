/**
 * clipFromThree (adapters/threeClips.ts): three's AnimationClips as clips of an asset, against three's
 * AnimationMixer playing the same clip on the same skeleton (GLTFLoader's scene of the same file): every
 * node's world matrix to 1e-4 on every shipped rig, through the sampler (helpers/worlds.ts) and, on the Fox and
 * RobotExpressive, through the plugin (addClip, play, step). Also a clip built in code (linear, discrete and
 * morph tracks), a name map, and the refusals. Rotation keys three slerps are normalized first, as the loader
 * normalizes them (test/oracle/threeOracle.ts says why).
 */
import { readFile } from 'node:fs/promises'
import { createWorld } from 'bitecs'
import {
  AnimationClip,
  AnimationMixer,
  InterpolateDiscrete,
  InterpolateSmooth,
  LoopOnce,
  NumberKeyframeTrack,
  QuaternionKeyframeTrack,
  VectorKeyframeTrack,
} from 'three'
import { describe, expect, it } from 'vitest'
import { clipFromThree } from '../../adapters/three.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import type { Clip } from '../../src/clip/clip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { gltfNodes, parseGltf } from '../helpers/threeScene.ts'
import { clipPose } from '../helpers/worlds.ts'
import { normalizeRotationKeys, packGltfAsGlb } from '../oracle/threeOracle.ts'

const TOLERANCE = 1e-4
const TIMES = 9

const RIGS = [
  'assets/Fox/glTF-Binary/Fox.glb',
  'assets/RobotExpressive/RobotExpressive.glb',
  'assets/RiggedSimple/glTF-Binary/RiggedSimple.glb',
  'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb',
  'assets/SimpleSkin/glTF/SimpleSkin.gltf',
  'assets/InterpolationTest/glTF-Binary/InterpolationTest.glb',
  'assets/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb',
]

async function threeOf(file: string) {
  const bytes = file.endsWith('.glb') ? await readFile(file) : await packGltfAsGlb(file)
  const gltf = await parseGltf(new Uint8Array(bytes))
  for (const clip of gltf.animations) normalizeRotationKeys(clip)
  return { gltf, nodes: await gltfNodes(gltf), mixer: new AnimationMixer(gltf.scene) }
}

/** Sets three's mixer to `clip` at `time` (LoopOnce, clamped) and updates the world matrices. */
function pose(three: Awaited<ReturnType<typeof threeOf>>, clip: AnimationClip, time: number): void {
  three.mixer.stopAllAction()
  const action = three.mixer.clipAction(clip).setLoop(LoopOnce, 1)
  action.clampWhenFinished = true
  action.play()
  three.mixer.update(time)
  three.gltf.scene.updateMatrixWorld(true)
}

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!))
  return m
}

/** Largest world matrix difference over every node and TIMES times of the clip's duration. */
function worstAgainstMixer(
  asset: AnimationAsset,
  ours: Clip,
  three: Awaited<ReturnType<typeof threeOf>>,
  theirs: AnimationClip,
) {
  let worst = 0
  for (let k = 0; k < TIMES; k++) {
    const time = (ours.duration * k) / (TIMES - 1)
    pose(three, theirs, time)
    const worlds = clipPose(asset, ours, time).worlds
    three.nodes.forEach((object, i) => {
      worst = Math.max(
        worst,
        maxDifference(worlds.subarray(16 * i, 16 * i + 16), object.matrixWorld.elements),
      )
    })
  }
  return worst
}

describe("clipFromThree agrees with three's mixer on the same skeleton", () => {
  it.each(RIGS)('%s: every clip GLTFLoader made', async (file) => {
    const asset = await loadAsset(file)
    const three = await threeOf(file)
    // GLTFLoader names a track of an unnamed node by its object's uuid: map those to the asset's names.
    const map: Record<string, string> = {}
    three.nodes.forEach((object, i) => (map[object.uuid] = asset.nodes[i]!.name))
    for (const theirs of three.gltf.animations) {
      const ours = clipFromThree(theirs, asset, { map })
      expect(ours.channels.length).toBeGreaterThan(0)
      expect(worstAgainstMixer(asset, ours, three, theirs), theirs.name).toBeLessThanOrEqual(TOLERANCE)
    }
  })

  it.each(['assets/Fox/glTF-Binary/Fox.glb', 'assets/RobotExpressive/RobotExpressive.glb'])(
    '%s: through the plugin (addClip, play, step)',
    async (file) => {
      const asset = await loadAsset(file)
      const three = await threeOf(file)
      const anim = createAnimationPlugin(createWorld(), { capacity: 4096 })
      const character = anim.addCharacter(asset)
      anim.addCharacter(asset)
      for (const theirs of three.gltf.animations.slice(0, 3)) {
        const copy = theirs.clone()
        copy.name = `${theirs.name} (three)`
        const id = anim.addClip(asset, clipFromThree(copy, asset))
        for (const time of [0, 0.3, 0.71]) {
          anim.play(character, id, { time, speed: 0, loop: 'once' })
          anim.step()
          pose(three, theirs, time)
          let worst = 0
          three.nodes.forEach((object, i) => {
            const e = anim.jointEntity(character, i)
            const ours = anim.stores.SceneNode.world.subarray(16 * e, 16 * e + 16)
            worst = Math.max(worst, maxDifference(ours, object.matrixWorld.elements))
          })
          expect(worst, `${copy.name} at ${time}`).toBeLessThanOrEqual(TOLERANCE)
        }
      }
    },
  )

  it('a clip built in code: linear, discrete and morph tracks, on RobotExpressive', async () => {
    const file = 'assets/RobotExpressive/RobotExpressive.glb'
    const asset = await loadAsset(file)
    const three = await threeOf(file)
    const s = Math.SQRT1_2
    const theirs = new AnimationClip('Nod', -1, [
      new QuaternionKeyframeTrack('Head.quaternion', [0, 0.5, 1], [0, 0, 0, 1, s, 0, 0, s, 0, s, 0, s]),
      new VectorKeyframeTrack('Body.position', [0, 1], [0, 0, 0, 0.1, 0.3, -0.2]),
      new NumberKeyframeTrack(
        'Head_2.morphTargetInfluences',
        [0, 0.4, 0.8],
        [0, 0, 0, 1, 0, 0.5, 0, 1, 0],
        InterpolateDiscrete,
      ),
    ])
    const ours = clipFromThree(theirs, asset)
    expect(ours.channels.map((ch) => [ch.nodeName, ch.path, ch.interpolation])).toEqual([
      ['Head', 'rotation', 'LINEAR'],
      ['Body', 'translation', 'LINEAR'],
      ['Head', 'weights', 'STEP'],
    ])
    expect(ours.channels[2]!.node).toBe(13) // the mesh node "Head", not joint 12 "Head"
    expect(worstAgainstMixer(asset, ours, three, theirs)).toBeLessThanOrEqual(TOLERANCE)
    // Morph weights, against three's influences on the primitive the track named.
    for (const time of [0.2, 0.5, 0.9]) {
      pose(three, theirs, time)
      const head = three.gltf.scene.getObjectByName('Head_2') as unknown as {
        morphTargetInfluences: number[]
      }
      expect(clipPose(asset, ours, time).weights.get(13)).toEqual(head.morphTargetInfluences)
    }
  })

  it('maps track names to the rig with `map`', async () => {
    const asset = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const three = await threeOf('assets/Fox/glTF-Binary/Fox.glb')
    const renamed = three.gltf.animations[1]!.clone()
    const map: Record<string, string> = {}
    for (const track of renamed.tracks) {
      const [node, property] = track.name.split('.')
      map[`mocap_${node}`] = node!
      track.name = `mocap_${node}.${property}`
    }
    expect(() => clipFromThree(renamed, asset)).toThrow(/none of its 21 tracks/)
    const mapped = clipFromThree(renamed, asset, { map })
    const plain = clipFromThree(three.gltf.animations[1]!, asset)
    expect(mapped.channels.map((ch) => [ch.node, ch.path, ch.values])).toEqual(
      plain.channels.map((ch) => [ch.node, ch.path, ch.values]),
    )
  })
})

describe('clipFromThree refuses', () => {
  const refusal = (call: () => unknown): string => {
    try {
      call()
    } catch (error) {
      expect(error).toBeInstanceOf(AnimationError)
      return (error as AnimationError).message
    }
    throw new Error('did not throw')
  }

  it('a clip none of whose tracks names a node of the asset', async () => {
    const asset = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const clip = new AnimationClip('Wave', -1, [new VectorKeyframeTrack('Hand.position', [0], [0, 0, 0])])
    expect(refusal(() => clipFromThree(clip, asset))).toBe(
      'clipFromThree("Wave", assets/Fox/glTF-Binary/Fox.glb): none of its 1 tracks ("Hand.position") animates a ' +
        'node of assets/Fox/glTF-Binary/Fox.glb by name (map names that differ with options.map)',
    )
  })

  it('smooth interpolation, and keys buildClip refuses', async () => {
    const asset = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const smooth = new AnimationClip('S', -1, [
      new VectorKeyframeTrack('b_Head_05.position', [0, 1], [0, 0, 0, 1, 1, 1], InterpolateSmooth),
    ])
    expect(refusal(() => clipFromThree(smooth, asset))).toContain('InterpolateSmooth) has no glTF equivalent')
    const backwards = new AnimationClip('B', -1, [
      new VectorKeyframeTrack('b_Head_05.position', [1, 0], [0, 0, 0, 1, 1, 1]),
    ])
    expect(refusal(() => clipFromThree(backwards, asset))).toMatch(
      /^clipFromThree\("B", .*key 1 time 0 is not after key 0/,
    )
    expect(refusal(() => clipFromThree(null as never, asset))).toContain('is not a THREE.AnimationClip')
  })

  it('a track of an Object3D property it does not animate is left out', async () => {
    const asset = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
    const clip = new AnimationClip('V', -1, [
      new NumberKeyframeTrack('b_Head_05.visible', [0], [1]),
      new VectorKeyframeTrack('b_Head_05.scale', [0], [2, 2, 2]),
    ])
    expect(clipFromThree(clip, asset).channels.map((ch) => ch.path)).toEqual(['scale'])
  })
})
