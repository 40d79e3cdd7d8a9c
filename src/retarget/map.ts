import { AnimationError, showValue } from '../errors.ts'
import type { AnimationAsset } from '../gltf/asset.ts'
import { findJoint, type Rig } from '../skeleton/rig.ts'
import { jointRole, splitJointName } from './names.ts'

/**
 * Which joint of one rig drives which of another: the 'auto' map of humanoid rigs and user maps by node name.
 *
 * A map is an Int32Array over the target's joints (rig joint order): `map[j]` is the source joint that drives
 * target joint j, or -1 (unmapped: it keeps its rest pose). Several target joints may share a source joint.
 *
 * The auto map finds each rig's humanoid bones (findHumanoid) and pairs them:
 * - the hips are the lowest common ancestor of the two upper legs (so a rig whose legs hang from a `Body`
 *   above a joint named `Hips` gets `Body`), or the joint named as hips when the legs are not found;
 * - the head, jaw, eyes, and per side the shoulder, upper and lower arm, hand, upper and lower leg, foot and
 *   toes, and Unreal's finger metacarpals, by name (names.ts), one to one;
 * - chains by place: the spine (the joints between the hips and the arms' common ancestor, that one
 *   included), the neck (from there to the head) and each finger (ancestors first; a fourth joint that is a
 *   leaf, Mixamo's finger tip, left out). Chains of different lengths pair their ends: target joint i of n
 *   takes source joint round(i·(m−1)/(n−1)) of m, and a chain of one takes the source's top joint.
 */

/** A rig with the asset it was built from: what the map and the baking read. */
export interface RigView {
  readonly rig: Rig
  readonly asset: AnimationAsset
}

/** A rig's humanoid bones as findHumanoid finds them (joint indices; -1 or absent when not found). */
export interface Humanoid {
  readonly hips: number
  /** 'head', 'jaw', 'L.eye', 'L.upperArm', 'R.toes', 'L.indexMeta', … → joint. */
  readonly bones: ReadonlyMap<string, number>
  /** 'spine', 'neck', 'L.thumb', 'R.little', … → joints, ancestors first. */
  readonly chains: ReadonlyMap<string, readonly number[]>
}

/** The name of joint j (its node's). */
export function jointName(view: RigView, j: number): string {
  return view.asset.nodes[view.rig.jointNodes[j]!]!.name
}

/** Depth of every joint (roots 0). */
export function jointDepths(rig: Rig): Int32Array {
  const depth = new Int32Array(rig.jointParents.length)
  for (let j = 0; j < depth.length; j++) {
    const p = rig.jointParents[j]!
    depth[j] = p < 0 ? 0 : depth[p]! + 1
  }
  return depth
}

/** Whether joint a is a proper ancestor of joint b. */
export function isAncestor(rig: Rig, a: number, b: number): boolean {
  for (let p = rig.jointParents[b]!; p >= 0; p = rig.jointParents[p]!) if (p === a) return true
  return false
}

function commonAncestor(rig: Rig, a: number, b: number): number {
  for (let p = a; p >= 0; p = rig.jointParents[p]!) if (p === b || isAncestor(rig, p, b)) return p
  return -1
}

/** The humanoid bones of a rig, from its joint names and its tree (see the header). */
export function findHumanoid(view: RigView): Humanoid {
  const { rig } = view
  const depth = jointDepths(rig)
  // Several joints claiming one bone: the usual name first, then the highest, then the first.
  const score = (j: number, rank: number): number => (rank * 65536 + depth[j]!) * 65536 + j
  const best = new Map<string, { joint: number; score: number }>()
  const fingers = new Map<string, number[]>()
  // A rig with skins: its bones are skin joints (RobotExpressive's hand meshes `Hand.L` sit at its root).
  const skinned = rig.skinJoint.includes(1)
  for (let j = 0; j < rig.jointNodes.length; j++) {
    if (skinned && rig.skinJoint[j] !== 1) continue
    const role = jointRole(jointName(view, j))
    if (role === null) continue
    if (role.kind === 'finger' && !role.metacarpal) {
      const key = `${role.side}.${role.finger}`
      fingers.set(key, [...(fingers.get(key) ?? []), j])
      continue
    }
    const key =
      role.kind === 'finger'
        ? `${role.side}.${role.finger}Meta`
        : role.side
          ? `${role.side}.${role.bone}`
          : role.bone
    const s = score(j, role.kind === 'bone' ? role.rank : 0)
    const known = best.get(key)
    if (known === undefined || s < known.score) best.set(key, { joint: j, score: s })
  }
  const bones = new Map<string, number>()
  for (const [key, { joint }] of best) if (key !== 'hips') bones.set(key, joint)

  const legL = bones.get('L.upperLeg')
  const legR = bones.get('R.upperLeg')
  const hips =
    legL !== undefined && legR !== undefined
      ? commonAncestor(rig, legL, legR)
      : (best.get('hips')?.joint ?? -1)

  const chains = new Map<string, readonly number[]>()
  for (const [key, joints] of fingers) {
    const chain = joints.sort((a, b) => depth[a]! - depth[b]! || a - b)
    const last = chain[chain.length - 1]!
    if (chain.length >= 4 && !rig.jointParents.includes(last)) chain.pop()
    chains.set(key, chain)
  }
  const head = bones.get('head')
  if (hips >= 0 && head !== undefined && isAncestor(rig, hips, head)) {
    const path: number[] = []
    for (let p = rig.jointParents[head]!; p !== hips; p = rig.jointParents[p]!) path.unshift(p)
    const armL = bones.get('L.upperArm') ?? bones.get('L.shoulder')
    const armR = bones.get('R.upperArm') ?? bones.get('R.shoulder')
    const chest = armL !== undefined && armR !== undefined ? commonAncestor(rig, armL, armR) : -1
    let split = path.indexOf(chest) + 1
    if (split === 0) {
      // No arms to tell the chest by: the neck is the joints named so at the top of the path.
      split = path.length
      while (split > 0 && splitJointName(jointName(view, path[split - 1]!)).core.startsWith('neck')) split--
    }
    if (split > 0) chains.set('spine', path.slice(0, split))
    if (split < path.length) chains.set('neck', path.slice(split))
  }
  return { hips, bones, chains }
}

