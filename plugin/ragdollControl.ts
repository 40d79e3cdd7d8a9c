import { AnimationError, showValue } from '../src/errors.ts'
import { underAny } from '../src/physics/partial.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { optionsObject } from './checks.ts'

/** Setters of a live ragdoll: per-joint physics weights. */

/** Options of setRagdollWeight(). */
export interface RagdollWeightOptions {
  /**
   * The physics share these joints ramp to while the ragdoll falls, in [0, 1]: 1 shows the ragdoll there, 0 the
   * animation, 0.5 half of each. They ramp at the character's rate, as ragdoll_weight does; getting up, every
   * joint ramps to 0.
   */
  weight: number
  /**
   * The joints (node names or glTF node indices) whose subtrees take the weight: each joint and every joint
   * below it. Default: every joint.
   */
  joints?: string | number | readonly (string | number)[]
}

/**
 * Sets the physics weight of some joints of a ragdolling character (see RagdollWeightOptions): from then on,
 * blendPoses blends each joint by its own weight, and ragdoll_weight reports the largest. The weights last as
 * long as the ragdoll. Throws AnimationError 'argument' for a bad weight or joint, or a character not
 * ragdolling, changing nothing.
 */
export function setRagdollWeight(ctx: AnimationContext, eid: number, options: RagdollWeightOptions): void {
  checkCharacter(ctx, eid, 'setRagdollWeight')
  const what = `setRagdollWeight(${eid})`
  const o = optionsObject<RagdollWeightOptions>(options, what)
  const weight = o.weight
  if (!(typeof weight === 'number' && weight >= 0 && weight <= 1)) {
    throw new AnimationError('argument', `${what}: weight ${showValue(weight)} must be a number in [0, 1]`)
  }
  const mask = jointMask(ctx, eid, o.joints, what)
  const rt = liveRuntime(ctx, eid, what)
  if (rt.jointWeights === null) {
    const n = mask.length
    rt.jointWeights = {
      weights: new Float64Array(n).fill(ctx.stores.Ragdoll.weight[eid]!),
      targets: new Float64Array(n).fill(1),
    }
  }
  const targets = rt.jointWeights.targets
  for (let j = 0; j < mask.length; j++) if (mask[j] === 1) targets[j] = weight
}

/**
 * One byte per joint of the character: 1 for the joints at or under `joints` (a reference or a list of them;
 * undefined: every joint). Throws AnimationError for a value that names no joint.
 */
export function jointMask(ctx: AnimationContext, eid: number, joints: unknown, what: string): Uint8Array {
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  const n = asset.jointNodes.length
  const mask = new Uint8Array(n)
  if (joints === undefined) return mask.fill(1)
  const list = Array.isArray(joints) ? [...(joints as unknown[])] : [joints]
  const roots = list.map((ref) => {
    if (typeof ref !== 'string' && typeof ref !== 'number') {
      throw new AnimationError(
        'argument',
        `${what}: joints: ${showValue(ref)} is not a joint name or node index`,
      )
    }
    return jointIndex(ctx, eid, ref, `${what}: joints`)
  })
  for (let j = 0; j < n; j++) if (underAny(j, roots, asset.jointParents)) mask[j] = 1
  return mask
}

/** The character's ragdoll runtime while it ragdolls; throws AnimationError otherwise. */
export function liveRuntime(ctx: AnimationContext, eid: number, what: string): RagdollRuntime {
  const rt = ctx.ragdolls[eid]
  if (ctx.stores.Ragdoll.active[eid] === RAGDOLL_OFF || !rt) {
    throw new AnimationError('argument', `${what}: character ${eid} is not ragdolling (call ragdoll() first)`)
  }
  return rt
}
