/**
 * Powered ragdolls (src/physics/motors.ts): joint motors drive each body towards the animated pose. With the root
 * held (kinematic, the balance aid) at strength 1, every joint's local rotation tracks its clip within 10° on the
 * Fox and RobotExpressive; with the root free, the motors keep the pose while the character falls under a hit
 * (a limp one loses it); strength 0 is the limp ragdoll bit for bit; the setter changes strength per subtree
 * while ragdolling; snapshots restore it.
 *
 * The independent side: the angle between the ANIM and PHYS local rotations of each joint with a body (the
 * pose the ragdoll reads back against the clip's), with Math.acos; heights from the scene graph.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { AnimationError } from '../../src/errors.ts'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { POSE_ANIM, POSE_PHYS, poseOffset } from '../../components/Pose.ts'
import type { RagdollMotorOptions } from '../../plugin/ragdollControl.ts'
import { characterSize, restoreAndStep, worldPosition } from '../helpers/ragdollLimits.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

const RIGS = {
  Fox: { asset: () => fox, scale: 0.01, chest: 'b_Spine02_03' },
  RobotExpressive: { asset: () => robot, scale: 0.4, chest: 'Torso' },
}

/** Angle (degrees) between the clip's and the ragdoll's local rotation of every joint that has a body. */
function jointErrors(p: AnimationPlugin, c: number, names?: string[]): number[] {
  const ctx = contextOf(p)
  const rt = ctx.ragdolls[c]!
  const r = ragdollInstance(rt.instance)!
  const { count, base } = { count: p.stores.Pose.count[c]!, base: p.stores.Pose.base[c]! }
  const data = ctx.pool.data
  const out: number[] = []
  r.bodies.forEach((_, b) => {
    const j = r.bodyJoint[b]!
    names?.push(ctx.assets[p.stores.Pose.asset[c]!]!.asset.nodes[rt.bodies[b]!.node]!.name)
    const a = poseOffset(base, count, POSE_ANIM) + j * 10 + 3
    const q = poseOffset(base, count, POSE_PHYS) + j * 10 + 3
    let dot = 0
    for (let k = 0; k < 4; k++) dot += data[a + k]! * data[q + k]!
    out.push((2 * Math.acos(Math.min(1, Math.abs(dot))) * 180) / Math.PI)
  })
  return out
}

function character(p: AnimationPlugin, asset: AnimationAsset, scale: number, clip: string, at: number[]) {
  const c = p.addCharacter(asset)
  p.setTransform(c, { position: [at[0]!, at[1]!, at[2]!], scale: [scale, scale, scale] })
  p.play(c, clip)
  return c
}

const problems = (p: AnimationPlugin) => p.events.filter((e) => !isClipEvent(e)).map((e) => e.message)

