/**
 * Partial ragdolls (issue 17): `ragdoll(character, { root })` makes a subtree physical while the rest keeps
 * animating, its top body pinned to the animated parent joint by a kinematic anchor. On RobotExpressive (an arm)
 * and the Fox (its neck and head), each beside a twin that only animates: the joints outside the subtree match
 * the twin's, the subtree's root joint stays where the animation holds it (within the gap limit, 3 cm per 1.8 m
 * of character), the limb hangs away from its animated place; growing the ragdoll and making it whole do not
 * pop the pose; snapshots restore bit for bit; getUp blends back in place.
 *
 * The independent side: joint positions from the scene graph's world matrices; the twin's pose is the reference.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { AnimationError } from '../../src/errors.ts'
import { contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import {
  fromTwin,
  largestGap,
  restoreAndStep,
  twinScene,
  worldPosition,
  type TwinScene,
} from '../helpers/ragdollLimits.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/** Distance, in sizes, between joint `node` of the character and of its twin. */
const apart = (s: TwinScene, node: number) => Math.hypot(...fromTwin(s, node))

const node = (asset: AnimationAsset, name: string) => asset.nodes.findIndex((n) => n.name === name)

/** Joint nodes at or under `root` (its skin's joints). */
function subtree(asset: AnimationAsset, root: number): Set<number> {
  const out = new Set<number>()
  for (const j of asset.skeletons[0]!.joints) {
    for (let a = j; a >= 0; a = asset.nodes[a]!.parent) if (a === root) out.add(j)
  }
  return out
}

const problems = (p: AnimationPlugin) => p.events.filter((e) => !isClipEvent(e)).map((e) => e.message)

const LIMIT = 0.03 / 1.8

