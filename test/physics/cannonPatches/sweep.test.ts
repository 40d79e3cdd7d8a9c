/**
 * The sweep patch (src/physics/cannonPatches/sweep.ts) against cannon-es's SAPBroadphase: the same pairs in the
 * same order, with static, sleeping and ghost bodies mixed in.
 */
import { Body, SAPBroadphase, Sphere, Vec3, World } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import { SweptRagdollBroadphase } from '../../../src/physics/cannonPatches/sweep.ts'
import { GHOST_GROUP } from '../../../src/physics/ghosts.ts'

describe('SweptRagdollBroadphase', () => {
  /**
   * 300 spheres in a line, a third static, a third asleep, and across those, every fourth a ghost (its filter
   * leaves out other ghosts: src/physics/ghosts.ts), at overlapping and far places (a fixed pattern).
   */
  function crowd(broadphase: 'ragdoll' | 'sap'): World {
    const world = new World()
    world.broadphase = broadphase === 'ragdoll' ? new SweptRagdollBroadphase(world) : new SAPBroadphase(world)
    for (let i = 0; i < 300; i++) {
      const kind = (i * 7) % 3
      const b = new Body({ mass: kind === 0 ? 0 : 1, position: new Vec3(((i * 37) % 101) * 0.3, 0, 0) })
      b.addShape(new Sphere(0.2 + ((i * 13) % 5) * 0.1))
      world.addBody(b)
      if (kind === 2) b.sleep()
      if (i % 4 === 1) {
        b.collisionFilterGroup = GHOST_GROUP
        b.collisionFilterMask = ~GHOST_GROUP
      }
    }
    return world
  }

  it('finds the pairs SAPBroadphase finds, in its order, with static, sleeping and ghost bodies mixed in', () => {
    const pairs = (world: World) => {
      const p1: Body[] = []
      const p2: Body[] = []
      world.broadphase.collisionPairs(world, p1, p2)
      return p1.map((b, k) => `${b.id}-${p2[k]!.id}`)
    }
    const a = crowd('ragdoll')
    const b = crowd('sap')
    const ids = (w: World) => w.bodies.map((x) => x.id - w.bodies[0]!.id)
    expect(ids(a)).toEqual(ids(b))
    const base = (w: World) => w.bodies[0]!.id
    const shift = (list: string[], w: World) =>
      list.map((s) =>
        s
          .split('-')
          .map((x) => Number(x) - base(w))
          .join('-'),
      )
    const found = shift(pairs(a), a)
    expect(found.length).toBeGreaterThan(50)
    expect(found).toEqual(shift(pairs(b), b))
  })

  it('from a static or sleeping body, looks only at the bodies awake: none when all sleep', () => {
    const world = crowd('ragdoll')
    for (const b of world.bodies) if (b.type === Body.DYNAMIC) b.sleep()
    const broadphase = world.broadphase as SweptRagdollBroadphase
    let tests = 0
    const need = broadphase.needBroadphaseCollision.bind(broadphase)
    broadphase.needBroadphaseCollision = (x, y) => (tests++, need(x, y))
    broadphase.collisionPairs(world, [], [])
    // SAPBroadphase tests every pair here: 300·299/2 = 44,850.
    expect(tests).toBe(0)
  })

  it('from a ghost, looks only at bodies that are none: no test when all are ghosts at one spot', () => {
    const world = new World()
    const broadphase = new SweptRagdollBroadphase(world)
    world.broadphase = broadphase
    for (let i = 0; i < 300; i++) {
      const b = new Body({ mass: 1, position: new Vec3(0.001 * i, 0, 0) })
      b.addShape(new Sphere(0.5))
      b.collisionFilterGroup = GHOST_GROUP
      b.collisionFilterMask = ~GHOST_GROUP
      world.addBody(b)
    }
    let tests = 0
    const need = broadphase.needBroadphaseCollision.bind(broadphase)
    broadphase.needBroadphaseCollision = (x, y) => (tests++, need(x, y))
    const p1: Body[] = []
    broadphase.collisionPairs(world, p1, [])
    // SAPBroadphase tests (and rejects) every pair here: 44,850.
    expect([tests, p1.length]).toEqual([0, 0])
  })
})
