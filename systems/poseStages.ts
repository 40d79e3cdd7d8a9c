import type { World } from 'bitecs'
import { registerQuery } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import { JOINT_STRIDE, POSE_ANIM, poseOffset } from '../components/Pose.ts'
import {
  awaitingBodies,
  MAX_QUEUED_EVENTS,
  type AnimationStores,
  type RegisteredAsset,
  type StepState,
} from './state.ts'
import {
  beginEdit,
  forgetWorld,
  jointWorld,
  stashIntoPrevious,
  undoEdits,
  type PoseAccess,
  type PoseEditInput,
} from './poseEdits.ts'
import { solveCharacterIK } from './ik.ts'

/** What restorePoses and runPoseStages read and write: a slice of the plugin's context. */
export type PoseStagesInput = PoseEditInput &
  Pick<
    StepState,
    'world' | 'step' | 'dt' | 'timeScale' | 'physics' | 'events' | 'droppedEvents' | 'ragdolls'
  > & {
    readonly stores: Pick<AnimationStores, 'Pose' | 'Sampler' | 'Ragdoll'>
  }

/**
 * restorePoses: the first half of pose stages, before sampleTracks. Every joint an edit changed last step gets
 * back the value the layers composed (systems/poseEdits.ts says why), its edited value kept for PREV. Nothing
 * while nothing was edited. Never throws; allocates nothing.
 */
export function createRestorePosesSystem(ctx: PoseStagesInput) {
  const state = ctx.poseEdits
  return function restorePoses(_world: World): void {
    if (state.editedCount === 0) return
    for (let i = 0; i < state.editedCount; i++) {
      const eid = state.edited[i]!
      state.restored[state.restoredCount++] = eid
      // The edited values are kept only for a ragdoll about to start (its hand-off reads PREV this step).
      undoEdits(ctx, eid, true, awaitingBodies(ctx, eid))
    }
    state.editedCount = 0
  }
}

/**
 * runPoseStages: after the pose is composed (sampleTracks, composeLayers, sampleMorphWeights,
 * extractRootMotion) and before stepRagdolls reads it. First the characters restorePoses restored: their PREV
 * gets last step's edits back where sampleTracks just copied it (a ragdoll hand-off's velocity), and they are
 * written out again. Then the game's stages, in the order added, each called once with the pose access
 * (PoseAccess), then each character's IK solvers (systems/ik.ts). A stage that throws is caught: every
 * character it edited gets the composed pose back (its edits and the earlier stages' this step), and a
 * 'pose-stage-error' event names the character it touched last; likewise a character whose IK threw (a ground
 * function). Characters edited this step are marked changed for blendPoses. With no stages and no solvers, this
 * costs one branch a step. Never throws; allocates nothing (but the event of a throw).
 */
export function createRunPoseStagesSystem(ctx: PoseStagesInput) {
  const { Pose, Sampler } = ctx.stores
  const state = ctx.poseEdits
  const characters = registerQuery(ctx.world, [Sampler, Pose])
  const access = createPoseAccess(ctx)

  function failed(error: unknown, what: string, eid: number): void {
    if (ctx.events.length >= MAX_QUEUED_EVENTS) {
      ctx.droppedEvents++
      return
    }
    const message = error instanceof Error ? error.message : showValue(error)
    ctx.events.push({
      step: ctx.step,
      character: eid,
      entity: eid,
      kind: 'pose-stage-error',
      message: `${what} threw: ${message}; the characters it edited keep the pose the layers made this step`,
    })
  }

  /** Undoes this step's edits of every character the current call edited (their logs' writer). */
  function undoCall(): void {
    for (let i = state.editedCount - 1; i >= 0; i--) {
      const eid = state.edited[i]!
      if (state.logs[eid]!.writer === state.call) undoEdits(ctx, eid, false, false)
    }
  }

  return function runPoseStages(_world: World): void {
    for (let i = 0; i < state.restoredCount; i++) {
      const eid = state.restored[i]!
      const log = eid === 0 ? undefined : state.logs[eid]
      if (log === undefined) continue
      if (log.restored > 0 && Pose.changedStep[eid] === ctx.step && awaitingBodies(ctx, eid))
        stashIntoPrevious(ctx, eid, log)
      log.restored = 0
      Pose.changed[eid] = 1
    }
    state.restoredCount = 0
    const stages = state.stages
    if (stages.length === 0 && state.ikCount === 0) return
    forgetWorld(state)
    const dense = characters.dense
    const list = access.list
    list.length = dense.length
    for (let i = 0; i < dense.length; i++) list[i] = dense[i]!
    state.running = true
    for (let k = 0; k < stages.length; k++) {
      state.call++
      access.last = 0
      try {
        stages[k]!(access)
      } catch (error) {
        undoCall()
        failed(error, `pose stage ${k}`, access.last)
      }
    }
    state.running = false
    if (state.ikCount > 0) {
      for (let i = 0; i < dense.length; i++) {
        const eid = dense[i]!
        const ik = state.ik[eid]
        if (ik === undefined) continue
        state.call++
        try {
          solveCharacterIK(ctx, eid, ik)
        } catch (error) {
          undoCall()
          failed(error, `character ${eid}'s IK`, eid)
        }
      }
    }
    for (let i = 0; i < state.editedCount; i++) Pose.changed[state.edited[i]!] = 1
  }
}

