/**
 * What a joint's name says about the humanoid bone it is, across the conventions rigs come in: Mixamo
 * (`mixamorig:LeftUpLeg`), VRM's humanoid bone names and VRoid's (`leftUpperLeg`, `J_Bip_L_UpperLeg`), Unreal
 * and Unity humanoids (`thigh_l`, `LeftUpperLeg`), Blender and Rigify (`Thigh.L`, `DEF-thigh.L`), 3ds Max Biped
 * (`Bip01 L Thigh`), Character Creator (`CC_Base_L_Thigh`). Pure string work for the 'auto' map (map.ts): the
 * spine and neck are found from the tree there, not from names (their names vary the most).
 */

/** A side, from the name: left, right, or none (the body's middle). */
export type Side = 'L' | 'R' | ''

/** Bones the auto map matches one to one (per side for the limbs and eyes). */
export type SingleBone =
  | 'hips'
  | 'head'
  | 'jaw'
  | 'eye'
  | 'shoulder'
  | 'upperArm'
  | 'lowerArm'
  | 'hand'
  | 'upperLeg'
  | 'lowerLeg'
  | 'foot'
  | 'toes'

export type Finger = 'thumb' | 'index' | 'middle' | 'ring' | 'little'

/**
 * A joint's role by its name. `rank` orders several joints that claim one bone (0 is the usual name for it,
 * larger a looser one: Mixamo's `LeftArm` is an upper arm, but so is Robot's `UpperArm.L` beside its `Arm.L`).
 * A finger's joints form a chain (map.ts orders it by depth); `metacarpal` joints of the other fingers
 * (Unreal 5's) are kept apart.
 */
export type JointRole =
  | { readonly kind: 'bone'; readonly bone: SingleBone; readonly side: Side; readonly rank: number }
  | { readonly kind: 'finger'; readonly finger: Finger; readonly side: Side; readonly metacarpal: boolean }

/** Everything up to a namespace separator: `mixamorig:`, `Armature|`, `Character1:`. */
const NAMESPACE = /^.*[:|]/
/** Tool prefixes: Mixamo (also as three.js sanitizes it), Character Creator, Rigify, Biped, VRoid. */
const TOOL_PREFIX = /^(?:mixamorig\d*_?|cc_base_|(?:def|org)[-_.]|bip0*1[\s_]*|j_bip_)/i
/** Blender's duplicate suffix (`upper_arm.L.001`, a twist segment of the same bone). */
const DUPLICATE = /\.\d{3}$/
/** Joints that are no bone of the body: leaf markers, IK and pole targets, twist and roll helpers. */
const NOT_A_BONE = /(?:end|nub|tip|top)$|^ik|twist|roll|pole|target|ctrl|control|helper|socket|weapon|prop/

const BONES: Readonly<Record<string, readonly [SingleBone, number]>> = {
  hips: ['hips', 0],
  pelvis: ['hips', 0],
  hip: ['hips', 1],
  head: ['head', 0],
  jaw: ['jaw', 0],
  eye: ['eye', 0],
  shoulder: ['shoulder', 0],
  clavicle: ['shoulder', 0],
  collar: ['shoulder', 1],
  collarbone: ['shoulder', 1],
  upperarm: ['upperArm', 0],
  arm: ['upperArm', 1],
  lowerarm: ['lowerArm', 0],
  forearm: ['lowerArm', 0],
  elbow: ['lowerArm', 2],
  hand: ['hand', 0],
  wrist: ['hand', 1],
  upperleg: ['upperLeg', 0],
  upleg: ['upperLeg', 0],
  thigh: ['upperLeg', 0],
  lowerleg: ['lowerLeg', 0],
  shin: ['lowerLeg', 0],
  calf: ['lowerLeg', 0],
  leg: ['lowerLeg', 1],
  knee: ['lowerLeg', 2],
  foot: ['foot', 0],
  ankle: ['foot', 1],
  toes: ['toes', 0],
  toe: ['toes', 0],
  toebase: ['toes', 0],
  ball: ['toes', 1],
}

