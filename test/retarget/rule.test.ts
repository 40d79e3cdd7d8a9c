/**
 * The properties of retargeting (issue 35), on pairs of generated humanoids of random naming, proportions,
 * rest poses (T- to A-pose), spine lengths, joint-axis conventions and units, and on the shipped rigs. Each
 * rig is posed by three.js (test/helpers/retarget.ts) from the clips the public `retarget` made:
 * - the rule: targetWorld(t)·targetRestWorld⁻¹ = sourceWorld(t)·sourceRestWorld⁻¹, to 1e-5 rad, for every
 *   mapped joint at every key time;
 * - A → B → A gives A's own local rotations back, to 1e-4 rad (rigs of one structure);
 * - the hips' world place moves by the source's motion times the ratio of the hips heights;
 * - a walk's feet stay within 2 % of leg length of where the source's are (both stand on the ground at rest).
 */
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Quaternion } from 'three'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createHumanoid, jointNode } from '../../scripts/humanoid/asset.ts'
import {
  humanoidSkeleton,
  randomHumanoidOptions,
  type HumanoidOptions,
} from '../../scripts/humanoid/skeleton.ts'
import {
  angleBetween,
  clipOf,
  keyTimes,
  nodeMap,
  pluginWith,
  pose,
  posedRig,
  worldPosition,
  worldRotation,
  type PosedRig,
} from '../helpers/retarget.ts'
import type { TranslationMode } from '../../src/retarget/plan.ts'

const CLIPS = ['Walk', 'Run', 'Idle', 'Wave'] as const
const seed = fc.integer({ min: 1, max: 2 ** 30 })