describe('partial ragdolls', () => {
  for (const [name, asset, scale, clip, root, limb] of [
    ['RobotExpressive', () => robot, 0.4, 'Walking', 'UpperArm.L', 'Palm2.L'],
    ['Fox', () => fox, 0.01, 'Walk', 'b_Neck_04', 'b_Head_05'],
  ] as const) {
    it(`${name}: ${root} goes limp, pinned where the animation holds it; the rest animates as its twin`, () => {
      const s = twinScene(asset(), scale, clip)
      s.p.ragdoll(s.c, { root })
      const rt = contextOf(s.p).ragdolls[s.c]!
      const inside = subtree(s.asset, node(s.asset, root))
      let outside = 0
      let pinned = 0
      let hangs = 0
      let gap = 0
      for (let k = 0; k < 120; k++) {
        s.p.step()
        for (const j of s.asset.skeletons[0]!.joints)
          if (!inside.has(j)) outside = Math.max(outside, apart(s, j))
        if (k >= 6) {
          pinned = Math.max(pinned, apart(s, node(s.asset, root)))
          gap = Math.max(gap, largestGap(s.p, s.c) / s.size)
        }
        hangs = Math.max(hangs, apart(s, node(s.asset, limb)))
      }
      expect(ragdollInstance(rt.instance)!.anchors.length).toBe(1)
      expect(ragdollInstance(rt.instance)!.bodies.length).toBe(rt.bodies.length)
      expect(rt.bodies.length).toBeLessThan(rt.description.length)
      expect(problems(s.p)).toEqual([])
      // Float32 world matrices of a character 4 sizes away differ in the last bits only.
      expect(outside, 'joints outside the subtree vs the twin').toBeLessThan(1e-5)
      expect(pinned, `${root} vs its animated place`).toBeLessThanOrEqual(LIMIT)
      expect(gap, 'largest joint gap').toBeLessThanOrEqual(LIMIT)
      expect(hangs, `${limb} away from its animated place`).toBeGreaterThan(0.05)
    })
  }

  it('a hit at the hand-off snaps the Fox head back; placed far away, the limb comes along', () => {
    const s = twinScene(fox, 0.01, 'Walk')
    const head = node(fox, 'b_Head_05')
    // The Fox faces +z: a hit on the head (which rides on the neck's body) towards −z and up throws it back
    // (a hit at the neck's own joint is at the anchor's pivot, which takes it all). At rate 60, weight 1 at once.
    s.p.ragdoll(s.c, { root: 'b_Neck_04', rate: 60, impulse: { joint: 'b_Head_05', impulse: [0, 2, -4] } })
    let back = 0
    for (let k = 0; k < 20; k++) {
      s.p.step()
      const a = worldPosition(s.p, s.p.jointEntity(s.c, head))
      const b = worldPosition(s.p, s.p.jointEntity(s.twin, head))
      back = Math.max(back, (b[2] - a[2]) / s.size)
    }
    expect(back, 'head pushed back (−z) from its animated place, in sizes').toBeGreaterThan(0.04)
    // A teleport of 100 sizes: the anchor would need an absurd speed; the whole limb moves with it instead.
    s.p.setTransform(s.c, { position: [100 * s.size, 0, 0] })
    s.offset = (4 - 100) * s.size
    let pinned = 0
    for (let k = 0; k < 30; k++) {
      s.p.step()
      if (k >= 6) pinned = Math.max(pinned, apart(s, node(fox, 'b_Neck_04')))
    }
    expect(problems(s.p)).toEqual([])
    expect(pinned).toBeLessThanOrEqual(LIMIT)
  })

  it('grows arm by arm, then whole, without a pop: each joint moves no more in that step than the limb did before', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    const joints = Array.from(robot.skeletons[0]!.joints)
    const positions = () => joints.map((j) => worldPosition(s.p, s.p.jointEntity(s.c, j)))
    const largestMove = (a: number[][], b: number[][]) =>
      Math.max(...a.map((x, i) => Math.hypot(x[0]! - b[i]![0]!, x[1]! - b[i]![1]!, x[2]! - b[i]![2]!))) /
      s.size
    const ctx = contextOf(s.p)
    s.p.ragdoll(s.c, { root: 'UpperArm.L' })
    let before = positions()
    let normal = 0
    for (let k = 0; k < 40; k++) {
      s.p.step()
      const now = positions()
      normal = Math.max(normal, largestMove(now, before))
      before = now
    }
    for (const [grow, bodies, anchors] of [
      [{ root: 'UpperArm.R' }, 10, 2],
      [{}, ctx.ragdolls[s.c]!.description.length, 0],
    ] as const) {
      s.p.ragdoll(s.c, grow)
      expect(positions(), 'the call itself moves nothing').toEqual(before)
      s.p.step()
      const now = positions()
      expect(largestMove(now, before), JSON.stringify(grow)).toBeLessThanOrEqual(1.5 * normal)
      before = now
      const r = ragdollInstance(ctx.ragdolls[s.c]!.instance)!
      expect([r.bodies.length, r.anchors.length]).toEqual([bodies, anchors])
      for (let k = 0; k < 30; k++) s.p.step()
      before = positions()
    }
    expect(problems(s.p)).toEqual([])
  })

  it('restores a partial ragdoll mid-swing bit for bit, and getUp blends it back where it stands', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    s.p.ragdoll(s.c, { root: 'Neck', impulse: { joint: 'Head', impulse: [3, 0, -3] } })
    for (let k = 0; k < 15; k++) s.p.step()
    const run = restoreAndStep(s.p, [robot], 60, (q, k) => k === 30 && q.getUp(s.c, { rate: 4 }))
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    // Back to the animation after 1/4 s: bodies and anchors gone, the head with its twin's.
    expect(s.p.stores.Ragdoll.active[s.c]).toBe(RAGDOLL_OFF)
    expect(s.p.physics.bodies.length).toBe(1)
    expect(apart(s, node(robot, 'Head'))).toBeLessThan(1e-5)
    // Reported like a whole body's getUp, as standing, with no clip.
    const reports = s.p.events.filter((e) => e.kind === 'ragdoll-get-up')
    expect(reports.map((e) => [e.facing, e.clip, e.clipId, e.entity])).toEqual([['standing', '', -1, s.c]])
  })

  it("getUp on a partial ragdoll reports 'standing' and its clip; a snapshot keeps the report", () => {
    const s = twinScene(robot, 0.4, 'Walking')
    s.p.ragdoll(s.c, { root: 'UpperArm.L' })
    for (let k = 0; k < 10; k++) s.p.step()
    s.p.events.length = 0
    const at = s.p.hash()
    s.p.getUp(s.c, { clip: 'Wave' })
    expect(s.p.hash(), 'the report is in the hash').not.toBe(at)
    const reports = s.p.events.filter((e) => e.kind === 'ragdoll-get-up')
    expect(reports.map((e) => [e.facing, e.clip, e.clipId, e.entity])).toEqual([
      ['standing', 'Wave', s.p.clipId(s.c, 'Wave'), s.c],
    ])
    expect(reports[0]!.message).toMatch(/stands.*clip "Wave"/)
    const run = restoreAndStep(s.p, [robot], 20)
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    expect(run.copy.events.filter((e) => e.kind === 'ragdoll-get-up')).toEqual(reports)
  })

  it('a hit reaction recovers on its own without a get-up report', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    s.p.hit(s.c, 'Palm1.L', [3, 0, 0], { recoverSeconds: 0.2 })
    for (let k = 0; k < 40; k++) s.p.step()
    expect(s.p.stores.Ragdoll.active[s.c]).toBe(RAGDOLL_OFF)
    expect(s.p.events.filter((e) => e.kind === 'ragdoll-get-up')).toEqual([])
  })

  it('restores the moment between a call that grows the ragdoll and the step that rebuilds it', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    s.p.ragdoll(s.c, { root: 'UpperArm.L' })
    for (let k = 0; k < 10; k++) s.p.step()
    s.p.ragdoll(s.c, { root: 'Neck', impulse: { joint: 'Head', impulse: [2, 0, 0] } })
    s.p.applyImpulse(s.c, 'Palm1.L', [0, 1, 0])
    const run = restoreAndStep(s.p, [robot], 30)
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    expect(ragdollInstance(contextOf(run.copy).ragdolls[s.c]!.instance)!.anchors.length).toBe(2)
  })

  it('rejects a root without bodies and a hit outside the partial ragdoll, changing nothing', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    for (const root of ['PoleTarget.L', [], ['Neck', 'nope']]) {
      expect(() => s.p.ragdoll(s.c, { root: root as never }), JSON.stringify(root)).toThrow(AnimationError)
    }
    s.p.ragdoll(s.c, { root: 'UpperArm.L' })
    s.p.step()
    const hash = s.p.hash()
    const bytes = s.p.snapshot()
    expect(() => s.p.applyImpulse(s.c, 'Head', [1, 0, 0])).toThrow(/not in character \d+'s partial ragdoll/)
    expect(() =>
      s.p.ragdoll(s.c, { root: 'UpperArm.R', impulse: { joint: 'Head', impulse: [1, 0, 0] } }),
    ).toThrow(AnimationError)
    expect(s.p.hash()).toBe(hash)
    expect(s.p.snapshot()).toEqual(bytes)
  })
})
