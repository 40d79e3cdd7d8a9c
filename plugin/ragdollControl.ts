import { AnimationError, showValue } from '../src/errors.ts'
import { underAny } from '../src/physics/subtrees.ts'
import { RAGDOLL_OFF } from '../components/Ragdoll.ts'
import type { AnimationContext, RagdollRuntime } from './context.ts'
import { checkCharacter, jointIndex } from './characters.ts'
import { optionsObject, type OptionNames } from './checks.ts'
import { markSelfCollisions, poweredRagdoll } from '../systems/ragdollSpawn.ts'

/** Setters of a live ragdoll: per-joint physics weights, motors. */

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

const WEIGHT_OPTIONS: OptionNames<RagdollWeightOptions> = { weight: true, joints: true }

/**
 * Sets the physics weight of some joints of a ragdolling character (see RagdollWeightOptions): from then on,
 * blendPoses blends each joint by its own weight, and ragdoll_weight reports the largest. The weights last as
 * long as the ragdoll. Throws AnimationError 'argument' for a bad weight or joint, or a character not
 * ragdolling, changing nothing.
 */
export function setRagdollWeight(ctx: AnimationContext, eid: number, options: RagdollWeightOptions): void {
  checkCharacter(ctx, eid, 'setRagdollWeight')
  const what = `setRagdollWeight(${eid})`
  const o = optionsObject<RagdollWeightOptions>(options, what, WEIGHT_OPTIONS)
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

/** Options of setRagdollMotors() and ragdoll()'s `motors`. */
export interface RagdollMotorOptions {
  /**
   * How strongly the joints' motors drive their bodies towards the animated pose, finite and in [0, 100]:
   * 0 is limp, 1 holds a body and everything below it against about eight times its weight at a lever of the
   * ragdoll's longest body (with the root held, every joint tracks its clip within about 10°; free, the pose
   * stays recognizable through a stumble and a fall). Default 1.
   */
  strength?: number
  /**
   * The joints (node names or glTF node indices) whose subtrees' bodies take the strength. Default: every body.
   * Bodies a first call does not name start limp.
   */
  joints?: string | number | readonly (string | number)[]
  /**
   * Hold the root body where the animation puts it (kinematic: a balance aid that keeps the ragdoll from
   * falling; a partial ragdoll is held by its anchors anyway). Default: as it was (false at first).
   */
  holdRoot?: boolean
}

/** RagdollMotorOptions' option names (optionsObject). */
export const MOTOR_OPTIONS: OptionNames<RagdollMotorOptions> = {
  strength: true,
  joints: true,
  holdRoot: true,
}

/** RagdollMotorOptions checked: the strength, the joints it applies to, holdRoot (undefined: unchanged). */
export interface MotorSettings {
  readonly strength: number
  readonly mask: Uint8Array
  readonly holdRoot: boolean | undefined
}

/** Checks motor options (see RagdollMotorOptions); throws AnimationError 'argument'. */
export function motorSettings(
  ctx: AnimationContext,
  eid: number,
  options: unknown,
  what: string,
): MotorSettings {
  const o = optionsObject<RagdollMotorOptions>(options, what, MOTOR_OPTIONS, 'motors')
  const strength = o.strength ?? 1
  if (!(typeof strength === 'number' && strength >= 0 && strength <= 100)) {
    throw new AnimationError(
      'argument',
      `${what}: strength ${showValue(strength)} must be a number in [0, 100]`,
    )
  }
  const holdRoot = o.holdRoot
  if (holdRoot !== undefined && typeof holdRoot !== 'boolean') {
    throw new AnimationError('argument', `${what}: holdRoot ${showValue(holdRoot)} must be true or false`)
  }
  return { strength, mask: jointMask(ctx, eid, o.joints, what), holdRoot }
}

/**
 * Powers a ragdolling character's joints (see RagdollMotorOptions): from the next step each joint's motor
 * drives its body towards the animated pose at the strength given. Throws AnimationError 'argument' for a bad
 * option or a character not ragdolling, changing nothing.
 */
export function setRagdollMotors(ctx: AnimationContext, eid: number, options: RagdollMotorOptions): void {
  checkCharacter(ctx, eid, 'setRagdollMotors')
  const what = `setRagdollMotors(${eid})`
  const settings = motorSettings(ctx, eid, options, what)
  applyMotors(ctx, eid, liveRuntime(ctx, eid, what), settings)
}

/** Applies checked motor settings to a runtime (and the replacement it has under way). Cannot throw. */
export function applyMotors(ctx: AnimationContext, eid: number, rt: RagdollRuntime, s: MotorSettings): void {
  const motors = rt.motors ?? { strength: new Float64Array(s.mask.length), holdRoot: false, active: false }
  rt.motors = motors
  if (rt.next) rt.next.motors = motors
  for (let j = 0; j < s.mask.length; j++) if (s.mask[j] === 1) motors.strength[j] = s.strength
  motors.active = motors.strength.some((x) => x > 0)
  if (s.holdRoot !== undefined) motors.holdRoot = s.holdRoot
  if (rt.instance === null) return
  // A ragdoll with motors or a held root does not sleep (src/physics/sleep.ts).
  if (motors.active || motors.holdRoot) ctx.physics.wake(rt.instance)
  const asset = ctx.assets[ctx.stores.Pose.asset[eid]!]!
  if (rt.motorCapacity === null) {
    poweredRagdoll(ctx.physics, rt, asset, ctx.dt)
  } else {
    markSelfCollisions(ctx.physics, rt, asset)
    ctx.physics.setRootsHeld(rt.instance, motors.holdRoot)
  }
}
