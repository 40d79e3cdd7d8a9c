import { AnimationError, showValue } from '../errors.ts'
import type { AnimationAsset } from '../gltf/asset.ts'

/**
 * A ragdoll description: which joints get rigid bodies, their shapes and masses, and the joint limits between
 * each body and its parent body. Sizes are in the asset's units (scaled by the character's world scale when the
 * ragdoll spawns); masses in kilograms; angles in radians.
 *
 * A body belongs to one joint. It is a capsule (or box) running from the joint's origin along `axis` (a
 * direction in the joint's local frame) for `length`. Its parent body is the body of the nearest ancestor joint
 * that has one; the two are linked by a cone-twist joint at this joint's origin. Joints without a body follow
 * their animated local transform under whatever moves their parent.
 *
 * Limits are measured from the pose the ragdoll starts in (so the hand-off never starts outside a limit):
 *   coneAngle   the largest swing of this body's axis away from where it was at activation, relative to the
 *               parent body, in (0, π]
 *   twistAngle  the largest twist about the axis, in [0, π]
 */
export interface RagdollBodySpec {
  /** Node name or glTF node index. */
  joint: string | number
  /** A capsule along `axis`, or a box of `length` by 2·`radius` by 2·`radius`. */
  shape: 'capsule' | 'box'
  /** Capsule radius, or half the box's thickness; > 0. */
  radius: number
  /** Along `axis`, from the joint origin; > 0. */
  length: number
  /** Unit direction in the joint's local frame (normalized on resolve). */
  axis: readonly [number, number, number]
  /** Kilograms, > 0. */
  mass: number
  /** Largest swing away from the activation pose relative to the parent body, radians, in (0, π]. */
  coneAngle: number
  /** Largest twist about the axis, radians, in [0, π]. */
  twistAngle: number
}

/**
 * The bodies of a ragdoll (see RagdollBodySpec). Checked when a ragdoll starts: AnimationError 'ragdoll' for a
 * joint the skeleton lacks or lists twice, a bad size, mass, axis or limit, or no bodies at all.
 */
export interface RagdollDescription {
  /** At least one; at most one per joint, in any order (parents are found from the skeleton). */
  bodies: readonly RagdollBodySpec[]
}

/** The nodes a description is checked against: names, parents (-1 root), rest local T/R/S. */
export interface RagdollSkeletonView {
  /** Where the skeleton came from (an asset's `source`), for messages. */
  readonly source: string
  /** Every node; `nodes[i]` is glTF node i (an AnimationAsset's `nodes` fit). */
  readonly nodes: readonly {
    /** Node name, as a body's `joint` names it. */
    readonly name: string
    /** Parent node index, -1 for a root. */
    readonly parent: number
    /** Child node indices. */
    readonly children: readonly number[]
    /** Rest local translation [x, y, z]: bone lengths are measured from it. */
    readonly translation: readonly number[]
    /** Rest local rotation, a unit quaternion [x, y, z, w]. */
    readonly rotation: readonly number[]
    /** Rest local scale [x, y, z]. */
    readonly scale: readonly number[]
  }[]
  /** Joint nodes to consider when generating (a skin's joints); all nodes when absent. */
  readonly skinJoints?: ArrayLike<number>
}

/** An asset's nodes with its first skin's joints: what a generated description of its characters is made from. */
export function skeletonViewOf(asset: AnimationAsset): RagdollSkeletonView {
  return { source: asset.source, nodes: asset.nodes, skinJoints: asset.skeletons[0]?.joints }
}

/** Options of generateRagdollDescription; every field is optional. Lengths follow from the skeleton. */
export interface GenerateRagdollOptions {
  /** Total mass in kilograms, spread by the number of bodies each body carries (see below). Default 30. */
  totalMass?: number
  /** Default cone limit, radians. Default 0.7 (40°). */
  coneAngle?: number
  /** Default twist limit, radians. Default 0.35 (20°). */
  twistAngle?: number
  /** Capsule radius as a fraction of its length, clamped to [2 %, 8 %] of the skeleton's size. Default 0.22. */
  radiusRatio?: number
  /** Give leaf joints (hands, toes, tail tips, a head without an end bone) a body too. Default false. */
  leafBodies?: boolean
}

