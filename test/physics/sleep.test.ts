/**
 * Ragdolls at rest sleep (src/physics/sleep.ts): a limp whole-body ragdoll lying still is put to sleep whole and
 * its joints leave the solver; a hit wakes all of it; partial and powered ragdolls never sleep; a sleeping
 * ragdoll snapshots and restores bit for bit, and the world's own allowSleep stays off.
 */
import { createWorld } from 'bitecs'
import { Body } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { restoreAndStep } from '../helpers/ragdollLimits.ts'
import { foxGrid, gridHit } from '../helpers/foxGrid.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

let fox: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

function foxes(count: number): { p: AnimationPlugin; cs: number[] } {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const cs = Array.from({ length: count }, (_, i) => {
    const c = p.addCharacter(fox)
    p.setTransform(c, { position: [2 * i, 0, 0], scale: [0.01, 0.01, 0.01] })
    p.play(c, 'Walk')
    return c
  })
  for (let s = 0; s < 10; s++) p.step()
  return { p, cs }
}

/** Each body's sleep state; one AWAKE for a ragdoll whose bodies have not spawned yet (RAGDOLL_SPAWN_BODIES). */
const states = (p: AnimationPlugin, c: number) =>
  ragdollInstance(contextOf(p).ragdolls[c]!.instance)?.bodies.map((b) => b.sleepState) ?? [Body.AWAKE]

describe('ragdolls at rest sleep', () => {
  it('a limp ragdoll lying still sleeps whole, its joints out of the solver; a hit wakes all of it', () => {
    const { p, cs } = foxes(3)
    const [limp, partial, powered] = cs as [number, number, number]
    p.ragdoll(limp, { impulse: { joint: 'b_Spine02_03', impulse: [3, 0, 0] } })
    p.ragdoll(partial, { root: 'b_Neck_04' })
    p.ragdoll(powered, { motors: { strength: 0.3 } })
    let asleepAt = -1
    for (let s = 0; s < 600 && asleepAt < 0; s++) {
      p.step()
      if (states(p, limp).every((x) => x === Body.SLEEPING)) asleepAt = s
    }
    // It fell (~1 s), came to rest, and was still for a second more.
    expect(asleepAt, 'step at which every body sleeps').toBeGreaterThan(60)
    expect(asleepAt).toBeLessThan(400)
    const r = ragdollInstance(contextOf(p).ragdolls[limp]!.instance)!
    p.step()
    expect(r.constraints.every((k) => k.equations.slice(0, 5).every((e) => !e.enabled))).toBe(true)
    const before = r.bodies.map((b) => b.position.clone())
    p.step()
    expect(r.bodies.every((b, i) => b.position.almostEquals(before[i]!, 0))).toBe(true)
    for (const c of [partial, powered]) expect(states(p, c).every((x) => x === Body.AWAKE)).toBe(true)
    expect(p.physics.allowSleep).toBe(false)

    p.applyImpulse(limp, 'b_Head_05', [0, 2, 0])
    p.step()
    expect(states(p, limp).every((x) => x !== Body.SLEEPING)).toBe(true)
    expect(r.constraints.every((k) => k.equations.slice(0, 5).every((e) => e.enabled))).toBe(true)
    expect(r.bodies.some((b, i) => b.position.distanceTo(before[i]!) > 1e-3)).toBe(true)
  })

  // A lying body the joint and ground projection hold keeps ~one step of gravity's velocity (the solver's push
  // against the projection) while it stays put: on velocities, 19 of 100 Foxes dropped apart never slept.
  it('Foxes knocked over apart all sleep within 12 s, and then the solver has nothing to do', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
    // The bench's scene (scripts/bench-ragdoll.ts, apart), each Fox hit at the chest.
    const cs = foxGrid(p, fox, 16, 4)
    cs.forEach((c, i) => p.ragdoll(c, { impulse: gridHit(i) }))
    // What the solver is given each step: every enabled joint equation, and each contact's (and its friction's).
    const equations = () =>
      p.physics.constraints.reduce((n, k) => n + k.equations.filter((e) => e.enabled).length, 0) +
      p.physics.contacts.length +
      p.physics.frictionEquations.length
    const asleep = () => cs.filter((c) => states(p, c).every((x) => x === Body.SLEEPING)).length
    let equationsAwake = 0
    let s = 0
    p.step() // the bodies appear
    for (; s < 12 * 60 && asleep() < cs.length; s++) {
      p.step()
      if (s === 90) equationsAwake = equations()
    }
    expect(asleep(), `ragdolls asleep after ${s} steps`).toBe(cs.length)
    // Lying awake (1.5 s in), the solver had joints and ground contacts; asleep, none of either.
    expect(equationsAwake).toBeGreaterThan(16 * 50)
    p.step()
    expect(equations()).toBe(0)
  })

  it('snapshots a sleeping ragdoll and restores it bit for bit, through its waking', () => {
    const { p, cs } = foxes(2)
    for (const c of cs) p.ragdoll(c)
    for (let s = 0; s < 400; s++) p.step()
    expect(states(p, cs[0]!).every((x) => x === Body.SLEEPING)).toBe(true)
    const run = restoreAndStep(
      p,
      [fox],
      60,
      (q, k) => k === 20 && q.applyImpulse(cs[0]!, 'b_Hip_01', [5, 0, 0]),
    )
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
  })
})
