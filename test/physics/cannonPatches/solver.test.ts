/**
 * The plugin's solver (src/physics/cannonPatches/solver.ts) against cannon-es's GSSolver: the same bits. Two plugins run one
 * scene — whole-body ragdolls falling into each other and hit while down, a partial one (kinematic anchors), a
 * powered one with its root held (motor equations, a kinematic root), sleeping and waking — one of them with
 * GSSolver put back; their hashes, and each body's velocities, are compared every step.
 */
import { createWorld } from 'bitecs'
import { Body, ContactMaterial, GSSolver, HingeConstraint, Material, Sphere, Vec3 } from 'cannon-es'
import { beforeAll, describe, expect, it } from 'vitest'
import { RagdollSolver } from '../../../src/physics/cannonPatches/solver.ts'
import { loadAsset } from '../../../src/gltf/load.ts'
import type { AnimationAsset } from '../../../src/gltf/asset.ts'
import { createAnimationPlugin, type AnimationPlugin } from '../../../entry/plugin.ts'
import { lockstep, ragdollMix, type LockstepScene } from '../../helpers/lockstep.ts'

let fox: AnimationAsset
let robot: AnimationAsset
beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

function scene(cannonSolver: boolean): LockstepScene {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  if (cannonSolver) p.physics.solver = new GSSolver()
  const act = ragdollMix(
    p,
    fox,
    robot,
    [
      [0, 0, -2],
      [1.5, 0, -2],
    ],
    440,
  )
  return { p, act }
}

const sleeping = (p: AnimationPlugin) => p.physics.bodies.filter((x) => x.sleepState === Body.SLEEPING).length

describe('RagdollSolver', () => {
  it('solves to GSSolver’s bits: every step’s hash and every body’s velocity', () => {
    const a = scene(false)
    const b = scene(true)
    expect(a.p.physics.solver).toBeInstanceOf(RagdollSolver)
    let slept = 0
    lockstep(a, b, 460, (k) => {
      expect(a.p.hash(), `step ${k}`).toBe(b.p.hash())
      const va = a.p.physics.bodies.flatMap((x) => [...x.velocity.toArray(), ...x.angularVelocity.toArray()])
      const vb = b.p.physics.bodies.flatMap((x) => [...x.velocity.toArray(), ...x.angularVelocity.toArray()])
      expect(va, `step ${k}`).toEqual(vb)
      if (k === 439) slept = sleeping(a.p)
    })
    expect(slept, 'both Foxes slept before the hit woke one').toBe(32)
    expect(sleeping(a.p)).toBe(16)
  })

  it('leaves an equation on a body outside the world to GSSolver', () => {
    const run = (solver: GSSolver) => {
      const p = createAnimationPlugin(createWorld(), { capacity: 64 })
      const w = p.physics
      w.solver = solver
      const ball = new Body({ mass: 1, position: new Vec3(0, 0.5, 0) })
      ball.addShape(new Sphere(0.6))
      w.addBody(ball)
      const out: number[] = []
      for (let k = 0; k < 20; k++) {
        if (k === 10) ball.index = 7 // a body whose index is not its place: the fallback
        w.step(1 / 60)
        out.push(ball.position.y, ball.velocity.y)
      }
      return out
    }
    expect(run(new RagdollSolver())).toEqual(run(new GSSolver()))
  })

  it('solves a game’s own equations (a hinge) and bouncing contacts to GSSolver’s bits', () => {
    // The hinge's RotationalEquations are no class the solver writes out (they compute their own right-hand
    // sides); the bouncy material gives the contacts a restitution.
    const run = (solver: GSSolver) => {
      const p = createAnimationPlugin(createWorld(), { capacity: 64 })
      const w = p.physics
      w.solver = solver
      const bouncy = new Material('bouncy')
      w.addContactMaterial(new ContactMaterial(bouncy, bouncy, { friction: 0.4, restitution: 0.6 }))
      const balls = [0, 1].map((i) => {
        const ball = new Body({ mass: 1 + i, position: new Vec3(0.3 * i, 1 + 0.5 * i, 0), material: bouncy })
        ball.addShape(new Sphere(0.2))
        ball.angularVelocity.set(1, 2 * i, 3)
        w.addBody(ball)
        return ball
      })
      w.bodies[0]!.material = bouncy // the plugin's ground
      w.addConstraint(
        new HingeConstraint(balls[0]!, balls[1]!, {
          pivotA: new Vec3(0.15, 0.25, 0),
          pivotB: new Vec3(-0.15, -0.25, 0),
          axisA: new Vec3(0, 0, 1),
          axisB: new Vec3(0, 0, 1),
        }),
      )
      const out: number[] = []
      let touching = 0
      for (let k = 0; k < 90; k++) {
        w.step(1 / 60)
        touching += w.contacts.length
        for (const b of balls)
          out.push(...b.position.toArray(), ...b.velocity.toArray(), ...b.angularVelocity.toArray())
      }
      return { out, touching }
    }
    const ours = run(new RagdollSolver())
    expect(ours.touching, 'contacts with the ground').toBeGreaterThan(4)
    expect(ours.out).toEqual(run(new GSSolver()).out)
  })
})
