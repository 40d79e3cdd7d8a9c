import { composeMatrix, multiplyMatrices } from '../src/math/transform.ts'
import { composeWorld } from '../src/engine/composeWorld.ts'
import { JOINT_STRIDE, POSE_ANIM, POSE_PREV, poseOffset } from '../components/Pose.ts'
import type { AnimationStores, StepState } from './state.ts'
import type { IKCharacter } from './ikState.ts'

/**
 * Pose edits: what pose stages (plugin.addPoseStage) and the IK solvers write into a character's animated pose
 * ANIM after the layers composed it, kept so that the next step starts from the pose the layers made.
 *
 * A stage edits the freshly composed pose every step, and its edits must never build up: sampleTracks skips a
 * character whose time did not move (a paused clip, a finished once-clip) or whose pose levels of detail hold,
 * and even a sampled clip leaves the joints it does not drive as they were. So every joint an edit touches is
 * logged with its composed value first (`PoseEditLog.saved`), and at the start of the next step (restorePoses,
 * before sampleTracks) the logged joints get their composed values back: sampling, skipping and composing then
 * see exactly what they would without stages, and a crowd without stages pays one branch a step. Between steps
 * ANIM holds the edited pose (what blendPoses wrote out, what hash() and snapshots see) and the logs hold what
 * it covers; both are simulation state (hash(), the snapshot's IKPS section).
 *
 * The restored joints' edited values are kept a step longer (`stash`) for the ragdoll hand-off: PREV, the pose
 * of the step before, is copied from ANIM by sampleTracks after the restore, and runPoseStages puts the edits
 * back into it, so a ragdoll starting on a stage-edited character takes the edited pose's velocity.
 */
export interface PoseEditLog {
  /** The joints edited this step, first `count`, in the order first edited (a few: looked up by a scan). */
  readonly joints: Int32Array
  count: number
  /**
   * The composed value of joints[i] at i·10 (by log position, so a character's log is a few cache lines, not
   * spread over its whole rig).
   */
  readonly saved: Float32Array
  /** The edited value of joints[i] at i·10 when restorePoses restored it (for PREV), for i < `restored`. */
  readonly stash: Float32Array
  /** Joints restorePoses restored this step (the first entries of `joints`, until the stages run). */
  restored: number
  /** The stage call that last edited the character (PoseEditState.call). */
  writer: number
}

/** A game's pose stage (plugin.addPoseStage): called once a step with the pose access (systems/poseStages.ts). */
export type PoseStage = (pose: PoseAccess) => void

/**
 * What a pose stage reads and writes: the characters this step and, per character and joint (a glTF node name or
 * index), its animated local transform as the layers (and the stages before) left it, and world matrices computed
 * on demand from that pose. `out` is any array (a plain array or a typed array of room enough). Every call checks
 * its arguments and throws AnimationError for a character that is not one, an unknown joint, an `out` that is not
 * an array, a rotation that is not four finite numbers of nonzero length (it is normalized), or a translation or
 * scale that is not three numbers finite in float32. Allocation-free for a joint index; a name is looked up in a
 * map made once per asset.
 */
export interface PoseAccess {
  /** The characters this step, in the plugin's order. Valid during the stage call only. */
  readonly characters: readonly number[]
  /** The joint's local rotation, a unit quaternion [x, y, z, w], into `out`; returns `out`. */
  getRotation<T extends ArrayLike<number>>(character: number, joint: string | number, out: T): T
  /** Sets the joint's local rotation (normalized). */
  setRotation(character: number, joint: string | number, rotation: ArrayLike<number>): void
  /** The joint's local translation into `out`; returns `out`. */
  getTranslation<T extends ArrayLike<number>>(character: number, joint: string | number, out: T): T
  /** Sets the joint's local translation. */
  setTranslation(character: number, joint: string | number, translation: ArrayLike<number>): void
  /** The joint's local scale into `out`; returns `out`. */
  getScale<T extends ArrayLike<number>>(character: number, joint: string | number, out: T): T
  /** Sets the joint's local scale. */
  setScale(character: number, joint: string | number, scale: ArrayLike<number>): void
  /**
   * The joint's world matrix (16 numbers, column-major) from this pose: the character entity's parent's world
   * matrix (as the last step left it) times the entity's local transform now, times the joints' local transforms
   * down to this one. Into `out`; returns `out`.
   */
  worldMatrix<T extends ArrayLike<number>>(character: number, joint: string | number, out: T): T
}

