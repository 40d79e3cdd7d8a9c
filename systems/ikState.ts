/**
 * The IK solvers' per-character state (plugin.setIK): what each solver is, its joints, its numbers and its
 * weight ramp. Made by plugin/ik.ts (and a snapshot restore), read by the solver stage (systems/ik.ts), hashed
 * and snapshotted whole (snapshot/ik.ts) — except a ground function, which is the game's.
 *
 * A solver's numbers, `f` (Float64Array; NaN where a point is not given):
 *
 *   0  RAMP_DURATION   seconds of the weight ramp running (0: none)      \  the weight ramp, as a layer's
 *   1  WEIGHT          the weight now, in [0, 1]                          |  (src/clip/ramp.ts: weight goes
 *   2  WEIGHT_FROM     where the ramp started                             |  from → to by steps·dt/duration)
 *   3  WEIGHT_TO       where it goes                                     /
 *   4  TARGET x y z    world point (unless `i[TARGET_ENTITY]` names a scene node)
 *   7  POLE x y z      world point (unless `i[POLE_ENTITY]`); NaN: the solver's default
 *  10…                 per kind:
 *      two-bone   10 SOFTEN, 11 TWIST (radians), 12 REST_AXIS xyz: the middle joint's bend axis in the rest
 *                 pose, joint-local (NaN: straight at rest), the hinge where the animated chain is straight
 *      aim        10 AXIS xyz (joint-local, unit), 13 UP xyz (joint-local, unit; NaN: no roll control),
 *                 16 YAW, 17 PITCH (radians, NaN: unlimited), 18 cos yaw, 19 sin yaw, 20 cos pitch, 21 sin pitch,
 *                 22… the chain joints' weights (joints[1..])
 *      chain      10 TOLERANCE (world units; NaN: 1e-4 × the chain's length)
 *      feet       10 the left leg's REST_AXIS xyz, 13 the right leg's (as two-bone's)
 *
 * Its ramp's step count, `steps` (one double: steps of animation time, by the clock's time scale, as a layer's).
 *
 * Its integers, `i` (Uint32Array): 0 (unused), 1 TARGET_ENTITY and 2 POLE_ENTITY
 * (scene node entities followed, 0 for a point), 3 per kind: chain ITERATIONS, feet GROUND (GROUND_PHYSICS or
 * GROUND_FUNCTION); 4 chain METHOD (CHAIN_FABRIK, CHAIN_CCD).
 *
 * Its joints (character joint indices): two-bone [start, mid, end]; aim [joint, chain joints parent first];
 * chain the joints root first; feet [left hip, knee, foot, right hip, knee, foot, pelvis].
 */
export interface IKSolver {
  readonly name: string
  readonly kind: number
  readonly joints: Int32Array
  readonly f: Float64Array
  readonly i: Uint32Array
  /** The weight ramp's steps so far (see stepRamp), at [0]. */
  readonly steps: Float64Array
  /** The game's ground height function of a 'feet' solver with one; null otherwise. Not simulation state. */
  ground: ((x: number, z: number) => number) | null
}

/** A character's solvers, in the order they run: by kind (IK_KINDS' order), then in the order first set. */
export interface IKCharacter {
  solvers: IKSolver[]
}

/** The kinds, in the order a character's solvers run: feet move the pelvis that the others hang from. */
export const IK_KINDS = ['feet', 'two-bone', 'chain', 'aim'] as const
export type IKKind = (typeof IK_KINDS)[number]
export const IK_FEET = 0
export const IK_TWO_BONE = 1
export const IK_CHAIN = 2
export const IK_AIM = 3

export const F_RAMP_DURATION = 0
export const F_WEIGHT = 1
export const F_WEIGHT_FROM = 2
export const F_WEIGHT_TO = 3
export const F_TARGET = 4
export const F_POLE = 7
export const F_SOFTEN = 10
export const F_TWIST = 11
export const F_REST_AXIS = 12
export const F_LEFT_REST_AXIS = 10
export const F_RIGHT_REST_AXIS = 13
export const F_AXIS = 10
export const F_UP = 13
export const F_YAW = 16
export const F_PITCH = 17
export const F_YAW_COS = 18
export const F_PITCH_COS = 20
export const F_CHAIN_WEIGHTS = 22
export const F_TOLERANCE = 10
/** Numbers of a solver of each kind (aim: plus one per chain joint). */
export const F_LENGTH = [16, 15, 11, 22] as const

export const I_TARGET_ENTITY = 1
export const I_POLE_ENTITY = 2
export const I_ITERATIONS = 3
export const I_GROUND = 3
export const I_METHOD = 4
export const I_LENGTH = 5

export const GROUND_PHYSICS = 1
export const GROUND_FUNCTION = 2

/** Index of the first solver of `kind` or later in run order at or after which a new solver of `kind` goes. */
export function insertAt(solvers: readonly IKSolver[], kind: number): number {
  let k = 0
  while (k < solvers.length && solvers[k]!.kind <= kind) k++
  return k
}
