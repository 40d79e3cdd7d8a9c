import type { ResolvedBody } from './description.ts'
import { forwardKinematics, rotateVector, WORLD_STRIDE } from './kinematics.ts'
import { MAX_BODY_SHAPES, MAX_CAPSULE_SPHERES, withinExtent } from './buildable.ts'

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
): readonly Uint32Array[] {
  // Every ragdoll of an asset's default description (and a partial one's limb colliders) asks the same: the
  // answer is kept with the description array, for the same rig arrays and margin.
  let kept = overlapCache.get(bodies)
  if (kept === undefined) overlapCache.set(bodies, (kept = []))
  for (const k of kept) {
    if (k.nodeJoint === nodeJoint && k.rest === rest && k.parents === parents && k.margin === margin)
      return k.out
  }
  const out = computeRestOverlaps(bodies, nodeJoint, rest, parents, margin)
  kept.push({ nodeJoint, rest, parents, margin, out })
  return out
}

interface KeptOverlaps {
  readonly nodeJoint: Int32Array
  readonly rest: Float32Array
  readonly parents: Int32Array
  readonly margin: number
  readonly out: readonly Uint32Array[]
}

const overlapCache = new WeakMap<readonly ResolvedBody[], KeptOverlaps[]>()

function computeRestOverlaps(
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
  const riding = ridingPoints(bodies, nodeJoint, parents, world, seg)
  for (let i = 0; i < count; i++) {
    const points = riding[i]!
    const pad = margin * points.radius * 1.001
    for (let k = 0; k < points.xyz.length; k += 3) {
      const x = points.xyz[k]!
      if (x - pad < lo[i]!) lo[i] = x - pad
      if (x + pad > hi[i]!) hi[i] = x + pad
    }
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
      // The lower index first, as every pair was measured before the sweep (the same rounding).
      const [a, b] = i < j ? [i, j] : [j, i]
      if (near(seg, a * 7, seg[a * 7 + 6]!, seg, b * 7, seg[b * 7 + 6]!, margin)) mark(i, j)
      else if (ridersNear(seg, riding, a, b, margin) || ridersNear(seg, riding, b, a, margin)) mark(i, j)
    }
  }
  return out
}

/**
 * Whether two elements (segments at `p` of `ps` and `q` of `qs`, 6 doubles each; a point is a segment from
 * itself to itself) with radii `rp`, `rq` are closer than margin × (rp + rq). Unmeasurable (an overflow to ∞ or
 * NaN) counts as near, as above.
 */
function near(
  ps: Float64Array,
  p: number,
  rp: number,
  qs: Float64Array,
  q: number,
  rq: number,
  margin: number,
) {
  const reach = margin * (rp + rq)
  segmentDistance2(distance, ps, p, qs, q)
  const d2 = distance[0]!
  const reach2 = reach * reach
  return d2 < reach2 || d2 - d2 !== 0 || reach2 - reach2 !== 0
}

const distance = new Float64Array(1)

/** Whether body a's riding spheres come near body b's capsule or riding spheres. */
function ridersNear(
  seg: Float64Array,
  riding: readonly Riders[],
  a: number,
  b: number,
  margin: number,
): boolean {
  const pa = riding[a]!
  const pb = riding[b]!
  for (let k = 0; k < pa.xyz.length; k += 3) {
    if (near(pa.seg, k * 2, pa.radius, seg, b * 7, seg[b * 7 + 6]!, margin)) return true
    for (let m = 0; m < pb.xyz.length; m += 3) {
      if (near(pa.seg, k * 2, pa.radius, pb.seg, m * 2, pb.radius, margin)) return true
    }
  }
  return false
}

/** A body's riding spheres at rest: centres (3 doubles each), the same as point segments, and their radius. */
interface Riders {
  readonly xyz: number[]
  readonly seg: Float64Array
  readonly radius: number
}

/**
 * The riding spheres the hand-off gives each body (shapes.ts addRidingSpheres), at the joints' rest places:
 * a joint without a body rides on its nearest ancestor's; one outside the body's shapes (its capsule's spheres,
 * or its box's bounding sphere, and the riding spheres before it) gets a sphere of the body's largest radius,
 * MAX_BODY_SHAPES shapes a body at most, the first joints first. They make a body reach past its capsule (the
 * leaves of a bush riding on their branch), so they count in the rest overlaps too.
 */
