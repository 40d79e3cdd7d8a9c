/**
 * The patch set whole (src/physics/cannonPatches/index.ts): a plugin on a world with every patch installed and
 * one on a world with none (createPhysicsWorld's `patched: false`: cannon-es 0.20.0's own broadphase sweep,
 * bounds, contact bookkeeping, narrowphase and solver) step to the same bits: every step's hash, and every body's
 * state, through ragdolls falling onto each other, a partial ragdoll, a powered one, sleep and a hit that wakes.
 */
import { createWorld } from 'bitecs'
import { Body, GSSolver, Narrowphase, SAPBroadphase } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import { createPhysicsWorld } from '../../../src/physics/world.ts'
import { RagdollSolver } from '../../../src/physics/cannonPatches/solver.ts'
import { SweptRagdollBroadphase } from '../../../src/physics/cannonPatches/sweep.ts'
import { loadAsset } from '../../../src/gltf/load.ts'
import type { AnimationAsset } from '../../../src/gltf/asset.ts'
import { createAnimationPlugin } from '../../../entry/plugin.ts'
import { lockstep, ragdollMix, type LockstepScene } from '../../helpers/lockstep.ts'

let fox: AnimationAsset
let robot: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

function scene(patched: boolean): LockstepScene {
  const world = createPhysicsWorld({}, patched)
  const p = createAnimationPlugin(createWorld(), { capacity: 4096, physics: { world } })
  // Three Foxes over one spot, so they land on each other.
  const act = ragdollMix(
    p,
    fox,
    robot,
    [
      [0, 0, 0],
      [0.1, 0.4, 0],
      [0.2, 0.8, 0],
    ],
    400,
  )
  return { p, act }
}

const state = (b: Body) => [
  ...b.position.toArray(),
  ...b.quaternion.toArray(),
  ...b.velocity.toArray(),
  ...b.angularVelocity.toArray(),
  b.sleepState,
]

describe('cannon-es patches', () => {
  it('a world with every patch steps to the bits of one with none', () => {
    const a = scene(true)
    const b = scene(false)
    expect(a.p.physics.broadphase).toBeInstanceOf(SweptRagdollBroadphase)
    expect(a.p.physics.solver).toBeInstanceOf(RagdollSolver)
    expect(b.p.physics.broadphase.constructor).not.toBe(SweptRagdollBroadphase)
    expect(b.p.physics.broadphase).toBeInstanceOf(SAPBroadphase)
    expect(b.p.physics.solver.constructor).toBe(GSSolver)
    expect(b.p.physics.narrowphase.constructor).toBe(Narrowphase)
    let contacts = 0
    let slept = 0
    lockstep(a, b, 420, (k) => {
      expect(a.p.hash(), `step ${k}`).toBe(b.p.hash())
      expect(a.p.physics.bodies.map(state), `step ${k}`).toEqual(b.p.physics.bodies.map(state))
      contacts += a.p.physics.contacts.length
      slept = Math.max(slept, a.p.physics.bodies.filter((x) => x.sleepState === Body.SLEEPING).length)
    })
    // What the scene is meant to exercise: contacts (the ground and the Foxes on each other) and sleep.
    expect(contacts).toBeGreaterThan(10_000)
    expect(slept).toBeGreaterThan(16)
  })
})
