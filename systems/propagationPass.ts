import type { SceneNodeStore } from '../components/SceneNode.ts'

/**
 * The world-matrix propagation pass of propagateTransforms over one scene-node store, its parents-first `order`,
 * the list refused nodes go to (`refusedNodes`: the first as many as it holds) and `kept`. A pass over a
 * range of `order` that starts at a root and ends before one (or at the end) reads and writes only that range's
 * subtrees, so the worker threads of the `workers` option run disjoint ranges with passes of their own.
 */
export interface PropagationPass {
  /** The pass over order[start, end): returns the nodes it recomputed. */
  readonly pass: (start: number, end: number) => number
  /** Nodes refused since the last call, which starts the count afresh. */
  readonly takeRefused: () => number
}

export function createPropagationPass(
  store: SceneNodeStore,
  order: Int32Array,
  refusedNodes: Int32Array,
  kept: Uint8Array,
): PropagationPass {
  const { translation, rotation, scale, parent, dirty, changed, world } = store
  /**
   * The pass over order[start, end). A function of its own, called on chunks of nodes (src/engine/v8.ts
   * chunkPropagation): a loop over a whole crowd runs long enough in V8's unoptimized tiers to be compiled only
   * on stack, and a chunk's loop is short, so the function is optimized as a whole. A closure over the store's
   * arrays, not a module function taking them as arguments: with one plugin in the process V8 specializes the
   * closure to those arrays.
   */
  const fround = Math.fround
  const maxRefused = refusedNodes.length
  /** Nodes refused so far in this step's passes. */
  let refused = 0

  function pass(start: number, end: number): number {
    let recomputed = 0
    for (let i = start; i < end; i++) {
      const e = order[i]!
      const p = parent[e]!
      if (dirty[e] === 0 && changed[p] === 0) {
        changed[e] = 0
        continue
      }
      // world = parentWorld · T·R·S with the parent affine (4th row 0 0 0 1), or T·R·S for a root (the formulas
      // of composeMatrix, the same bits), written out: as calls (not inlined by V8 at this size) they cost a
      // third of this loop.
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
      // Finite locals can still give a product past float32's range: such a node keeps its last world matrix,
      // and so (unchanged) do its descendants that are not dirty themselves. Rounded to float32 (as the store
      // will), an element is ±∞ exactly when |m| ≥ F32_OVERFLOW, and then the sum of squares is at least
      // F32_OVERFLOW² (rounding is monotone), as it is for a NaN (no comparison holds): only then are the
      // elements rounded and summed, a NaN or ∞ anywhere making the sum NaN or ∞ (twelve finite float32 values
      // sum finite). The squares cost half what twelve roundings do, on every node.
      const q =
        m0 * m0 +
        m1 * m1 +
        (m2 * m2 + m4 * m4) +
        (m5 * m5 + m6 * m6 + (m8 * m8 + m9 * m9)) +
        (m10 * m10 + m12 * m12 + (m13 * m13 + m14 * m14))
      if (!(q < F32_OVERFLOW_SQUARED)) {
        const sum =
          fround(m0) +
          fround(m1) +
          (fround(m2) + fround(m4)) +
          (fround(m5) + fround(m6) + (fround(m8) + fround(m9))) +
          (fround(m10) + fround(m12) + (fround(m13) + fround(m14)))
        if (sum - sum !== 0) {
          if (refused < maxRefused) refusedNodes[refused] = e
          refused++
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
    return recomputed
  }

  function takeRefused(): number {
    const r = refused
    refused = 0
    return r
  }
  return { pass, takeRefused }
}

/**
 * The smallest double that rounds to ±∞ in float32: halfway between the largest float32, 2^128 − 2^104, and
 * 2^128, where round-half-to-even goes up. Its square (50 significant bits) is exact in a double.
 */
const F32_OVERFLOW = 3.4028235677973366e38 // 2^128 − 2^103 (a literal: the step uses no `**`)
const F32_OVERFLOW_SQUARED = F32_OVERFLOW * F32_OVERFLOW