/** The pose access handed to stages, with the list behind `characters` and the character touched last. */
interface StageAccess extends PoseAccess {
  readonly list: number[]
  last: number
}

const FLOAT32_MAX = 3.4028234663852886e38

/** The PoseAccess of a plugin: one object, its calls allocation-free for joint indices and known names. */
function createPoseAccess(ctx: PoseStagesInput): StageAccess {
  const { Pose } = ctx.stores
  /** Per asset: node name → joint, made at the first name looked up (-1: several nodes, none alone a skin joint). */
  const names: (Map<string, number> | undefined)[] = []

  function character(eid: number, what: string): void {
    if (!(Number.isInteger(eid) && eid > 0 && eid < ctx.capacity && Pose.count[eid]! > 0)) {
      throw new AnimationError('argument', `${what}: ${showValue(eid)} is not a character of this plugin`)
    }
    access.last = eid
  }

  function jointOf(eid: number, joint: string | number, what: string): number {
    const id = Pose.asset[eid]!
    const rig = ctx.assets[id]!
    if (typeof joint === 'number' && Number.isInteger(joint) && joint >= 0 && joint < rig.nodeJoint.length) {
      const j = rig.nodeJoint[joint]!
      if (j >= 0) return j
    } else if (typeof joint === 'string') {
      const j = (names[id] ??= jointNames(ctx.assets[id]!)).get(joint)
      if (j !== undefined && j >= 0) return j
      if (j !== undefined) {
        throw new AnimationError(
          'argument',
          `${what}: ${rig.asset.source} has several scene nodes named ${JSON.stringify(joint)}, none alone a ` +
            'skin joint; pass the node index',
        )
      }
    }
    const shown =
      typeof joint === 'string' || typeof joint === 'number' ? JSON.stringify(joint) : typeof joint
    throw new AnimationError('argument', `${what}: ${rig.asset.source} has no scene node ${shown}`)
  }

  /** Float offset of the joint's part `part` (0 T, 3 R, 7 S) in ANIM, the character and joint checked. */
  function at(eid: number, joint: string | number, part: number, what: string): number {
    character(eid, what)
    const j = jointOf(eid, joint, what)
    return poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM) + j * JOINT_STRIDE + part
  }

  function checkOut(out: unknown, size: number, what: string): void {
    const ok =
      Array.isArray(out) ||
      (ArrayBuffer.isView(out) &&
        !(out instanceof DataView) &&
        (out as unknown as ArrayLike<number>).length >= size)
    if (!ok)
      throw new AnimationError(
        'argument',
        `${what}: out ${showValue(out)} is not an array of ${size} numbers`,
      )
  }

  function read<T extends ArrayLike<number>>(
    eid: number,
    joint: string | number,
    out: T,
    part: number,
    size: number,
    what: string,
  ): T {
    const o = at(eid, joint, part, what)
    checkOut(out, size, what)
    const data = ctx.pool.data
    const w = out as unknown as number[]
    for (let k = 0; k < size; k++) w[k] = data[o + k]!
    return out
  }

  const values = new Float64Array(4)

  /** Reads `size` numbers of `v` into `values`, each finite in float32, or throws. */
  function checkValues(v: ArrayLike<number>, size: number, what: string, name: string): void {
    if (v === null || typeof v !== 'object') throw badValue(v, what, name)
    for (let k = 0; k < size; k++) {
      const x = v[k]
      if (typeof x !== 'number' || !(Math.abs(x) <= FLOAT32_MAX)) throw badValue(v, what, name)
      values[k] = x
    }
  }

  function write(eid: number, joint: string | number, part: number, size: number, what: string): void {
    const o = at(eid, joint, part, what)
    const j = (o - poseOffset(Pose.base[eid]!, Pose.count[eid]!, POSE_ANIM) - part) / JOINT_STRIDE
    beginEdit(ctx, eid, j)
    const data = ctx.pool.data
    for (let k = 0; k < size; k++) data[o + k] = values[k]!
  }

  const access: StageAccess = {
    list: [],
    last: 0,
    get characters(): readonly number[] {
      return access.list
    },
    getRotation: (eid, joint, out) => read(eid, joint, out, 3, 4, 'pose.getRotation'),
    getTranslation: (eid, joint, out) => read(eid, joint, out, 0, 3, 'pose.getTranslation'),
    getScale: (eid, joint, out) => read(eid, joint, out, 7, 3, 'pose.getScale'),
    setRotation(eid, joint, q) {
      const what = 'pose.setRotation'
      checkValues(q, 4, what, 'rotation')
      const len2 = values[0]! ** 2 + values[1]! ** 2 + values[2]! ** 2 + values[3]! ** 2
      if (!(len2 > 0) || len2 === Infinity) throw badValue(q, what, 'rotation')
      const inv = 1 / Math.sqrt(len2)
      for (let k = 0; k < 4; k++) values[k] = values[k]! * inv
      write(eid, joint, 3, 4, what)
    },
    setTranslation(eid, joint, t) {
      checkValues(t, 3, 'pose.setTranslation', 'translation')
      write(eid, joint, 0, 3, 'pose.setTranslation')
    },
    setScale(eid, joint, s) {
      checkValues(s, 3, 'pose.setScale', 'scale')
      write(eid, joint, 7, 3, 'pose.setScale')
    },
    worldMatrix(eid, joint, out) {
      const what = 'pose.worldMatrix'
      character(eid, what)
      const j = jointOf(eid, joint, what)
      checkOut(out, 16, what)
      const m = ctx.poseEdits.world.matrices
      const o = jointWorld(ctx, eid, j)
      const w = out as unknown as number[]
      for (let k = 0; k < 16; k++) w[k] = m[o + k]!
      return out
    },
  }
  return access
}

/**
 * A rig's scene nodes by name → joint, as src/skeleton/rig.ts's findJoint resolves them: a name of one node is
 * its joint; of several, the one skin joint among them, or -1 when that does not settle it.
 */
function jointNames(rig: RegisteredAsset): Map<string, number> {
  const nodes = new Map<string, number[]>()
  for (const node of rig.asset.nodes) {
    if (rig.nodeJoint[node.index]! < 0) continue
    const list = nodes.get(node.name)
    if (list) list.push(rig.nodeJoint[node.index]!)
    else nodes.set(node.name, [rig.nodeJoint[node.index]!])
  }
  const out = new Map<string, number>()
  for (const [name, joints] of nodes) {
    const skin = joints.filter((j) => rig.skinJoint[j] === 1)
    out.set(name, joints.length === 1 ? joints[0]! : skin.length === 1 ? skin[0]! : -1)
  }
  return out
}

function badValue(v: unknown, what: string, name: string): AnimationError {
  const rule = name === 'rotation' ? 'four finite numbers, not all 0' : 'three numbers finite in float32'
  return new AnimationError('argument', `${what}: ${name} ${showValue(v)} is not ${rule}`)
}
