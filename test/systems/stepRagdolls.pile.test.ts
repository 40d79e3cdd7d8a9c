/**
 * A pile of ragdolls costs a bounded step (issue 33): 100 characters placed 1 cm apart at one point, all
 * ragdolled in the same step, once took 9.5 s of CPU in one step (274,000 contacts for 100 humanoids). The work
 * of a step is measured by what bounds its cost, counted exactly (no clock): the bodies spawned, the broadphase's
 * pair tests, and the contact and friction equations the solver is handed.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { RAGDOLL_SPAWN_BODIES } from '../../systems/stepRagdolls.ts'
import { RAGDOLL_FALLING } from '../../components/Ragdoll.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { humanoid } from '../helpers/stepRagdolls.ts'

let fox: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

/** `count` characters 1 cm apart along x at one point (or `spacing` apart), walking, stepped 10 times. */
function pile(asset: AnimationAsset, count: number, scale: number, spacing = 0.01) {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const cs: number[] = []
  for (let i = 0; i < count; i++) {
    const c = p.addCharacter(asset)
    p.setTransform(c, { position: [i * spacing, 0, 0], scale: [scale, scale, scale] })
    p.play(c, 'Walk', { time: (i * 0.037) % 0.5 })
    cs.push(c)
  }
  for (let s = 0; s < 10; s++) p.step()
  return { p, cs }
}

/** Counts the broadphase's pair tests of each step (needBroadphaseCollision calls). */
function countPairTests(p: AnimationPlugin): () => number {
  const broadphase = p.physics.broadphase
  const need = broadphase.needBroadphaseCollision.bind(broadphase)
  let tests = 0
  broadphase.needBroadphaseCollision = (a, b) => (tests++, need(a, b))
  return () => {
    const n = tests
    tests = 0
    return n
  }
}

describe('a pile of ragdolls (issue 33)', () => {
  for (const [name, asset, scale] of [
    ['humanoids', () => humanoid, 1],
    ['Foxes', () => fox, 0.01],
  ] as const) {
    it(`100 ${name} 1 cm apart, ragdolled at once: every step's work is linear in its bodies`, () => {
      const { p, cs } = pile(asset(), 100, scale)
      for (const c of cs) p.ragdoll(c)
      const tests = countPairTests(p)
      const world = p.physics
      let worst = { equations: 0, tests: 0 }
      for (let s = 0; s < 90; s++) {
        const before = world.bodies.length
        p.step()
        const bodies = world.bodies.length
        const spawned = bodies - before
        const equations = world.contacts.length + world.frictionEquations.length
        const t = tests()
        expect(spawned, `step ${s}: bodies spawned`).toBeLessThanOrEqual(RAGDOLL_SPAWN_BODIES)
        // Before the limits: 823,134 equations in step 1 for 1,501 bodies (humanoids).
        expect(equations, `step ${s}: contact and friction equations`).toBeLessThanOrEqual(4 * bodies)
        expect(t, `step ${s}: broadphase pair tests`).toBeLessThanOrEqual(4 * bodies)
        worst = {
          equations: Math.max(worst.equations, equations / bodies),
          tests: Math.max(worst.tests, t / bodies),
        }
      }
      // Everyone has been handed over, nothing exploded, and the limits said what they did.
      expect(cs.every((c) => contextOf(p).ragdolls[c]!.instance !== null)).toBe(true)
      expect(cs.every((c) => p.stores.Ragdoll.active[c] === RAGDOLL_FALLING)).toBe(true)
      expect(p.events.filter((e) => e.kind === 'ragdoll-exploded')).toEqual([])
      const limited = p.events.filter((e) => e.kind === 'ragdoll-limited')
      expect(limited.filter((e) => e.message.includes('spawned inside'))).toHaveLength(99)
      expect(limited.filter((e) => e.message.includes('wait for a later step')).length).toBeGreaterThan(10)
      expect(worst.equations).toBeGreaterThan(0.5)
    })
  }

  it(`spawns at most ${RAGDOLL_SPAWN_BODIES} bodies a step, in entity order; the others animate until then`, () => {
    // Twelve Foxes apart (16 bodies each: four a step), each ragdolled with a hit.
    const { p, cs } = pile(fox, 12, 0.01, 2)
    const hit = { joint: 'b_Head_05', impulse: [0, 0, 3] as [number, number, number] }
    for (const c of cs) p.ragdoll(c, { impulse: hit })
    const live = () => cs.filter((c) => contextOf(p).ragdolls[c]!.instance !== null)
    const order: number[][] = []
    for (let s = 0; s < 4; s++) {
      p.step()
      order.push(live())
      // A waiting ragdoll shows its animation (weight 0) and keeps its hit for when it spawns.
      for (const c of cs.filter((x) => !order[s]!.includes(x))) {
        expect(p.stores.Ragdoll.weight[c]).toBe(0)
        expect(contextOf(p).ragdolls[c]!.impulses).toHaveLength(1)
      }
    }
    expect(order).toEqual([cs.slice(0, 4), cs.slice(0, 8), cs, cs])
    const waits = p.events.filter((e) => e.kind === 'ragdoll-limited')
    expect(waits.map((e) => [e.step, e.character, e.message])).toEqual([
      [
        10,
        cs[4],
        `8 ragdolls wait for a later step (characters ${cs.slice(4).join(', ')}): a step spawns at most ${RAGDOLL_SPAWN_BODIES} ragdoll bodies`,
      ],
      [
        11,
        cs[8],
        `4 ragdolls wait for a later step (characters ${cs.slice(8).join(', ')}): a step spawns at most ${RAGDOLL_SPAWN_BODIES} ragdoll bodies`,
      ],
    ])
    // Each hit applied when its ragdoll spawned.
    for (const c of cs) expect(contextOf(p).ragdolls[c]!.impulses).toHaveLength(0)
  })
})
