/**
 * Shared setup of the runtime abuse tests (test/entry/abuse.*.test.ts): what a game can do to a running plugin
 * besides calling it correctly — odd frame times, odd speeds and clip shapes, removing entities behind the
 * plugin's back, running out of capacity, and NaN forced into poses, stores, bodies and scene nodes. The rule
 * everywhere: the step keeps going, nothing non-finite reaches the scene graph through the plugin, each problem
 * is reported once per character, and other characters are unaffected (compared bit for bit with a twin that
 * never saw the problem).
 *
 * Bad public calls (play, crossFade, … with bad arguments) are in plugin.badInput.test.ts.
 */
import { createWorld, query, type World } from 'bitecs'
import { expect } from 'vitest'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { POSE_BUFFERS } from '../../components/Pose.ts'
import { RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { createAnimationPlugin, type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'

/** The Fox, loaded by `loadFox` (a test file calls it in beforeAll). */
export let fox: AnimationAsset

/** Loads the Fox (once per test file). */
export async function loadFox(): Promise<void> {
  fox = await loadAsset(FOX)
}

/** Entities of every SceneNode whose local or world transform holds a non-finite value. */
export function nonFiniteNodes(plugin: AnimationPlugin): number[] {
  const { translation, rotation, scale, world } = plugin.stores.SceneNode
  const bad: number[] = []
  for (const e of query(plugin.world, [plugin.stores.SceneNode])) {
    let sum = 0
    for (let k = 0; k < 3; k++) sum += translation[e * 3 + k]! + scale[e * 3 + k]!
    for (let k = 0; k < 4; k++) sum += rotation[e * 4 + k]!
    for (let k = 0; k < 16; k++) sum += world[e * 16 + k]!
    if (!Number.isFinite(sum)) bad.push(e)
  }
  return bad
}

/** Characters of the plugin (entities with its Pose), ascending. */
export function characters(plugin: AnimationPlugin): number[] {
  return Array.from(query(plugin.world, [plugin.stores.Pose])).sort((a, b) => a - b)
}

/** The invariants that say nothing leaked: pool slots, SceneNodes and physics bodies match the live characters. */
export function expectNoLeaks(plugin: AnimationPlugin, gameNodes = 0): void {
  const { Pose, Ragdoll } = plugin.stores
  const live = characters(plugin)
  let slots = 0
  let joints = 0
  let bodies = 0
  for (const c of live) {
    slots += POSE_BUFFERS * Pose.count[c]!
    joints += Pose.count[c]!
    const instance = ragdollInstance(contextOf(plugin).ragdolls[c]?.instance)
    if (instance) {
      expect(Ragdoll.active[c], `character ${c} has bodies`).not.toBe(RAGDOLL_OFF)
      bodies += instance.bodies.length
    }
  }
  expect(contextOf(plugin).pool.used, 'pose slots in use').toBe(slots)
  expect(query(plugin.world, [plugin.stores.SceneNode]).length, 'SceneNodes').toBe(
    live.length + joints + gameNodes,
  )
  const ground = plugin.physics.bodies.filter((b) => b.mass === 0).length
  expect(plugin.physics.bodies.length - ground, 'physics bodies').toBe(bodies)
  expect(plugin.physics.constraints.length, 'constraints').toBe(
    live.reduce(
      (n, c) => n + (ragdollInstance(contextOf(plugin).ragdolls[c]?.instance)?.constraints.length ?? 0),
      0,
    ),
  )
}

/** A plugin for Fox ragdolls: gravity and a ground at 0; characters at 0.01 scale (Fox is in centimetres). */
export function foxPlugin(world: World = createWorld()) {
  const plugin = createAnimationPlugin(world, { capacity: 2048 })
  const nodes = plugin.stores.SceneNode
  const add = (x: number): number => {
    const c = plugin.addCharacter(fox)
    nodes.scale.fill(0.01, c * 3, c * 3 + 3)
    nodes.translation[c * 3] = x
    nodes.dirty[c] = 1
    return c
  }
  return { world, plugin, add }
}

/** Copy of a ragdoll's body states (position, orientation, velocities), for bitwise comparison. */
export function bodyState(plugin: AnimationPlugin, c: number): Float64Array {
  const bodies = ragdollInstance(contextOf(plugin).ragdolls[c]!.instance)!.bodies
  const out = new Float64Array(bodies.length * 13)
  bodies.forEach((b, i) => {
    const { position: p, quaternion: q, velocity: v, angularVelocity: w } = b
    out.set([p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z], i * 13)
  })
  return out
}

export function worldOf(plugin: AnimationPlugin, e: number): Float32Array {
  return plugin.stores.SceneNode.world.slice(e * 16, e * 16 + 16)
}
