/**
 * Root motion (issue 16): a travelling clip moves the character entity, the pose stays over it, no snap back at
 * loop wraps, in either direction and ping-pong; 'horizontal' against 'full'; the heading; apply: false with
 * rootMotionDelta; the ragdoll pause; snapshot and restore. Blends (fades, layers, blend spaces) are in
 * rootMotionBlend.test.ts.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { rootMotionJoint } from '../../plugin/rootMotion.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../../components/Pose.ts'
import { FOX_HIPS, ROBOT, travellingFox } from '../helpers/travel.ts'

let fox: AnimationAsset
beforeAll(async () => {
  fox = await travellingFox()
})

const YAW_90: [number, number, number, number] = [0, Math.SQRT1_2, 0, Math.SQRT1_2]
/** The Fox's Walk, seconds; the travelling walk goes 70 cm forward a loop. */
const WALK = 0.7083333134651184
const PER_LOOP = 70

function foxPlugin(): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 1024 })
}

/** The world position of a character's hips after each of `steps` steps. */
function hipsPath(plugin: AnimationPlugin, c: number, steps: number): number[][] {
  const hips = plugin.jointEntity(c, FOX_HIPS)
  const world = plugin.stores.SceneNode.world
  const out: number[][] = []
  for (let i = 0; i < steps; i++) {
    plugin.step()
    out.push([world[hips * 16 + 12]!, world[hips * 16 + 13]!, world[hips * 16 + 14]!])
  }
  return out
}

/** Lengths of the steps between consecutive points, and their mean. */
function stepLengths(path: number[][]): { lengths: number[]; mean: number; max: number } {
  const lengths = path.slice(1).map((p, i) => Math.hypot(...p.map((x, k) => x - path[i]![k]!)))
  const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length
  return { lengths, mean, max: Math.max(...lengths) }
}

describe("root motion: a travelling walk (the issue's check)", () => {
  // Five loops and a bit: 3.54 s.
  const STEPS = 213
  const loops = (STEPS - 2) / 60 / WALK // the first step shows the start (play's hold), then 212 advance

  it("on: the hips move smoothly along +x, travel the clip's distance, and the entity carries it", () => {
    const plugin = foxPlugin()
    const c = plugin.addCharacter(fox)
    plugin.setTransform(c, { rotation: YAW_90 }) // forward (+z) is the world's +x
    plugin.play(c, 'WalkForward')
    plugin.setRootMotion(c, { mode: 'horizontal' })
    const path = hipsPath(plugin, c, STEPS)
    const { mean, max } = stepLengths(path)
    expect(max).toBeLessThanOrEqual(3 * mean)
    const travelled = path[STEPS - 1]![0]! - path[0]![0]!
    expect(Math.abs(travelled / (loops * PER_LOOP) - 1)).toBeLessThan(0.05)
    // Along +x: sideways sway only.
    for (const p of path) expect(Math.abs(p[2]!)).toBeLessThan(5)
    const entity = plugin.getTransform(c).position
    expect(Math.abs(entity[0] / (loops * PER_LOOP) - 1)).toBeLessThan(0.05)
    // The pose stays over the entity: the hips at their rest offset (26.7 cm behind, here −x), give or take
    // the walk's sway.
    expect(Math.abs(path[STEPS - 1]![0]! - entity[0] + 26.748)).toBeLessThan(3)
  })

  it('off: the same clip snaps back at each loop', () => {
    const plugin = foxPlugin()
    const c = plugin.addCharacter(fox)
    plugin.setTransform(c, { rotation: YAW_90 })
    plugin.play(c, 'WalkForward')
    const path = hipsPath(plugin, c, STEPS)
    const { lengths, mean } = stepLengths(path)
    // One jump back of a loop's travel (70 cm) per wrap: four of them in 4.96 loops.
    const snaps = lengths.filter((l) => l > 3 * mean)
    expect(snaps.length).toBe(Math.floor(loops))
    for (const l of snaps) expect(l).toBeGreaterThan(0.9 * PER_LOOP)
    expect(Math.abs(path[STEPS - 1]![0]! - path[0]![0]!)).toBeLessThan(PER_LOOP)
    expect(plugin.getTransform(c).position).toEqual([0, 0, 0])
  })

  it('backwards (negative speed): travels back as smoothly; ping-pong goes forth and back', () => {
    const plugin = foxPlugin()
    const back = plugin.addCharacter(fox)
    plugin.play(back, 'WalkForward', { speed: -1 })
    plugin.setRootMotion(back, { mode: 'horizontal' })
    const pong = plugin.addCharacter(fox)
    plugin.play(pong, 'WalkForward', { loop: 'pingpong' })
    plugin.setRootMotion(pong, { mode: 'horizontal' })
    const hipsBack = plugin.jointEntity(back, FOX_HIPS)
    const hipsPong = plugin.jointEntity(pong, FOX_HIPS)
    const world = plugin.stores.SceneNode.world
    const z = (e: number) => world[e * 16 + 14]!
    const pathBack: number[][] = []
    const pathPong: number[][] = []
    for (let i = 0; i < STEPS; i++) {
      plugin.step()
      pathBack.push([world[hipsBack * 16 + 12]!, world[hipsBack * 16 + 13]!, z(hipsBack)])
      pathPong.push([world[hipsPong * 16 + 12]!, world[hipsPong * 16 + 13]!, z(hipsPong)])
    }
    const b = stepLengths(pathBack)
    expect(b.max).toBeLessThanOrEqual(3 * b.mean)
    const backwards = pathBack[STEPS - 1]![2]! - pathBack[0]![2]!
    expect(Math.abs(backwards / (-loops * PER_LOOP) - 1)).toBeLessThan(0.05)
    const p = stepLengths(pathPong)
    expect(p.max).toBeLessThanOrEqual(3 * p.mean)
    // Ping-pong retraces the clip: +70 cm after one loop's time, back near the start after two.
    const at = (seconds: number) => pathPong[Math.round(seconds * 60) + 1]![2]! - pathPong[0]![2]!
    expect(at(WALK)).toBeGreaterThan(0.95 * PER_LOOP)
    expect(Math.abs(at(2 * WALK))).toBeLessThan(0.05 * PER_LOOP)
    expect(at(3 * WALK)).toBeGreaterThan(0.95 * PER_LOOP)
  })
})

