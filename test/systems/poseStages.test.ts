/**
 * Pose stages (plugin.addPoseStage): where they run, what they see, that their edits never build up, how a
 * throwing stage is handled, and that the plugin's calls refuse to run inside one.
 */
import { describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin, type PoseAccess } from '../../entry/plugin.ts'
import { HUMANOID, makeHumanoidAsset } from '../helpers/humanoid.ts'

const asset = makeHumanoidAsset()

function make(): { plugin: AnimationPlugin; a: number; b: number } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
  const a = plugin.addCharacter(asset)
  const b = plugin.addCharacter(asset)
  plugin.play(a, 'Walk')
  plugin.play(b, 'Idle', { time: 0.5 })
  return { plugin, a, b }
}

/** A stage that turns a character's head 10° about x on top of whatever it has (a relative edit). */
function nod(character: number) {
  const q = [0, 0, 0, 1]
  const s = Math.sin((10 * Math.PI) / 360)
  const c = Math.cos((10 * Math.PI) / 360)
  return (pose: PoseAccess) => {
    pose.getRotation(character, 'head', q)
    const [x, y, z, w] = q as [number, number, number, number]
    // q · (sin, 0, 0, cos)
    pose.setRotation(character, 'head', [w * s + x * c, y * c + z * s, z * c - y * s, w * c - x * s])
  }
}

const world = (p: AnimationPlugin, e: number): number[] =>
  Array.from(p.stores.SceneNode.world.subarray(16 * e, 16 * e + 16))

describe('pose stages: edits on the composed pose', () => {
  it('a relative edit on a paused clip applied 30 steps equals applying it once', () => {
    const once = make()
    const many = make()
    for (const { plugin, a } of [once, many]) {
      plugin.step()
      plugin.pause(a)
      plugin.addPoseStage(nod(a))
    }
    once.plugin.step()
    for (let i = 0; i < 30; i++) many.plugin.step()
    const head = many.plugin.jointEntity(many.a, 'head')
    expect(world(many.plugin, head)).toEqual(world(once.plugin, once.plugin.jointEntity(once.a, 'head')))
    // And it is an edit: the head differs from the paused clip's.
    const plain = make()
    plain.plugin.step()
    plain.plugin.pause(plain.a)
    plain.plugin.step()
    expect(world(plain.plugin, plain.plugin.jointEntity(plain.a, 'head'))).not.toEqual(
      world(many.plugin, head),
    )
  })
})
