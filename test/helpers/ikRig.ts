/**
 * What the IK tests share: a plugin with two humanoids (test/helpers/humanoid.ts; 1.86 m tall, facing +z), one
 * walking and one idling, and world positions and matrices computed in doubles from the scene graph's local
 * transforms (so a measure is not float32's rounding of the world matrices).
 */
import { createWorld } from 'bitecs'
import { Matrix4, Quaternion, Vector3 } from 'three'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { makeHumanoidAsset } from './humanoid.ts'

export const HUMANOID_HEIGHT = 1.86
const asset = makeHumanoidAsset()

export interface IKScene {
  plugin: AnimationPlugin
  /** Walking (at `time`), and idling. */
  a: number
  b: number
}

export function ikScene(options: { time?: number; physics?: boolean } = {}): IKScene {
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: 256,
    ...(options.physics ? {} : { physics: { ground: false } }),
  })
  const a = plugin.addCharacter(asset)
  const b = plugin.addCharacter(asset)
  plugin.play(a, 'Walk', { time: options.time ?? 0.3 })
  plugin.play(b, 'Idle', { time: 0.5 })
  plugin.setTransform(b, { position: [2, 0, 0] })
  return { plugin, a, b }
}

/** A scene node's world matrix from the locals up its parents, in doubles. */
export function worldOf(plugin: AnimationPlugin, e: number): Matrix4 {
  const n = plugin.stores.SceneNode
  const local = new Matrix4().compose(
    new Vector3(...n.translation.subarray(3 * e, 3 * e + 3)),
    new Quaternion(...n.rotation.subarray(4 * e, 4 * e + 4)),
    new Vector3(...n.scale.subarray(3 * e, 3 * e + 3)),
  )
  const p = n.parent[e]!
  return p === 0 ? local : worldOf(plugin, p).multiply(local)
}

export function positionOf(plugin: AnimationPlugin, character: number, joint: string): Vector3 {
  return new Vector3().setFromMatrixPosition(worldOf(plugin, plugin.jointEntity(character, joint)))
}

/** Every node's world matrix as the plugin stores it (float32), for bit-for-bit comparisons. */
export function storedWorlds(plugin: AnimationPlugin): Float32Array {
  return plugin.stores.SceneNode.world.slice()
}
