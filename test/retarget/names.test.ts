import { describe, expect, it } from 'vitest'
import { jointRole, splitJointName } from '../../src/retarget/names.ts'

/** name → the role the auto map must read from it: 'bone side' (side '' for the middle), 'finger side', or null. */
const ROLES: Record<string, string | null> = {
  // Mixamo, with its namespaces and as three.js sanitizes it
  'mixamorig:Hips': 'hips',
  'mixamorig1:LeftUpLeg': 'upperLeg L',
  'Armature|mixamorig:RightLeg': 'lowerLeg R',
  mixamorigLeftForeArm: 'lowerArm L',
  'mixamorig:LeftArm': 'upperArm L',
  'mixamorig:RightShoulder': 'shoulder R',
  'mixamorig:LeftToeBase': 'toes L',
  'mixamorig:LeftHandThumb1': 'thumb L',
  'mixamorig:RightHandPinky3': 'little R',
  'mixamorig:HeadTop_End': null,
  'mixamorig:LeftToe_End': null,
  'mixamorig:Spine1': null,
  // VRM humanoid and VRoid
  leftUpperLeg: 'upperLeg L',
  rightLowerArm: 'lowerArm R',
  leftThumbMetacarpal: 'thumb L',
  rightLittleDistal: 'little R',
  leftEye: 'eye L',
  J_Bip_C_Hips: 'hips',
  J_Bip_L_UpperArm: 'upperArm L',
  J_Bip_R_Index2: 'index R',
  // Unreal and Unity
  pelvis: 'hips',
  thigh_l: 'upperLeg L',
  calf_r: 'lowerLeg R',
  ball_l: 'toes L',
  clavicle_r: 'shoulder R',
  index_metacarpal_l: 'index L meta',
  middle_02_r: 'middle R',
  upperarm_twist_01_l: null,
  ik_foot_l: null,
  'Left Thumb Proximal': 'thumb L',
  LeftUpperLeg: 'upperLeg L',
  // Blender, Rigify, Biped, Character Creator, others
  'Shoulder.L': 'shoulder L',
  'DEF-thigh.L': 'upperLeg L',
  'DEF-upper_arm.L.001': 'upperArm L',
  'DEF-f_index.01.R': 'index R',
  'Bip01 L Thigh': 'upperLeg L',
  'Bip01 R Finger0': 'thumb R',
  'Bip01 Pelvis': 'hips',
  CC_Base_L_Calf: 'lowerLeg L',
  CC_Base_Hip: 'hips',
  thighL: 'upperLeg L',
  thumb1R: 'thumb R',
  lShin: 'lowerLeg L',
  'Foot.L_end': null,
  'PoleTarget.L': null,
  Head: 'head',
  jaw: 'jaw',
  Body: null,
  Torso: null,
  // a limb needs a side, the middle none
  Thigh: null,
  'Head.L': null,
}

function show(name: string): string | null {
  const role = jointRole(name)
  if (role === null) return null
  if (role.kind === 'finger') return `${role.finger} ${role.side}${role.metacarpal ? ' meta' : ''}`
  return role.side ? `${role.bone} ${role.side}` : role.bone
}

describe('jointRole', () => {
  it.each(Object.entries(ROLES))('%s → %s', (name, role) => {
    expect(show(name)).toBe(role)
  })

  it('ranks the usual name of a bone above a looser one', () => {
    const rank = (name: string) => {
      const r = jointRole(name)
      return r?.kind === 'bone' ? r.rank : -1
    }
    expect(rank('UpperArm.L')).toBeLessThan(rank('Arm.L'))
    expect(rank('LowerLeg.L')).toBeLessThan(rank('Leg.L'))
    expect(rank('Hips')).toBeLessThan(rank('Hips_01'))
  })
})

describe('splitJointName', () => {
  it('takes out namespaces, tool prefixes, Blender duplicate suffixes and the side, in any spelling', () => {
    for (const [name, core, side] of [
      ['Armature|mixamorig:LeftUpLeg', 'upleg', 'L'],
      ['DEF-upper_arm.L.001', 'upperarm', 'L'],
      ['J_Bip_C_Hips', 'hips', ''],
      ['HandRight', 'hand', 'R'],
      ['hand_l', 'hand', 'L'],
      ['Hand-L', 'hand', 'L'],
      ['rThigh', 'thigh', 'R'],
      ['UPPERARM_R', 'upperarm', 'R'],
    ] as const)
      expect(splitJointName(name), name).toEqual({ core, side })
  })
})
