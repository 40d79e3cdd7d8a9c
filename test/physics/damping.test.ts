import { Body, Plane, Quaternion, Sphere, Vec3, World } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import { DampedRagdollBody, dampingScale } from '../../src/physics/damping.ts'
import { RagdollBody } from '../../src/physics/broadphase.ts'

/** Distance in units in the last place between two doubles of the same sign. */
function ulps(a: number, b: number): number {
  const f = new Float64Array([a, b])
  const i = new BigInt64Array(f.buffer)
  const d = i[0]! - i[1]!
  return Number(d < 0n ? -d : d)
}

describe('dampingScale', () => {
  it('is (1 − damping)^dt within 1 ulp of Math.pow on 20,000 seeded inputs, exactly 1 at 0 and 0 at 1', () => {
    let seed = 12345
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296
    let worst = 0
    for (let i = 0; i < 20_000; i++) {
      const damping = i < 100 ? i / 100 : rnd()
      const dt = i % 4 === 0 ? 1 / 60 : rnd() * 0.1 + 1e-6
      worst = Math.max(worst, ulps(dampingScale(damping, dt), Math.pow(1 - damping, dt)))
    }
    expect(worst).toBeLessThanOrEqual(1)
    for (const dt of [1 / 30, 1 / 60, 1 / 240, 1]) {
      expect(dampingScale(0, dt)).toBe(1)
      expect(dampingScale(1, dt)).toBe(0)
    }
  })
})

/** A sphere falling onto a plane while spinning, in its own world; the world stepped `steps` times. */
function fall(body: Body, steps: number): Body {
  const world = new World({ gravity: new Vec3(0, -9.82, 0) })
  const ground = new Body({ mass: 0, shape: new Plane() })
  ground.quaternion.setFromVectors(new Vec3(0, 0, 1), new Vec3(0, 1, 0))
  world.addBody(ground)
  body.addShape(new Sphere(0.2))
  body.position.set(0, 1, 0)
  body.velocity.set(2, 3, -1)
  body.angularVelocity.set(4, -7, 2)
  world.addBody(body)
  for (let s = 0; s < steps; s++) world.step(1 / 60)
  return body
}

const state = (b: Body) =>
  [b.position, b.velocity, b.angularVelocity, b.quaternion].flatMap((v) => v.toArray())

describe('DampedRagdollBody', () => {
  it("keeps cannon-es's damping at 0 and its own as given (default 0, not cannon-es's 0.01)", () => {
    const b = new DampedRagdollBody({ mass: 1, linearDamping: 0.05, angularDamping: 0.1 })
    expect([b.linearDamping, b.angularDamping]).toEqual([0, 0])
    expect([b.detLinearDamping, b.detAngularDamping]).toEqual([0.05, 0.1])
    expect(b).toBeInstanceOf(RagdollBody)
    const plain = new DampedRagdollBody({ mass: 1 })
    expect([plain.detLinearDamping, plain.detAngularDamping, plain.linearDamping]).toEqual([0, 0, 0])
  })

  it("steps like a body under cannon-es's own damping: bounces, spin and rest alike, 300 steps", () => {
    for (const [linear, angular] of [
      [0.05, 0.1],
      [0.8, 0.3],
      [0, 0],
    ] as const) {
      const ours = fall(
        new DampedRagdollBody({ mass: 2, linearDamping: linear, angularDamping: angular }),
        300,
      )
      const theirs = fall(new Body({ mass: 2, linearDamping: linear, angularDamping: angular }), 300)
      const exact =
        dampingScale(linear, 1 / 60) === Math.pow(1 - linear, 1 / 60) &&
        dampingScale(angular, 1 / 60) === Math.pow(1 - angular, 1 / 60)
      const a = state(ours)
      const b = state(theirs)
      // Where the two factors have the same bits, so do the trajectories; else they stay within rounding.
      if (exact) expect(a, `damping ${linear}, ${angular}`).toEqual(b)
      else
        a.forEach((x, i) => expect(Math.abs(x - b[i]!), `damping ${linear}, ${angular}`).toBeLessThan(1e-9))
      expect(ours.position.y).toBeLessThan(0.25) // it came down onto the plane
    }
  })

  it('damps once per step, as (1 − d)^t, when cannon-es steps it directly (no plugin involved)', () => {
    const world = new World({ gravity: new Vec3(0, 0, 0) })
    const body = new DampedRagdollBody({ mass: 1, linearDamping: 0.3, angularDamping: 0.6 })
    body.addShape(new Sphere(0.1))
    body.velocity.set(1, -2, 0.5)
    body.angularVelocity.set(0, 3, 0) // about a principal axis of a sphere: ω keeps its direction
    world.addBody(body)
    for (let s = 0; s < 120; s++) world.step(1 / 60)
    const v = Math.pow(0.7, 2)
    const w = Math.pow(0.4, 2)
    expect(body.velocity.x).toBeCloseTo(1 * v, 12)
    expect(body.velocity.y).toBeCloseTo(-2 * v, 12)
    expect(body.angularVelocity.y).toBeCloseTo(3 * w, 12)
    // A step length that changes is taken up at once (the cached factors follow dt).
    world.step(1 / 30)
    expect(body.velocity.x).toBeCloseTo(v * Math.pow(0.7, 1 / 30), 12)
  })

  it('leaves a kinematic body undamped, as cannon-es does', () => {
    const body = new DampedRagdollBody({
      mass: 0,
      type: Body.KINEMATIC,
      linearDamping: 0.5,
      angularDamping: 0.5,
    })
    body.addShape(new Sphere(0.1))
    body.velocity.set(1, 0, 0)
    body.angularVelocity.set(0, 1, 0)
    const world = new World()
    world.addBody(body)
    for (let s = 0; s < 60; s++) world.step(1 / 60)
    expect(body.velocity.toArray()).toEqual([1, 0, 0])
    expect(body.angularVelocity.toArray()).toEqual([0, 1, 0])
    expect(body.position.x).toBeCloseTo(1, 12)
    expect(new Quaternion().copy(body.quaternion).w).toBeLessThan(1) // it turned
  })
})