describe("root motion: 'horizontal' and 'full'", () => {
  it("horizontal keeps the walk's bob in the pose; full gives the entity everything, the joint stays at rest", () => {
    const plugin = foxPlugin()
    const flat = plugin.addCharacter(fox)
    const full = plugin.addCharacter(fox)
    const off = plugin.addCharacter(fox)
    for (const c of [flat, full, off]) plugin.play(c, 'WalkForward')
    plugin.setRootMotion(flat, { mode: 'horizontal' })
    plugin.setRootMotion(full, { mode: 'full' })
    const ctx = contextOf(plugin)
    const { Pose } = plugin.stores
    const world = plugin.stores.SceneNode.world
    const rig = ctx.assets[Pose.asset[flat]!]!
    const hipsJoint = rig.nodeJoint[4]! // b_Hip_01
    const hipsOf = (c: number) => plugin.jointEntity(c, FOX_HIPS)
    expect(ctx.pool.joints[Pose.base[flat]! + hipsJoint]).toBe(hipsOf(flat))
    const rest = rig.rest
    const matrix = (c: number) => Array.from(world.subarray(hipsOf(c) * 16, hipsOf(c) * 16 + 16))
    const heights: number[] = []
    const entityHeights: number[] = []
    let placed: number[] = []
    // 40 steps: before the first wrap (at 42.5).
    for (let i = 0; i < 40; i++) {
      plugin.step()
      // Horizontal: the entity stays on y = 0 and the hips' height is the clip's, as without root motion.
      expect(plugin.getTransform(flat).position[1]).toBe(0)
      expect(Math.abs(matrix(flat)[13]! - matrix(off)[13]!)).toBeLessThan(1e-3)
      heights.push(matrix(flat)[13]!)
      entityHeights.push(plugin.getTransform(full).position[1])
      // Full: the hips' local translation and rotation are the rest pose's, exactly …
      const anim = poseOffset(Pose.base[full]!, Pose.count[full]!, POSE_ANIM) + hipsJoint * JOINT_STRIDE
      const j = hipsJoint * JOINT_STRIDE
      expect(Array.from(ctx.pool.data.subarray(anim, anim + 7))).toEqual(Array.from(rest.subarray(j, j + 7)))
      // … and the entity moves them as the clip does: their world matrix is the clip's (the character without
      // root motion) placed once, by where root motion started (the rest pose against the clip's start).
      if (i === 0) placed = multiply(matrix(full), invert(matrix(off)))
      const expected = multiply(placed, matrix(off))
      matrix(full).forEach((x, k) => expect(Math.abs(x - expected[k]!)).toBeLessThan(2e-3))
    }
    const range = (xs: number[]) => Math.max(...xs) - Math.min(...xs)
    // The Walk bobs its hips ~2 cm: in the pose with 'horizontal', in the entity with 'full'.
    expect(range(heights)).toBeGreaterThan(1)
    expect(range(entityHeights)).toBeGreaterThan(1)
  })

  it('takes the heading out: a walk that turns 90° a loop turns the entity, the hips stay where they are', () => {
    const plugin = foxPlugin()
    const c = plugin.addCharacter(fox)
    plugin.play(c, 'WalkTurning')
    plugin.setRootMotion(c, { mode: 'horizontal' })
    const off = plugin.addCharacter(fox)
    plugin.play(off, 'WalkTurning')
    // Where the entity's forward (+z) points, about +y.
    const heading = () => {
      const [x, y, z, w] = plugin.getTransform(c).rotation
      return Math.atan2(2 * (x * z + w * y), 1 - 2 * (x * x + y * y))
    }
    const path = hipsPath(plugin, c, 1)
    let turned = 0
    const turns: number[] = []
    let last = heading()
    const steps = Math.round(4 * WALK * 60)
    for (let i = 0; i < steps; i++) {
      path.push(...hipsPath(plugin, c, 1))
      const h = heading()
      let d = h - last
      if (d > Math.PI) d -= 2 * Math.PI
      if (d < -Math.PI) d += 2 * Math.PI
      turned += d
      turns.push(Math.abs(d))
      last = h
    }
    // Four loops of 90°: a full turn, give or take the walk's own sway of its hips (a few degrees).
    expect(Math.abs(turned - 2 * Math.PI)).toBeLessThan(0.1)
    // Turning about the hips, not about the character's origin 27 cm ahead: they stay within their sway.
    const xs = path.map((p) => p[0]!)
    const zs = path.map((p) => p[2]!)
    expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(8)
    expect(Math.max(...zs) - Math.min(...zs)).toBeLessThan(8)
    // The entity turns smoothly: no step turns it more than 3× its mean turn (without root motion the pose snaps
    // back 90° at each wrap, and its entity never turns).
    const mean = turns.reduce((a, b) => a + b, 0) / turns.length
    expect(Math.max(...turns)).toBeLessThanOrEqual(3 * mean)
    expect(plugin.getTransform(off).rotation).toEqual([0, 0, 0, 1])
  })

  it('the default joint is the highest skin joint the clips translate: the Fox b_Hip_01, the robot Body', async () => {
    const plugin = foxPlugin()
    const robot = await loadAsset(ROBOT)
    const ctx = contextOf(plugin)
    const foxRig = ctx.assets[plugin.addAsset(fox).id]!
    const robotRig = ctx.assets[plugin.addAsset(robot).id]!
    const name = (rig: typeof foxRig, j: number) => rig.asset.nodes[rig.jointNodes[j]!]!.name
    expect(name(foxRig, rootMotionJoint(ctx, foxRig))).toBe('b_Hip_01')
    expect(name(robotRig, rootMotionJoint(ctx, robotRig))).toBe('Body')
    // Naming it gives the same simulation.
    const a = plugin.addCharacter(fox)
    const b = plugin.addCharacter(fox)
    plugin.play(a, 'WalkForward')
    plugin.play(b, 'WalkForward')
    plugin.setRootMotion(a, { mode: 'horizontal' })
    plugin.setRootMotion(b, { mode: 'horizontal', joint: FOX_HIPS })
    for (let i = 0; i < 50; i++) plugin.step()
    expect(plugin.getTransform(b)).toEqual(plugin.getTransform(a))
    // A joint that does not move gives no motion.
    plugin.setRootMotion(b, { mode: 'horizontal', joint: 'b_Root_00' })
    const before = plugin.getTransform(b)
    for (let i = 0; i < 50; i++) plugin.step()
    expect(plugin.getTransform(b)).toEqual(before)
  })
})