/** The pose stages' and IK's state in the step (StepState.poseEdits). */
export interface PoseEditState {
  /** The game's stages in the order added; replaced whole when one is added or removed. */
  stages: readonly PoseStage[]
  /** Per character: its edit log (made at its first edit), undefined before. */
  readonly logs: (PoseEditLog | undefined)[]
  /** Characters whose ANIM holds edits now (their logs' count > 0): the first `editedCount`. */
  edited: Int32Array
  editedCount: number
  /** Characters restorePoses restored this step, for runPoseStages: the first `restoredCount`. */
  restored: Int32Array
  restoredCount: number
  /** Per character with IK solvers (setIK): their state (systems/ikState.ts). */
  readonly ik: (IKCharacter | undefined)[]
  /** Characters with IK solvers: runPoseStages skips IK altogether while it is 0. */
  ikCount: number
  /**
   * The ground function last given to a 'feet' solver of each name (setIK): a restore binds a solver the
   * snapshot lists with a ground function to this one (snapshots hold no functions). Not simulation state.
   */
  readonly grounds: Map<string, (x: number, z: number) => number>
  /** Counts stage calls (a log's `writer`): a throwing stage's edits are the logs it wrote last. */
  call: number
  /** True while stages run: step() refuses to run inside one. */
  running: boolean
  /** World matrices computed on demand for one character at a time (see jointWorld). */
  readonly world: WorldMemo
}

/**
 * World matrices of one character's joints from its ANIM pose, computed lazily (a joint's ancestors first) and
 * kept while nothing above them changes: `matrices` 16 doubles per joint, valid where `stamp[j] === serial`,
 * `root` the character entity's world matrix. Grown outside the step to the largest rig (growWorldMemo).
 */
export interface WorldMemo {
  matrices: Float64Array
  stamp: Uint32Array
  /** Joint ancestors waiting to be computed (scratch). */
  chain: Int32Array
  readonly root: Float64Array
  serial: number
  character: number
  /**
   * An upper bound of the joints valid now (stamp === serial): the highest computed since `character` was
   * set, so a subtree's loops stop there (joints are depth-first, and a few near the root are what IK needs).
   */
  high: number
  /** Per asset id: the end of each joint's subtree (joints are depth-first: j's subtree is [j, end[j])). */
  readonly subtreeEnds: (Int32Array | undefined)[]
}

export function createPoseEditState(capacity: number): PoseEditState {
  return {
    stages: [],
    logs: [],
    edited: new Int32Array(capacity),
    editedCount: 0,
    restored: new Int32Array(capacity),
    restoredCount: 0,
    ik: [],
    ikCount: 0,
    grounds: new Map(),
    call: 0,
    running: false,
    world: {
      matrices: new Float64Array(0),
      stamp: new Uint32Array(0),
      chain: new Int32Array(0),
      root: new Float64Array(16),
      serial: 1,
      character: 0,
      high: -1,
      subtreeEnds: [],
    },
  }
}

/** Room in the world memo for a rig of `n` joints (at character attach: outside the step). */
export function growWorldMemo(state: PoseEditState, n: number): void {
  const w = state.world
  if (w.stamp.length >= n) return
  w.matrices = new Float64Array(16 * n)
  w.stamp = new Uint32Array(n)
  w.chain = new Int32Array(n)
  w.serial++
}

/** What the edits touch: a slice of the step state. */
export type PoseEditInput = Pick<StepState, 'pool' | 'assets' | 'capacity' | 'poseEdits' | 'sceneGraph'> & {
  readonly stores: Pick<AnimationStores, 'Pose'>
}

/**
 * Logs joint `j` of character `eid` before an edit writes it (its composed value, the first time this step),
 * and forgets the world matrices under it. Makes the character's log at its first edit ever (one allocation per
 * character lifetime). Call before writing ANIM.
 */