/** Bones that have a side; the others (hips, head, jaw) must have none. */
const SIDED = new Set<SingleBone>([
  'eye',
  'shoulder',
  'upperArm',
  'lowerArm',
  'hand',
  'upperLeg',
  'lowerLeg',
  'foot',
  'toes',
])

const FINGERS: Readonly<Record<string, Finger>> = {
  thumb: 'thumb',
  index: 'index',
  middle: 'middle',
  ring: 'ring',
  pinky: 'little',
  little: 'little',
}
/** Biped's `Finger0`…`Finger4` (thumb to little), a second digit the segment. */
const BIPED_FINGERS: readonly Finger[] = ['thumb', 'index', 'middle', 'ring', 'little']
const FINGER =
  /^(?:hand|f)?(thumb|index|middle|ring|pinky|little)(?:finger)?(metacarpal|proximal|intermediate|distal|\d*)$/
const BIPED_FINGER = /^finger([0-4])\d?$/

/**
 * A name reduced to what identifies the bone: tool prefixes and namespaces gone, the side taken out, lower
 * case, letters and digits only. `Armature|mixamorig:LeftUpLeg` → `{ core: 'upleg', side: 'L' }`,
 * `DEF-upper_arm.L.001` → `{ core: 'upperarm', side: 'L' }`, `J_Bip_C_Hips` → `{ core: 'hips', side: '' }`.
 */
export function splitJointName(name: string): { core: string; side: Side } {
  let s = name.replace(NAMESPACE, '').replace(TOOL_PREFIX, '').replace(DUPLICATE, '')
  let side: Side = ''
  const take = (which: string): void => {
    side = which[0]!.toUpperCase() === 'L' ? 'L' : 'R'
  }
  const word = /^(left|right)|(left|right)$/i.exec(s)
  if (word) {
    take(word[1] ?? word[2]!)
    s = s.slice(0, word.index) + s.slice(word.index + word[0].length)
  }
  const tokens = s.split(/[\s._-]+/).filter((t) => t !== '')
  const kept: string[] = []
  for (const t of tokens) {
    const lower = t.toLowerCase()
    if (side === '' && (lower === 'l' || lower === 'r' || lower === 'left' || lower === 'right')) take(lower)
    else if (lower !== 'c' || tokens.length === 1) kept.push(t)
  }
  let joined = kept.join('_')
  if (side === '') {
    // thighL, thumb1R (a side letter glued on); lThigh, rShin (glued in front).
    const tail = /([a-z0-9])([LR])$/.exec(joined)
    const head = /^([lr])(?=[A-Z])/.exec(joined)
    if (tail) {
      take(tail[2]!)
      joined = joined.slice(0, -1)
    } else if (head) {
      take(head[1]!)
      joined = joined.slice(1)
    }
  }
  return { core: joined.toLowerCase().replace(/[^a-z0-9]/g, ''), side }
}

/** The role a joint named `name` plays in a humanoid, or null when its name says none. */
export function jointRole(name: string): JointRole | null {
  const { core, side } = splitJointName(name)
  if (core === '' || (NOT_A_BONE.test(core) && !core.startsWith('neck'))) return null
  const finger = FINGER.exec(core)
  if (finger) {
    if (side === '') return null
    // A thumb's metacarpal is its first joint in every convention (VRM 1's thumbMetacarpal is Mixamo's Thumb1).
    const kind = FINGERS[finger[1]!]!
    return { kind: 'finger', finger: kind, side, metacarpal: kind !== 'thumb' && finger[2] === 'metacarpal' }
  }
  const biped = BIPED_FINGER.exec(core)
  if (biped)
    return side === ''
      ? null
      : { kind: 'finger', finger: BIPED_FINGERS[+biped[1]!]!, side, metacarpal: false }
  // An exact name, else the name without trailing digits (Fox-style `Hip_01`, CC's `Spine01`) as a looser one.
  const exact = BONES[core]
  const loose = exact ?? BONES[core.replace(/\d+$/, '')]
  if (!loose) return null
  const [bone, rank] = loose
  if (SIDED.has(bone) !== (side !== '')) return null
  return { kind: 'bone', bone, side, rank: exact ? rank : rank + 3 }
}