/**
 * Generates a sensible description from any skeleton, from rest-pose bone lengths:
 * - a joint with child joints gets a capsule towards its child (towards their mean for several children);
 * - a leaf joint (hand, toe, tail tip) gets no body and follows its animation under its parent's body, unless
 *   `leafBodies`: then a small capsule continuing its parent's direction. Leaf capsules are the lightest bodies
 *   and jittered at rest (lying still, the Fox's head capsule kept spinning at 30 rad/s and its limits 0.5 rad
 *   over; without leaf bodies the worst excess was 0.3 rad), and each costs solver time;
 * - joints above the first branching joint (a pelvis-like joint with ≥ 2 child joints), and bones shorter than
 *   5 % of the skeleton's size, get no body (merged into their parent, or following the animation above it);
 *   the skeleton's size is its longest chain of bones from that branching joint (root offsets such as a pelvis
 *   1 m above the armature origin are not bones and do not count);
 * - masses proportional to the number of bodies each body carries (itself and every body below it), summing to
 *   `totalMass`: the trunk outweighs each limb hanging on it. cannon-es's iterative solver (10 Gauss-Seidel
 *   iterations, no warm start) cannot hold joint limits around a light body between heavy ones: with masses by
 *   capsule volume instead, a generated humanoid lying still kept its spine and arm joints 1.2 rad past their
 *   limits, and the Fox 0.6 rad; with these masses, at most 0.26 rad (test/systems/stepRagdolls.test.ts);
 * - at most MAX_GENERATED_BODIES bodies, those nearest the root.
 */
export function generateRagdollDescription(
  skeleton: RagdollSkeletonView | AnimationAsset,
  options: GenerateRagdollOptions = {},
): RagdollDescription {
  const view = 'skeletons' in skeleton ? skeletonViewOf(skeleton) : skeleton
  const totalMass = options.totalMass ?? 30
  const cone = options.coneAngle ?? 0.7
  const twist = options.twistAngle ?? 0.35
  const ratio = options.radiusRatio ?? 0.22
  const nodes = view.nodes
  const isJoint = new Uint8Array(nodes.length)
  if (view.skinJoints) for (let i = 0; i < view.skinJoints.length; i++) isJoint[view.skinJoints[i]!] = 1
  else isJoint.fill(1)
  const jointChildren = (n: number): number[] => nodes[n]!.children.filter((c) => isJoint[c] === 1)
  const boneOf = (n: number): number[] => {
    const s = nodes[n]!.scale
    const kids = jointChildren(n)
    const mean = [0, 0, 0]
    for (const c of kids)
      for (let k = 0; k < 3; k++) mean[k]! += (nodes[c]!.translation[k]! * s[k]!) / kids.length
    return mean
  }
  const len = (v: readonly number[]): number => Math.sqrt(v[0]! ** 2 + v[1]! ** 2 + v[2]! ** 2)

  // Joints above the first branching joint carry no body (root offsets, not bones).
  const order = topological(view)
  const skip = new Uint8Array(nodes.length)
  const branching = order.find((n) => isJoint[n] === 1 && jointChildren(n).length >= 2)
  if (branching !== undefined) {
    for (let a = nodes[branching]!.parent; a >= 0; a = nodes[a]!.parent) skip[a] = 1
  }

  // Skeleton size: the longest chain of bones (rest lengths add up along chains). A node's offset from its
  // parent is a bone only when the parent is a joint that can carry a body.
  const depthLength = new Float64Array(nodes.length)
  let size = 0
  for (const n of order) {
    const p = nodes[n]!.parent
    const bone = p >= 0 && isJoint[p] === 1 && skip[p] === 0 ? len(nodes[n]!.translation) : 0
    depthLength[n] = p >= 0 ? depthLength[p]! + bone : 0
    if (isJoint[n]) size = Math.max(size, depthLength[n]!)
  }
  if (!(size > 0)) {
    throw new AnimationError('ragdoll', `${view.source}: the skeleton has no extent to build a ragdoll from`)
  }

  const minRadius = 0.02 * size
  const maxRadius = 0.08 * size
  const specs: RagdollBodySpec[] = []
  const bodyNodes: number[] = []
  const boneLength = new Float64Array(nodes.length)
  const boneAxis: number[][] = []
  for (const n of order) {
    if (isJoint[n] !== 1 || skip[n] === 1) continue
    const kids = jointChildren(n)
    let axis: number[]
    let length: number
    if (kids.length > 0) {
      let v = boneOf(n)
      if (len(v) < 0.25 * Math.max(...kids.map((c) => len(nodes[c]!.translation)))) {
        // Children spread around the joint (their mean is near it): follow the farthest one instead.
        const far = kids.reduce((a, b) => (len(nodes[a]!.translation) >= len(nodes[b]!.translation) ? a : b))
        v = nodes[far]!.translation.map((x, k) => x * nodes[n]!.scale[k]!)
      }
      length = len(v)
      axis = v.map((x) => x / length)
    } else {
      // Leaf: continue the parent's bone direction, half its length (in this joint's frame).
      if (!options.leafBodies) continue
      const p = nodes[n]!.parent
      if (p < 0 || boneLength[p] === 0) continue
      const dir = rotateByConjugate(nodes[n]!.rotation, boneAxis[p]!)
      length = 0.5 * boneLength[p]!
      axis = dir
    }
    if (length < 0.05 * size) continue
    boneLength[n] = length
    boneAxis[n] = axis
    // A branching joint (pelvis, chest) is as thick as half the spread of its children (hips, shoulders).
    const spread = kids.length >= 2 ? 0.5 * Math.max(...kids.map((c) => len(nodes[c]!.translation))) : 0
    const radius = Math.min(maxRadius, Math.max(minRadius, ratio * length, spread * nodes[n]!.scale[0]!))
    specs.push({
      joint: nodes[n]!.name,
      shape: 'capsule',
      radius,
      length,
      axis: [axis[0]!, axis[1]!, axis[2]!],
      mass: 0,
      coneAngle: cone,
      twistAngle: twist,
    })
    bodyNodes.push(n)
  }
  if (specs.length === 0) {
    throw new AnimationError('ragdoll', `${view.source}: no bone is long enough to carry a ragdoll body`)
  }
  keepNearestRoot(nodes, specs, bodyNodes)
  // Bodies carried: specs are parents first, so one backward pass adds each body's count to its parent body's.
  const carried = bodyNodes.map(() => 1)
  const bodyOf = new Map(bodyNodes.map((n, i) => [n, i]))
  for (let i = bodyNodes.length - 1; i >= 0; i--) {
    for (let a = nodes[bodyNodes[i]!]!.parent; a >= 0; a = nodes[a]!.parent) {
      const parentBody = bodyOf.get(a)
      if (parentBody === undefined) continue
      carried[parentBody]! += carried[i]!
      break
    }
  }
  const units = carried.reduce((a, c) => a + c, 0)
  return { bodies: specs.map((s, i) => ({ ...s, mass: (totalMass * carried[i]!) / units })) }
}

