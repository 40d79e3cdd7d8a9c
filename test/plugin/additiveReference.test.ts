/**
 * An additive layer whose reference clip drives a joint the layer's own clips do not leaves that joint as the
 * layers below made it (plugin/additiveLayers.ts referencePose; three.js's makeClipAdditive does the same), on
 * every path that takes a difference: a clip (its delta clip), a cross-fade inside the layer (FROM against
 * REF_FROM) and a blend space (its blended pose against REF_TO). InterpolationTest's clips each drive one node.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

let asset: AnimationAsset
beforeAll(async () => {
  asset = await loadAsset('assets/InterpolationTest/glTF-Binary/InterpolationTest.glb')
})

/** The node a clip of InterpolationTest drives (each drives one). */
function nodeOf(clip: string): number {
  const c = asset.clips.find((x) => x.name === clip)!
  return c.channels[0]!.node
}

type Layer1 = (plugin: AnimationPlugin, eid: number, step: number) => void

/** Two characters, one with layer 1 set up by `layer1` (additive, reference: Linear Translation at 0.5). */
function run(
  layer1: Layer1,
  steps: number,
  check: (node: number, withLayer: Float32Array, without: Float32Array) => void,
): void {
  const plugin = createAnimationPlugin(createWorld())
  const handle = plugin.addAsset(asset)
  const layered = plugin.addCharacter(handle)
  const plain = plugin.addCharacter(handle)
  for (const eid of [layered, plain]) plugin.play(eid, 'Linear Rotation', { time: 0.3 })
  plugin.setLayer(layered, 1, {
    mode: 'additive',
    weight: 0.6,
    reference: { clip: 'Linear Translation', time: 0.5 },
  })
  const world = plugin.stores.SceneNode.world
  const matrix = (eid: number, node: number) => {
    const e = plugin.jointEntity(eid, node)
    return world.slice(e * 16, e * 16 + 16)
  }
  for (let s = 0; s < steps; s++) {
    layer1(plugin, layered, s)
    plugin.step()
    for (let node = 0; node < asset.nodes.length; node++) {
      check(node, matrix(layered, node), matrix(plain, node))
    }
  }
}

/** Checks every node but the layer's own (`driven`) against the plain character; those must move. */
function expectOnly(driven: readonly number[], layer1: Layer1, steps = 40): void {
  const worst = new Map<number, number>()
  run(layer1, steps, (node, a, b) => {
    let d = 0
    for (let k = 0; k < 16; k++) d = Math.max(d, Math.abs(a[k]! - b[k]!))
    worst.set(node, Math.max(worst.get(node) ?? 0, d))
  })
  expect(worst.size).toBe(asset.nodes.length)
  const referenceNode = nodeOf('Linear Translation')
  expect(worst.get(referenceNode)).toBeLessThan(1e-6)
  for (const [n, d] of worst) {
    if (driven.includes(n)) expect(d, `node ${n} (the layer's)`).toBeGreaterThan(1e-3)
    else expect(d, `node ${n}`).toBeLessThan(1e-6)
  }
}

describe('an additive layer leaves what only its reference clip drives', () => {
  it('playing a clip', () => {
    expectOnly([nodeOf('Step Rotation')], (plugin, eid, s) => {
      if (s === 0) plugin.play(eid, 'Step Rotation', { layer: 1, time: 0.6 })
    })
  })

  it('cross-fading between two clips inside the layer', () => {
    expectOnly([nodeOf('Step Rotation'), nodeOf('CubicSpline Rotation')], (plugin, eid, s) => {
      if (s === 0) plugin.play(eid, 'Step Rotation', { layer: 1, time: 0.6 })
      if (s === 5) plugin.crossFade(eid, 'CubicSpline Rotation', 0.4, { layer: 1 })
    })
  })

  it('playing a blend space', () => {
    expectOnly([nodeOf('Step Rotation'), nodeOf('CubicSpline Rotation')], (plugin, eid, s) => {
      if (s === 0)
        plugin.playBlendSpace(
          eid,
          [
            { clip: 'Step Rotation', at: 0 },
            { clip: 'CubicSpline Rotation', at: 1 },
          ],
          { layer: 1, parameter: 0.4 },
        )
    })
  })
})
