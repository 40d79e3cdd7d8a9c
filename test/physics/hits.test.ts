/**
 * Hit reactions (plugin/hitReactions.ts): `hit(character, joint, impulse, { recoverSeconds })` on a character
 * that is not ragdolling makes the limb the joint belongs to physical, pinned to its animated parent, with the
 * impulse; it blends back to the animation over recoverSeconds on its own. On RobotExpressive and the Fox, each
 * beside a twin that only animates: the limb moves away from its animated place along the hit, the rest of the
 * body matches the twin, and after recoverSeconds everything matches the twin again and the bodies are gone.
 *
 * The independent side: joint positions from the scene graph's world matrices against the twin's; which bodies
 * react is checked against the skeleton's own hierarchy (node names), not the plugin's choice.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { AnimationError } from '../../src/errors.ts'
import { contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { RAGDOLL_FALLING, RAGDOLL_OFF } from '../../components/Ragdoll.ts'
import { fromTwin, largestGap, restoreAndStep, twinScene, type TwinScene } from '../helpers/ragdollLimits.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

const node = (asset: AnimationAsset, name: string) => asset.nodes.findIndex((n) => n.name === name)

/** The offset of joint `name` from the twin's, in sizes ([x, y, z]). */
const offset = (s: TwinScene, name: string): number[] => fromTwin(s, node(s.asset, name))

const length = (v: number[]) => Math.hypot(...v)

/** Skinned joint names at or under the node named `root`. */
function namesUnder(asset: AnimationAsset, root: string): Set<string> {
  const r = node(asset, root)
  const out = new Set<string>()
  for (const j of asset.skeletons[0]!.joints)
    for (let a = j; a >= 0; a = asset.nodes[a]!.parent) if (a === r) out.add(asset.nodes[j]!.name)
  return out
}

const problems = (p: AnimationPlugin) => p.events.filter((e) => !isClipEvent(e)).map((e) => e.message)

