/**
 * The 'auto' map (src/retarget/map.ts): humanoid bones found by name and by place in every naming the
 * generated humanoids come in and on RobotExpressive, paired one to one, chains of different lengths paired
 * by their ends, and the hips of a user's map.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { buildRig } from '../../src/skeleton/rig.ts'
import { autoJointMap, defaultHips, findHumanoid, jointName, type RigView } from '../../src/retarget/map.ts'
import { createHumanoid, jointNode } from '../../scripts/humanoid/asset.ts'
import { humanoidSkeleton, type HumanoidOptions, type Naming } from '../../scripts/humanoid/skeleton.ts'

const view = (asset: AnimationAsset): RigView => ({ rig: buildRig(asset), asset })
const NAMINGS: Naming[] = ['mixamo', 'vrm', 'unreal', 'blender']

let robot: RigView
beforeAll(async () => {
  robot = view(await loadAsset('assets/RobotExpressive/RobotExpressive.glb'))
})

/** Joint j of a generated humanoid by its id ('hips', 'L.index2', …), as a rig joint index. */
function joint(v: RigView, o: HumanoidOptions, id: string): number {
  const s = humanoidSkeleton(o)
  return v.rig.nodeJoint[
    jointNode(
      s,
      s.joints.findIndex((j) => j.id === id),
    )
  ]!
}

describe('findHumanoid', () => {
  it("RobotExpressive: Body is the hips (its legs hang from it), its joint named Hips the spine's first", () => {
    const h = findHumanoid(robot)
    const names = (js: readonly number[]) => js.map((j) => jointName(robot, j))
    expect(jointName(robot, h.hips)).toBe('Body')
    expect(names(h.chains.get('spine')!)).toEqual(['Hips', 'Abdomen', 'Torso'])
    expect(names(h.chains.get('neck')!)).toEqual(['Neck'])
    expect(names(h.chains.get('L.index')!)).toEqual(['Index.L', 'Index2.L'])
    // Its hands are meshes at the scene root (not skin joints): no hand bone; its feet are its IK targets.
    expect(h.bones.has('L.hand')).toBe(false)
    expect(jointName(robot, h.bones.get('R.foot')!)).toBe('Foot.R')
    expect(robot.rig.skinJoint[h.bones.get('R.foot')!]).toBe(1)
  })
})

describe('autoJointMap', () => {
  it('pairs every bone of one naming with the same bone of another (all 16 pairs)', () => {
    const ids = [
      'hips',
      'spine1',
      'spine2',
      'spine3',
      'neck1',
      'head',
      'L.shoulder',
      'R.upperArm',
      'L.lowerArm',
      'R.hand',
      'L.thumb1',
      'R.index3',
      'L.little2',
      'R.upperLeg',
      'L.lowerLeg',
      'R.foot',
      'L.toes',
    ]
    for (const a of NAMINGS) {
      for (const b of NAMINGS) {
        const oa: HumanoidOptions = { naming: a, armature: 'mixamo', axes: 'random', seed: 3 }
        const ob: HumanoidOptions = { naming: b, armDown: 0.7, height: 1.4, seed: 4 }
        const va = view(createHumanoid(oa, []))
        const vb = view(createHumanoid(ob, []))
        const { map, hips } = autoJointMap(va, vb)
        expect(hips, `${a} → ${b}`).toBe(joint(vb, ob, 'hips'))
        for (const id of ids) expect(map[joint(vb, ob, id)], `${a} → ${b}: ${id}`).toBe(joint(va, oa, id))
      }
    }
  })

  it('leaves end joints and finger tips unmapped', () => {
    const o: HumanoidOptions = { naming: 'mixamo' }
    const v = view(createHumanoid(o, []))
    const { map } = autoJointMap(v, v)
    for (const id of ['headTop', 'L.toeEnd', 'L.index4', 'R.thumb4'])
      expect(map[joint(v, o, id)], id).toBe(-1)
  })

  it('pairs chains of different lengths by their ends: 3 → 1 takes the top, 1 → 3 gives all three the one', () => {
    const three: HumanoidOptions = { naming: 'unreal', spine: 3 }
    const one: HumanoidOptions = { naming: 'vrm', spine: 1 }
    const v3 = view(createHumanoid(three, []))
    const v1 = view(createHumanoid(one, []))
    expect(autoJointMap(v3, v1).map[joint(v1, one, 'spine1')]).toBe(joint(v3, three, 'spine3'))
    const down = autoJointMap(v1, v3).map
    for (const id of ['spine1', 'spine2', 'spine3'])
      expect(down[joint(v3, three, id)]).toBe(joint(v1, one, 'spine1'))
    const two: HumanoidOptions = { naming: 'blender', spine: 2 }
    const v2 = view(createHumanoid(two, []))
    const upTo3 = autoJointMap(v2, v3).map
    expect(['spine1', 'spine2', 'spine3'].map((id) => upTo3[joint(v3, three, id)])).toEqual(
      ['spine1', 'spine2', 'spine2'].map((id) => joint(v2, two, id)),
    )
  })

  it("maps the Mannequin's Mixamo skeleton onto RobotExpressive's own names", async () => {
    const mannequin = view(await loadAsset('assets/Mannequin/Mannequin.glb'))
    const { map, hips } = autoJointMap(mannequin, robot)
    expect(jointName(robot, hips)).toBe('Body')
    const pairs = Object.fromEntries(
      [...map].flatMap((s, t) => (s >= 0 ? [[jointName(robot, t), jointName(mannequin, s)]] : [])),
    )
    expect(pairs).toMatchObject({
      Body: 'mixamorig:Hips',
      Torso: 'mixamorig:Spine2',
      Neck: 'mixamorig:Neck',
      Head: 'mixamorig:Head',
      'Shoulder.R': 'mixamorig:RightShoulder',
      'LowerArm.R': 'mixamorig:RightForeArm',
      'Middle2.L': 'mixamorig:LeftHandMiddle3',
      'LowerLeg.L': 'mixamorig:LeftLeg',
      'Foot.R': 'mixamorig:RightFoot',
    })
    expect(Object.keys(pairs)).toHaveLength(34) // 6 spine to head, 6 arm, 6 leg, 16 finger joints
  })
})

describe('defaultHips (a user map)', () => {
  it('takes the highest mapped joint the clips translate, then the one with more mapped below it', () => {
    const o: HumanoidOptions = { naming: 'vrm' }
    const v = view(createHumanoid(o, []))
    const map = new Int32Array(v.rig.jointNodes.length).fill(-1)
    for (const id of ['spine1', 'L.upperLeg', 'R.upperLeg', 'L.lowerLeg'])
      map[joint(v, o, id)] = joint(v, o, id)
    const none = new Uint8Array(map.length)
    // Nothing translated: the highest mapped, the leg with a mapped joint below it over the other and the spine.
    expect(defaultHips(v, map, none)).toBe(joint(v, o, 'L.upperLeg'))
    const moved = new Uint8Array(map.length)
    moved[joint(v, o, 'spine1')] = 1
    expect(defaultHips(v, map, moved)).toBe(joint(v, o, 'spine1'))
    expect(defaultHips(v, new Int32Array(map.length).fill(-1), none)).toBe(-1)
  })
})
