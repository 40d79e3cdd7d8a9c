import type { Body } from 'cannon-es'
import type { RagdollBody } from './broadphase.ts'
import type { ResolvedBody } from './description.ts'
import { forwardKinematics, rotateVector, WORLD_STRIDE } from './kinematics.ts'

/**
 * How close two capsules of a ragdoll may be in the rest pose, in sums of their radii, and still never collide:
 * overlapping for a limp ragdoll; nearly touching for a powered one (src/physics/motors.ts), whose bodies the
 * motors keep near their relative rest places, where such a contact only fights them. With 1.5 also for limp
 * ragdolls, a lying Fox crept 2 cm/s (its front legs, 1.37 apart, passing through each other) against 1.
 */
export const REST_CONTACT_MARGIN = 1
export const POWERED_REST_CONTACT_MARGIN = 1.5

/**
 * Which bodies of a ragdoll never collide with each other: those whose capsules overlap or nearly touch in the
 * rest pose (closer than `margin` times the sum of their radii: a pelvis and the thighs beside it, a forearm
 * hanging by a thigh; powered, also a wide chest and the pelvis below it). Such pairs touch in nearly any pose, so a contact
 * between them only pushes the ragdoll apart from within: limp, it jitters; powered, the contact fights the
 * motors (RobotExpressive's trunk, its pelvis between its thighs and against its chest, ended 12–35° off its
 * clip; without those contacts, within 2°). Other pairs (a hand and the leg it swings past, two legs) still
 * collide. Bodies linked by a joint never collide anyway (RagdollBroadphase).
 *
 * A pair whose rest distance cannot be measured in doubles (a capsule not finite at rest, or so large that the
 * squares overflow: nested scales of 10^5) counts as overlapping: bodies that overlap at rest and collide push
 * each other apart from within, and a ragdoll of such bodies explodes.
 *
 * Computed from the rest pose (the asset's), so a snapshot's restored bodies get the same pairs. Sweep and prune
 * along x: O(n log n) plus the pairs whose x extents (widened by their reach) meet, rather than every pair.
 * Allocates (at a spawn). Only + − × /, √ and comparisons.
 */
export function restOverlaps(
  bodies: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  rest: Float32Array,
  parents: Int32Array,
  margin: number,
): Uint32Array[] {
  const n = parents.length
  const count = bodies.length
  const identity = new Float64Array(WORLD_STRIDE)
  identity[6] = 1
  identity[7] = 1
  const world = forwardKinematics(new Float64Array(n * WORLD_STRIDE), rest, 0, parents, n, identity, 0)
  // Each body's capsule in the rest pose: the segment its spheres' centres span (a, b) and its radius, 7 doubles.
  const seg = new Float64Array(count * 7)
  const dir = new Float64Array(3)
  const lo = new Float64Array(count)
  const hi = new Float64Array(count)
  const swept: number[] = []
  const unmeasured: number[] = []
  for (let i = 0; i < count; i++) {
    const body = bodies[i]!
    const o = nodeJoint[body.node]! * WORLD_STRIDE
    const s = Math.abs(world[o + 7]!)
    rotateVector(dir, 0, world, o + 3, body.axis[0], body.axis[1], body.axis[2])
    const r = body.radius * s
    const length = body.length * s
    const from = r < 0.5 * length ? r : 0.5 * length
    const to = length - from
    const k = i * 7
    let finite = r - r === 0
    for (let c = 0; c < 3; c++) {
      seg[k + c] = world[o + c]! + dir[c]! * from
      seg[k + 3 + c] = world[o + c]! + dir[c]! * to
      finite = finite && seg[k + c]! - seg[k + c]! === 0 && seg[k + 3 + c]! - seg[k + 3 + c]! === 0
    }
    seg[k + 6] = r
    // The x extent, widened by its share of any pair's reach (and a little more, so rounding here cannot
    // drop a pair the exact test below would keep).
    const pad = margin * r * 1.001
    lo[i] = (seg[k]! < seg[k + 3]! ? seg[k]! : seg[k + 3]!) - pad
    hi[i] = (seg[k]! < seg[k + 3]! ? seg[k + 3]! : seg[k]!) + pad
    if (finite) swept.push(i)
    else unmeasured.push(i)
  }
  const words = (count + 31) >> 5
  const out = bodies.map(() => new Uint32Array(words))
  const mark = (i: number, j: number): void => {
    out[i]![j >> 5]! |= 1 << (j & 31)
    out[j]![i >> 5]! |= 1 << (i & 31)
  }
  for (const i of unmeasured) for (let j = 0; j < count; j++) if (j !== i) mark(i, j)
  swept.sort((a, b) => lo[a]! - lo[b]! || a - b)
  for (let x = 0; x < swept.length; x++) {
    const i = swept[x]!
    for (let y = x + 1; y < swept.length && lo[swept[y]!]! <= hi[i]!; y++) {
      const j = swept[y]!
      const reach = margin * (seg[i * 7 + 6]! + seg[j * 7 + 6]!)
      // The lower index first, as every pair was measured before the sweep (the same rounding).
      const d2 = i < j ? segmentDistance2(seg, i * 7, j * 7) : segmentDistance2(seg, j * 7, i * 7)
      const reach2 = reach * reach
      // Unmeasurable (an overflow to ∞ or NaN) counts as overlapping, as above.
      if (d2 < reach2 || d2 - d2 !== 0 || reach2 - reach2 !== 0) mark(i, j)
    }
  }
  return out
}

