import type { Clip } from '../clip/clip.ts'
import type { FusedPlan } from './fused.ts'
import { KIND_LINEAR, KIND_SLERP, KIND_STEP } from '../clip/kinds.ts'
import { JOINT_STRIDE } from '../math/poseLayout.ts'
import type { PropagationKernel } from './wasmKernels.ts'

/**
 * The clip arena of a kernel memory: what the WebAssembly fused pass (fusedSimd.wat) reads of the clips it
 * plays, copied in once when a plan is first played (one allocation per clip and asset, as the plan itself),
 * never moved or freed; the memory never grows, so a clip that does not fit is played by the three systems.
 *
 * A plan's table is a count and a record of 32 bytes per channel it plays (fusedSimd.wat says what each field
 * is); a clip's values and slerp segments are copied once however many plans bind them.
 */
export interface ClipArena {
  readonly bytes: Uint8Array
  readonly words: Int32Array
  readonly maxTracks: number
  /** Next free byte (absolute in the memory) and the arena's end. */
  next: number
  readonly end: number
  /** Where each copied array starts (absolute bytes). */
  readonly placed: WeakMap<Float32Array | Float64Array, number>
}

export function createClipArena(kernel: PropagationKernel): ClipArena {
  const { layout, buffer } = kernel
  return {
    bytes: new Uint8Array(buffer),
    words: new Int32Array(buffer),
    maxTracks: layout.maxTracks,
    next: layout.clips,
    end: layout.clips + layout.clipBytes,
    placed: new WeakMap(),
  }
}

/** Byte offset of each path (translation, rotation, scale) in a joint's 10-float pose. */
const PATH_BYTES = [0, 12, 28]
const RECORD = 32
const HEADER = 16

/**
 * The plan's table in `arena` (placed now unless it was), or -2 when it cannot be: a track past the kernel's
 * `maxTracks`, a channel of a kind and size fusedSimd.wat does not take (it takes LINEAR of 3 components, slerp
 * of 4, STEP of 3 or 4), or not room enough. Sets `plan.wasmTable`.
 */
export function placeFusedPlan(arena: ClipArena, clip: Clip, plan: FusedPlan): number {
  if (plan.wasmTable !== -1) return plan.wasmTable
  plan.wasmTable = -2
  for (let i = 0; i < plan.tracks.length; i++) if (plan.tracks[i]! >= arena.maxTracks) return -2
  const channels = plan.channels
  // What the plan needs that is not in the arena yet, and room for it.
  const fresh = new Set<Float32Array | Float64Array>()
  let count = 0
  for (let i = 0; i < channels.length; i++) {
    const c = channels[i]!
    if (c < 0) continue
    const ch = clip.frameChannels[c]!
    const takes =
      ch.kind === KIND_STEP
        ? ch.components === 3 || ch.components === 4
        : ch.kind === KIND_LINEAR
          ? ch.components === 3
          : ch.kind === KIND_SLERP && ch.components === 4 && ch.slerpSegments !== null
    if (!takes) return -2
    count++
    if (!arena.placed.has(ch.values)) fresh.add(ch.values)
    if (ch.slerpSegments !== null && !arena.placed.has(ch.slerpSegments)) fresh.add(ch.slerpSegments)
  }
  let need = align(HEADER + count * RECORD)
  for (const a of fresh) need += align(a.byteLength)
  if (arena.next + need > arena.end) return -2
  for (const a of fresh) {
    arena.placed.set(a, arena.next)
    arena.bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), arena.next)
    arena.next += align(a.byteLength)
  }
  const table = arena.next
  arena.next += align(HEADER + count * RECORD)
  const w = arena.words
  w.fill(0, table >> 2, (table + HEADER + count * RECORD) >> 2)
  w[table >> 2] = count
  let at = (table + HEADER) >> 2
  for (let i = 0; i < channels.length; i++) {
    const c = channels[i]!
    if (c < 0) continue
    const ch = clip.frameChannels[c]!
    w[at] = ch.kind
    w[at + 1] = ch.components
    w[at + 2] = ch.track
    w[at + 3] = arena.placed.get(ch.values)!
    if (ch.slerpSegments !== null) {
      w[at + 4] = arena.placed.get(ch.slerpSegments)! + ch.slerpOffset * 8
      w[at + 5] = ch.slerpStride * 8
    }
    // Joint i / 3's path i % 3, in the character's pose.
    w[at + 6] = Math.floor(i / 3) * JOINT_STRIDE * 4 + PATH_BYTES[i % 3]!
    at += RECORD / 4
  }
  plan.wasmTable = table
  return table
}

function align(bytes: number): number {
  return Math.ceil(bytes / 16) * 16
}

/** Byte address of float `index` of a pool in the kernel memory (pool data starts at `poseData`). */
export function poseByte(kernel: PropagationKernel, index: number): number {
  return kernel.layout.poseData + index * 4
}

/** Byte address of joint slot `slot`'s entity id in the kernel memory. */
export function jointByte(kernel: PropagationKernel, slot: number): number {
  return kernel.layout.poseJoints + slot * 4
}
