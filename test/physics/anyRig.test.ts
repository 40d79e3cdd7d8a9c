/**
 * Ragdolls on any rig (issue 17): every skinned rig in assets/ — the Fox (centimetres), RobotExpressive (feet and
 * IK pole targets hung from its root bone, lower legs and head ending in `_end` nodes), RiggedFigure,
 * RiggedSimple, SimpleSkin — at uniform scales 0.01, 0.1, 1 and 100, as four characters per world: one falling
 * limp, one pushed, a partial ragdoll (a limb, hit) and a powered one (motors at strength 1, root free, pushed).
 * A test per limit, with limits per 1.8 m of character size: joints never 3 cm from their parent body after the
 * first 0.1 s; at most 1 cm over the last second; nothing below the ground by more than its body's radius; and
 * bodies built with bounded work (the ≤ 5 ms of CPU per ragdoll itself is timed by `npm run bench:ragdoll`;
 * here, without a clock: at most MAX_BODY_SHAPES shapes a body, mass properties computed at most 3 times a body). RobotExpressive's generated description is checked against its
 * skeleton.
 *
 * The independent side: gaps from cannon-es's own bodies and constraints, joint heights from the scene graph's
 * world matrices (test/helpers/ragdollLimits.ts).
 */
import { createWorld } from 'bitecs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Body as CannonBody, type Sphere } from 'cannon-es'
import { MAX_BODY_SHAPES } from '../../src/physics/shapes.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { resolveRagdollDescription, skeletonViewOf } from '../../src/physics/description.ts'
import { generateRagdollDescription } from '../../src/physics/generate.ts'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { isClipEvent } from '../../systems/state.ts'
import { limbOf } from '../../plugin/hitReactions.ts'
import { characterSize, largestGap, worldPosition } from '../helpers/ragdollLimits.ts'
import { countCalls } from '../helpers/countCalls.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

const FILES: Record<string, string> = {
  Fox: 'assets/Fox/glTF-Binary/Fox.glb',
  RobotExpressive: 'assets/RobotExpressive/RobotExpressive.glb',
  RiggedFigure: 'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb',
  RiggedSimple: 'assets/RiggedSimple/glTF-Binary/RiggedSimple.glb',
  SimpleSkin: 'assets/SimpleSkin/glTF/SimpleSkin.gltf',
}
const assets = new Map<string, AnimationAsset>()

beforeAll(async () => {
  for (const [name, file] of Object.entries(FILES)) assets.set(name, await loadAsset(file))
})

const SCALES = [0.01, 0.1, 1, 100]
const MODES = ['limp', 'pushed', 'partial', 'powered'] as const
type Mode = (typeof MODES)[number]
const FALL_STEPS = 240
const REST_STEPS = 60

interface Measure {
  /** Worst gap from 0.1 s to the last second, and over the last second, in sizes. */
  fallGap: number
  restGap: number
  /** Deepest a skinned joint went below the ground less the radius of its body, in sizes (≤ 0 is fine). */
  belowGround: number
  deepest: string
}

interface Run {
  modes: Record<Mode, Measure>
  /** CPU milliseconds of the step that built all four ragdolls' bodies, per ragdoll (printed, not checked). */
  buildMs: number
  /** The build's work: mass-property computations per body, and the most shapes of one body. */
  massUpdatesPerBody: number
  maxShapes: number
  events: string[]
}

const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

function fall(asset: AnimationAsset, scale: number): Run {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const clip = asset.clips.find((c) => /walk/i.test(c.name))?.name ?? asset.clips[0]!.name
  // Stood on the ground: lifted by how far its lowest skinned joint is below the origin (RiggedSimple's
  // Z-up bone hangs 4 units down).
  const probe = p.addCharacter(asset)
  p.setTransform(probe, { scale: [scale, scale, scale] })
  p.step()
  const lift = -Math.min(
    0,
    ...Array.from(asset.skeletons[0]!.joints, (n) => worldPosition(p, p.jointEntity(probe, n))[1]),
  )
  p.removeCharacter(probe)
  const chars = MODES.map((_, i) => {
    const c = p.addCharacter(asset)
    p.setTransform(c, { position: [i * 1000 * scale, lift, 0], scale: [scale, scale, scale] })
    p.play(c, clip)
    return c
  })
  for (let s = 0; s < 20; s++) p.step()
  start(p, asset, chars)
  const before = cpuMs()
  const massUpdates = countCalls(CannonBody.prototype, 'updateMassProperties', () => p.step())
  const buildMs = (cpuMs() - before) / chars.length
  const bodies = p.physics.bodies.slice(1) // all but the ground plane
  const maxShapes = Math.max(...bodies.map((b) => b.shapes.length))
  return {
    ...measure(p, asset, chars),
    buildMs,
    massUpdatesPerBody: massUpdates / bodies.length,
    maxShapes,
  }
}

/** Starts each character's ragdoll as its mode says. */
function start(p: AnimationPlugin, asset: AnimationAsset, chars: number[]): void {
  const ctx = contextOf(p)
  const rig = ctx.assets[p.stores.Pose.asset[chars[0]!]!]!
  const description = resolveRagdollDescription(skeletonViewOf(asset), generateRagdollDescription(asset))
  const pelvis = description[0]!.node
  const push = { joint: pelvis, impulse: [4, 1, 3] as [number, number, number] }
  // The partial ragdoll: the limb of the skin's last joint with a body at or above it, hit there.
  const carried = (n: number) => {
    for (let a = n; a >= 0; a = asset.nodes[a]!.parent) if (description.some((b) => b.node === a)) return true
    return false
  }
  const leaf = Array.from(asset.skeletons[0]!.joints).filter(carried).pop()!
  const limb = limbOf(description, rig.nodeJoint, rig.jointParents, rig.nodeJoint[leaf]!)
  p.ragdoll(chars[0]!)
  p.ragdoll(chars[1]!, { impulse: push })
  p.ragdoll(chars[2]!, { root: rig.jointNodes[limb]!, impulse: { joint: leaf, impulse: [2, 0, 1] } })
  p.ragdoll(chars[3]!, { impulse: push, motors: { strength: 1 } })
}

