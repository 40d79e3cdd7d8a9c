import type { Clip } from '../clip/clip.ts'
import { KIND_LINEAR, KIND_SLERP, KIND_STEP } from '../clip/kinds.ts'
import { ARC_SERIES } from '../clip/arcKernels.ts'
import { JOINT_STRIDE, pathOffset } from '../math/poseLayout.ts'
import type { SceneNodeStore } from '../skeleton/sceneNodes.ts'
import { F32_OVERFLOW_SQUARED } from './propagate.ts'

/**
 * The fused pass of a character whose layer 0 plays one clip (issue 40; ozz's SamplingJob → LocalToModelJob
 * without the writes between them): in one walk over its joints, parents first, each joint's channels sampled
 * into its ANIM pose, the pose written into the joint's SceneNode local (where the write-out would write it) and
 * the joint's world matrix made from it and its parent's. Its reference is the chain it replaces, each in its
 * clean form — sampleClip (src/clip/sample.ts), applyPoseToSceneGraph and propagateWorldMatrices
 * (src/skeleton/sceneNodes.ts) — and it gives their bits: the same operations in the same order (sample.ts's
 * sampleList, poseWriter.ts, propagate.ts), the same dirty/changed flags, refusals and ANIM values
 * (test/engine/fused.test.ts). What it saves is the two re-reads of a crowd's poses and locals from memory.
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

/**
 * One character's fused pass: `clip` with its time tracks located (trackK, trackU, trackOn by track: the key k,
 * the position between keys k and k+1, 1 when between them; systems/fusedCharacters.ts locates them), into the
 * ANIM pose at `data[anim ..]` (n joints of 10 floats), the locals and world matrices of the joints
 * `jointNodes[jointStart .. +n)` (each one's parent already current). Refused world matrices go to
 * `refusedNodes` at `refusedCount[0]` (counted on past its length) and `kept`; joints whose pose is not finite
 * are not written (`nonFinite[0]` counts them, as the write-out does). Returns the nodes recomputed.
 */
export type FusedCharacterPass = (
  data: Float32Array,
  anim: number,
  clip: Clip,
  plan: FusedPlan,
  trackK: Int32Array,
  trackU: Float64Array,
  trackOn: Int32Array,
  jointNodes: Int32Array,
  jointStart: number,
  n: number,
  nonFinite: Uint32Array,
) => number

