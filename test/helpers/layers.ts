/**
 * Shared setup of the layer tests (test/systems/composeLayers.*.test.ts): the shipped rigs, a character
 * without physics, its locals and world matrices as float32 bits, a subtree's joints, and the random
 * scenario of the exact properties.
 */
import fc from 'fast-check'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'

const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'
const FOX = 'assets/Fox/glTF-Binary/Fox.glb'

export const assets: Record<string, AnimationAsset> = {}

export function setup(asset: AnimationAsset): { plugin: AnimationPlugin; eid: number } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 512, physics: { ground: false } })
  return { plugin, eid: plugin.addCharacter(asset) }
}

/** Local T/R/S of every joint of a character, as float32 bits. */
export function locals(plugin: AnimationPlugin, eid: number): Float32Array {
  const nodes = plugin.stores.SceneNode
  const joints = plugin.joints(eid)
  const out = new Float32Array(joints.length * 10)
  joints.forEach((e, j) => {
    out.set(nodes.translation.subarray(e * 3, e * 3 + 3), j * 10)
    out.set(nodes.rotation.subarray(e * 4, e * 4 + 4), j * 10 + 3)
    out.set(nodes.scale.subarray(e * 3, e * 3 + 3), j * 10 + 7)
  })
  return out
}

export function worlds(plugin: AnimationPlugin, eid: number): Float32Array {
  const out: number[] = []
  for (const e of plugin.joints(eid)) out.push(...plugin.stores.SceneNode.world.subarray(e * 16, e * 16 + 16))
  return Float32Array.from(out)
}

export const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer.slice(0))

/** Joint indices of the subtree of `name` (its joint and every descendant), from the plugin's rig. */
export function subtree(plugin: AnimationPlugin, eid: number, name: string): Set<number> {
  const rig = contextOf(plugin).assets[contextOf(plugin).stores.Pose.asset[eid]!]!
  const root = Array.from(plugin.joints(eid)).indexOf(plugin.jointEntity(eid, name))
  const inside = new Set<number>([root])
  for (let j = root + 1; j < rig.jointParents.length; j++) if (inside.has(rig.jointParents[j]!)) inside.add(j)
  return inside
}

export const scenario = fc.record({
  rig: fc.constantFrom('robot', 'fox'),
  base: fc.nat(20),
  layerClip: fc.nat(20),
  time: fc.double({ min: 0, max: 2, noNaN: true }),
  speed: fc.double({ min: -2, max: 2, noNaN: true }),
  additive: fc.boolean(),
  steps: fc.integer({ min: 1, max: 40 }),
  fadeAt: fc.integer({ min: 0, max: 40 }),
})

export const MASK_JOINT: Record<string, string> = { robot: 'Abdomen', fox: 'b_Spine02_03' }

/** Loads the shipped rigs into `assets` (once per test file, in beforeAll). */
export async function loadAssets(): Promise<void> {
  assets.robot = await loadAsset(ROBOT)
  assets.fox = await loadAsset(FOX)
}

/** How far the composed pose is from layer 0's own pose (ANIM vs layer 0's OUT): the layers' effect. */
export function poseDistanceFromBase(plugin: AnimationPlugin, eid: number): number {
  const ctx = contextOf(plugin)
  const base0 = ctx.layers[eid]!.layers[0]!
  const n = ctx.stores.Pose.count[eid]!
  const anim = ctx.stores.Pose.base[eid]! * 10
  const out = base0.base * 10
  let d = 0
  for (let x = 0; x < n * 10; x++)
    d = Math.max(d, Math.abs(ctx.pool.data[anim + x]! - ctx.pool.data[out + x]!))
  return d
}