let mannequin: AnimationAsset
let robot: AnimationAsset
beforeAll(async () => {
  mannequin = await loadAsset('assets/Mannequin/Mannequin.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/** The retargeted clip and everything to check it: both rigs posed by three, and the map by node. */
function retargeted(
  source: AnimationAsset,
  target: AnimationAsset,
  clip: string,
  translation: TranslationMode = 'hips-scaled',
) {
  const anim = pluginWith(source, target)
  const [name] = anim.retarget(source, target, { clips: [clip], prefix: 'rt ', translation })
  return {
    anim,
    source: clipOf(anim, source, clip),
    baked: clipOf(anim, target, name!),
    map: nodeMap(source, target, anim.retargetMap(source, target)),
    from: posedRig(source),
    to: posedRig(target),
  }
}

const rests = (rig: PosedRig): Quaternion[] => rig.nodes.map((_, i) => worldRotation(rig, i))

/** The largest angle (radians) by which the rule misses, over mapped joints and the source's key times. */
function ruleError(
  source: AnimationAsset,
  target: AnimationAsset,
  clip: string,
  translation?: TranslationMode,
): number {
  const r = retargeted(source, target, clip, translation)
  const sRest = rests(r.from)
  const tRest = rests(r.to)
  let worst = 0
  for (const t of keyTimes(r.source)) {
    pose(r.from, r.source, t)
    pose(r.to, r.baked, t)
    r.map.forEach((s, j) => {
      if (s < 0) return
      const ds = worldRotation(r.from, s).multiply(sRest[s]!.clone().invert())
      const dt = worldRotation(r.to, j).multiply(tRest[j]!.clone().invert())
      worst = Math.max(worst, angleBetween(ds, dt))
    })
  }
  return worst
}

describe('the rule holds for every mapped joint at every key time (1e-5 rad)', () => {
  it('between generated humanoids', () => {
    fc.assert(
      fc.property(
        seed,
        seed,
        fc.constantFrom(...CLIPS),
        fc.constantFrom<TranslationMode>('hips-scaled', 'none', 'all'),
        (a, b, clip, mode) => {
          const source = createHumanoid(randomHumanoidOptions(a), [clip])
          const target = createHumanoid(randomHumanoidOptions(b), [])
          expect(ruleError(source, target, clip, mode)).toBeLessThan(1e-5)
        },
      ),
      { numRuns: 24 },
    )
  })

  it('between the shipped Mannequin and RobotExpressive, both ways', () => {
    for (const clip of CLIPS) expect(ruleError(mannequin, robot, clip), clip).toBeLessThan(1e-5)
    for (const clip of ['Walking', 'Running', 'Wave', 'Dance', 'Jump'])
      expect(ruleError(robot, mannequin, clip), clip).toBeLessThan(1e-5)
  })
})

/** Options of a second rig of the same structure as `a`'s (spine, neck, fingers), all else its own. */
function sameStructure(a: HumanoidOptions, b: HumanoidOptions): HumanoidOptions {
  return { ...b, spine: a.spine, neck: a.neck, fingers: a.fingers }
}

describe('A → B → A returns the original rotations (1e-4 rad)', () => {
  it('between generated humanoids of one structure', () => {
    fc.assert(
      fc.property(seed, seed, fc.constantFrom(...CLIPS), (sa, sb, clip) => {
        const oa = randomHumanoidOptions(sa)
        const A = createHumanoid(oa, [clip])
        const B = createHumanoid(sameStructure(oa, randomHumanoidOptions(sb)), [])
        const anim = pluginWith(A, B)
        const [there] = anim.retarget(A, B, { clips: [clip], prefix: 'ab ' })
        const [back] = anim.retarget(B, A, { clips: [there!], prefix: 'ba ' })
        const original = clipOf(anim, A, clip)
        const round = clipOf(anim, A, back!)
        const a1 = posedRig(A)
        const a2 = posedRig(A)
        let worst = 0
        for (const t of keyTimes(original)) {
          pose(a1, original, t)
          pose(a2, round, t)
          a1.nodes.forEach(
            (n, i) => (worst = Math.max(worst, angleBetween(n.quaternion, a2.nodes[i]!.quaternion))),
          )
        }
        expect(worst).toBeLessThan(1e-4)
      }),
      { numRuns: 20 },
    )
  })
})

describe('the hips move as the source hips, scaled by the ratio of the hips heights', () => {
  /** Hips height at rest as the guide states it: world y above the lowest skin joint. */
  function hipsHeight(rig: PosedRig, hips: number): number {
    const joints = rig.asset.skeletons.flatMap((s) => Array.from(s.joints))
    return worldPosition(rig, hips).y - Math.min(...joints.map((j) => worldPosition(rig, j).y))
  }

  it('between generated humanoids, in all three axes, at every key time', () => {
    fc.assert(
      fc.property(seed, seed, fc.constantFrom(...CLIPS), (a, b, clip) => {
        const oa = randomHumanoidOptions(a)
        const ob = randomHumanoidOptions(b)
        const r = retargeted(createHumanoid(oa, [clip]), createHumanoid(ob, []), clip)
        const hs = jointNode(humanoidSkeleton(oa), 0)
        const ht = jointNode(humanoidSkeleton(ob), 0)
        const ratio = hipsHeight(r.to, ht) / hipsHeight(r.from, hs)
        const sRest = worldPosition(r.from, hs)
        const tRest = worldPosition(r.to, ht)
        for (const t of keyTimes(r.source)) {
          pose(r.from, r.source, t)
          pose(r.to, r.baked, t)
          const expected = worldPosition(r.from, hs).sub(sRest).multiplyScalar(ratio).add(tRest)
          expect(worldPosition(r.to, ht).distanceTo(expected)).toBeLessThan(1e-5 * hipsHeight(r.to, ht))
        }
      }),
      { numRuns: 20 },
    )
  })
})

describe("a walk's feet stay within 2 % of leg length of the source's", () => {
  it('between generated humanoids that stand on the ground at rest', () => {
    fc.assert(
      fc.property(seed, seed, fc.constantFrom('Walk', 'Run', 'Idle'), (a, b, clip) => {
        const oa = randomHumanoidOptions(a)
        const ob = randomHumanoidOptions(b)
        const sa = humanoidSkeleton(oa)
        const sb = humanoidSkeleton(ob)
        const r = retargeted(createHumanoid(oa, [clip]), createHumanoid(ob, []), clip)
        const feet = (s: typeof sa) =>
          ['L.foot', 'R.foot'].map((id) =>
            jointNode(
              s,
              s.joints.findIndex((j) => j.id === id),
            ),
          )
        // The lowest ankle's height above its rest height, in leg lengths.
        const low = (rig: PosedRig, s: typeof sa) =>
          (Math.min(...feet(s).map((f) => worldPosition(rig, f).y)) - s.ankleY) / (s.thigh + s.shin)
        for (const t of keyTimes(r.source)) {
          pose(r.from, r.source, t)
          pose(r.to, r.baked, t)
          expect(Math.abs(low(r.to, sb) - low(r.from, sa))).toBeLessThan(0.02)
          // The source's own stance foot is planted (to float precision): the check is about the ground.
          if (clip !== 'Run') expect(Math.abs(low(r.from, sa))).toBeLessThan(1e-5)
        }
      }),
      { numRuns: 20 },
    )
  })
})
