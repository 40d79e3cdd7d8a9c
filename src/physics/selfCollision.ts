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
 * Computed from the rest pose (the asset's), so a snapshot's restored bodies get the same pairs. Allocates
 * (at a spawn). Only + − × /, √ and comparisons.
 */
export function restOverlaps(
  bodies: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  rest: Float32Array,
  parents: Int32Array,
  margin: number,
): Uint32Array[] {
  const n = parents.length
  const identity = new Float64Array(WORLD_STRIDE)
  identity[6] = 1
  identity[7] = 1
  const world = forwardKinematics(new Float64Array(n * WORLD_STRIDE), rest, 0, parents, n, identity, 0)
  // Each body's capsule in the rest pose: the segment its spheres' centres span, and its radius.
  const seg = bodies.map((b) => {
    const o = nodeJoint[b.node]! * WORLD_STRIDE
    const s = Math.abs(world[o + 7]!)
    const dir = new Float64Array(3)
    rotateVector(dir, 0, world, o + 3, b.axis[0], b.axis[1], b.axis[2])
    const r = b.radius * s
    const length = b.length * s
    const from = r < 0.5 * length ? r : 0.5 * length
    const to = length - from
    const p = [world[o]!, world[o + 1]!, world[o + 2]!]
    return {
      a: Float64Array.of(p[0]! + dir[0]! * from, p[1]! + dir[1]! * from, p[2]! + dir[2]! * from),
      b: Float64Array.of(p[0]! + dir[0]! * to, p[1]! + dir[1]! * to, p[2]! + dir[2]! * to),
      r,
    }
  })
  const words = (bodies.length + 31) >> 5
  const out = bodies.map(() => new Uint32Array(words))
  for (let i = 0; i < bodies.length; i++) {
    for (let j = i + 1; j < bodies.length; j++) {
      const x = seg[i]!
      const y = seg[j]!
      const reach = margin * (x.r + y.r)
      segmentDistance2(distance, x.a, x.b, y.a, y.b)
      if (!(distance[0]! < reach * reach)) continue
      out[i]![j >> 5]! |= 1 << (j & 31)
      out[j]![i >> 5]! |= 1 << (i & 31)
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

const distance = new Float64Array(1)

/**
 * Squared distance between segments [p0, p1] and [q0, q1] (closest points, clamped to both), into out[0]: a
 * double returned from a call V8 does not inline is boxed, and the step calls this (src/physics/limbColliders.ts).
 * Float64Arrays only, so it stays optimized for both callers.
 */
export function segmentDistance2(
  out: Float64Array,
  p0: Float64Array,
  p1: Float64Array,
  q0: Float64Array,
  q1: Float64Array,
): void {
  const d1x = p1[0]! - p0[0]!
  const d1y = p1[1]! - p0[1]!
  const d1z = p1[2]! - p0[2]!
  const d2x = q1[0]! - q0[0]!
  const d2y = q1[1]! - q0[1]!
  const d2z = q1[2]! - q0[2]!
  const rx = p0[0]! - q0[0]!
  const ry = p0[1]! - q0[1]!
  const rz = p0[2]! - q0[2]!
  const a = d1x * d1x + d1y * d1y + d1z * d1z
  const e = d2x * d2x + d2y * d2y + d2z * d2z
  const f = d2x * rx + d2y * ry + d2z * rz
  // Clamping written out, no call: a caller may inline this function whole, past V8's inlining budget for a
  // clamp() inside it, and a double passed to or returned from a call that is not inlined is boxed.
  let s = 0
  let t = 0
  let u = 0
  if (a <= 0 && e <= 0) {
    s = 0
    t = 0
  } else if (a <= 0) {
    u = f / e
    t = u < 0 ? 0 : u > 1 ? 1 : u
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz
    if (e <= 0) {
      u = -c / a
      s = u < 0 ? 0 : u > 1 ? 1 : u
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z
      const denom = a * e - b * b
      u = denom > 0 ? (b * f - c * e) / denom : 0
      s = u < 0 ? 0 : u > 1 ? 1 : u
      t = (b * s + f) / e
      if (t < 0) {
        t = 0
        u = -c / a
        s = u < 0 ? 0 : u > 1 ? 1 : u
      } else if (t > 1) {
        t = 1
        u = (b - c) / a
        s = u < 0 ? 0 : u > 1 ? 1 : u
      }
    }
  }
  const dx = rx + d1x * s - d2x * t
  const dy = ry + d1y * s - d2y * t
  const dz = rz + d1z * s - d2z * t
  out[0] = dx * dx + dy * dy + dz * dz
}