describe('powered ragdolls', () => {
  for (const [name, clip] of [
    ['Fox', 'Walk'],
    ['Fox', 'Run'],
    ['RobotExpressive', 'Walking'],
    ['RobotExpressive', 'Dance'],
  ] as const) {
    it(`${name} ${clip}: at strength 1 with the root held, every joint tracks its clip within 10°`, () => {
      const rig = RIGS[name]
      const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
      // Held 1 m up, so that the feet swing free of the ground: tracking, not standing, is measured.
      const c = character(p, rig.asset(), rig.scale, clip, [0, 1, 0])
      for (let s = 0; s < 5; s++) p.step()
      p.ragdoll(c, { motors: { strength: 1, holdRoot: true } })
      const names: string[] = []
      const worst: number[] = []
      for (let s = 0; s < 180; s++) {
        p.step()
        const e = jointErrors(p, c, s === 0 ? names : undefined)
        // From 0.1 s on (the weight ramps over 0.2 s; the motors act from the first step).
        if (s >= 6) e.forEach((x, i) => (worst[i] = Math.max(worst[i] ?? 0, x)))
      }
      const table = names.map((n, i) => `${n} ${worst[i]!.toFixed(1)}°`).join(', ')
      expect(Math.max(...worst), table).toBeLessThanOrEqual(10)
      expect(problems(p)).toEqual([])
    })
  }

  for (const name of ['Fox', 'RobotExpressive'] as const) {
    it(`${name}: with the root free, a hit makes it stumble and fall and the motors keep the pose (limp: not)`, () => {
      const rig = RIGS[name]
      const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
      const clip = name === 'Fox' ? 'Walk' : 'Walking'
      const run = [0, 1].map((i) => {
        const c = character(p, rig.asset(), rig.scale, clip, [i * 5, 0, 0])
        return { c, sum: 0, count: 0, low: Infinity, start: [0, 0, 0], moved: 0 }
      })
      for (let s = 0; s < 5; s++) p.step()
      const size = characterSize(p, run[0]!.c, rig.asset())
      const pelvis = (c: number) => contextOf(p).ragdolls[c]!.bodies[0]!.node
      run.forEach(({ c }, i) =>
        p.ragdoll(c, {
          motors: { strength: i === 0 ? 1 : 0 },
          impulse: { joint: rig.chest, impulse: [12, 0, 6] },
        }),
      )
      for (const x of run) x.start = worldPosition(p, p.jointEntity(x.c, pelvis(x.c)))
      for (let s = 0; s < 120; s++) {
        p.step()
        for (const x of run) {
          const e = jointErrors(p, x.c)
          x.sum += e.reduce((a, b) => a + b, 0)
          x.count += e.length
          const at = worldPosition(p, p.jointEntity(x.c, pelvis(x.c)))
          x.low = Math.min(x.low, at[1])
          x.moved = Math.max(x.moved, Math.hypot(at[0] - x.start[0]!, at[2] - x.start[2]!))
        }
      }
      const [powered, limp] = run as [(typeof run)[0], (typeof run)[0]]
      // It falls: the pelvis ends up less than half as high, and was pushed along.
      expect(powered.low / powered.start[1]!, 'lowest pelvis / standing pelvis').toBeLessThan(0.5)
      expect(powered.moved / size, 'pelvis pushed, in sizes').toBeGreaterThan(0.1)
      // The pose: mean joint error against the clip, degrees.
      expect(powered.sum / powered.count).toBeLessThan(15)
      expect(limp.sum / limp.count).toBeGreaterThan(25)
      expect(problems(p)).toEqual([])
    })
  }

  it('strength 0 is the limp ragdoll, body for body, bit for bit', () => {
    const positions = (motors: RagdollMotorOptions | undefined) => {
      const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
      const c = character(p, robot, 0.4, 'Walking', [0, 0, 0])
      for (let s = 0; s < 5; s++) p.step()
      p.ragdoll(c, { motors, impulse: { joint: 'Torso', impulse: [8, 0, 0] } })
      for (let s = 0; s < 150; s++) p.step()
      return ragdollInstance(contextOf(p).ragdolls[c]!.instance)!.bodies.flatMap((b) => [
        ...b.position.toArray(),
        b.quaternion.w,
      ])
    }
    expect(positions({ strength: 0 })).toEqual(positions(undefined))
  })

  it('setRagdollMotors powers a limp ragdoll joint by joint; a snapshot restores motors, centres and a held root', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
    const c = character(p, robot, 0.4, 'Walking', [0, 1, 0])
    for (let s = 0; s < 5; s++) p.step()
    p.ragdoll(c)
    for (let s = 0; s < 30; s++) p.step()
    p.setRagdollMotors(c, { strength: 1, joints: 'UpperArm.L', holdRoot: true })
    for (let s = 0; s < 30; s++) p.step()
    const names: string[] = []
    const e = jointErrors(p, c, names)
    const arm = ['UpperArm.L', 'LowerArm.L']
    for (const n of arm) expect(e[names.indexOf(n)], n).toBeLessThan(10)
    // The other arm hangs limp from the held root's chest.
    expect(e[names.indexOf('UpperArm.R')]).toBeGreaterThan(20)
    const run = restoreAndStep(p, [robot], 40, (q, k) => k === 20 && q.setRagdollMotors(c, { strength: 0.5 }))
    expect(run.diverged, 'first step whose hashes differ (0: the snapshot bytes)').toBe(-1)
    expect(problems(p)).toEqual([])
  })

  it('rejects a bad strength, holdRoot or joint, and a character not ragdolling, changing nothing', () => {
    const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
    const c = character(p, robot, 0.4, 'Walking', [0, 0, 0])
    const idle = character(p, robot, 0.4, 'Walking', [3, 0, 0])
    p.step()
    p.ragdoll(c)
    p.step()
    const hash = p.hash()
    for (const [who, o] of [
      [c, { strength: -1 }],
      [c, { strength: 101 }],
      [c, { strength: NaN }],
      [c, { strength: 1, holdRoot: 1 }],
      [c, { strength: 1, joints: 'nope' }],
      [idle, { strength: 1 }],
    ] as const) {
      expect(() => p.setRagdollMotors(who, o as never), JSON.stringify(o)).toThrow(AnimationError)
    }
    expect(() => p.ragdoll(idle, { motors: { strength: 'x' } as never })).toThrow(AnimationError)
    expect(p.hash()).toBe(hash)
  })
})