export function beginEdit(ctx: PoseEditInput, eid: number, j: number): void {
  logJoint(ctx, eid, j)
  forgetWorldBelow(ctx, eid, j)
}

/** beginEdit without forgetting world matrices: for an edit that updates them itself (moveWorldBelow). */
export function logJoint(ctx: PoseEditInput, eid: number, j: number): void {
  const state = ctx.poseEdits
  let log = state.logs[eid]
  const { Pose } = ctx.stores
  const n = Pose.count[eid]!
  if (log === undefined) {
    log = createLog(n)
    state.logs[eid] = log
  }
  if (log.count === 0) state.edited[state.editedCount++] = eid
  log.writer = state.call
  const joints = log.joints
  for (let i = 0; i < log.count; i++) if (joints[i] === j) return
  const i = log.count++
  joints[i] = j
  const at = poseOffset(Pose.base[eid]!, n, POSE_ANIM) + j * JOINT_STRIDE
  const data = ctx.pool.data
  for (let k = 0; k < JOINT_STRIDE; k++) log.saved[i * JOINT_STRIDE + k] = data[at + k]!
}

export function createLog(n: number): PoseEditLog {
  return {
    joints: new Int32Array(n),
    count: 0,
    saved: new Float32Array(n * JOINT_STRIDE),
    stash: new Float32Array(n * JOINT_STRIDE),
    restored: 0,
    writer: 0,
  }
}

/**
 * Gives every logged joint of character `eid` its composed value back and empties its log. With `restoring`
 * (restorePoses, which empties the whole edited list at once: one search each was quadratic in a crowd) it
 * stays on the list, and with `stash` its edited values are kept in `stash` for PREV; otherwise it leaves the
 * list. Never throws.
 */
export function undoEdits(ctx: PoseEditInput, eid: number, restoring: boolean, stash: boolean): void {
  const state = ctx.poseEdits
  const log = state.logs[eid]
  if (log === undefined || log.count === 0) return
  const { Pose } = ctx.stores
  const anim = poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM)
  const data = ctx.pool.data
  for (let i = 0; i < log.count; i++) {
    const j = log.joints[i]!
    const at = anim + j * JOINT_STRIDE
    for (let k = 0; k < JOINT_STRIDE; k++) {
      if (stash) log.stash[i * JOINT_STRIDE + k] = data[at + k]!
      data[at + k] = log.saved[i * JOINT_STRIDE + k]!
    }
  }
  log.restored = stash ? log.count : 0
  log.count = 0
  if (!restoring) removeEdited(state, eid)
  if (state.world.character === eid) state.world.serial++
}

/** Takes character `eid` off the edited list (a linear search: undo of a throwing stage, and release). */
export function removeEdited(state: PoseEditState, eid: number): void {
  const list = state.edited
  for (let i = 0; i < state.editedCount; i++) {
    if (list[i] !== eid) continue
    list.copyWithin(i, i + 1, state.editedCount)
    state.editedCount--
    return
  }
}

/**
 * PREV of a character restorePoses restored, sampled from the restored ANIM this step: the stashed edits put
 * back (PREV is the pose the character showed the step before). Only when sampleTracks wrote PREV this step.
 */
export function stashIntoPrevious(ctx: PoseEditInput, eid: number, log: PoseEditLog): void {
  const { Pose } = ctx.stores
  const prev = poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_PREV)
  const data = ctx.pool.data
  for (let i = 0; i < log.restored; i++) {
    const j = log.joints[i]!
    for (let k = 0; k < JOINT_STRIDE; k++)
      data[prev + j * JOINT_STRIDE + k] = log.stash[i * JOINT_STRIDE + k]!
  }
}

/**
 * Moves the memo's world matrices of joint `j`'s subtree by the world translation v[vo..vo+3) (an edit that
 * moves the joint in world space without turning it: every matrix under it moves the same).
 */