function measure(p: AnimationPlugin, asset: AnimationAsset, chars: number[]): Run {
  const ctx = contextOf(p)
  const size = characterSize(p, chars[0]!, asset)
  const skinned = asset.skeletons[0]!.joints
  const nodeJoint = ctx.assets[p.stores.Pose.asset[chars[0]!]!]!.nodeJoint
  const modes = Object.fromEntries(
    MODES.map((m) => [m, { fallGap: 0, restGap: 0, belowGround: -Infinity, deepest: '' }]),
  ) as Record<Mode, Measure>
  for (let s = 0; s < FALL_STEPS + REST_STEPS; s++) {
    p.step()
    chars.forEach((c, i) => {
      const m = modes[MODES[i]!]
      const gap = largestGap(p, c) / size
      if (s >= 6 && s < FALL_STEPS) m.fallGap = Math.max(m.fallGap, gap)
      if (s >= FALL_STEPS) m.restGap = Math.max(m.restGap, gap)
      const rt = ctx.ragdolls[c]!
      const r = ragdollInstance(rt.instance)
      // While the weight ramps up the pose shown is part animation (a 4 cm robot is on the ground before that).
      if (!r || p.stores.Ragdoll.weight[c] !== 1) return
      for (const node of skinned) {
        const j = nodeJoint[node]!
        let b = -1
        for (let a = j; a >= 0 && b < 0; a = rt.parents[a]!) b = r.jointBody[a]!
        // Joints with no body at or above them (root offsets; outside a partial ragdoll) are animated.
        if (b < 0) continue
        const radius = (r.bodies[b]!.shapes[0] as Sphere).radius
        const depth = (-worldPosition(p, p.joints(c)[j]!)[1] - radius) / size
        if (depth > m.belowGround) {
          m.belowGround = depth
          m.deepest = `${MODES[i]} ${asset.nodes[node]!.name} at step ${s}: ${depth} sizes past its radius`
        }
      }
    })
  }
  // Ragdolls past a step's spawn budget wait a step (RAGDOLL_SPAWN_BODIES): no problem.
  const events = p.events
    .filter((e) => !isClipEvent(e) && !(e.kind === 'ragdoll-limited' && e.message.includes('wait')))
    .map((e) => `${e.kind}: ${e.message}`)
  return { modes, buildMs: 0, massUpdatesPerBody: 0, maxShapes: 0, events }
}

/** Per rig and scale, the worst of each measure over the modes, in its limit's units (1 = at the limit). */
const table: string[] = []

describe('ragdolls on every skinned rig', () => {
  const runs = new Map<string, Run>()
  const runOf = (name: string, scale: number): Run => {
    const key = `${name} ${scale}`
    if (!runs.has(key)) runs.set(key, fall(assets.get(name)!, scale))
    return runs.get(key)!
  }
  const worst = (r: Run, f: (m: Measure) => number): [number, Mode] =>
    MODES.map((m) => [f(r.modes[m]), m] as [number, Mode]).reduce((a, b) => (b[0] > a[0] ? b : a))

  afterAll(() => {
    console.log(
      ['rig, scale: fall gap / 3 cm, rest gap / 1 cm, below ground (sizes), build ms', ...table].join('\n'),
    )
  })

  it('RobotExpressive: every skinned joint has a body or rides on one, but the root offsets; feet join the shins', () => {
    const robot = assets.get('RobotExpressive')!
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

  for (const name of Object.keys(FILES)) {
    for (const scale of SCALES) {
      describe(`${name} at scale ${scale}`, () => {
        it('builds with bounded work, falls and lies with no problem reported', () => {
          const r = runOf(name, scale)
          const [fall] = worst(r, (m) => m.fallGap / (0.03 / 1.8))
          const [rest] = worst(r, (m) => m.restGap / (0.01 / 1.8))
          const [below] = worst(r, (m) => m.belowGround)
          table.push(
            `${name}, ${scale}: ${fall.toFixed(2)}, ${rest.toFixed(2)}, ${below.toFixed(3)}, ${r.buildMs.toFixed(2)}`,
          )
          expect(r.events).toEqual([])
          expect(r.maxShapes, 'shapes of one body').toBeLessThanOrEqual(MAX_BODY_SHAPES)
          expect(r.massUpdatesPerBody, 'mass-property computations per body').toBeLessThanOrEqual(3)
        })
        it('keeps every joint within 3 cm (per 1.8 m) of its parent body from 0.1 s into the fall', () => {
          const [gap, mode] = worst(runOf(name, scale), (m) => m.fallGap)
          expect(gap, mode).toBeLessThanOrEqual(0.03 / 1.8)
        })
        it('keeps every joint within 1 cm (per 1.8 m) of its parent body over the last second', () => {
          const [gap, mode] = worst(runOf(name, scale), (m) => m.restGap)
          expect(gap, mode).toBeLessThanOrEqual(0.01 / 1.8)
        })
        it('puts no joint below the ground by more than the radius of the body it is on', () => {
          const r = runOf(name, scale)
          const [depth, mode] = worst(r, (m) => m.belowGround)
          expect(depth, r.modes[mode].deepest).toBeLessThanOrEqual(1e-6)
        })
      })
    }
  }
})