/** Marks a ragdoll's bodies with their index and the bodies of it they never collide with (restOverlaps). */
export function markOverlaps(bodies: readonly Body[], overlaps: readonly Uint32Array[]): void {
  bodies.forEach((body, i) => {
    const b = body as RagdollBody
    b.ragdollIndex = i
    b.ragdollGroup = bodies
    b.ragdollIgnore = overlaps[i] ?? null
  })
}

/**
 * Squared distance between segments [p0, p1] and [q0, q1] (closest points, clamped to both): p0, p1 at
 * seg[p .. p + 6], q0, q1 at seg[q .. q + 6].
 */
function segmentDistance2(seg: Float64Array, p: number, q: number): number {
  const d1x = seg[p + 3]! - seg[p]!
  const d1y = seg[p + 4]! - seg[p + 1]!
  const d1z = seg[p + 5]! - seg[p + 2]!
  const d2x = seg[q + 3]! - seg[q]!
  const d2y = seg[q + 4]! - seg[q + 1]!
  const d2z = seg[q + 5]! - seg[q + 2]!
  const rx = seg[p]! - seg[q]!
  const ry = seg[p + 1]! - seg[q + 1]!
  const rz = seg[p + 2]! - seg[q + 2]!
  const a = d1x * d1x + d1y * d1y + d1z * d1z
  const e = d2x * d2x + d2y * d2y + d2z * d2z
  const f = d2x * rx + d2y * ry + d2z * rz
  let s = 0
  let t = 0
  if (a <= 0 && e <= 0) {
    s = 0
    t = 0
  } else if (a <= 0) {
    t = clamp(f / e)
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz
    if (e <= 0) {
      s = clamp(-c / a)
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z
      const denom = a * e - b * b
      s = denom > 0 ? clamp((b * f - c * e) / denom) : 0
      t = (b * s + f) / e
      if (t < 0) {
        t = 0
        s = clamp(-c / a)
      } else if (t > 1) {
        t = 1
        s = clamp((b - c) / a)
      }
    }
  }
  const dx = rx + d1x * s - d2x * t
  const dy = ry + d1y * s - d2y * t
  const dz = rz + d1z * s - d2z * t
  return dx * dx + dy * dy + dz * dz
}

function clamp(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x
}
