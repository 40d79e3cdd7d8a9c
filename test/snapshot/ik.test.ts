/**
 * Pose edits and IK solvers in hash() and snapshots (snapshot/ik.ts): a restore, into the same plugin or a fresh
 * one, steps on with the same hashes (edits of a paused character and ramps under way included); every solver
 * number is in the hash; a failed setIK changes nothing; forged IKPS sections are refused, changing nothing.
 */
import { describe, expect, it } from 'vitest'
import { addEntity, createWorld } from 'bitecs'
import {
  addSceneNode,
  AnimationError,
  createAnimationPlugin,
  type AnimationPlugin,
} from '../../entry/index.ts'
import { makeHumanoidAsset } from '../helpers/humanoid.ts'
import type { IKOptions } from '../../plugin/ik.ts'
import { contextOf } from '../../entry/plugin.ts'
import { layoutsOf } from '../../snapshot/format.ts'
import { mapSnapshot } from '../helpers/snapshotMap.ts'
import { forge } from '../helpers/forge.ts'

const asset = makeHumanoidAsset()
const ground = (x: number, z: number): number => 0.05 * Math.sin(3 * x) + 0.1 * z

/** Two characters, one paused; every kind of solver, some ramping; a stage on the paused one. */
function setup(plugin: AnimationPlugin): { a: number; b: number; ball: number } {
  const a = plugin.addCharacter(asset)
  const b = plugin.addCharacter(asset)
  plugin.play(a, 'Walk')
  plugin.play(b, 'Idle')
  plugin.setTransform(b, { position: [2, 0, 1] })
  const ball = addEntity(plugin.world)
  addSceneNode(plugin.sceneGraph, ball)
  plugin.stores.SceneNode.translation.set([0.4, 1.3, 0.4], 3 * ball)
  plugin.stores.SceneNode.dirty[ball] = 1
  return { a, b, ball }
}

function solvers(ball: number): [string, IKOptions][] {
  return [
    ['hand', { kind: 'two-bone', joint: 'hand.L', target: { entity: ball }, fadeSeconds: 0.4, soften: 0.97 }],
    [
      'look',
      {
        kind: 'aim',
        joint: 'head',
        axis: [0, 0, 1],
        up: [0, 1, 0],
        target: [2, 2, 4],
        limits: { yaw: 1 },
        chain: [{ joint: 'neck', weight: 0.4 }],
      },
    ],
    [
      'arm',
      {
        kind: 'chain',
        joints: ['upperArm.R', 'forearm.R', 'hand.R'],
        target: [-0.5, 1.1, 0.3],
        method: 'ccd',
        fadeSeconds: 0.2,
      },
    ],
    ['feet', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground, fadeSeconds: 0.3 }],
  ]
}

function stage(plugin: AnimationPlugin, c: number): void {
  const q = [0, 0, 0, 1]
  plugin.addPoseStage((pose) => {
    pose.getRotation(c, 'chest', q)
    pose.setRotation(c, 'chest', [q[0]! + 0.1, q[1]!, q[2]!, q[3]!])
  })
}

function make(): { plugin: AnimationPlugin; a: number; b: number; ball: number } {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
  const s = setup(plugin)
  for (const [name, o] of solvers(s.ball)) {
    plugin.setIK(s.a, name, o)
    plugin.setIK(s.b, name, o)
  }
  stage(plugin, s.b)
  return { plugin, ...s }
}

