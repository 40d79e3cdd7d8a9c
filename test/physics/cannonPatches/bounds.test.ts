/**
 * The bounds patch (src/physics/cannonPatches/bounds.ts) against cannon-es's Body.updateAABB: the same bounds
 * to the bit, for bodies of spheres (the fast form) and of other shapes (cannon-es's own); the patched world
 * makes its ragdoll bodies of that class.
 */
import { Body, Box, Quaternion, Sphere, Vec3 } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import { SphereBoundedBody, sphereBounds } from '../../../src/physics/cannonPatches/bounds.ts'
import { DampedRagdollBody, ragdollBodyClass } from '../../../src/physics/damping.ts'
import { createPhysicsWorld } from '../../../src/physics/world.ts'

describe('sphereBounds', () => {
  it('bounds a body of spheres to cannon-es’s bits, and any other body as cannon-es does', () => {
    // A small deterministic generator (the test's own).
    let x = 12345
    const random = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0), x / 4294967296 - 0.5)
    const bounds = (b: Body) => [...b.aabb.lowerBound.toArray(), ...b.aabb.upperBound.toArray()]
    let spheres = 0
    for (let k = 0; k < 200; k++) {
      const b = new Body({ mass: 1, position: new Vec3(1e3 * random(), random(), 1e-3 * random()) })
      b.quaternion.set(random(), random(), random(), random()).normalize()
      const count = 1 + (k % 8)
      for (let i = 0; i < count; i++) {
        const offset = new Vec3(random(), 10 * random(), 0.1 * random())
        if (k % 10 === 9 && i === count - 1) b.addShape(new Box(new Vec3(0.1, 0.2, 0.3)), offset)
        else
          b.addShape(
            new Sphere(0.01 + Math.abs(random())),
            offset,
            new Quaternion(random(), 0, 0, 1).normalize(),
          )
      }
      if (k % 10 !== 9) spheres++
      sphereBounds(b)
      const bounded = new SphereBoundedBody({ mass: 1 })
      bounded.position.copy(b.position)
      bounded.quaternion.copy(b.quaternion)
      b.shapes.forEach((shape, i) => bounded.addShape(shape, b.shapeOffsets[i], b.shapeOrientations[i]))
      bounded.updateAABB()
      const ours = bounds(b)
      expect(bounds(bounded), `body ${k}, SphereBoundedBody`).toEqual(ours)
      Body.prototype.updateAABB.call(b)
      expect(ours, `body ${k}`).toEqual(bounds(b))
      expect(b.aabbNeedsUpdate).toBe(false)
    }
    expect(spheres).toBe(180)
  })

  it('is how a patched world makes its ragdoll bodies; an unpatched one makes DampedRagdollBody', () => {
    expect(ragdollBodyClass(createPhysicsWorld({}))).toBe(SphereBoundedBody)
    expect(ragdollBodyClass(createPhysicsWorld({}, false))).toBe(DampedRagdollBody)
  })
})
