import { Body, ConeTwistConstraint, NaiveBroadphase, SAPBroadphase, Sphere, Vec3, World } from 'cannon-es'
import { describe, expect, it } from 'vitest'
import { dropsRagdollLinks, RagdollBody, RagdollBroadphase } from '../../src/physics/broadphase.ts'

/**
 * A row of overlapping spheres chained by cone-twist joints (each hangs from the one before), plus a loose
 * sphere overlapping them all. Linked neighbours overlap; so do the bodies two apart.
 */
function chain(kind: 'ragdoll' | 'naive' | 'sap'): { world: World; bodies: Body[]; loose: Body } {
  const world = new World({ gravity: new Vec3(0, 0, 0) })
  if (kind === 'ragdoll') world.broadphase = new RagdollBroadphase(world)
  else if (kind === 'sap') world.broadphase = new SAPBroadphase(world)
  else world.broadphase = new NaiveBroadphase()
  const bodies: Body[] = []
  for (let i = 0; i < 5; i++) {
    const options = { mass: 1, position: new Vec3(0.15 * i, 0, 0) }
    const b = kind === 'ragdoll' ? new RagdollBody(options) : new Body(options)
    b.addShape(new Sphere(0.16))
    world.addBody(b)
    if (i > 0) {
      const parent = bodies[i - 1]!
      if (b instanceof RagdollBody) b.ragdollParent = parent
      world.addConstraint(
        new ConeTwistConstraint(parent, b, {
          pivotA: new Vec3(0.075, 0, 0),
          pivotB: new Vec3(-0.075, 0, 0),
          axisA: new Vec3(1, 0, 0),
          axisB: new Vec3(1, 0, 0),
          collideConnected: kind === 'ragdoll',
        }),
      )
    }
    bodies.push(b)
  }
  const loose = new Body({ mass: 1, position: new Vec3(0.3, 0.1, 0) })
  loose.addShape(new Sphere(0.4))
  world.addBody(loose)
  return { world, bodies, loose }
}

/** The body pairs that reached the narrowphase in one step, as sorted "i-j" keys of indices in `all`. */
function narrowPairs(world: World, all: Body[]): string[] {
  const seen: string[] = []
  const narrow = world.narrowphase
  const original = narrow.getContacts.bind(narrow)
  narrow.getContacts = (p1, p2, ...rest) => {
    p1.forEach((a, k) => {
      const [i, j] = [all.indexOf(a), all.indexOf(p2[k]!)].sort((x, y) => x - y)
      seen.push(`${i}-${j}`)
    })
    return original(p1, p2, ...rest)
  }
  world.step(1 / 60)
  narrow.getContacts = original
  return seen.sort()
}

describe('RagdollBroadphase', () => {
  it('drops exactly the pairs a joint links, like cannon-es with collideConnected false', () => {
    const ours = chain('ragdoll')
    const theirs = chain('naive')
    const a = narrowPairs(ours.world, [...ours.bodies, ours.loose])
    const b = narrowPairs(theirs.world, [...theirs.bodies, theirs.loose])
    expect(a).toEqual(b)
    // Neighbours (0-1, 1-2, …) are linked: never a pair. Two apart (0-2) overlap and are not linked: a pair.
    for (let i = 0; i < 4; i++) expect(a).not.toContain(`${i}-${i + 1}`)
    expect(a).toContain('0-2')
    expect(a).toContain('2-5')
    expect(dropsRagdollLinks(ours.world.broadphase)).toBe(true)
    expect(dropsRagdollLinks(theirs.world.broadphase)).toBe(false)
  })

  it('steps bit for bit like cannon-es SAPBroadphase with collideConnected false (same pairs, same order)', () => {
    const ours = chain('ragdoll')
    const theirs = chain('sap')
    for (const { bodies } of [ours, theirs]) bodies[4]!.velocity.set(0, 2, 0)
    for (let s = 0; s < 60; s++) {
      ours.world.step(1 / 60)
      theirs.world.step(1 / 60)
    }
    expect(ours.bodies[4]!.position.distanceTo(new Vec3(0.6, 0, 0)), 'body 4 moved').toBeGreaterThan(0.5)
    ours.bodies.forEach((b, i) => {
      expect(b.position.toArray(), `body ${i}`).toEqual(theirs.bodies[i]!.position.toArray())
    })
  })

  it('keeps cannon-es filtering: collision groups and masks, and static pairs', () => {
    const { world, bodies, loose } = chain('ragdoll')
    const bp = world.broadphase
    loose.collisionFilterGroup = 2
    bodies[2]!.collisionFilterMask = 1
    expect(bp.needBroadphaseCollision(loose, bodies[2]!)).toBe(false)
    expect(bp.needBroadphaseCollision(loose, bodies[3]!)).toBe(true)
    const ground = new Body({ mass: 0, type: Body.STATIC })
    const wall = new Body({ mass: 0, type: Body.STATIC })
    expect(bp.needBroadphaseCollision(ground, wall)).toBe(false)
    expect(bp.needBroadphaseCollision(ground, bodies[0]!)).toBe(true)
  })
})