describe('root motion: apply: false and rootMotionDelta', () => {
  it("moves nothing; the delta is the one the entity would have moved by, in the character's space", () => {
    const plugin = foxPlugin()
    const moved = plugin.addCharacter(fox)
    const still = plugin.addCharacter(fox)
    const place = {
      position: [1, 0, 2] as [number, number, number],
      rotation: YAW_90,
      scale: [2, 2, 2] as [number, number, number],
    }
    for (const c of [moved, still]) {
      plugin.setTransform(c, place)
      plugin.play(c, 'WalkTurning')
      plugin.crossFade(c, 'WalkForward', 2)
    }
    plugin.setRootMotion(moved, { mode: 'horizontal' })
    plugin.setRootMotion(still, { mode: 'horizontal', apply: false })
    expect(plugin.rootMotionDelta(still)).toEqual({ translation: [0, 0, 0], rotation: [0, 0, 0, 1] })
    // The game's capsule, moved by the deltas in double.
    const p = [...place.position]
    let q = [...place.rotation]
    const rotate = (r: number[], v: number[]) => {
      const [x, y, z, w] = r as [number, number, number, number]
      const c = [2 * (y * v[2]! - z * v[1]!), 2 * (z * v[0]! - x * v[2]!), 2 * (x * v[1]! - y * v[0]!)]
      return [0, 1, 2].map(
        (k) => v[k]! + w * c[k]! + [y * c[2]! - z * c[1]!, z * c[0]! - x * c[2]!, x * c[1]! - y * c[0]!][k]!,
      )
    }
    const mul = (a: number[], b: number[]) => [
      a[3]! * b[0]! + a[0]! * b[3]! + a[1]! * b[2]! - a[2]! * b[1]!,
      a[3]! * b[1]! - a[0]! * b[2]! + a[1]! * b[3]! + a[2]! * b[0]!,
      a[3]! * b[2]! + a[0]! * b[1]! - a[1]! * b[0]! + a[2]! * b[3]!,
      a[3]! * b[3]! - a[0]! * b[0]! - a[1]! * b[1]! - a[2]! * b[2]!,
    ]
    for (let i = 0; i < 150; i++) {
      plugin.step()
      const d = plugin.rootMotionDelta(still)
      expect(d).toEqual(plugin.rootMotionDelta(moved))
      const v = rotate(
        q,
        d.translation.map((x) => 2 * x),
      )
      for (let k = 0; k < 3; k++) p[k]! += v[k]!
      q = mul(q, d.rotation)
    }
    expect(plugin.getTransform(still).position).toEqual(place.position)
    const got = plugin.getTransform(moved)
    for (let k = 0; k < 3; k++) expect(Math.abs(got.position[k]! - p[k]!)).toBeLessThan(1e-3)
    for (let k = 0; k < 4; k++) expect(Math.abs(got.rotation[k]! - q[k]!)).toBeLessThan(1e-5)
    // The still character's pose is taken out all the same: its hips stay over its entity.
    const hips = plugin.jointEntity(still, FOX_HIPS)
    const w = plugin.stores.SceneNode.world
    expect(Math.abs(w[hips * 16 + 12]! - 1 + 2 * 26.748)).toBeLessThan(6)
  })
})

/** a·b of column-major 4×4 matrices. */
function multiply(a: number[], b: number[]): number[] {
  const out = new Array<number>(16).fill(0)
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r]! += a[k * 4 + r]! * b[c * 4 + k]!
  return out
}

/** The inverse of a rigid column-major 4×4 matrix (rotation and translation). */
function invert(m: number[]): number[] {
  const out = new Array<number>(16).fill(0)
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[c * 4 + r] = m[r * 4 + c]!
  for (let r = 0; r < 3; r++) out[12 + r] = -(out[r]! * m[12]! + out[4 + r]! * m[13]! + out[8 + r]! * m[14]!)
  out[15] = 1
  return out
}
