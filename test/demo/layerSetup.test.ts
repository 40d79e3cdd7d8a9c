/**
 * demo/layerSetup.ts: the Layers panel's set-up made from a file's clip names and skeleton, for the files the
 * demo has no set-up for: a Mixamo-style export gets an idle ↔ walk ↔ run blend space and its emotes; the Fox
 * a walk ↔ run one; a file without a skin or locomotion clips, states only.
 */
import { describe, expect, it } from 'vitest'
import { layerDemoFor } from '../../demo/layerSetup.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { readAsset } from '../../src/gltf/read.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createBenchRig } from '../../scripts/bench/rig.ts'
import { mixamoStyleGlb } from '../helpers/mixamoStyle.ts'

describe('layerDemoFor', () => {
  it('a Mixamo-style file: idle, walk and run by speed; its gestures as emotes; the spine as the upper body', async () => {
    const asset = await readAsset(mixamoStyleGlb(), 'Robot (Mixamo).glb')
    const names = ['Angry', 'Surprised', 'Sad']
    const setup = layerDemoFor(asset, (node) =>
      asset.nodes[node]!.name === 'mixamorig:Head' ? names : null,
    )!
    expect(setup.blend).toEqual(['Breathing Idle', 'Walking', 'Running'])
    expect(setup.emotes).toEqual(['Shaking Head No', 'Punching', 'Thumbs Up', 'Waving', 'Head Nod Yes'])
    // Everything else is a state of the base layer; "Running Jump" is no run.
    expect(setup.states).toEqual([
      'Hip Hop Dancing',
      'Dying',
      'Breathing Idle',
      'Jump',
      'Running',
      'Sitting',
      'Standing Up',
      'Walking',
      'Running Jump',
    ])
    expect(setup.upperBody).toEqual(['mixamorig:Abdomen'])
    expect(setup.face).toEqual({ node: 'mixamorig:Head', targets: names })
    expect(setup.additive).toBeNull()
  })

  it('the Fox: walk and run (Survey is neither), no emotes, its spine; no face', async () => {
    const setup = layerDemoFor(await loadAsset('assets/Fox/glTF-Binary/Fox.glb'))!
    expect(setup).toEqual({
      states: ['Survey', 'Walk', 'Run'],
      emotes: [],
      upperBody: ['b_Spine01_02'],
      additive: null,
      blend: ['Walk', 'Run'],
      face: null,
    })
  })

  it('numbers morph targets the renderer has no names for', async () => {
    const robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
    expect(layerDemoFor(robot)!.face).toEqual({ node: 'Head', targets: ['target 0', 'target 1', 'target 2'] })
  })

  it('without a joint named like a spine, the biggest branch of the hips is the upper body', () => {
    const rig = createBenchRig({ joints: 67 })
    const renamed: AnimationAsset = {
      ...rig,
      nodes: rig.nodes.map((n) => ({ ...n, name: /spine|chest/.test(n.name) ? `j${n.index}` : n.name })),
    }
    // hips' children: spine (the rest of the body above), and the two legs.
    expect(layerDemoFor(renamed)!.upperBody).toEqual([renamed.nodes[rig.nodes[0]!.children[0]!]!.name])
    expect(layerDemoFor(rig)!.upperBody).toEqual(['spine'])
    expect(layerDemoFor(rig)!.blend).toEqual(['Idle', 'Walk', 'Run'])
  })

  it('a file without a skin or locomotion clips: its clips as states, no mask, no blend space', async () => {
    const box = await loadAsset('assets/BoxAnimated/glTF-Binary/BoxAnimated.glb')
    expect(layerDemoFor(box)).toEqual({
      states: ['animation0'],
      emotes: [],
      upperBody: [],
      additive: null,
      blend: null,
      face: null,
    })
    expect(layerDemoFor({ ...box, clips: [] })).toBeNull()
  })
})
