/**
 * Clips of another rig (plugin/clipRig.ts): the calls that start a clip refuse one that drives none of the
 * character's joints or morph weights, naming the clip, its asset and the character's, and change nothing;
 * a clip that binds some of its channels plays, and getLayer says how many bound.
 */
import { Document } from '@gltf-transform/core'
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { assetFromDocument } from '../../src/gltf/read.ts'

let fox: AnimationAsset
let robot: AnimationAsset
let partial: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
  partial = headAndTail()
})

/** An asset of two nodes, "b_Head_05" (a Fox joint's name) and "tail" (none), with a clip "Nod" of both. */
function headAndTail(): AnimationAsset {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const head = doc.createNode('b_Head_05')
  const tail = doc.createNode('tail')
  doc.createScene().addChild(head).addChild(tail)
  const times = doc
    .createAccessor()
    .setType('SCALAR')
    .setArray(new Float32Array([0, 1]))
    .setBuffer(buffer)
  const keys = new Float32Array([0, 0, 0, 1, 0.2588, 0, 0, 0.9659])
  const animation = doc.createAnimation('Nod')
  for (const node of [head, tail]) {
    const values = doc.createAccessor().setType('VEC4').setArray(keys.slice()).setBuffer(buffer)
    const sampler = doc.createAnimationSampler().setInput(times).setOutput(values)
    animation.addSampler(sampler)
    animation.addChannel(
      doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler),
    )
  }
  return assetFromDocument(doc, 'nod.gltf')
}

function setup(): { anim: AnimationPlugin; a: number; b: number } {
  const anim = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const a = anim.addCharacter(fox)
  const b = anim.addCharacter(fox)
  anim.addCharacter(robot)
  anim.addAsset(partial)
  anim.play(a, 'Walk')
  anim.step()
  return { anim, a, b }
}

function refusal(call: () => unknown): string {
  let error: unknown
  try {
    call()
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(AnimationError)
  expect((error as AnimationError).kind).toBe('argument')
  return (error as AnimationError).message
}

describe('a clip that drives none of the character', () => {
  const names =
    /clip "Walking" of .*RobotExpressive\.glb drives none of the joints or morph weights of .*Fox\.glb/

  it('is refused by play, crossFade, playBlendSpace and clipId, and nothing changes', () => {
    const { anim, a, b } = setup()
    const before = anim.hash()
    const calls: [string, () => unknown][] = [
      ['play', () => anim.play(a, 'Walking')],
      ['play on a layer', () => anim.play(b, 'Walking', { layer: 2 })],
      ['crossFade', () => anim.crossFade(a, 'Walking', 0.3)],
      ['crossFade on a layer', () => anim.crossFade(a, 'Walking', 0.3, { layer: 1 })],
      [
        'playBlendSpace',
        () =>
          anim.playBlendSpace(
            a,
            [
              { clip: 'Walk', at: 0 },
              { clip: 'Walking', at: 1 },
            ],
            { parameter: 0.5 },
          ),
      ],
      ['clipId of a character', () => anim.clipId(a, 'Walking')],
      ['clipId of an asset', () => anim.clipId(anim.addAsset(fox), 'Walking')],
    ]
    for (const [label, call] of calls) {
      const message = refusal(call)
      expect(message, label).toMatch(names)
      expect(message, label).toContain('20 channels) is named as one of')
    }
    expect(refusal(() => anim.playBlendSpace(a, [{ clip: 'Walking', at: 0 }], { parameter: 0 }))).toContain(
      'points[0]',
    )
    expect(anim.hash()).toBe(before)
    expect(anim.getLayer(a, 0).clip).toBe('Walk')
  })

  it('is refused by getUp', () => {
    const { anim, a } = setup()
    anim.ragdoll(a)
    anim.step()
    const before = anim.hash()
    expect(refusal(() => anim.getUp(a, { clip: 'Walking' }))).toMatch(/^getUp\(.*clip: clip "Walking" of/)
    expect(anim.hash()).toBe(before)
  })

  it('names the nodes it animates', () => {
    const { anim, a } = setup()
    expect(refusal(() => anim.play(a, 'Walking'))).toMatch(
      /no node it animates \("Head", "Foot.L", "Body", "Neck", …: 20 channels\) is named/,
    )
  })

  it("is still the character's own clip by name first, and other rigs' clips that fit still play", () => {
    const { anim, a } = setup()
    anim.play(a, 'Run')
    expect(anim.getLayer(a, 0)).toMatchObject({ clip: 'Run', channels: { bound: 21, total: 21 } })
  })
})

describe('a clip that drives part of the character', () => {
  it('plays, and getLayer reports how many of its channels bound', () => {
    const { anim, a, b } = setup()
    anim.play(a, 'Nod')
    anim.crossFade(b, 'Nod', 0.2, { layer: 1 })
    anim.step()
    expect(anim.getLayer(a, 0)).toMatchObject({ clip: 'Nod', channels: { bound: 1, total: 2 } })
    expect(anim.getLayer(b, 1)).toMatchObject({ clip: 'Nod', channels: { bound: 1, total: 2 } })
    expect(anim.getLayer(b, 0)).toMatchObject({ clip: null, channels: null })
  })
})
