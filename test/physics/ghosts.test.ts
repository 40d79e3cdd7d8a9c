/**
 * Spawn de-penetration (src/physics/ghosts.ts): ragdolls that spawn inside each other pass through each other
 * until apart, and collide with everything else throughout. On the Fox, through the plugin: which bodies touch
 * is read from cannon-es's own contact list, each contact's two bodies mapped to the characters that own them.
 */
import { createWorld } from 'bitecs'
import type { Body } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'
import { GHOST_GROUP, isGhost } from '../../src/physics/ghosts.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { restoreAndStep } from '../helpers/ragdollLimits.ts'

let fox: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

/** Foxes at `places`, walking, stepped 5 times. */
function foxes(places: readonly (readonly [number, number, number])[]): { p: AnimationPlugin; cs: number[] } {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const cs = places.map((at) => {
    const c = p.addCharacter(fox)
    p.setTransform(c, { position: [...at], scale: [0.01, 0.01, 0.01] })
    p.play(c, 'Walk')
    return c
  })
  for (let s = 0; s < 5; s++) p.step()
  return { p, cs }
}

const instance = (p: AnimationPlugin, c: number) => ragdollInstance(contextOf(p).ragdolls[c]!.instance)!

/** The pairs of characters whose bodies touch now (cannon-es's contacts), as "a-b" with a < b. */
function touching(p: AnimationPlugin, cs: readonly number[]): Set<string> {
  const owner = new Map<Body, number>()
  for (const c of cs) for (const b of instance(p, c).bodies) owner.set(b, c)
  const out = new Set<string>()
  for (const k of p.physics.contacts) {
    const a = owner.get(k.bi)
    const b = owner.get(k.bj)
    if (a !== undefined && b !== undefined && a !== b) out.add(`${Math.min(a, b)}-${Math.max(a, b)}`)
  }
  return out
}

const limited = (p: AnimationPlugin) => p.events.filter((e) => e.kind === 'ragdoll-limited')

describe('ragdolls spawned inside each other', () => {
  it('pass through each other while they overlap, and say so; spawned apart, ragdolls are no ghosts', () => {
    const { p, cs } = foxes([
      [0, 0, 0],
      [0.01, 0, 0],
      [3, 0, 0],
    ])
    for (const c of cs) p.ragdoll(c)
    p.step()
    const [a, b, apart] = cs as [number, number, number]
    expect(isGhost(instance(p, a))).toBe(true)
    expect(isGhost(instance(p, b))).toBe(true)
    expect(isGhost(instance(p, apart))).toBe(false)
    expect(instance(p, a).bodies.every((x) => x.collisionFilterGroup === GHOST_GROUP)).toBe(true)
    // One report, at the ragdoll that spawned into the other.
    expect(limited(p).map((e) => [e.character, e.message])).toEqual([
      [
        b,
        `character ${b}: its ragdoll spawned inside 1 other ragdoll; they pass through each other until apart`,
      ],
    ])
    let ground = 0
    for (let s = 0; s < 90; s++) {
      p.step()
      expect(touching(p, cs), `step ${s}`).toEqual(new Set())
      ground += p.physics.contacts.filter((k) => k.bi.mass === 0 || k.bj.mass === 0).length
    }
    // They still lie on the ground.
    expect(ground).toBeGreaterThan(100)
    expect(isGhost(instance(p, a))).toBe(true)
    expect(p.events.filter((e) => e.kind === 'ragdoll-exploded')).toEqual([])
  })

  it('collide again once apart, and a ghost collides with a ragdoll that is none', () => {
    const { p, cs } = foxes([
      [0, 0, 0],
      [0.01, 0, 0],
    ])
    const [a, b] = cs as [number, number]
    for (const c of cs) p.ragdoll(c)
    p.step()
    expect(isGhost(instance(p, a))).toBe(true)
    // b is thrown clear of a: once their bounds part, neither is a ghost.
    p.applyImpulse(b, 'b_Spine01_02', [60, 20, 0])
    let apartAt = -1
    for (let s = 0; s < 60 && apartAt < 0; s++) {
      p.step()
      if (!isGhost(instance(p, a)) && !isGhost(instance(p, b))) apartAt = s
    }
    expect(apartAt).toBeGreaterThan(0)
    // A third Fox dropped onto a ghost pair lands on them: it was no part of their overlap.
    const { p: q, cs: three } = foxes([
      [0, 0, 0],
      [0.01, 0, 0],
      [0, 1.2, 0],
    ])
    for (const c of three) q.ragdoll(c)
    q.step()
    expect(three.map((c) => isGhost(instance(q, c)))).toEqual([true, true, false])
    const met = new Set<string>()
    for (let s = 0; s < 90; s++) {
      q.step()
      for (const pair of touching(q, three)) met.add(pair)
    }
    expect([...met].some((pair) => pair.endsWith(`-${three[2]}`))).toBe(true)
    expect(met.has(`${three[0]}-${three[1]}`)).toBe(false)
  })

  it('are ghosts in a snapshot too: a restored pile steps on to the same bits, hashed with its ghosts', () => {
    const { p, cs } = foxes([
      [0, 0, 0],
      [0.01, 0, 0],
      [0.02, 0.3, 0],
    ])
    for (const c of cs) p.ragdoll(c)
    for (let s = 0; s < 10; s++) p.step()
    const run = restoreAndStep(p, [fox], 40)
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    expect(cs.map((c) => isGhost(instance(run.copy, c)))).toEqual([true, true, true])
    // The hash sees the ghosts: the same bodies as ghosts or not hash differently.
    const before = p.hash()
    for (const c of cs) for (const b of instance(p, c).bodies) b.collisionFilterGroup = 1
    expect(p.hash()).not.toBe(before)
  })
})
