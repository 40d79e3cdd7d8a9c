/**
 * A deterministic simulation test, as a game would write one with vitest: replay a scripted scene (scene.ts)
 * twice and compare the plugin's state hash after every fixed step; snapshot mid-ragdoll, restore into a fresh
 * world and plugin, and check the restored run steps on to the same hashes. Run it alone with
 * `npx vitest run examples/simulation-test`.
 */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from 'ecs-anim'
import { loadAsset } from 'ecs-anim/node'
import { createPlugin, createScene, run, sceneOf, STEPS } from './scene.ts'

const FOX = fileURLToPath(new URL('../../assets/Fox/glTF-Binary/Fox.glb', import.meta.url))
/** Where the snapshot is taken: Fox A was ragdolled at step 180, so cannon-es bodies are in it. */
const SNAPSHOT_AT = 200

let fox: AnimationAsset
/** The reference run: the hash after every step. */
let reference: string[]

/** Runs the script from step `from` to the end (a fresh scene: the whole script) and returns every hash. */
function hashes(scene = createScene(fox), from = 0): string[] {
  const out: string[] = []
  run(scene, from, STEPS, () => out.push(scene.plugin.hash()))
  return out
}

beforeAll(async () => {
  fox = await loadAsset(FOX)
  reference = hashes()
})

describe('the scripted scene is deterministic', () => {
  it('gives the same hash after every one of its 360 steps, run after run', () => {
    const again = hashes()
    expect(again).toHaveLength(STEPS)
    const first = again.findIndex((h, k) => h !== reference[k])
    expect(first, `the runs part at step ${first}`).toBe(-1)
    // The state really changes as the script runs (a constant hash would prove nothing).
    expect(new Set(again).size).toBeGreaterThan(STEPS - 10)
  })

  it('notices a change: a 1 mN·s nudge at step 100 changes every hash from there on', () => {
    const scene = createScene(fox)
    const nudged: string[] = []
    run(scene, 0, 100, () => nudged.push(scene.plugin.hash()))
    scene.plugin.applyImpulse(scene.foxes[1], 'b_Head_05', [0, 0, 1e-3]) // Fox B is down since step 45
    run(scene, 100, STEPS, () => nudged.push(scene.plugin.hash()))
    expect(nudged.slice(0, 100)).toEqual(reference.slice(0, 100))
    expect(nudged.slice(100).every((h, k) => h !== reference[100 + k])).toBe(true)
  })

  it('restores a snapshot into a fresh world and steps on to the same hashes', async () => {
    const scene = createScene(fox)
    run(scene, 0, SNAPSHOT_AT)
    const bytes = scene.plugin.snapshot()
    expect(scene.plugin.hash()).toBe(reference[SNAPSHOT_AT - 1])
    expect(scene.plugin.physics.bodies.length).toBeGreaterThan(1) // ragdoll bodies (and the ground) in the snapshot

    // A fresh world and plugin, as another process would make them: the same options, the same asset (loaded
    // again from the file) added in the same order, and no characters.
    const plugin = createPlugin(await loadAsset(FOX))
    plugin.restore(bytes)
    expect(plugin.hash()).toBe(reference[SNAPSHOT_AT - 1])
    const restored = sceneOf(plugin, scene.foxes) // the same entity ids
    expect(hashes(restored, SNAPSHOT_AT)).toEqual(reference.slice(SNAPSHOT_AT))
  })
})