/**
 * Most bodies a generated description has. A bushy skeleton of a few thousand bones (9 children a joint, 4
 * levels) gave 820, and stepping them took seconds a step (npm run fuzz); a ragdoll is its trunk and limbs: a
 * humanoid has 15, the Fox 16. With 64, 30 steps of a 10-a-joint bush (11,111 nodes) still took 0.5–0.8 s of
 * CPU, its sibling capsules all in contact; with 32, 0.3–0.4 s. A description passed to ragdoll() may have more.
 */
export const MAX_GENERATED_BODIES = 32

/**
 * Keeps at most MAX_GENERATED_BODIES of the generated bodies (`specs` and their nodes, parents first, edited in
 * place): those with the fewest bodies above them, and of equal depth the first in the skeleton's order, so a
 * kept body's parent body is kept too and the rest follow their animation under it.
 */
function keepNearestRoot(
  nodes: RagdollSkeletonView['nodes'],
  specs: RagdollBodySpec[],
  bodyNodes: number[],
): void {
  if (specs.length <= MAX_GENERATED_BODIES) return
  const bodyOf = new Map(bodyNodes.map((n, i) => [n, i]))
  const depth = bodyNodes.map(() => 0)
  bodyNodes.forEach((n, i) => {
    let a = nodes[n]!.parent
    while (a >= 0 && !bodyOf.has(a)) a = nodes[a]!.parent
    depth[i] = a >= 0 ? depth[bodyOf.get(a)!]! + 1 : 0
  })
  const kept = bodyNodes
    .map((_, i) => i)
    .sort((a, b) => depth[a]! - depth[b]! || a - b)
    .slice(0, MAX_GENERATED_BODIES)
    .sort((a, b) => a - b)
  const keptSpecs = kept.map((i) => specs[i]!)
  const keptNodes = kept.map((i) => bodyNodes[i]!)
  specs.splice(0, specs.length, ...keptSpecs)
  bodyNodes.splice(0, bodyNodes.length, ...keptNodes)
}

/** A body spec resolved against a skeleton: node index and parent body, everything validated. */
export interface ResolvedBody {
  readonly node: number
  readonly shape: 'capsule' | 'box'
  readonly radius: number
  readonly length: number
  readonly axis: readonly [number, number, number]
  readonly mass: number
  readonly coneAngle: number
  readonly twistAngle: number
  /** Index (into the resolved list) of the parent body, -1 for the root body. */
  readonly parentBody: number
}

/**
 * Checks a description against a skeleton and orders its bodies parents first. Throws AnimationError
 * (kind 'ragdoll') naming the body and the value for: a joint the skeleton lacks, a joint listed twice,
 * non-positive or non-finite mass, radius or length, a zero axis, limits outside their ranges.
 */
