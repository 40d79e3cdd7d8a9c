import { AnimationError } from '../errors.ts'
import { isAncestor, jointName, type RigView } from './map.ts'
import { computeWorld, createWorldPose, toLocalPoint, type WorldPose } from './pose.ts'

/**
 * Retargeting: a clip of one rig baked into a clip of another (issue 35), once, outside the step, so the
 * result is a clip of the target asset like any other. This file is the plan made once per retarget call;
 * bake.ts makes each clip, solve.ts its general path.
 *
 * The rule, for every mapped target joint j driven by source joint s (rotations in each asset's world):
 *
 *   targetWorld_j(t) · targetRestWorld_j⁻¹ = sourceWorld_s(t) · sourceRestWorld_s⁻¹
 *
 * and j's local rotation follows from its parent's world rotation at t (the parent's own retargeted rotation,
 * or its rest pose when unmapped). Unmapped joints keep the target's rest pose; scales stay the target's
 * (but in 'all').
 * Translations, by `TranslationMode`:
 * - 'hips-scaled': the hips' world place moves from the target's rest place as the source hips move from
 *   theirs, times `scale` (the target's hips height over the source's: hipsHeight); the rest keep the
 *   target's rest translations (bone lengths are the target's);
 * - 'none': rest translations everywhere; 'all': mapped joints take the source joint's local translation
 *   and scale (rigs of the same proportions; a rig onto itself then plays its clips bit for bit).
 * In every mode a mapped joint hung elsewhere than the map implies (RobotExpressive's feet are IK targets
 * under the armature, not under the shins) keeps its rest place relative to the target joint that the
 * source joint's nearest mapped ancestor maps to (it is "pinned" to it), so it moves with the leg.
 *
 * How each channel is made (bake.ts):
 * - direct: when a joint's local rotation depends on one source channel (no animated rotation between the
 *   source joints of it and of its nearest mapped target ancestor), it is C · q(t) · R with constant C =
 *   targetParentRestWorld⁻¹ · sourceParentRestWorld and R = sourceRest⁻¹ · C⁻¹ · targetRest: the source
 *   channel's keys, times and interpolation (CUBICSPLINE tangents by the same products) carry over exactly;
 *   likewise the hips' translation when nothing above either hips moves (an affine map of the keys). Where C
 *   and R are the identity (a rig onto itself) the values are copied bit for bit.
 * - general (solve.ts): otherwise (a target joint spanning several animated source joints, a pinned joint), the source
 *   pose is sampled at every key time of the clip and the rule solved there (LINEAR between keys; STEP if
 *   every source channel is STEP). Between keys of CUBICSPLINE sources this is an approximation.
 * The baked clip keeps the source clip's duration (a key is added at its end when no channel reaches it) and
 * carries the markers it is given. Only `+ - * /` and square roots: the same bits on every engine.
 */

/**
 * How a retargeted clip moves joints (see the header): 'hips-scaled' carries the hips' motion scaled by the
 * two rigs' hips heights; 'none' keeps every rest translation; 'all' copies mapped joints' local translations
 * and scales (rigs of the same proportions).
 */
export type TranslationMode = 'hips-scaled' | 'none' | 'all'
/** The translation modes retarget takes. */
export const TRANSLATION_MODES: readonly TranslationMode[] = ['hips-scaled', 'none', 'all']

/** What a clip's baking needs of a source, a target and a map, made once per retarget call (planRetarget). */
export interface RetargetPlan {
  readonly source: RigView
  readonly target: RigView
  /** Target joint → source joint, -1 unmapped (map.ts). */
  readonly map: Int32Array
  /** The target joint whose translation 'hips-scaled' carries, -1 for none. */
  readonly hips: number
  readonly translation: TranslationMode
  /** Target hips height over the source's ('hips-scaled'; 1 otherwise). */
  readonly scale: number
  /** Per target joint, its nearest mapped proper ancestor, -1 when none. */
  readonly anchor: Int32Array
  /** Per target joint, the joint it is pinned to (see the header), -1 when not pinned. */
  readonly pin: Int32Array
  /** 3 per target joint: a pinned joint's rest place in its pin's rest frame. */
  readonly pinOffset: Float64Array
  /** The target joints in the order the general path places them: parents and pins first. */
  readonly order: Int32Array
  readonly sourceRest: WorldPose
  readonly targetRest: WorldPose
}

/**
 * The hips' height at rest: their world y above the lowest joint of the rig (of its skins' joints when it has
 * skins), so rigs need not stand at y = 0. 0 for joint -1, and for hips within a thousandth of the rig's
 * height of its lowest joint (no height to scale by).
 */
