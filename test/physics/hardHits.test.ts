/**
 * Hard hits (issue 17): up to 50 N·s at any body keeps the ragdoll whole — no 'ragdoll-exploded', every body
 * finite, and from 0.1 s after the hit every joint gap within 3 cm for a 1.8 m character (scaled by the
 * character's size). On the Fox (centimetres, at 0.01) and RobotExpressive, each body hit along two of six
 * directions (each direction on a third of the bodies), at the hand-off and again while lying; one character
 * per hit, spread out in one world.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { characterSize, largestGap, ragdollFinite } from '../helpers/ragdollLimits.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/** Opposite directions three apart, so each body gets two that are not opposite. */
const DIRECTIONS: [number, number, number][] = [
  [1, 0, 0],
  [0, 0, -1],
  [0, -1, 0],
  [-1, 0, 0],
  [0, 0, 1],
  [0, 1, 0],
]

/** Runs every body × direction hit; returns the worst gap after 0.1 s (in limits) and what went wrong. */
function hardHits(asset: AnimationAsset, scale: number, impulse: number, lying: boolean) {
  const p = createAnimationPlugin(createWorld(), { capacity: 1 << 16 })
  const probe = p.addCharacter(asset)
  p.setTransform(probe, { scale: [scale, scale, scale] })
  p.step()
  const size = characterSize(p, probe, asset)
  const limit = (0.03 * size) / 1.8
  const ctx = contextOf(p)
  p.ragdoll(probe)
  const joints = ctx.ragdolls[probe]!.bodies.map((b) => asset.nodes[b.node]!.name)
  p.removeCharacter(probe)
  const hits: { c: number; joint: string; dir: number[] }[] = []
  joints.forEach((joint, j) => {
    for (let d = 0; d < 2; d++) {
      const c = p.addCharacter(asset)
      p.setTransform(c, { position: [4 * size * j, 0, 4 * size * d], scale: [scale, scale, scale] })
      hits.push({ c, joint, dir: DIRECTIONS[(j + 3 * d) % 6]! })
    }
  })
  const hit = (h: (typeof hits)[number]) => h.dir.map((x) => x * impulse) as [number, number, number]
  p.step()
  for (const h of hits) p.ragdoll(h.c, lying ? {} : { impulse: { joint: h.joint, impulse: hit(h) } })
  if (lying) {
    for (let s = 0; s < 60; s++) p.step()
    for (const h of hits) p.applyImpulse(h.c, h.joint, hit(h))
  }
  let worst = { gap: 0, joint: '', dir: [0, 0, 0] }
  let finite = true
  for (let s = 0; s < 40; s++) {
    p.step()
    for (const h of hits) {
      finite &&= ragdollFinite(p, h.c)
      const gap = largestGap(p, h.c) / limit
      if (s >= 6 && gap > worst.gap) worst = { gap, joint: h.joint, dir: h.dir }
    }
  }
  // Ragdolls past a step's spawn budget wait a step or more (RAGDOLL_SPAWN_BODIES): no problem.
  const events = p.events.filter((e) => e.kind !== 'ragdoll-limited' || !e.message.includes('wait'))
  return { worst, finite, events: events.map((e) => `${e.kind}: ${e.message}`), bodies: joints.length }
}

const RIGS: [string, () => AnimationAsset, number][] = [
  ['Fox', () => fox, 0.01],
  ['RobotExpressive', () => robot, 0.4],
]

describe('ragdolls under hard hits', () => {
  for (const [name, asset, scale] of RIGS) {
    for (const lying of [false, true]) {
      it(`${name}: 50 N·s at any body ${lying ? 'lying on the ground' : 'at the hand-off'} keeps it whole`, () => {
        const r = hardHits(asset(), scale, 50, lying)
        expect(r.events).toEqual([])
        expect(r.finite).toBe(true)
        expect(r.worst.gap, `worst: ${r.worst.joint} along ${r.worst.dir}`).toBeLessThanOrEqual(1)
      })
    }
  }
})
