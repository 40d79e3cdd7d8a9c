import { AnimationError } from '../src/errors.ts'
import { JOINT_STRIDE } from '../src/math/poseLayout.ts'
import { bufferLike } from '../src/engine/shared.ts'

/**
 * Pose: per character, slices of one shared Float32Array pool.
 *
 * A joint transform is 10 floats:   | tx ty tz | rx ry rz rw | sx sy sz |
 *                                     0        3              7        10
 * A character with n joints owns one block of POSE_BUFFERS·n joint slots, starting at slot `Pose.base[eid]`: five
 * pose buffers of n joints each ("buffer", not "layer": animation layers are systems/layerState.ts's).
 *
 *   slot base + BUFFER·n + j   (floats ×10)
 *   POSE_ANIM  0  the animation pose this step (the sampled clip, the cross-fade's blend, or the layers composed)
 *   POSE_PREV  1  at a ragdoll hand-off, the animation pose of the step before (for the velocities); kept
 *                 only for characters whose ragdoll is about to start, stale otherwise
 *   POSE_PHYS  2  the physics pose, joint-local, while a ragdoll lives
 *   POSE_FROM  3  layer 0's fading-out clip (or the frozen pose a fade started from)
 *   POSE_TO    4  layer 0's fading-in clip during a fade
 *
 * `joints` (Int32Array, one per slot, only the ANIM buffer's n slots are used) holds each joint's SceneNode
 * entity id, so slot index → entity is one lookup.
 */
export { JOINT_STRIDE, T_OFFSET, R_OFFSET, S_OFFSET } from '../src/math/poseLayout.ts'
export const POSE_BUFFERS = 5
export const POSE_ANIM = 0
export const POSE_PREV = 1
export const POSE_PHYS = 2
export const POSE_FROM = 3
export const POSE_TO = 4
/** The bits of every buffer but ANIM (StepState.posesUsed: which may differ from the rest pose). */
export const POSE_BUFFERS_OTHER = (1 << POSE_PREV) | (1 << POSE_PHYS) | (1 << POSE_FROM) | (1 << POSE_TO)

/**
 * Pose store: where each character's pose lives in the plugin's pose pool, and when its animation pose last
 * changed. One value per character entity id (SoA). The pose floats are in the pool: from slot `base`, five
 * buffers (ANIM, PREV, PHYS, FROM, TO) of `count` joint slots, 10 floats each (translation xyz, rotation
 * quaternion [x, y, z, w], scale xyz). The plugin writes it; games only read it.
 */
export interface PoseStore {
  /** First joint slot of the character's block. */
  base: Uint32Array
  /** Joints per buffer (n). */
  count: Uint16Array
  /** Id of the registered asset whose skeleton this pose belongs to. */
  asset: Int32Array
  /**
   * Step number at which the ANIM buffer last changed (when a ragdoll starts on that step, PREV holds the pose
   * from the step before).
   */
  changedStep: Uint32Array
  /** 1 when the ANIM buffer changed in the current step (read by blendPoses). */
  changed: Uint8Array
}

export function createPoseStore(capacity: number): PoseStore {
  return {
    base: new Uint32Array(capacity),
    count: new Uint16Array(capacity),
    asset: new Int32Array(capacity).fill(-1),
    changedStep: new Uint32Array(capacity),
    changed: new Uint8Array(capacity),
  }
}

/**
 * The shared pose pool: float data (10 per slot), the joint-entity column, and a first-fit free list over slot
 * ranges, so characters can come and go without the pool growing forever. Freed neighbours merge.
 * The pool grows (doubling) only when no free range fits, up to `maxSlots`; growing replaces `data` and
 * `joints`, so per-frame code must read `pool.data` each step, never keep the array across steps.
 */
export interface PosePool {
  data: Float32Array
  joints: Int32Array
  /** Slots in use (sum of live blocks). */
  used: number
  /** Capacity in slots right now. */
  slots: number
  readonly maxSlots: number
  /** Free ranges as [start, length] pairs, sorted by start; small, so a plain array is fine. */
  free: number[]
  /** Where `maxSlots` slots are reserved (kernels 'wasm': the kernel memory), or null for arrays of their own. */
  readonly region: PoolRegion | null
}

/** Memory reserved for a pool's `maxSlots`: data (f32) and joints (i32) at these byte offsets of `buffer`. */
export interface PoolRegion {
  readonly buffer: ArrayBuffer
  readonly data: number
  readonly joints: number
}

export function createPosePool(
  initialSlots: number,
  maxSlots: number,
  region: PoolRegion | null = null,
): PosePool {
  const slots = Math.max(1, Math.min(initialSlots, maxSlots))
  return {
    data: region === null ? new Float32Array(slots * JOINT_STRIDE) : regionData(region, slots),
    joints: region === null ? new Int32Array(slots) : regionJoints(region, slots),
    used: 0,
    slots,
    maxSlots,
    free: [0, slots],
    region,
  }
}

function regionData(region: PoolRegion, slots: number): Float32Array {
  return new Float32Array(region.buffer, region.data, slots * JOINT_STRIDE)
}