describe('hit reactions', () => {
  for (const [name, asset, scale, clip, joint, limb, impulse] of [
    ['RobotExpressive', () => robot, 0.4, 'Walking', 'Palm1.L', 'UpperArm.L', [6, 0, 0]],
    ['Fox', () => fox, 0.01, 'Walk', 'b_Head_05', 'b_Neck_04', [0, 2, -4]],
  ] as const) {
    it(`${name}: a hit at ${joint} moves the ${limb} limb along it, and it blends back in recoverSeconds`, () => {
      const s = twinScene(asset(), scale, clip)
      s.p.hit(s.c, joint, [...impulse], { recoverSeconds: 0.5 })
      const rt = contextOf(s.p).ragdolls[s.c]!
      // The part that reacts is the limb: its bodies are exactly the description's bodies under it.
      const limbJoints = namesUnder(s.asset, limb)
      expect(rt.bodies.map((b) => s.asset.nodes[b.node]!.name).every((n) => limbJoints.has(n))).toBe(true)
      const all = rt.description.filter((b) => limbJoints.has(s.asset.nodes[b.node]!.name))
      expect(rt.bodies.length).toBe(all.length)
      let along = 0
      let rest = 0
      let gap = 0
      const direction = impulse.map((x) => x / length([...impulse]))
      const others = s.asset.skeletons[0]!.joints.filter((j) => !limbJoints.has(s.asset.nodes[j]!.name))
      // 0.1 s to take over, 0.5 s back: off at ~0.6 s; 50 steps (0.83 s) leave margin.
      for (let k = 0; k < 50; k++) {
        s.p.step()
        const d = offset(s, joint)
        along = Math.max(along, d[0]! * direction[0]! + d[1]! * direction[1]! + d[2]! * direction[2]!)
        for (const j of others) rest = Math.max(rest, length(offset(s, s.asset.nodes[j]!.name)))
        gap = Math.max(gap, largestGap(s.p, s.c) / s.size)
      }
      expect(along, `${joint} along the hit, in sizes`).toBeGreaterThan(0.03)
      expect(rest, 'the rest of the body vs the twin').toBeLessThan(1e-5)
      expect(gap).toBeLessThanOrEqual(0.03 / 1.8)
      expect(s.p.stores.Ragdoll.active[s.c]).toBe(RAGDOLL_OFF)
      expect(s.p.physics.bodies.length).toBe(1)
      expect(length(offset(s, joint)), 'back on the animation').toBeLessThan(1e-5)
      expect(problems(s.p)).toEqual([])
    })
  }

  it('picks the limb by the body hierarchy: head → neck, chest → the trunk above the legs, Body → all of it', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    const reacting = (joint: string) => {
      s.p.hit(s.c, joint, [1, 0, 0])
      const rt = contextOf(s.p).ragdolls[s.c]!
      const names = rt.bodies.map((b) => robot.nodes[b.node]!.name)
      const description = rt.description.map((b) => robot.nodes[b.node]!.name)
      for (let k = 0; k < 60; k++) s.p.step()
      expect(s.p.stores.Ragdoll.active[s.c], `${joint} recovered`).toBe(RAGDOLL_OFF)
      return { names, description }
    }
    expect(reacting('Head').names).toEqual(['Neck', 'Head'])
    // The torso has three child bodies (neck, arms); the abdomen and hips hang alone up to the Body, from
    // which the legs branch too: the hips' subtree reacts.
    const torso = reacting('Torso')
    const hips = namesUnder(robot, 'Hips')
    expect(torso.names).toEqual(torso.description.filter((n) => hips.has(n)))
    // Its feet hang from the root bone, outside Body's subtree, but their bodies hang from the shins: in.
    const body = reacting('Body')
    expect(body.names).toEqual(body.description)
  })

  it('a second hit elsewhere joins its limb and restarts the recovery; a snapshot mid-reaction restores', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    s.p.hit(s.c, 'Palm1.L', [4, 0, 0], { recoverSeconds: 0.5 })
    for (let k = 0; k < 20; k++) s.p.step()
    s.p.hit(s.c, 'Head', [0, 0, -3], { recoverSeconds: 0.5 })
    expect(s.p.stores.Ragdoll.active[s.c]).toBe(RAGDOLL_FALLING)
    const run = restoreAndStep(s.p, [robot], 10)
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    expect(ragdollInstance(contextOf(s.p).ragdolls[s.c]!.instance)!.anchors.length).toBe(2)
    for (let k = 0; k < 40; k++) s.p.step()
    expect(s.p.stores.Ragdoll.active[s.c]).toBe(RAGDOLL_OFF)
    expect(length(offset(s, 'Head'))).toBeLessThan(1e-5)
    expect(problems(s.p)).toEqual([])
  })

  it('on a ragdolling character the hit applies and nothing else changes', () => {
    const s = twinScene(fox, 0.01, 'Walk')
    s.p.ragdoll(s.c)
    for (let k = 0; k < 5; k++) s.p.step()
    const rt = contextOf(s.p).ragdolls[s.c]!
    const before = ragdollInstance(rt.instance)!.bodies.map((b) => b.velocity.clone())
    const weight = s.p.stores.Ragdoll.weight[s.c]
    s.p.hit(s.c, 'b_Spine02_03', [5, 0, 0], { recoverSeconds: 0.1 })
    expect(ragdollInstance(rt.instance)!.bodies.some((b, i) => b.velocity.x - before[i]!.x > 0.1)).toBe(true)
    expect([s.p.stores.Ragdoll.weight[s.c], s.p.stores.Ragdoll.active[s.c], rt.recoverRate]).toEqual([
      weight,
      RAGDOLL_FALLING,
      0,
    ])
  })

  it('rejects a bad joint, impulse or option, changing nothing', () => {
    const s = twinScene(robot, 0.4, 'Walking')
    const hash = s.p.hash()
    for (const call of [
      () => s.p.hit(s.c, 'nope', [1, 0, 0]),
      () => s.p.hit(s.c, 'Head', [1, NaN, 0]),
      () => s.p.hit(s.c, 'Head', [1, 0, 0], { recoverSeconds: 0 }),
      () => s.p.hit(s.c, 'Head', [1, 0, 0], { recoverSeconds: Infinity }),
      () => s.p.hit(s.c, 'Head', [1, 0, 0], { root: 'PoleTarget.L' }),
      () => s.p.hit(s.c, 'Head', [1, 0, 0], { root: 'UpperArm.L' }),
    ])
      expect(call).toThrow(AnimationError)
    expect(s.p.hash()).toBe(hash)
  })
})
