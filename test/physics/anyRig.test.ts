/**
 * The generated ragdoll on rigs that do not follow the usual chain (issue 17): RobotExpressive hangs its feet
 * and IK pole targets from its root bone and ends its lower legs and head in `_end` nodes; the Fox is in
 * centimetres. At uniform scales 0.01, 0.1, 1 and 100, a test per limit, with limits per 1.8 m of character
 * size: every skinned joint has a body or rides on one (or is a root offset); joints never 3 cm from their
 * parent body after the first 0.1 s of a fall; at most 1 cm at rest; nothing below the ground by more than its
 * body's radius. Two characters per world, one pushed, one falling limp.
 *
 * The independent side: gaps from cannon-es's own bodies and constraints, joint heights from the scene graph's
 * world matrices (test/helpers/ragdollLimits.ts).
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Sphere } from 'cannon-es'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import {
  generateRagdollDescription,
  resolveRagdollDescription,
  skeletonViewOf,
} from '../../src/physics/description.ts'
import { createAnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { characterSize, largestGap, worldPosition } from '../helpers/ragdollLimits.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

const SCALES = [0.01, 0.1, 1, 100]
const FALL_STEPS = 240
const REST_STEPS = 60

interface Run {
  size: number
  /** Worst gap over the fall from 0.1 s on, and over the last second at rest, in world units. */
  fallGap: number
  restGap: number
  /** Deepest a skinned joint went below the ground, less the radius of the body it is on (≤ 0 is fine). */
  belowGround: number
  deepest: string
  events: string[]
}

function fall(asset: AnimationAsset, scale: number): Run {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const walk = asset.clips.some((c) => c.name === 'Walk') ? 'Walk' : 'Walking'
  const chars = [0, 1].map((i) => {
    const c = p.addCharacter(asset)
    p.setTransform(c, { position: [i * 1000 * scale, 0, 0], scale: [scale, scale, scale] })
    p.play(c, walk)
    return c
  })
  for (let s = 0; s < 20; s++) p.step()
  const size = characterSize(p, chars[0]!, asset)
  const ctx = contextOf(p)
  p.ragdoll(chars[0]!)
  const pelvis = ctx.ragdolls[chars[0]!]!.bodies[0]!.node
  p.ragdoll(chars[1]!, { impulse: { joint: pelvis, impulse: [4, 1, 3] } })
  const skinned = asset.skeletons[0]!.joints
  const nodeJoint = ctx.assets[p.stores.Pose.asset[chars[0]!]!]!.nodeJoint
  const run: Run = { size, fallGap: 0, restGap: 0, belowGround: -Infinity, deepest: '', events: [] }
  for (let s = 0; s < FALL_STEPS + REST_STEPS; s++) {
    p.step()
    for (const c of chars) {
      const gap = largestGap(p, c)
      if (s >= 6 && s < FALL_STEPS) run.fallGap = Math.max(run.fallGap, gap)
      if (s >= FALL_STEPS) run.restGap = Math.max(run.restGap, gap)
      const rt = ctx.ragdolls[c]!
      const r = rt.instance
      // While the weight ramps up the pose shown is part animation (a 4 cm robot is on the ground before that).
      if (!r || p.stores.Ragdoll.weight[c] !== 1) continue
      for (const node of skinned) {
        const j = nodeJoint[node]!
        let b = -1
        for (let a = j; a >= 0 && b < 0; a = rt.parents[a]!) b = r.jointBody[a]!
        // Root offsets (no body above them) keep their animated place: not the ragdoll's to hold up.
        if (b < 0) continue
        const radius = (r.bodies[b]!.shapes[0] as Sphere).radius
        const depth = -worldPosition(p, p.joints(c)[j]!)[1] - radius
        if (depth > run.belowGround) {
          run.belowGround = depth
          run.deepest = `${asset.nodes[node]!.name} at step ${s}: ${depth / size} sizes past its radius`
        }
      }
    }
  }
  run.events = p.events.filter((e) => !isClipEvent(e)).map((e) => `${e.kind}: ${e.message}`)
  return run
}

const RIGS: [string, () => AnimationAsset][] = [
  ['Fox', () => fox],
  ['RobotExpressive', () => robot],
]

describe('generated ragdolls on any rig', () => {
  const runs = new Map<string, Run>()
  const runOf = (name: string, asset: AnimationAsset, scale: number): Run => {
    const key = `${name} ${scale}`
    if (!runs.has(key)) runs.set(key, fall(asset, scale))
    return runs.get(key)!
  }

  it('RobotExpressive: every skinned joint has a body or rides on one, but the root offsets; feet join the shins', () => {
    const view = skeletonViewOf(robot)
    const bodies = resolveRagdollDescription(view, generateRagdollDescription(robot))
    const name = (n: number) => robot.nodes[n]!.name
    const withBody = new Set(bodies.map((b) => b.node))
    for (const joint of ['LowerLeg.L', 'LowerLeg.R', 'Foot.L', 'Foot.R', 'UpperArm.L', 'LowerArm.R']) {
      expect(
        bodies.map((b) => name(b.node)),
        joint,
      ).toContain(joint)
    }
    expect(withBody.has(12), 'the Head bone (node 12)').toBe(true)
    const parentOf = (joint: string) => {
      const b = bodies.find((x) => name(x.node) === joint)!
      return name(bodies[b.parentBody]!.node)
    }
    expect(parentOf('Foot.L')).toBe('LowerLeg.L')
    expect(parentOf('Foot.R')).toBe('LowerLeg.R')
    // Joints with no body under them: only the root bone and the IK pole targets hung from it.
    const rootBody = bodies[0]!.node
    const loose = Array.from(view.skinJoints!).filter((n) => {
      for (let a = n; a >= 0; a = robot.nodes[a]!.parent) if (withBody.has(a)) return false
      return true
    })
    expect(loose.map(name).sort()).toEqual(['Bone', 'PoleTarget.L', 'PoleTarget.R'])
    expect(name(rootBody)).toBe('Body')
  })

  for (const [name, asset] of RIGS) {
    for (const scale of SCALES) {
      describe(`${name} at scale ${scale}`, () => {
        it('keeps every joint within 3 cm (per 1.8 m) of its parent body from 0.1 s into the fall', () => {
          const r = runOf(name, asset(), scale)
          expect(r.events).toEqual([])
          expect(r.fallGap / r.size).toBeLessThanOrEqual(0.03 / 1.8)
        })
        it('keeps every joint within 1 cm (per 1.8 m) of its parent body at rest', () => {
          const r = runOf(name, asset(), scale)
          expect(r.restGap / r.size).toBeLessThanOrEqual(0.01 / 1.8)
        })
        it('puts no joint below the ground by more than the radius of the body it is on', () => {
          const r = runOf(name, asset(), scale)
          expect(r.belowGround, r.deepest).toBeLessThanOrEqual(1e-6 * r.size)
        })
      })
    }
  }
})