function regionJoints(region: PoolRegion, slots: number): Int32Array {
  return new Int32Array(region.buffer, region.joints, slots)
}

/** Reserves `n` contiguous slots and returns the first. Throws AnimationError('capacity') when `maxSlots` is hit. */
export function allocatePoseSlots(pool: PosePool, n: number): number {
  if (!placeSlots(pool.free, pool.slots, pool.maxSlots, n, placed)) {
    throw new AnimationError(
      'capacity',
      `pose pool exhausted: ${n} joint slots needed, ${pool.used} of ${pool.maxSlots} in use ` +
        `(raise the plugin's maxPoseSlots option)`,
    )
  }
  const slots = placed[1]!
  if (slots !== pool.slots && pool.region !== null) {
    // Reserved in place: longer views over the same bytes, the new slots cleared.
    const data = regionData(pool.region, slots)
    const joints = regionJoints(pool.region, slots)
    data.fill(0, pool.slots * JOINT_STRIDE)
    joints.fill(0, pool.slots)
    pool.data = data
    pool.joints = joints
    pool.slots = slots
  } else if (slots !== pool.slots) {
    const { data, joints } = poolArrays(pool, slots)
    data.set(pool.data)
    joints.set(pool.joints)
    pool.data = data
    pool.joints = joints
    pool.slots = slots
  }
  pool.used += n
  return placed[0]!
}

/** Whether blocks of `sizes` slots, reserved in this order, would all fit: allocatePoseSlots would not throw. */
export function poseSlotsFit(pool: PosePool, sizes: readonly number[]): boolean {
  const free = pool.free.slice()
  let slots = pool.slots
  for (const n of sizes) {
    if (!placeSlots(free, slots, pool.maxSlots, n, placed)) return false
    slots = placed[1]!
  }
  return true
}

/** placeSlots' result: the block's first slot, the pool's slots after. */
const placed = [0, 0]

/**
 * Places `n` contiguous slots in free list `f` of a pool of `slots` slots: the first range that fits, else at the
 * end of a pool grown (doubling, or to what the free tail needs, up to `maxSlots`). Sets `out` to the first slot
 * and the pool's size after; false (f unchanged) when even `maxSlots` cannot hold it.
 */
function placeSlots(f: number[], slots: number, maxSlots: number, n: number, out: number[]): boolean {
  let size = slots
  for (;;) {
    for (let i = 0; i < f.length; i += 2) {
      const start = f[i]!
      const len = f[i + 1]!
      if (len < n) continue
      if (len === n) f.splice(i, 2)
      else {
        f[i] = start + n
        f[i + 1] = len - n
      }
      out[0] = start
      out[1] = size
      return true
    }
    const tailFree = f.length > 0 && f[f.length - 2]! + f[f.length - 1]! === size ? f[f.length - 1]! : 0
    // The new block goes at the end, extending the free tail (if any): what matters is the tail, not `used`
    // (a fragmented pool can have plenty of free slots, none of them at the end).
    const grown = Math.min(Math.max(size * 2, size + n - tailFree), maxSlots)
    if (grown - size + tailFree < n) return false
    if (tailFree > 0) f[f.length - 1] = tailFree + grown - size
    else f.push(size, grown - size)
    size = grown
  }
}

/**
 * New zeroed `data` and `joints` arrays for `slots` slots, on shared memory when the pool's are (the `workers`
 * option: worker threads read and write the pool); for a pool with a region, its views cleared.
 */
export function poolArrays(pool: PosePool, slots: number): { data: Float32Array; joints: Int32Array } {
  if (pool.region !== null) {
    const data = regionData(pool.region, slots).fill(0)
    return { data, joints: regionJoints(pool.region, slots).fill(0) }
  }
  return {
    data: new Float32Array(bufferLike(pool.data.buffer, slots * JOINT_STRIDE * 4)),
    joints: new Int32Array(bufferLike(pool.joints.buffer, slots * 4)),
  }
}

/** Returns a block to the free list, merging with adjacent free ranges. */
export function freePoseSlots(pool: PosePool, start: number, n: number): void {
  const f = pool.free
  let i = 0
  while (i < f.length && f[i]! < start) i += 2
  f.splice(i, 0, start, n)
  // Merge with the next range, then with the previous one.
  if (i + 2 < f.length && f[i]! + f[i + 1]! === f[i + 2]!) {
    f[i + 1] = f[i + 1]! + f[i + 3]!
    f.splice(i + 2, 2)
  }
  if (i >= 2 && f[i - 2]! + f[i - 1]! === f[i]!) {
    f[i - 1] = f[i - 1]! + f[i + 1]!
    f.splice(i, 2)
  }
  pool.used -= n
  pool.data.fill(0, start * JOINT_STRIDE, (start + n) * JOINT_STRIDE)
  pool.joints.fill(0, start, start + n)
}

/** Float offset of pose buffer `buffer` (POSE_…) of a block starting at slot `base` with n joints a buffer. */
export function poseOffset(base: number, n: number, buffer: number): number {
  return (base + buffer * n) * JOINT_STRIDE
}
