/**
 * The IK solvers in the step (systems/ik.ts, systems/ikFeet.ts) on two humanoids: feet on a height function's
 * ground and on cannon-es bodies (heights, the pelvis, slopes), a scene node as target, weight ramps, aim over a
 * chain, and chain IK by FABRIK and CCD.
 */
import { describe, expect, it } from 'vitest'
import { addEntity } from 'bitecs'
import { Body, Box, Vec3 } from 'cannon-es'
import { Vector3 } from 'three'
import { addSceneNode } from '../../entry/index.ts'
import { HUMANOID_HEIGHT, ikScene, positionOf, worldOf } from '../helpers/ikRig.ts'

const TOL = 1e-4 * HUMANOID_HEIGHT
/** The humanoid's ankles stand this high on flat ground at rest (and idling). */
const ANKLE = 0.08

/** The foot's sole normal in world space: its local −z (the humanoid's feet are turned −90° about x). */
const soleNormal = (s: ReturnType<typeof ikScene>, c: number, foot: string): Vector3 =>
  new Vector3(0, 0, -1).transformDirection(worldOf(s.plugin, s.plugin.jointEntity(c, foot)))

describe("'feet' on the game's ground function", () => {
  it('each ankle rises with the ground under it, the lower one sets the pelvis, soles turn to the slope', () => {
    const s = ikScene()
    const { plugin, b } = s
    plugin.step()
    const pelvis0 = positionOf(plugin, b, 'pelvis').y
    // b stands at x = 2: the left foot (x ≈ 2.1) is 0.05 lower than the character's plane, the right 0.05 higher.
    const ground = (x: number, z: number): number => -0.5 * (x - 2) + 0.1 * z
    plugin.setIK(b, 'feet', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground })
    plugin.step()
    for (const foot of ['foot.L', 'foot.R']) {
      const p = positionOf(plugin, b, foot)
      expect(p.y).toBeCloseTo(ANKLE + ground(p.x, p.z), 4)
      const n = new Vector3(0.5, 1, -0.1).normalize()
      expect(soleNormal(s, b, foot).angleTo(n)).toBeLessThan(1e-4)
    }
    const left = positionOf(plugin, b, 'foot.L')
    expect(positionOf(plugin, b, 'pelvis').y).toBeCloseTo(pelvis0 + ground(left.x, left.z), 4)
  })

  it('flat raised ground: both legs bend, the pelvis stays; steeper than 45°: the sole stays flat', () => {
    const s = ikScene()
    const { plugin, b } = s
    plugin.step()
    const pelvis0 = positionOf(plugin, b, 'pelvis').y
    plugin.setIK(b, 'feet', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground: () => 0.12 })
    plugin.step()
    for (const foot of ['foot.L', 'foot.R'])
      expect(positionOf(plugin, b, foot).y).toBeCloseTo(ANKLE + 0.12, 4)
    expect(positionOf(plugin, b, 'pelvis').y).toBeCloseTo(pelvis0, 5)
    plugin.setIK(b, 'feet', {
      kind: 'feet',
      left: 'foot.L',
      right: 'foot.R',
      ground: (x) => 0.1 + 2 * (x - 2),
    })
    plugin.step()
    expect(soleNormal(s, b, 'foot.L').angleTo(new Vector3(0, 1, 0))).toBeLessThan(1e-4)
  })
})

describe("'feet' on the physics world", () => {
  it('a step under one foot and a slope under the other, by rays down the cannon-es world', () => {
    const s = ikScene({ physics: true })
    const { plugin, b } = s
    // A step 0.15 high under the left foot (x ≈ 2.1), a slab turned 10° about x under the right (x ≈ 1.9).
    const step = new Body({
      mass: 0,
      position: new Vec3(2.2, 0.075, 0),
      shape: new Box(new Vec3(0.1, 0.075, 0.3)),
    })
    const slope = new Body({
      mass: 0,
      position: new Vec3(1.8, 0, 0),
      shape: new Box(new Vec3(0.1, 0.05, 0.3)),
    })
    slope.quaternion.setFromEuler(0.1745329, 0, 0)
    plugin.physics.addBody(step)
    plugin.physics.addBody(slope)
    plugin.step()
    plugin.setIK(b, 'feet', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground: 'physics' })
    plugin.step()
    const left = positionOf(plugin, b, 'foot.L')
    expect(left.y).toBeCloseTo(ANKLE + 0.15, 4)
    expect(soleNormal(s, b, 'foot.L').angleTo(new Vector3(0, 1, 0))).toBeLessThan(1e-4)
    // The slab's top face: height at the foot's z, normal its +y.
    const right = positionOf(plugin, b, 'foot.R')
    const normal = new Vector3(0, 1, 0).applyAxisAngle(new Vector3(1, 0, 0), 0.1745329)
    const top = 0.05 / Math.cos(0.1745329) - right.z * Math.tan(0.1745329)
    expect(right.y).toBeCloseTo(ANKLE + top, 4)
    expect(soleNormal(s, b, 'foot.R').angleTo(normal)).toBeLessThan(1e-4)
  })
})