/** The fused pass bound to one scene-node store (a closure over its arrays, as the propagation pass is). */
export function createFusedPass(
  store: SceneNodeStore,
  refusedNodes: Int32Array,
  refusedCount: Int32Array,
  kept: Uint8Array,
): FusedCharacterPass {
  const { translation, rotation, scale, parent, dirty, changed, world } = store
  const LIMIT = F32_OVERFLOW_SQUARED
  return function fusedCharacter(
    data,
    anim,
    clip,
    plan,
    trackK,
    trackU,
    trackOn,
    jointNodes,
    jointStart,
    n,
    nonFinite,
  ) {
    const SHORT = 0.25
    const S3 = -1 / 6
    const S5 = 1 / 120
    const S7 = -1 / 5040
    const S9 = 1 / 362880
    const S11 = -1 / 39916800
    const HALF_PI = 1.5707963267948966
    const PI = 3.141592653589793
    const PI_LO = 1.2246467991473532e-16
    const TERMS = 10
    const plans = plan.channels
    const frameChannels = clip.frameChannels
    let rejected = 0
    let recomputed = 0
    for (let j = 0; j < n; j++) {
      const pj = anim + j * JOINT_STRIDE
      // The joint's translation, rotation and scale channels (sampleList's STEP, LINEAR and slerp kernels).
      for (let path = 0; path < 3; path++) {
        const c = plans[3 * j + path]!
        if (c < 0) continue
        const o = pj + (path === 0 ? 0 : path === 1 ? 3 : 7)
        const ch = frameChannels[c]!
        const t = ch.track
        const k = trackK[t]!
        const kind = ch.kind
        if (trackOn[t] === 0 || kind === 0) {
          const cc = ch.components
          const values = ch.values
          for (let i = 0; i < cc; i++) data[o + i] = values[k * cc + i]!
          continue
        }
        const u = trackU[t]!
        if (kind === 1) {
          const cc = ch.components
          const values = ch.values
          const a = k * cc
          const b = a + cc
          for (let i = 0; i < cc; i++) {
            const va = values[a + i]!
            data[o + i] = va + (values[b + i]! - va) * u
          }
          continue
        }
        const seg = ch.slerpSegments!
        const ci = k * ch.slerpStride + ch.slerpOffset
        const theta = seg[ci]!
        const weight = seg[ci + 1]!
        const a = ci + 2
        let s0: number
        let s1: number
        if (theta < 0) {
          const l0 = 1 - u
          const e = 2 * u * l0 * (1 + theta)
          const inv = (1 + e * (0.5 + e * (0.375 + e * 0.3125))) * weight
          s0 = l0 * inv
          s1 = u * inv
        } else {
          const x0 = (1 - u) * theta
          const x1 = u * theta
          if (theta <= SHORT) {
            const z0 = x0 * x0
            const z1 = x1 * x1
            s0 = (x0 + x0 * z0 * (S3 + z0 * (S5 + z0 * (S7 + z0 * (S9 + z0 * S11))))) * weight
            s1 = (x1 + x1 * z1 * (S3 + z1 * (S5 + z1 * (S7 + z1 * (S9 + z1 * S11))))) * weight
          } else {
            const y0 = x0 > HALF_PI ? PI - x0 + PI_LO : x0
            const y1 = x1 > HALF_PI ? PI - x1 + PI_LO : x1
            const z0 = y0 * y0
            const z1 = y1 * y1
            let p0 = ARC_SERIES[TERMS - 1]!
            let p1 = p0
            for (let i = TERMS - 2; i >= 0; i--) {
              p0 = ARC_SERIES[i]! + z0 * p0
              p1 = ARC_SERIES[i]! + z1 * p1
            }
            s0 = (y0 + y0 * z0 * p0) * weight
            s1 = (y1 + y1 * z1 * p1) * weight
          }
        }
        data[o] = s0 * seg[a]! + s1 * seg[a + 4]!
        data[o + 1] = s0 * seg[a + 1]! + s1 * seg[a + 5]!
        data[o + 2] = s0 * seg[a + 2]! + s1 * seg[a + 6]!
        data[o + 3] = s0 * seg[a + 3]! + s1 * seg[a + 7]!
      }
      const e = jointNodes[jointStart + j]!
      {
        // The write-out (poseWriter.ts): only changed values mark the node dirty; a pose not finite is not written.
        const p = pj
        const t = e * 3
        const r = e * 4
        const tx = data[p]!
        const ty = data[p + 1]!
        const tz = data[p + 2]!
        const rx = data[p + 3]!
        const ry = data[p + 4]!
        const rz = data[p + 5]!
        const rw = data[p + 6]!
        const sx = data[p + 7]!
        const sy = data[p + 8]!
        const sz = data[p + 9]!
        if (
          rotation[r] !== rx ||
          rotation[r + 1] !== ry ||
          rotation[r + 2] !== rz ||
          rotation[r + 3] !== rw ||
          translation[t] !== tx ||
          translation[t + 1] !== ty ||
          translation[t + 2] !== tz ||
          scale[t] !== sx ||
          scale[t + 1] !== sy ||
          scale[t + 2] !== sz
        ) {
          const sum = tx + ty + tz + rx + ry + rz + rw + sx + sy + sz
          if (sum - sum !== 0) rejected++
          else {
            translation[t] = tx
            translation[t + 1] = ty
            translation[t + 2] = tz
            rotation[r] = rx
            rotation[r + 1] = ry
            rotation[r + 2] = rz
            rotation[r + 3] = rw
            scale[t] = sx
            scale[t + 1] = sy
            scale[t + 2] = sz
            dirty[e] = 1
          }
        }
      }
      // The world matrix as the propagation pass makes it (propagate.ts).
      const p = parent[e]!
      if (dirty[e] === 0 && changed[p] === 0) {
        changed[e] = 0
        continue
      }
      const oo = e * 16
      const ro = e * 4
      const to = e * 3
      const x = rotation[ro]!
      const y = rotation[ro + 1]!
      const z = rotation[ro + 2]!
      const w = rotation[ro + 3]!
      const x2 = x + x
      const y2 = y + y
      const z2 = z + z
      const xx = x * x2
      const xy = x * y2
      const xz = x * z2
      const yy = y * y2
      const yz = y * z2
      const zz = z * z2
      const wx = w * x2
      const wy = w * y2
      const wz = w * z2
      const sx = scale[to]!
      const sy = scale[to + 1]!
      const sz = scale[to + 2]!
      const l00 = (1 - (yy + zz)) * sx
      const l10 = (xy + wz) * sx
      const l20 = (xz - wy) * sx
      const l01 = (xy - wz) * sy
      const l11 = (1 - (xx + zz)) * sy
      const l21 = (yz + wx) * sy
      const l02 = (xz + wy) * sz
      const l12 = (yz - wx) * sz
      const l22 = (1 - (xx + yy)) * sz
      const tx = translation[to]!
      const ty = translation[to + 1]!
      const tz = translation[to + 2]!
      let m0 = l00
      let m1 = l10
      let m2 = l20
      let m4 = l01
      let m5 = l11
      let m6 = l21
      let m8 = l02
      let m9 = l12
      let m10 = l22
      let m12 = tx
      let m13 = ty
      let m14 = tz
      if (p !== 0) {
        const po = p * 16
        const p00 = world[po]!
        const p10 = world[po + 1]!
        const p20 = world[po + 2]!
        const p01 = world[po + 4]!
        const p11 = world[po + 5]!
        const p21 = world[po + 6]!
        const p02 = world[po + 8]!
        const p12 = world[po + 9]!
        const p22 = world[po + 10]!
        m0 = p00 * l00 + p01 * l10 + p02 * l20
        m1 = p10 * l00 + p11 * l10 + p12 * l20
        m2 = p20 * l00 + p21 * l10 + p22 * l20
        m4 = p00 * l01 + p01 * l11 + p02 * l21
        m5 = p10 * l01 + p11 * l11 + p12 * l21
        m6 = p20 * l01 + p21 * l11 + p22 * l21
        m8 = p00 * l02 + p01 * l12 + p02 * l22
        m9 = p10 * l02 + p11 * l12 + p12 * l22
        m10 = p20 * l02 + p21 * l12 + p22 * l22
        m12 = p00 * tx + p01 * ty + p02 * tz + world[po + 12]!
        m13 = p10 * tx + p11 * ty + p12 * tz + world[po + 13]!
        m14 = p20 * tx + p21 * ty + p22 * tz + world[po + 14]!
      }
      // The float32 guard of propagate.ts (which says why the squares suffice).
      const q =
        m0 * m0 +
        m1 * m1 +
        (m2 * m2 + m4 * m4) +
        (m5 * m5 + m6 * m6 + (m8 * m8 + m9 * m9)) +
        (m10 * m10 + m12 * m12 + (m13 * m13 + m14 * m14))
      if (!(q < LIMIT)) {
        const f = Math.fround
        const sum =
          f(m0) +
          f(m1) +
          (f(m2) + f(m4)) +
          (f(m5) + f(m6) + (f(m8) + f(m9))) +
          (f(m10) + f(m12) + (f(m13) + f(m14)))
        if (sum - sum !== 0) {
          const refused = refusedCount[0]!
          if (refused < refusedNodes.length) refusedNodes[refused] = e
          refusedCount[0] = refused + 1
          kept[e] = 1
          dirty[e] = 0
          changed[e] = 0
          continue
        }
      }
      world[oo] = m0
      world[oo + 1] = m1
      world[oo + 2] = m2
      world[oo + 4] = m4
      world[oo + 5] = m5
      world[oo + 6] = m6
      world[oo + 8] = m8
      world[oo + 9] = m9
      world[oo + 10] = m10
      world[oo + 12] = m12
      world[oo + 13] = m13
      world[oo + 14] = m14
      dirty[e] = 0
      changed[e] = 1
      recomputed++
    }
    nonFinite[0] = rejected
    return recomputed
  }
}
