import type { Clip } from '../clip/clip.ts'
import { KIND_LINEAR, KIND_SLERP, KIND_STEP } from '../clip/kinds.ts'
import { JOINT_STRIDE, pathOffset } from '../math/poseLayout.ts'

/**
 * What the fused pass (fusedSimd.wat, run by systems/fusedCharacters.ts) plays of a clip: its plan. The pass
 * samples a playing or cross-fading character's channels, writes its pose into the SceneNode locals and makes its
 * world matrices in one call, with the bits of the chain it replaces (sampleList, writePose, the propagation
 * pass), which stays the reference (test/systems/fusedCharacters.test.ts, test/engine/wasmFused.test.ts).
 *
 * It takes clips whose channels are STEP, LINEAR and LINEAR rotations (slerp), uncompressed, sampled without
 * squad (fusedPlan says whether a clip can be); a character whose joints follow its entity in the scene order
 * (systems/fusedCharacters.ts checks that and the rest).
 */

/**
 * A clip's channels by joint, for one binding (channel → pose offset, plugin/assets.ts bindClip):
 *   channels[3j + 0 | 1 | 2]  the channel driving joint j's translation | rotation | scale (the last such
 *                             channel, as the sampler's channel order makes the last one win), -1 for none
 *   tracks                    the time tracks (leading channel indices) of every bound channel, whose key
 *                             cursors the sampler moves
 * `fusable` false: a channel kind or a compression the fused pass does not take.
 */
export interface FusedPlan {
  readonly fusable: boolean
  readonly channels: Int32Array
  readonly tracks: Int32Array
  /**
   * Where the plan's table is in its plugin's kernel memory for the WebAssembly form (wasmFused.ts): -1 not
   * placed yet, -2 not placeable (the arena is full, or a track past FUSED_MAX_TRACKS).
   */
  wasmTable: number
}

/** The plan of `clip` bound by `binding` on a character of `joints` joints. Allocates; call at setup or once. */
export function fusedPlan(clip: Clip, binding: Int32Array, joints: number): FusedPlan {
  const channels = new Int32Array(3 * joints).fill(-1)
  const tracks: number[] = []
  let fusable = clip.compression === null
  clip.frameChannels.forEach((ch, c) => {
    const offset = binding[c]!
    if (offset < 0) return
    const kind = ch.kind
    if (kind !== KIND_STEP && kind !== KIND_LINEAR && kind !== KIND_SLERP) fusable = false
    const path = offset % JOINT_STRIDE
    const slot = path === pathOffset('translation') ? 0 : path === pathOffset('rotation') ? 1 : 2
    channels[3 * ((offset - path) / JOINT_STRIDE) + slot] = c
    if (!tracks.includes(ch.track)) tracks.push(ch.track)
  })
  return { fusable, channels, tracks: Int32Array.from(tracks), wasmTable: -1 }
}