function ridingPoints(
  bodies: readonly ResolvedBody[],
  nodeJoint: Int32Array,
  parents: Int32Array,
  world: Float64Array,
  seg: Float64Array,
): Riders[] {
  const n = parents.length
  const jointBody = new Int32Array(n).fill(-1)
  bodies.forEach((b, i) => (jointBody[nodeJoint[b.node]!] = i))
  // Each body's shapes at rest as the hand-off builds them: centres and radii.
  const shapes = bodies.map((body, i) => {
    const k = i * 7
    const r = seg[k + 6]!
    const cx = [0, 1, 2].map((c) => 0.5 * (seg[k + c]! + seg[k + 3 + c]!))
    const half = [0, 1, 2].map((c) => 0.5 * (seg[k + 3 + c]! - seg[k + c]!))
    const halfLength = Math.sqrt(half[0]! * half[0]! + half[1]! * half[1]! + half[2]! * half[2]!) + r
    if (body.shape === 'box') {
      const bound = Math.sqrt(2 * r * r + halfLength * halfLength)
      return { centres: [cx], radii: [bound], largest: bound }
    }
    const end = Math.max(0, halfLength - r)
    const count = end > 0 ? Math.min(Math.ceil((2 * end) / r) + 1, MAX_CAPSULE_SPHERES) : 1
    const centres: number[][] = []
    const length = halfLength - r
    for (let m = 0; m < count; m++) {
      const t = count === 1 ? 0 : -end + (2 * end * m) / (count - 1)
      const f = length > 0 ? t / length : 0
      centres.push(cx.map((x, c) => x + half[c]! * f))
    }
    return { centres, radii: centres.map(() => r), largest: r }
  })
  const xyz: number[][] = bodies.map(() => [])
  const rides = new Int32Array(n)
  for (let j = 0; j < n; j++) {
    const p = parents[j]!
    rides[j] = jointBody[j]! >= 0 ? jointBody[j]! : p >= 0 && p < j ? rides[p]! : -1
    const b = rides[j]!
    if (jointBody[j]! >= 0 || b < 0) continue
    const own = shapes[b]!
    if (own.centres.length + xyz[b]!.length / 3 >= MAX_BODY_SHAPES) continue
    const o = j * WORLD_STRIDE
    if (!withinExtent(world, o)) continue
    const x = world[o]!
    const y = world[o + 1]!
    const z = world[o + 2]!
    let within = false
    for (let m = 0; m < own.centres.length && !within; m++)
      within = inside(x, y, z, own.centres[m]!, 0, own.radii[m]!)
    if (within) continue
    const riders = xyz[b]!
    let covered = false
    for (let m = 0; m < riders.length && !covered; m += 3) covered = inside(x, y, z, riders, m, own.largest)
    if (covered || !(own.largest > 0)) continue
    riders.push(x, y, z)
  }
  return xyz.map((points, b) => ({
    xyz: points,
    seg: Float64Array.from(
      points.flatMap((_, m) => (m % 3 === 0 ? [...points.slice(m, m + 3), ...points.slice(m, m + 3)] : [])),
    ),
    radius: shapes[b]!.largest,
  }))
}

/**
 * Whether (x, y, z) is within r of the centre at c[at .. at + 3]. Not a closure made per joint: under tsx
 * (esbuild's keepNames) each closure made is named with a defineProperty, which was most of the riding-point
 * pass on a 16,000-joint rig.
 */
function inside(x: number, y: number, z: number, c: ArrayLike<number>, at: number, r: number): boolean {
  const dx = x - c[at]!
  const dy = y - c[at + 1]!
  const dz = z - c[at + 2]!
  return dx * dx + dy * dy + dz * dz <= r * r
}

/**
 * Squared distance between segments [p0, p1] and [q0, q1] (closest points, clamped to both), into out[0]: p0, p1
 * at ps[p .. p + 6], q0, q1 at qs[q .. q + 6]. The step calls it (src/physics/limbColliders.ts): the result goes
 * out through an array and the clamping is written out, because a double passed to or returned from a call V8
 * does not inline is boxed (inlined into a large caller, a clamp() call inside was past the inlining budget).
 */
export function segmentDistance2(
  out: Float64Array,
  ps: Float64Array,
  p: number,
  qs: Float64Array,
  q: number,
): void {
  const d1x = ps[p + 3]! - ps[p]!
  const d1y = ps[p + 4]! - ps[p + 1]!
  const d1z = ps[p + 5]! - ps[p + 2]!
  const d2x = qs[q + 3]! - qs[q]!
  const d2y = qs[q + 4]! - qs[q + 1]!
  const d2z = qs[q + 5]! - qs[q + 2]!
  const rx = ps[p]! - qs[q]!
  const ry = ps[p + 1]! - qs[q + 1]!
  const rz = ps[p + 2]! - qs[q + 2]!
  const a = d1x * d1x + d1y * d1y + d1z * d1z
  const e = d2x * d2x + d2y * d2y + d2z * d2z
  const f = d2x * rx + d2y * ry + d2z * rz
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