/** The auto map of `source` onto `target` (see the header) and the target's hips (-1 when not found). */
export function autoJointMap(source: RigView, target: RigView): { map: Int32Array; hips: number } {
  const s = findHumanoid(source)
  const t = findHumanoid(target)
  const map = new Int32Array(target.rig.jointNodes.length).fill(-1)
  for (const [key, tj] of t.bones) {
    const sj = s.bones.get(key)
    if (sj !== undefined) map[tj] = sj
  }
  for (const [key, tc] of t.chains) {
    const sc = s.chains.get(key)
    if (sc === undefined || sc.length === 0) continue
    const n = tc.length
    const m = sc.length
    tc.forEach((tj, i) => {
      map[tj] = sc[n === 1 ? m - 1 : Math.round((i * (m - 1)) / (n - 1))]!
    })
  }
  const hips = s.hips >= 0 && t.hips >= 0 ? t.hips : -1
  if (hips >= 0) map[hips] = s.hips
  return { map, hips }
}

/**
 * A user's map `{ [targetJoint]: sourceJoint }` by node name (a name several scene nodes share resolves to
 * the skin joint among them, as jointEntity does). Throws AnimationError('argument') naming `what` and the
 * entry for anything that is not such an object, an unknown name, or a map of no joint.
 */
export function resolveJointMap(source: RigView, target: RigView, given: unknown, what: string): Int32Array {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new AnimationError(
      'argument',
      `${what}: map ${showValue(given)} is not 'auto' or an object of joint names`,
    )
  }
  const map = new Int32Array(target.rig.jointNodes.length).fill(-1)
  let count = 0
  for (const key of Object.keys(given)) {
    const value: unknown = (given as Record<string, unknown>)[key]
    if (typeof value !== 'string') {
      throw new AnimationError(
        'argument',
        `${what}: map[${showValue(key)}] ${showValue(value)} is not a joint name`,
      )
    }
    const tj = findJoint(target.rig, target.asset, key, `${what}: map key (target joint)`)
    map[tj] = findJoint(source.rig, source.asset, value, `${what}: map[${showValue(key)}] (source joint)`)
    count++
  }
  if (count === 0) throw new AnimationError('argument', `${what}: map {} maps no joint`)
  return map
}

/**
 * The joint whose translation 'hips-scaled' carries when the map does not say (a user's map): of the mapped
 * target joints whose source joint the clips translate (`translated[sourceJoint]` is 1), the highest, then the
 * one with the most mapped joints below it, then the first; of all mapped joints when the clips translate none
 * of them. -1 for an empty map.
 */
export function defaultHips(target: RigView, map: Int32Array, translated: Uint8Array): number {
  const rig = target.rig
  const depth = jointDepths(rig)
  const below = new Int32Array(map.length)
  for (let j = map.length - 1; j >= 0; j--) {
    const p = rig.jointParents[j]!
    if (p >= 0) below[p] = below[p]! + below[j]! + (map[j]! >= 0 ? 1 : 0)
  }
  let best = -1
  let moved = false
  for (let j = 0; j < map.length; j++) {
    if (map[j]! < 0) continue
    const m = translated[map[j]!] === 1
    const better =
      best < 0 ||
      (m && !moved) ||
      (m === moved && (depth[j]! < depth[best]! || (depth[j] === depth[best] && below[j]! > below[best]!)))
    if (better) {
      best = j
      moved = m
    }
  }
  return best
}

/** A map as names `{ [targetJoint]: sourceJoint }`, in target joint order (what retargetMap returns). */
export function mapNames(source: RigView, target: RigView, map: Int32Array): Record<string, string> {
  const out: Record<string, string> = {}
  map.forEach((sj, tj) => {
    if (sj >= 0) out[jointName(target, tj)] = jointName(source, sj)
  })
  return out
}
