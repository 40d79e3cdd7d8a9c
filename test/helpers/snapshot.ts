/**
 * Shared setup of the snapshot tests (test/snapshot/snapshot.*.test.ts), on real Fox characters: a scripted
 * scene of four characters (walking, fading, ragdolling, getting up, hit) and a game node, run in two worlds
 * step by step; restoring into fresh plugins, reading a snapshot's sections, and the check that a restore was
 * refused as a snapshot error.
 */
import { expect } from 'vitest'
import { $internal, addEntity, createWorld, removeEntity, type InternalWorld, type World } from 'bitecs'
import { Body } from 'cannon-es'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { AnimationError } from '../../src/errors.ts'
import {
  createAnimationPlugin,
  type AnimationPlugin,
  type AnimationPluginOptions,
} from '../../entry/plugin.ts'
import { addSceneNode } from '../../components/SceneNode.ts'
import { reseal } from './forge.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const FOX_GLTF = 'assets/Fox/glTF/Fox.gltf'
const OTHER = 'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb'

/** The Fox (from the .glb and from the .gltf) and RiggedFigure, loaded by `loadAssets` (in a file's beforeAll). */
export let fox: AnimationAsset
export let foxGltf: AnimationAsset
export let other: AnimationAsset

/** Loads the three assets (once per test file). */
export async function loadAssets(): Promise<void> {
  fox = await loadAsset(FOX)
  foxGltf = await loadAsset(FOX_GLTF)
  other = await loadAsset(OTHER)
}

export const OPTIONS: AnimationPluginOptions = { capacity: 1024 }

export interface Scene {
  world: World
  plugin: AnimationPlugin
  /** Walks, then cross-fades (mid-fade at step 300). */
  a: number
  /**
   * Ragdolls at step 60, lies still and sleeps from ~220 (no contacts then: cannon-es pairs no sleeping body with
   * the static ground), is nudged awake at 280 (lying on the ground, in contact, at 300), gets up at 420, falls
   * again at 520.
   */
  b: number
  /** Runs, ragdolls at 340 (after the snapshot), is hit again at 500. */
  c: number
  /** Ragdolls in the same step as c (so their spawn order, the systems' query order, matters). */
  d: number
  /** A game entity with a SceneNode hanging on a's head joint. */
  hat: number
}

/** Fox is in centimetres: scale the character root to metres for the ragdolls (scripts_ragdoll_try.ts). */
export function place(plugin: AnimationPlugin, eid: number, scale: number, x: number): void {
  const nodes = plugin.stores.SceneNode
  nodes.scale.fill(scale, eid * 3, eid * 3 + 3)
  nodes.translation[eid * 3] = x
  nodes.dirty[eid] = 1
}

export function build(): Scene {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, OPTIONS)
  plugin.addAsset(fox)
  addEntity(world) // a game entity of its own, alive, not the plugin's
  const a = plugin.addCharacter(fox)
  const temporary = addEntity(world)
  const b = plugin.addCharacter(fox)
  const c = plugin.addCharacter(fox)
  const d = plugin.addCharacter(fox)
  // A game node hanging on a joint (a hat), and a free id in the entity index.
  const hat = addEntity(world)
  addSceneNode(plugin.sceneGraph, hat, plugin.jointEntity(a, 'b_Head_05'))
  plugin.stores.SceneNode.translation[hat * 3 + 1] = 12
  removeEntity(world, temporary)
  place(plugin, a, 1, -300)
  place(plugin, b, 0.01, 0)
  place(plugin, c, 0.01, 0.35)
  place(plugin, d, 0.01, -0.45)
  return { world, plugin, a, b, c, d, hat }
}

/** What the game does before fixed step `k` (k steps already run). The same calls in both worlds. */
export function script(s: Scene, k: number): void {
  const p = s.plugin
  if (k === 0) {
    p.play(s.a, 'Walk')
    p.play(s.b, 'Survey')
    p.play(s.c, 'Run')
    p.play(s.d, 'Walk')
  }
  if (k === 60) p.ragdoll(s.b, { impulse: { joint: 'b_Spine02_03', impulse: [5, 0, 0] } })
  if (k === 250) p.crossFade(s.a, 'Run', 1)
  // b has come to rest and sleeps: a light push wakes it, so at 300 it lies awake with its ground contacts.
  if (k === 280) p.applyImpulse(s.b, 'b_Hip_01', [0.5, 0, 0])
  // Right after a snapshot at 300: a hit on a lying ragdoll (uses its last read-back joint positions).
  if (k === 300) p.applyImpulse(s.b, 'b_Head_05', [0, 2, 1])
  if (k === 340) {
    p.ragdoll(s.c, { impulse: { joint: 'b_Spine02_03', impulse: [-4, 1, 0] } })
    p.ragdoll(s.d, { impulse: { joint: 'b_Spine02_03', impulse: [4, 1, 0] } })
  }
  if (k === 410) p.crossFade(s.a, 'Survey', 0.5)
  if (k === 420) p.getUp(s.b, { clip: 'Walk', fadeSeconds: 0.4 })
  if (k === 500) p.applyImpulse(s.c, 'b_Hip_01', [0, 3, 1])
  // b falls again: its new bodies come after c's and d's in the physics world.
  if (k === 520) p.ragdoll(s.b)
}

export function run(s: Scene, from: number, to: number): void {
  for (let k = from; k < to; k++) {
    script(s, k)
    s.plugin.step()
  }
}

export function fresh(options: AnimationPluginOptions = OPTIONS, assets: AnimationAsset[] = [fox]) {
  const world = createWorld()
  const plugin = createAnimationPlugin(world, options)
  for (const asset of assets) plugin.addAsset(asset)
  return { world, plugin }
}

/** Restores `bytes` into a fresh world and plugin with the scene's character ids. */
export function restored(bytes: Uint8Array, like: Scene): Scene {
  const { world, plugin } = fresh()
  plugin.restore(bytes)
  return { world, plugin, a: like.a, b: like.b, c: like.c, d: like.d, hat: like.hat }
}

/** Steps both from step `from` to `to` under the script; returns the first step whose hashes differ, or -1. */
export function firstDivergence(x: Scene, y: Scene, from: number, to: number): number {
  for (let k = from; k < to; k++) {
    script(x, k)
    script(y, k)
    x.plugin.step()
    y.plugin.step()
    if (x.plugin.hash() !== y.plugin.hash()) return k + 1
  }
  return -1
}

export function entityIndex(world: World) {
  return (world as InternalWorld)[$internal].entityIndex
}

export function rejects(f: () => void, pattern: RegExp): void {
  let error: unknown
  try {
    f()
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(AnimationError)
  expect((error as AnimationError).kind).toBe('snapshot')
  expect((error as Error).message).toMatch(pattern)
}

/** Rewrites the header's length and checksum after editing a snapshot, so deeper checks are reached. */
export const resealed = reseal

/** Where the body of the section tagged `tag` starts (sections: u32 tag, u32 length, body; from byte 48). */
export function sectionBody(bytes: Uint8Array, tag: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset)
  for (let at = 48; at < bytes.length; at += 8 + view.getUint32(at + 4, true)) {
    if (String.fromCharCode(...bytes.subarray(at, at + 4)) === tag) return at + 8
  }
  throw new Error(`no section ${tag}`)
}

export function groundContacts(plugin: AnimationPlugin, bodies: readonly Body[]): number {
  const ground = plugin.physics.bodies.find((b) => b.type === Body.STATIC)!
  return plugin.physics.contacts.filter(
    (c) => (c.bi === ground && bodies.includes(c.bj)) || (c.bj === ground && bodies.includes(c.bi)),
  ).length
}