export function resolveRagdollDescription(
  view: RagdollSkeletonView,
  desc: RagdollDescription,
): ResolvedBody[] {
  if (typeof desc !== 'object' || desc === null || !Array.isArray(desc.bodies) || desc.bodies.length === 0) {
    throw new AnimationError('ragdoll', `${view.source}: a ragdoll description needs at least one body`)
  }
  const nodes = view.nodes
  const bodyOfNode = new Map<number, RagdollBodySpec>()
  desc.bodies.forEach((b, i) => {
    const fail = (what: string): never => {
      throw new AnimationError('ragdoll', `${view.source}: ragdoll body ${i}: ${what}`)
    }
    if (typeof b !== 'object' || b === null) fail(`${showValue(b)} is not a body description`)
    const where = `${view.source}: ragdoll body ${i} (${showValue(b.joint)})`
    const failAt = (what: string): never => {
      throw new AnimationError('ragdoll', `${where}: ${what}`)
    }
    const node =
      typeof b.joint === 'number'
        ? Number.isInteger(b.joint) && b.joint >= 0 && b.joint < nodes.length
          ? b.joint
          : -1
        : typeof b.joint === 'string'
          ? nodes.findIndex((n) => n.name === b.joint)
          : -1
    if (node < 0) failAt(`the skeleton has no joint ${showValue(b.joint)}`)
    if (bodyOfNode.has(node)) failAt(`joint ${nodes[node]!.name} already has a body`)
    if (b.shape !== 'capsule' && b.shape !== 'box')
      failAt(`shape ${showValue(b.shape)} is not capsule or box`)
    for (const key of ['mass', 'radius', 'length'] as const) {
      if (!(typeof b[key] === 'number' && Number.isFinite(b[key]) && b[key] > 0)) {
        failAt(`${key} ${showValue(b[key])} must be a finite number > 0`)
      }
    }
    if (!(typeof b.coneAngle === 'number' && b.coneAngle > 0 && b.coneAngle <= Math.PI)) {
      failAt(`coneAngle ${showValue(b.coneAngle)} rad must be in (0, π]`)
    }
    if (!(typeof b.twistAngle === 'number' && b.twistAngle >= 0 && b.twistAngle <= Math.PI)) {
      failAt(`twistAngle ${showValue(b.twistAngle)} rad must be in [0, π]`)
    }
    const a = b.axis
    const l =
      Array.isArray(a) && a.length === 3 && a.every((x) => typeof x === 'number')
        ? Math.sqrt(a[0]! ** 2 + a[1]! ** 2 + a[2]! ** 2)
        : NaN
    if (!(l > 1e-9 && Number.isFinite(l))) failAt(`axis ${showValue(a)} must be a non-zero 3-vector`)
    bodyOfNode.set(node, b)
  })
  const resolved: ResolvedBody[] = []
  const bodyIndex = new Map<number, number>()
  for (const n of topological(view)) {
    const b = bodyOfNode.get(n)
    if (!b) continue
    let parentBody = -1
    for (let a = nodes[n]!.parent; a >= 0; a = nodes[a]!.parent) {
      const idx = bodyIndex.get(a)
      if (idx !== undefined) {
        parentBody = idx
        break
      }
    }
    const l = Math.sqrt(b.axis[0] ** 2 + b.axis[1] ** 2 + b.axis[2] ** 2)
    bodyIndex.set(n, resolved.length)
    resolved.push({
      node: n,
      shape: b.shape,
      radius: b.radius,
      length: b.length,
      axis: [b.axis[0] / l, b.axis[1] / l, b.axis[2] / l],
      mass: b.mass,
      coneAngle: b.coneAngle,
      twistAngle: b.twistAngle,
      parentBody,
    })
  }
  if (resolved.length !== bodyOfNode.size) {
    throw new AnimationError(
      'ragdoll',
      `${view.source}: some ragdoll bodies sit on nodes outside the scene tree`,
    )
  }
  return resolved
}

/** Nodes parents-first (roots in index order, then depth-first); iterative, so deep trees cannot overflow. */
function topological(view: RagdollSkeletonView): number[] {
  const out: number[] = []
  const stack: number[] = []
  for (let i = view.nodes.length - 1; i >= 0; i--) if (view.nodes[i]!.parent < 0) stack.push(i)
  while (stack.length > 0) {
    const n = stack.pop()!
    out.push(n)
    const children = view.nodes[n]!.children
    for (let c = children.length - 1; c >= 0; c--) stack.push(children[c]!)
  }
  return out
}

/** v rotated by the inverse of unit quaternion q ([x, y, z, w]). */
function rotateByConjugate(q: readonly number[], v: readonly number[]): number[] {
  const x = -q[0]!
  const y = -q[1]!
  const z = -q[2]!
  const w = q[3]!
  // t = 2·(q.xyz × v); v' = v + w·t + q.xyz × t
  const tx = 2 * (y * v[2]! - z * v[1]!)
  const ty = 2 * (z * v[0]! - x * v[2]!)
  const tz = 2 * (x * v[1]! - y * v[0]!)
  return [
    v[0]! + w * tx + (y * tz - z * ty),
    v[1]! + w * ty + (z * tx - x * tz),
    v[2]! + w * tz + (x * ty - y * tx),
  ]
}