export function hipsHeight(view: RigView, rest: WorldPose, hips: number): number {
  if (hips < 0) return 0
  const { rig } = view
  const skinned = rig.skinJoint.includes(1)
  let low = Infinity
  let high = -Infinity
  for (let j = 0; j < rig.jointNodes.length; j++) {
    if (skinned && rig.skinJoint[j] !== 1) continue
    low = Math.min(low, rest.mat[16 * j + 13]!)
    high = Math.max(high, rest.mat[16 * j + 13]!)
  }
  const height = rest.mat[16 * hips + 13]! - low
  return height > 1e-3 * (high - low) ? height : 0
}

/**
 * The plan of retargeting `source` onto `target` through `map`. Throws AnimationError('argument') naming
 * `what` when 'hips-scaled' finds no hips or hips that stand no higher than their rig's lowest joint.
 */
export function planRetarget(
  source: RigView,
  target: RigView,
  map: Int32Array,
  hips: number,
  translation: TranslationMode,
  what: string,
): RetargetPlan {
  const tRig = target.rig
  const n = tRig.jointNodes.length
  const sourceRest = computeWorld(createWorldPose(source.rig.jointNodes.length), source.rig, source.rig.rest)
  const targetRest = computeWorld(createWorldPose(n), tRig, tRig.rest)
  let scale = 1
  if (translation === 'hips-scaled') {
    const hs = hips >= 0 ? hipsHeight(source, sourceRest, map[hips]!) : 0
    const ht = hipsHeight(target, targetRest, hips)
    if (!(hs > 0 && ht > 0)) {
      const which =
        hips < 0
          ? 'the map has no hips'
          : `the hips (${jointName(target, hips)} ← ${jointName(source, map[hips]!)}) stand ${ht} and ${hs} above their rigs' lowest joints`
      throw new AnimationError(
        'argument',
        `${what}: translation 'hips-scaled' needs hips above the feet, but ${which}; pass translation 'none' or 'all'`,
      )
    }
    scale = ht / hs
  }
  const anchor = new Int32Array(n).fill(-1)
  for (let j = 0; j < n; j++) {
    const p = tRig.jointParents[j]!
    anchor[j] = p < 0 ? -1 : map[p]! >= 0 ? p : anchor[p]!
  }
  const { pin, pinOffset, order } = planPins(source, target, map, hips, anchor, targetRest)
  return {
    source,
    target,
    map,
    hips,
    translation,
    scale,
    anchor,
    pin,
    pinOffset,
    order,
    sourceRest,
    targetRest,
  }
}

/**
 * Pins (see the header): mapped target joint j whose source joint's nearest mapped source ancestor is driven
 * by a target joint k that is neither j's nearest mapped ancestor nor any ancestor of j. The order places k
 * before j; a pin that would need j before k (a cycle) is dropped.
 */
function planPins(
  source: RigView,
  target: RigView,
  map: Int32Array,
  hips: number,
  anchor: Int32Array,
  rest: WorldPose,
): { pin: Int32Array; pinOffset: Float64Array; order: Int32Array } {
  const tRig = target.rig
  const n = tRig.jointNodes.length
  const driver = new Int32Array(source.rig.jointNodes.length).fill(-1)
  for (let j = n - 1; j >= 0; j--) if (map[j]! >= 0) driver[map[j]!] = j
  const pin = new Int32Array(n).fill(-1)
  const pinOffset = new Float64Array(3 * n)
  for (let j = 0; j < n; j++) {
    if (map[j]! < 0 || j === hips) continue
    let p = source.rig.jointParents[map[j]!]!
    while (p >= 0 && driver[p]! < 0) p = source.rig.jointParents[p]!
    const k = p < 0 ? -1 : driver[p]!
    if (k < 0 || k === j || k === anchor[j] || isAncestor(tRig, k, j) || isAncestor(tRig, j, k)) continue
    pin[j] = k
    const m = rest.mat
    toLocalPoint(pinOffset, 3 * j, m, 16 * k, m[16 * j + 12]!, m[16 * j + 13]!, m[16 * j + 14]!)
  }
  // Depth-first: a joint after its parent and its pin; 1 = being placed (a pin back into it is a cycle).
  const state = new Uint8Array(n)
  const order: number[] = []
  const place = (j: number): boolean => {
    if (state[j] === 2) return true
    if (state[j] === 1) return false
    state[j] = 1
    const p = tRig.jointParents[j]!
    if (p >= 0) place(p)
    if (pin[j]! >= 0 && !place(pin[j]!)) pin[j] = -1
    state[j] = 2
    order.push(j)
    return true
  }
  for (let j = 0; j < n; j++) place(j)
  return { pin, pinOffset, order: Int32Array.from(order) }
}

/** Target joint j's glTF node and its name: what a baked channel names. */
export function targetNode(plan: RetargetPlan, j: number): { node: number; nodeName: string } {
  const node = plan.target.rig.jointNodes[j]!
  return { node, nodeName: plan.target.asset.nodes[node]!.name }
}

/** How a baked channel is made (bake.ts): none, from one source channel, solved at key times, copied. */
export const NONE = 0
export const DIRECT = 1
export const GENERAL = 2
export const COPY = 3
