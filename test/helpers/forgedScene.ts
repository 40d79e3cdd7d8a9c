/**
 * Shared setup of the forged-snapshot tests (test/snapshot/forged.*.test.ts): a scene of Fox characters
 * (playing, fading, ragdolling) and its snapshot, mapped (test/helpers/forge.ts) so that edits can be aimed at
 * known fields; a check that a forged snapshot is refused with the target left fresh; offsets of fields.
 */
import { expect } from 'vitest'
import { $internal, addEntity, createWorld, removeEntity, type InternalWorld, type World } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { layoutsOf, type Layouts } from '../../snapshot/format.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { forge, mapSnapshot, type Edit, type SnapshotMap } from './forge.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const OPTIONS = { capacity: 256 }

export interface Scene {
  plugin: AnimationPlugin
  /** A bare game entity (alive, no components). */
  game: number
  /** Walks, then cross-fades into Run (mid-fade at the snapshot); with `pending`, also ragdolled just before it. */
  a: number
  /** Runs, ragdolled (its own description) with a hit at step 20: falling at the snapshot, its weight ramping. */
  b: number
  /** A game node on a's head; a was placed again (setTransform) right before the snapshot, so the world
   * matrices of a's nodes and the hat are stored (the others are recomputed). */
  hat: number
  bytes: Uint8Array
  map: SnapshotMap
  layouts: Layouts
}

export function fresh() {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, OPTIONS)
  plugin.addAsset(fox)
  return { world, plugin }
}

/** The snapshot of step 30: a mid-fade, a ragdoll mid-fall with bodies, a game node on a joint. */
export function build(pending = false): Scene {
  const { world, plugin } = fresh()
  const game = addEntity(world)
  const temporary = addEntity(world)
  const a = plugin.addCharacter(fox)
  // b takes the freed id, its joints the next new ones: not a run after it, so the snapshot lists them.
  removeEntity(world, temporary)
  const b = plugin.addCharacter(fox)
  const hat = addEntity(world)
  addSceneNode(plugin.sceneGraph, hat, plugin.jointEntity(a, 'b_Head_05'))
  const nodes = plugin.stores.SceneNode
  nodes.translation[hat * 3 + 1] = 12
  nodes.translation[a * 3] = -300
  nodes.scale.fill(0.01, b * 3, b * 3 + 3)
  nodes.dirty[a] = nodes.dirty[b] = nodes.dirty[hat] = 1
  plugin.play(a, 'Walk')
  plugin.play(b, 'Run')
  // A description of its own (so the snapshot carries one), of a few bodies (so the steps after are quick).
  const description = { bodies: generateRagdollDescription(fox).bodies.slice(0, 6) }
  for (let k = 0; k < 30; k++) {
    if (k === 20) plugin.ragdoll(b, { description, impulse: { joint: 'b_Spine02_03', impulse: [3, 0, 0] } })
    if (k === 26) plugin.crossFade(a, 'Run', 0.5)
    plugin.step()
  }
  if (pending) plugin.ragdoll(a, { impulse: { joint: 'b_Hip_01', impulse: [0, 1, 0] } })
  plugin.setTransform(a, { position: [-300, 0, 0] })
  const bytes = plugin.snapshot()
  const layouts = layoutsOf(contextOf(plugin))
  return { plugin, game, a, b, hat, bytes, map: mapSnapshot(bytes, layouts), layouts }
}

export function entityIndex(world: World) {
  return (world as InternalWorld)[$internal].entityIndex
}

/** The restore's error, or null when it restored. Any other throw fails the test. */
export function restoreError(plugin: AnimationPlugin, bytes: Uint8Array): AnimationError | null {
  try {
    plugin.restore(bytes)
    return null
  } catch (error) {
    if (!(error instanceof AnimationError) || error.kind !== 'snapshot') {
      throw new Error(`restore threw something other than AnimationError('snapshot'): ${String(error)}`)
    }
    return error
  }
}

/**
 * The forged snapshot is refused with a message matching `pattern`, leaves a fresh target fresh, and the good
 * snapshot then restores into the same plugin.
 */