describe('IK and pose edits in snapshots and the hash', () => {
  it('restore into a fresh plugin (stages added, ground functions set again) steps on with the same hashes', () => {
    const { plugin, a, b } = make()
    for (let i = 0; i < 6; i++) plugin.step()
    plugin.pause(b)
    for (let i = 0; i < 3; i++) plugin.step()
    const bytes = plugin.snapshot()
    const hashes: string[] = []
    for (let i = 0; i < 25; i++) {
      plugin.step()
      hashes.push(plugin.hash())
    }
    const fresh = createAnimationPlugin(createWorld(), { capacity: 256 })
    fresh.addAsset(asset)
    fresh.restore(bytes)
    stage(fresh, b)
    for (const c of [a, b]) fresh.setIK(c, 'feet', solvers(0)[3]![1] as IKOptions)
    for (let i = 0; i < 25; i++) {
      fresh.step()
      expect(fresh.hash(), `step ${i}`).toBe(hashes[i])
    }
  })

  it('restore in place (a rewind) needs nothing set again, and snapshot → restore → snapshot is the same bytes', () => {
    const { plugin, a } = make()
    for (let i = 0; i < 5; i++) plugin.step()
    const bytes = plugin.snapshot()
    const hashes: string[] = []
    for (let i = 0; i < 10; i++) {
      plugin.step()
      hashes.push(plugin.hash())
    }
    plugin.setIK(a, 'feet', null)
    plugin.restore(bytes)
    expect(plugin.snapshot()).toEqual(bytes)
    for (let i = 0; i < 10; i++) {
      plugin.step()
      expect(plugin.hash()).toBe(hashes[i])
    }
  })

  it('the hash covers every solver and the edits; a failed setIK changes neither hash nor snapshot', () => {
    const { plugin, a, ball } = make()
    plugin.step()
    const hash = plugin.hash()
    const bytes = plugin.snapshot()
    const bad: unknown[][] = [
      [9999, 'x', solvers(ball)[0]![1]],
      [a, '', solvers(ball)[0]![1]],
      [a, 'x', { kind: 'two-bone', joint: 'pelvis', target: [0, 0, 0] }],
      [a, 'x', { kind: 'two-bone', joint: 'hand.L', target: [0, NaN, 0] }],
      [a, 'x', { kind: 'two-bone', joint: 'hand.L', target: { entity: 9999 } }],
      [a, 'x', { kind: 'two-bone', joint: 'hand.L', target: [0, 0, 0], weight: 2 }],
      [a, 'x', { kind: 'two-bone', joint: 'hand.L', target: [0, 0, 0], fadeSeconds: -1 }],
      [a, 'x', { kind: 'two-bone', joint: 'hand.L', target: [0, 0, 0], soften: 1.5 }],
      [a, 'x', { kind: 'two-bone', joint: 'hand.L', target: [0, 0, 0], reach: 1 }],
      [a, 'x', { kind: 'aim', joint: 'head', target: [0, 0, 0], axis: [0, 0, 0] }],
      [a, 'x', { kind: 'aim', joint: 'head', target: [0, 0, 0], axis: [0, 0, 1], limits: { yaw: 4 } }],
      [
        a,
        'x',
        {
          kind: 'aim',
          joint: 'head',
          target: [0, 0, 0],
          axis: [0, 0, 1],
          chain: [{ joint: 'hand.L', weight: 1 }],
        },
      ],
      [a, 'x', { kind: 'chain', joints: ['hand.L'], target: [0, 0, 0] }],
      [a, 'x', { kind: 'chain', joints: ['upperArm.L', 'hand.L'], target: [0, 0, 0] }],
      [a, 'x', { kind: 'chain', joints: ['upperArm.L', 'forearm.L'], target: [0, 0, 0], iterations: 0 }],
      [a, 'x', { kind: 'chain', joints: ['upperArm.L', 'forearm.L'], target: [0, 0, 0], method: 'jacobian' }],
      [a, 'x', { kind: 'feet', left: 'foot.L', right: 'foot.L', ground: 'physics' }],
      [a, 'x', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground: 'lava' }],
      [a, 'x', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground: 'physics', pelvis: 'head' }],
      [a, 'x', { kind: 'wings' }],
      [a, 'x', 42],
    ]
    for (const args of bad) {
      expect(() => (plugin.setIK as (...a: unknown[]) => void)(...args), JSON.stringify(args)).toThrow(
        AnimationError,
      )
      expect(plugin.hash()).toBe(hash)
    }
    expect(plugin.snapshot()).toEqual(bytes)
    // Any change of a solver shows.
    const changed = [
      () =>
        plugin.setIK(a, 'look', {
          ...(solvers(ball)[1]![1] as object),
          target: [2, 2, 4.001],
        } as unknown as IKOptions),
      () =>
        plugin.setIK(a, 'hand', { ...(solvers(ball)[0]![1] as object), weight: 0.5 } as unknown as IKOptions),
      () => plugin.setIK(a, 'arm', null),
    ]
    const seen = new Set([hash])
    for (const change of changed) {
      change()
      expect(seen.has(plugin.hash())).toBe(false)
      seen.add(plugin.hash())
    }
  })

  it('refuses a forged section: an edited joint past the rig, a weight past 1, not a character — changing nothing', () => {
    const { plugin, b } = make()
    plugin.pause(b)
    for (let i = 0; i < 3; i++) plugin.step()
    const bytes = plugin.snapshot()
    const at = mapSnapshot(bytes, layoutsOf(contextOf(plugin))).sections.get('IKPS')!
    const hash = plugin.hash()
    const view = new DataView(bytes.buffer)
    // u32 count, then the first character: u32 eid, m, s, i32[m] edited joints, f32[10·m], its solvers.
    const m = view.getUint32(at + 8, true)
    expect(m).toBeGreaterThan(0)
    const firstSolver = at + 16 + 44 * m
    const nameLength = view.getUint32(firstSolver, true)
    // name, kind, ground, u16 joints, u16 numbers, pad to 4, joints, 5 integers, pad to 8, numbers.
    let numbers = firstSolver + 4 + nameLength + 6
    numbers += -numbers & 3
    numbers += 4 * view.getUint16(firstSolver + 4 + nameLength + 2, true) + 20
    numbers += -numbers & 7
    for (const [offset, kind, value, message] of [
      [at + 16, 'u32', 999, /edited joints/],
      [at + 4, 'u32', 99999, /not a character/],
      [firstSolver + 4 + nameLength, 'u8', 9, /kind/],
      [numbers + 8, 'f64', 1.5, /weight/],
    ] as const) {
      const forged = forge(bytes, [{ offset, kind, value }])
      expect(() => plugin.restore(forged)).toThrow(message)
      expect(plugin.hash()).toBe(hash)
    }
  })
})
