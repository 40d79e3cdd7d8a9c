/**
 * addClip (plugin/addClip.ts): a built clip joins an added asset's clips, plays by name, and is part of the
 * asset as snapshots see it; every refusal changes nothing.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { buildClip, type Clip } from '../../src/clip/clip.ts'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'

let fox: AnimationAsset
let robot: AnimationAsset
/** A nod of the Fox's head (node 4 is not the head: the node is found by name). */
let nod: Clip

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
  const head = fox.nodes.find((n) => n.name === 'b_Head_05')!
  nod = buildClip({
    name: 'Nod',
    channels: [
      {
        node: head.index,
        nodeName: head.name,
        path: 'rotation',
        times: [0, 0.5],
        values: [...head.rotation, 0.2588, 0, 0, 0.9659],
      },
    ],
  })
})

function setup(): { anim: AnimationPlugin; a: number } {
  const anim = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const a = anim.addCharacter(fox)
  anim.addAsset(robot)
  anim.play(a, 'Walk')
  anim.step()
  return { anim, a }
}

function refused(anim: AnimationPlugin, call: () => unknown): string {
  const before = anim.hash()
  const snapshot = anim.snapshot()
  let error: unknown
  try {
    call()
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(AnimationError)
  expect(anim.hash()).toBe(before)
  expect(anim.snapshot()).toEqual(snapshot)
  return (error as AnimationError).message
}

describe('addClip', () => {
  it("adds the clip after the asset's own, to play by name and by id", () => {
    const { anim, a } = setup()
    const id = anim.addClip(fox, nod)
    expect(anim.addAsset(fox).clips.at(-1)).toBe(id)
    expect(anim.clipId(a, 'Nod')).toBe(id)
    expect(anim.clipId(a, 3)).toBe(id)
    anim.crossFade(a, 'Nod', 0.2)
    anim.step()
    expect(anim.getLayer(a, 0)).toMatchObject({ clip: 'Nod', channels: { bound: 1, total: 1 } })
  })

  it('is part of the asset for snapshots: a plugin without it refuses the snapshot', () => {
    const { anim } = setup()
    anim.addClip(fox, nod)
    const bytes = anim.snapshot()
    const other = setup().anim
    expect(() => other.restore(bytes)).toThrow(/differs from this/)
    other.addClip(fox, nod)
    other.restore(bytes)
    expect(other.hash()).toBe(anim.hash())
  })

  it('refuses, changing nothing, what it cannot take', () => {
    const { anim } = setup()
    anim.addClip(fox, nod)
    const renamed = buildClip({ name: 'Walk', channels: [{ ...rawOf(nod), node: nod.channels[0]!.node }] })
    const elsewhere = buildClip({ name: 'Tail', channels: [{ ...rawOf(nod), node: 2 }] })
    const nowhere = buildClip({ name: 'Far', channels: [{ ...rawOf(nod), nodeName: '', node: 900 }] })
    // Morph weights of a node without morph targets: a channel that binds nothing.
    const unbound = buildClip({
      name: 'Blink',
      channels: [{ node: 0, path: 'weights', times: [0], values: [1], components: 1 }],
    })
    const cases: [() => unknown, string][] = [
      [
        () => anim.addClip(fox, nod),
        'addClip("Nod"): the clip was added to assets/Fox/glTF-Binary/Fox.glb before',
      ],
      [() => anim.addClip(fox, renamed), 'already has a clip named "Walk"'],
      [() => anim.addClip(fox, elsewhere), 'channel 0 targets node 2 "b_Head_05", but node 2 of'],
      [() => anim.addClip(fox, nowhere), 'but assets/Fox/glTF-Binary/Fox.glb has 26 nodes'],
      [() => anim.addClip(fox, { ...nod }), 'is not a clip made by buildClip'],
      [
        () => anim.addClip({ ...fox }, nod),
        'is not an asset or asset handle of this plugin (add the asset first)',
      ],
    ]
    cases.push([
      () => anim.addClip(fox, unbound),
      'clip "Blink" of assets/Fox/glTF-Binary/Fox.glb drives none',
    ])
    for (const [call, message] of cases) expect(refused(anim, call), message).toContain(message)
  })
})

function rawOf(clip: Clip) {
  const ch = clip.channels[0]!
  return { node: ch.node, nodeName: ch.nodeName, path: ch.path, times: ch.times, values: ch.values }
}