export function moveWorldBelow(
  ctx: PoseEditInput,
  eid: number,
  j: number,
  v: Float64Array,
  vo: number,
): void {
  const w = ctx.poseEdits.world
  if (w.character !== eid) return
  const end = Math.min(subtreeEnds(ctx, ctx.stores.Pose.asset[eid]!)[j]!, w.high + 1)
  const m = w.matrices
  for (let k = j; k < end; k++) {
    if (w.stamp[k] !== w.serial) continue
    m[16 * k + 12] = m[16 * k + 12]! + v[vo]!
    m[16 * k + 13] = m[16 * k + 13]! + v[vo + 1]!
    m[16 * k + 14] = m[16 * k + 14]! + v[vo + 2]!
  }
}

/** Forgets the memo's world matrices of joint `j`'s subtree (its local transform is about to change). */
export function forgetWorldBelow(ctx: PoseEditInput, eid: number, j: number): void {
  const w = ctx.poseEdits.world
  if (w.character !== eid) return
  const end = Math.min(subtreeEnds(ctx, ctx.stores.Pose.asset[eid]!)[j]!, w.high + 1)
  for (let k = j; k < end; k++) w.stamp[k] = 0
}

/** Per asset: the end of each joint's subtree, made once (the first time an asset's character is edited). */
function subtreeEnds(ctx: PoseEditInput, asset: number): Int32Array {
  const ends = ctx.poseEdits.world.subtreeEnds
  const made = ends[asset]
  if (made !== undefined) return made
  const parents = ctx.assets[asset]!.jointParents
  const n = parents.length
  const e = new Int32Array(n).fill(n)
  // Depth-first order: the open subtrees form a stack; joint k closes every one it is not inside.
  const open: number[] = []
  for (let k = 0; k < n; k++) {
    while (open.length > 0 && open[open.length - 1] !== parents[k]) e[open.pop()!] = k
    open.push(k)
  }
  while (ends.length <= asset) ends.push(undefined)
  ends[asset] = e
  return e
}

/**
 * The world matrix of joint `j` of character `eid` from its ANIM pose: the offset of its 16 doubles in
 * `poseEdits.world.matrices`, valid until the next edit above it or another character's. Computes what is
 * missing, ancestors first (parent · T·R·S: composeMatrix and multiplyAffine, src/math/transform.ts, in their
 * fast form). Not the propagation's bits (float64 throughout: a world matrix here is what a stage reads and IK
 * solves on, not what it writes). Allocation-free.
 */
export function jointWorld(ctx: PoseEditInput, eid: number, j: number): number {
  const w = ctx.poseEdits.world
  const { Pose } = ctx.stores
  if (w.character !== eid) {
    w.character = eid
    w.serial++
    w.high = -1
    characterRoot(ctx, eid, w.root)
  }
  if (w.stamp[j] === w.serial) return 16 * j
  const parents = ctx.assets[Pose.asset[eid]!]!.jointParents
  // Up to the nearest computed ancestor, then down.
  let depth = 0
  let k = j
  while (k >= 0 && w.stamp[k] !== w.serial) {
    w.chain[depth++] = k
    k = parents[k]!
  }
  const anim = poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM)
  const data = ctx.pool.data
  const m = w.matrices
  if (j > w.high) w.high = j
  while (depth > 0) {
    const c = w.chain[--depth]!
    const p = parents[c]!
    if (p < 0) composeWorld(m, 16 * c, data, anim + c * JOINT_STRIDE, w.root, 0)
    else composeWorld(m, 16 * c, data, anim + c * JOINT_STRIDE, m, 16 * p)
    w.stamp[c] = w.serial
  }
  return 16 * j
}

/** Forgets every memoized world matrix (the character entity moved, or a restore). */
export function forgetWorld(state: PoseEditState): void {
  state.world.serial++
  state.world.character = 0
}

const local = new Float64Array(16)

/**
 * The character entity's world matrix now: its parent's world matrix (settled in the last step) times its own
 * local transform (which the game or root motion may have changed since).
 */
function characterRoot(ctx: PoseEditInput, eid: number, out: Float64Array): void {
  const nodes = ctx.sceneGraph.store
  composeMatrix(local, 0, nodes.translation, eid * 3, nodes.rotation, eid * 4, nodes.scale, eid * 3)
  const p = nodes.parent[eid]!
  if (p === 0) {
    for (let k = 0; k < 16; k++) out[k] = local[k]!
  } else multiplyMatrices(out, 0, nodes.world, p * 16, local, 0)
}