export function refused(s: Scene, edits: readonly Edit[], pattern: RegExp): void {
  const target = fresh()
  const error = restoreError(target.plugin, forge(s.bytes, edits))
  expect(error, 'the forged snapshot was restored').not.toBeNull()
  expect(error!.message).toMatch(pattern)
  expect(target.plugin.hash()).toBe(pristine)
  expect(entityIndex(target.world).maxId).toBe(0)
  expect(target.plugin.physics.bodies).toHaveLength(1)
  target.plugin.restore(s.bytes)
  expect(target.plugin.hash()).toBe(s.plugin.hash())
}

export const f32 = (offset: number, value: number): Edit => ({ offset, kind: 'f32', value })
export const f64 = (offset: number, value: number): Edit => ({ offset, kind: 'f64', value })
export const u8 = (offset: number, value: number): Edit => ({ offset, kind: 'u8', value })
export const i32 = (offset: number, value: number): Edit => ({ offset, kind: 'i32', value })
export const u16 = (offset: number, value: number): Edit => ({ offset, kind: 'u16', value })
export const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A pattern for `restore: snapshot <where>: <field> is <value>; …`. */
export const says = (where: string, field: string, value: string) =>
  new RegExp(`^restore: snapshot ${escape(where)}: ${escape(field)} is ${escape(value)};`)

/** Offset of store field `name` (element `k`) of character `eid` in its column. */
export function characterField(s: Scene, eid: number, store: string, name: string, k = 0): number {
  const f = s.map.characters.get(eid)!.fields.get(`${store}.${name}`)!
  return f.offset + k * f.size
}

/** Offset of SceneNode field `name` (element `k`: float32 or int32) of node `eid`; it must be stored. */
export function nodeField(
  s: Scene,
  eid: number,
  name: 'parent' | 'translation' | 'rotation' | 'scale' | 'world',
  k = 0,
): number {
  const at = s.map.nodes.get(eid)![name]
  if (at < 0) throw new Error(`node ${eid}'s ${name} is not in the snapshot`)
  return at + 4 * k
}

/** Offset of float `k` of joint `j` in pose layer `layer` (0 ANIM … 4 TO) of character `eid`; it must be stored. */
export function poseFloat(s: Scene, eid: number, layer: number, j: number, k: number): number {
  const c = s.map.characters.get(eid)!
  if (c.pose[layer]! < 0) throw new Error(`character ${eid}'s pose layer ${layer} is the rest pose`)
  const masks = c.pose[layer]!
  const floats = (m: number): number => (m & 1 ? 3 : 0) + (m & 2 ? 4 : 0) + (m & 4 ? 3 : 0)
  let at = c.poseFloats[layer]!
  for (let i = 0; i < j; i++) at += 4 * floats(s.bytes[masks + i]!)
  // Paths in order T (floats 0–2), R (3–6), S (7–9); those before k's that are stored come first.
  const m = s.bytes[masks + j]!
  const path = k < 3 ? 1 : k < 7 ? 2 : 4
  if ((m & path) === 0)
    throw new Error(`character ${eid}'s layer ${layer} joint ${j} float ${k} is the rest pose`)
  const first = path === 1 ? 0 : path === 2 ? 3 : 7
  return at + 4 * (floats(m & (path - 1)) + k - first)
}

/** A joint of pose layer `layer` of character `eid` whose path of float `k` is stored (the first). */
export function storedJoint(s: Scene, eid: number, layer: number, k: number): number {
  const c = s.map.characters.get(eid)!
  const path = k < 3 ? 1 : k < 7 ? 2 : 4
  for (let j = 0; j < c.count; j++) if ((s.bytes[c.pose[layer]! + j]! & path) !== 0) return j
  throw new Error(`character ${eid}'s layer ${layer} stores no path of float ${k}`)
}

let fox: AnimationAsset

/** The scene and its snapshot, built by `buildScene` (a test file calls it in beforeAll). */
export let scene: Scene
/** The hash of a fresh plugin: what a refused restore must leave. */
export let pristine: string

/** Loads the Fox and builds the scene (once per test file). */
export async function buildScene(): Promise<void> {
  fox = await loadAsset(FOX)
  scene = build()
  pristine = fresh().plugin.hash()
}