describe('targets, weights and the other kinds', () => {
  it('a scene node as target: the hand follows it as the game moves it', () => {
    const { plugin, a } = ikScene()
    const ball = addEntity(plugin.world)
    addSceneNode(plugin.sceneGraph, ball)
    const n = plugin.stores.SceneNode
    plugin.setIK(a, 'hand', { kind: 'two-bone', joint: 'hand.L', target: { entity: ball } })
    for (const [x, y, z] of [
      [0.4, 1.3, 0.3],
      [0.3, 1.6, 0.35],
      [0.5, 1.1, 0.1],
    ] as const) {
      n.translation.set([x, y, z], 3 * ball)
      n.dirty[ball] = 1
      plugin.step()
      expect(positionOf(plugin, a, 'hand.L').distanceTo(new Vector3(x, y, z))).toBeLessThan(TOL)
    }
  })

  it("the weight ramps as a layer's: 30 steps for 0.5 s at 60 Hz, kept when set again with the same weight", () => {
    const { plugin, a } = ikScene()
    plugin.pause(a)
    plugin.step()
    const start = positionOf(plugin, a, 'hand.L')
    const target = new Vector3(0.35, 1.3, 0.35)
    const set = (): void =>
      plugin.setIK(a, 'hand', {
        kind: 'two-bone',
        joint: 'hand.L',
        target: [0.35, 1.3, 0.35],
        fadeSeconds: 0.5,
      })
    set()
    const distances: number[] = []
    for (let i = 0; i < 30; i++) {
      if (i === 10) set() // the same weight: the ramp goes on
      plugin.step()
      distances.push(positionOf(plugin, a, 'hand.L').distanceTo(target))
    }
    expect(distances[0]).toBeGreaterThan(0.9 * start.distanceTo(target))
    for (let i = 1; i < 29; i++) expect(distances[i]).toBeLessThan(distances[i - 1]!)
    expect(distances[28]).toBeGreaterThan(TOL)
    expect(distances[29]).toBeLessThan(TOL)
    // Removing it gives the paused clip's pose back on the next step.
    plugin.setIK(a, 'hand', null)
    plugin.step()
    expect(positionOf(plugin, a, 'hand.L').distanceTo(start)).toBeLessThan(1e-6)
  })

  it('aim over a chain: the neck and chest take their share, the head finishes the turn', () => {
    const plain = ikScene()
    const aimed = ikScene()
    const target = new Vector3(1.5, 2.2, 1)
    aimed.plugin.setIK(aimed.a, 'look', {
      kind: 'aim',
      joint: 'head',
      axis: [0, 0, 1],
      up: [0, 1, 0],
      target: [target.x, target.y, target.z],
      chain: [
        { joint: 'chest', weight: 0.3 },
        { joint: 'neck', weight: 0.5 },
      ],
    })
    plain.plugin.step()
    aimed.plugin.step()
    const head = aimed.plugin.jointEntity(aimed.a, 'head')
    const forward = new Vector3(0, 0, 1).transformDirection(worldOf(aimed.plugin, head))
    const want = target
      .clone()
      .sub(positionOf(aimed.plugin, aimed.a, 'head'))
      .normalize()
    expect(forward.angleTo(want)).toBeLessThan(1e-4)
    // Up kept towards +y: the head's x axis stays horizontal.
    expect(Math.abs(new Vector3(1, 0, 0).transformDirection(worldOf(aimed.plugin, head)).y)).toBeLessThan(
      1e-4,
    )
    // The chest and neck turned too (their world rotations differ from the animation's).
    for (const j of ['chest', 'neck']) {
      const q = (p: typeof plain.plugin, c: number) => worldOf(p, p.jointEntity(c, j)).elements.slice(0, 11)
      expect(q(aimed.plugin, aimed.a)).not.toEqual(q(plain.plugin, plain.a))
    }
  })

  it.each(['fabrik', 'ccd'] as const)('chain IK (%s) reaches a target with the arm as a chain', (method) => {
    const { plugin, a } = ikScene()
    const target = new Vector3(-0.45, 1.25, 0.25)
    plugin.setIK(a, 'arm', {
      kind: 'chain',
      joints: ['upperArm.R', 'forearm.R', 'hand.R'],
      target: [target.x, target.y, target.z],
      method,
      iterations: 40,
      tolerance: 1e-5,
    })
    plugin.step()
    expect(positionOf(plugin, a, 'hand.R').distanceTo(target)).toBeLessThan(TOL)
  })
})
