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
  /**
   * The joint whose body this one hangs from (node name or glTF node index; it must have a body here). Default:
   * the nearest ancestor joint with a body. The joint between them is at this body's joint origin.
   */
  parent?: string | number
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
    /** glTF mesh index, -1 or absent for none (a childless node without a mesh may mark a bone's end). */
    readonly mesh?: number
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
 * Generates a sensible description from any skeleton, from rest-pose bone lengths, following the skeleton's own
 * hierarchy rather than an assumed chain:
 * - a joint's bone runs to its child joints (their mean, or the farthest one when they spread around it); a
 *   joint without child joints runs to its end markers (childless nodes that are neither joints nor meshes,
 *   such as Blender's `…_end` nodes: RobotExpressive's lower legs, feet and head end in them). A joint with a
 *   bone gets a capsule along it;
 * - a leaf joint (no child joints, no end marker: hand, toe, tail tip) gets no body and rides on its parent's
 *   body, unless `leafBodies`: then a small capsule continuing its parent's direction. Leaf capsules are the
 *   lightest bodies and jittered at rest (lying still, the Fox's head capsule kept spinning at 30 rad/s and its
 *   limits 0.5 rad over; without leaf bodies the worst excess was 0.3 rad), and each costs solver time;
 * - the pelvis is the first joint where two or more limbs branch off (a limb: a child joint with joints below
 *   it; where there is no such joint, the first with two child joints). Joints above it get no body (root
 *   offsets: an armature's root bone at the feet, a pelvis 1 m above the armature origin) and keep their
 *   animated place; bones shorter than 5 % of the skeleton's size get no body (they ride on their parent);
 *   the size is its longest chain of bones from the pelvis;
 * - bodies join where the bones join: a body hangs from the body of its nearest ancestor joint, at its own
 *   joint's origin. A bone that hangs from no body (off a root offset, as RobotExpressive's feet and IK pole
 *   targets hang from its root bone) joins the body whose bone ends nearest to where it starts, within 10 % of
 *   the size (`parent` in its spec: the feet join the lower legs), or else gets no body and keeps its
 *   animated place with the root offsets;
 * - masses proportional to the number of bodies each body carries (itself and every body below it), summing to
 *   `totalMass`: the trunk outweighs each limb hanging on it. cannon-es's iterative solver (10 Gauss-Seidel
 *   iterations, no warm start) cannot hold joint limits around a light body between heavy ones: with masses by
 *   capsule volume instead, a generated humanoid lying still kept its spine and arm joints 1.2 rad past their
 *   limits, and the Fox 0.6 rad; with these masses, at most 0.26 rad (test/systems/stepRagdolls.test.ts);
 * - at most MAX_GENERATED_BODIES bodies, those nearest the root.
 * Joints are named by node name where the name is unique in the file, else by node index.
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
  /** Where a joint's bone ends: its child joints, or else its end markers. */
  const tips = (n: number): number[] => {
    const kids = jointChildren(n)
    if (kids.length > 0) return kids
    return nodes[n]!.children.filter(
      (c) => isJoint[c] !== 1 && nodes[c]!.children.length === 0 && (nodes[c]!.mesh ?? -1) < 0,
    )
  }
  const len = (v: readonly number[]): number => Math.sqrt(v[0]! ** 2 + v[1]! ** 2 + v[2]! ** 2)
  const order = topological(view)

  // The pelvis: the first joint where two limbs branch off; joints above it carry no body.
  const jointsBelow = new Uint32Array(nodes.length)
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!
    if (isJoint[n] === 1) jointsBelow[n]! += 1
    const p = nodes[n]!.parent
    if (p >= 0) jointsBelow[p]! += jointsBelow[n]!
  }
  const limbs = (n: number): number => jointChildren(n).filter((c) => jointsBelow[c]! >= 2).length
  const branching =
    order.find((n) => isJoint[n] === 1 && limbs(n) >= 2) ??
    order.find((n) => isJoint[n] === 1 && jointChildren(n).length >= 2)
  const skip = new Uint8Array(nodes.length)
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

  const rest = restFrames(view, order)
  const minRadius = 0.02 * size
  const maxRadius = 0.08 * size
  const specs: RagdollBodySpec[] = []
  const bodyNodes: number[] = []
  const boneLength = new Float64Array(nodes.length)
  const boneAxis: number[][] = []
  for (const n of order) {
    if (isJoint[n] !== 1 || skip[n] === 1) continue
    const ends = tips(n)
    let axis: number[]
    let length: number
    if (ends.length > 0) {
      const s = nodes[n]!.scale
      let v = [0, 0, 0]
      for (const c of ends)
        for (let k = 0; k < 3; k++) v[k]! += (nodes[c]!.translation[k]! * s[k]!) / ends.length
      if (len(v) < 0.25 * Math.max(...ends.map((c) => len(nodes[c]!.translation)))) {
        // Children spread around the joint (their mean is near it): follow the farthest one instead.
        const far = ends.reduce((a, b) => (len(nodes[a]!.translation) >= len(nodes[b]!.translation) ? a : b))
        v = nodes[far]!.translation.map((x, k) => x * s[k]!)
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
    const kids = jointChildren(n)
    const spread = kids.length >= 2 ? 0.5 * Math.max(...kids.map((c) => len(nodes[c]!.translation))) : 0
    const radius = Math.min(maxRadius, Math.max(minRadius, ratio * length, spread * nodes[n]!.scale[0]!))
    specs.push({
      joint: n,
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

  // Bodies join where the bones join: the nearest ancestor's body, or for a bone off a root offset the body
  // whose bone ends nearest to its start (10 % of the size at most, in rest-pose world units), or none.
  const bodyOf = new Map(bodyNodes.map((n, i) => [n, i]))
  const parentOf = bodyNodes.map((n) => {
    for (let a = nodes[n]!.parent; a >= 0; a = nodes[a]!.parent) {
      const b = bodyOf.get(a)
      if (b !== undefined) return b
    }
    return -1
  })
  const root = branching !== undefined && bodyOf.has(branching) ? bodyOf.get(branching)! : 0
  const keep = bodyNodes.map(() => true)
  const explicit = bodyNodes.map(() => -1)
  bodyNodes.forEach((n, i) => {
    if (i === root || parentOf[i]! >= 0) return
    let best = -1
    let bestDistance = Infinity
    bodyNodes.forEach((m, j) => {
      if (parentOf[j]! < 0 && j !== root) return
      const end = restPoint(rest, m, specs[j]!.axis, specs[j]!.length)
      const d = len([end[0]! - rest[n * 8]!, end[1]! - rest[n * 8 + 1]!, end[2]! - rest[n * 8 + 2]!])
      if (d < bestDistance) {
        bestDistance = d
        best = j
      }
    })
    const scale = branching !== undefined ? rest[branching * 8 + 7]! : rest[bodyNodes[root]! * 8 + 7]!
    if (best >= 0 && bestDistance <= 0.1 * size * Math.abs(scale)) {
      parentOf[i] = best
      explicit[i] = best
    } else keep[i] = false
  })
  // Bodies carried, through the joins: every body adds one to each body it hangs from, up to its root.
  const carried = bodyNodes.map(() => 0)
  bodyNodes.forEach((_, i) => {
    if (!keep[i]) return
    for (let b = i, guard = 0; b >= 0 && guard <= bodyNodes.length; b = parentOf[b]!, guard++)
      carried[b]! += 1
  })
  const units = carried.reduce((a, c) => a + c, 0)
  const names = new Map<string, number>()
  for (const node of nodes) names.set(node.name, (names.get(node.name) ?? 0) + 1)
  const jointName = (n: number): string | number => (names.get(nodes[n]!.name) === 1 ? nodes[n]!.name : n)
  const bodies: RagdollBodySpec[] = []
  specs.forEach((s, i) => {
    if (!keep[i]) return
    const body: RagdollBodySpec = {
      ...s,
      joint: jointName(bodyNodes[i]!),
      mass: (totalMass * carried[i]!) / units,
    }
    bodies.push(explicit[i]! >= 0 ? { ...body, parent: jointName(bodyNodes[explicit[i]!]!) } : body)
  })
  return { bodies }
}

/**
 * Rest-pose world transforms of every node in the skeleton's own frame (8 numbers per node, kinematics.ts
 * layout: position, rotation, uniform scale from each scale's x). Only + - * / and sqrt.
 */
function restFrames(view: RagdollSkeletonView, order: readonly number[]): Float64Array {
  const out = new Float64Array(view.nodes.length * 8)
  for (const n of order) {
    const node = view.nodes[n]!
    const o = n * 8
    const p = node.parent
    const t = node.translation
    const r = node.rotation
    if (p < 0) {
      out.set([t[0]!, t[1]!, t[2]!, r[0]!, r[1]!, r[2]!, r[3]!, node.scale[0]!], o)
      continue
    }
    const po = p * 8
    const s = out[po + 7]!
    const q = [out[po + 3]!, out[po + 4]!, out[po + 5]!, out[po + 6]!]
    const v = rotate(q, [t[0]! * s, t[1]! * s, t[2]! * s])
    const [qx, qy, qz, qw] = q as [number, number, number, number]
    out[o] = out[po]! + v[0]!
    out[o + 1] = out[po + 1]! + v[1]!
    out[o + 2] = out[po + 2]! + v[2]!
    out[o + 3] = qw * r[0]! + qx * r[3]! + qy * r[2]! - qz * r[1]!
    out[o + 4] = qw * r[1]! - qx * r[2]! + qy * r[3]! + qz * r[0]!
    out[o + 5] = qw * r[2]! + qx * r[1]! - qy * r[0]! + qz * r[3]!
    out[o + 6] = qw * r[3]! - qx * r[0]! - qy * r[1]! - qz * r[2]!
    out[o + 7] = s * node.scale[0]!
  }
  return out
}

/** The rest-pose world point `length` along a body's local `axis` from node n's origin. */
function restPoint(rest: Float64Array, n: number, axis: readonly number[], length: number): number[] {
  const o = n * 8
  const s = rest[o + 7]! * length
  const v = rotate(
    [rest[o + 3]!, rest[o + 4]!, rest[o + 5]!, rest[o + 6]!],
    [axis[0]! * s, axis[1]! * s, axis[2]! * s],
  )
  return [rest[o]! + v[0]!, rest[o + 1]! + v[1]!, rest[o + 2]! + v[2]!]
}

/** v rotated by unit quaternion q ([x, y, z, w]). */
function rotate(q: readonly number[], v: readonly number[]): number[] {
  return rotateByConjugate([-q[0]!, -q[1]!, -q[2]!, q[3]!], v)
}

/**
 * Most bodies a generated description has. A bushy skeleton of a few thousand bones (9 children a joint, 4
 * levels) gave 820, and stepping them took seconds a step (npm run fuzz); a ragdoll is its trunk and limbs: a
 * humanoid has 15, the Fox 16. With 64, 30 steps of a 10-a-joint bush (11,111 nodes) still took 0.5–0.8 s of
 * CPU, its sibling capsules all in contact; with 32, 0.3–0.4 s. A description passed to ragdoll() may have up to
 * MAX_RAGDOLL_BODIES.
 */
export const MAX_GENERATED_BODIES = 32

/**
 * Most bodies any ragdoll description may have (checked at ragdoll()): its bodies are built within 5 ms of CPU
 * (a chain of 64 capsules: 3 ms, best of five on a loaded 2-core machine; 128: 8–16 ms).
 */
export const MAX_RAGDOLL_BODIES = 64

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
  if (desc.bodies.length > MAX_RAGDOLL_BODIES) {
    throw new AnimationError(
      'ragdoll',
      `${view.source}: a ragdoll description has at most ${MAX_RAGDOLL_BODIES} bodies, this one ${desc.bodies.length}`,
    )
  }
  const nodes = view.nodes
  const bodyOfNode = new Map<number, RagdollBodySpec>()
  const nodeOf = (joint: unknown): number =>
    typeof joint === 'number'
      ? Number.isInteger(joint) && joint >= 0 && joint < nodes.length
        ? joint
        : -1
      : typeof joint === 'string'
        ? nodes.findIndex((n) => n.name === joint)
        : -1
  desc.bodies.forEach((b, i) => {
    const fail = (what: string): never => {
      throw new AnimationError('ragdoll', `${view.source}: ragdoll body ${i}: ${what}`)
    }
    if (typeof b !== 'object' || b === null) fail(`${showValue(b)} is not a body description`)
    const where = `${view.source}: ragdoll body ${i} (${showValue(b.joint)})`
    const failAt = (what: string): never => {
      throw new AnimationError('ragdoll', `${where}: ${what}`)
    }
    const node = nodeOf(b.joint)
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
  // The body each one hangs from: its `parent`, or its nearest ancestor with a body.
  const parentNode = new Map<number, number>()
  desc.bodies.forEach((b, i) => {
    const node = nodeOf(b.joint)
    let parent = -1
    if (b.parent !== undefined) {
      parent = nodeOf(b.parent)
      const where = `${view.source}: ragdoll body ${i} (${showValue(b.joint)})`
      if (parent < 0 || !bodyOfNode.has(parent) || parent === node) {
        throw new AnimationError(
          'ragdoll',
          `${where}: parent ${showValue(b.parent)} is not another joint with a body in this description`,
        )
      }
    } else {
      for (let a = nodes[node]!.parent; a >= 0 && parent < 0; a = nodes[a]!.parent) {
        if (bodyOfNode.has(a)) parent = a
      }
    }
    parentNode.set(node, parent)
  })
  // Parents first: depth-first over the bodies' own tree, roots and children in node order.
  const children = new Map<number, number[]>()
  const roots: number[] = []
  const hierarchy = topological(view)
  const rank = new Map(hierarchy.map((n, i) => [n, i]))
  for (const n of hierarchy) {
    if (!bodyOfNode.has(n)) continue
    const p = parentNode.get(n)!
    if (p < 0) roots.push(n)
    else children.set(p, [...(children.get(p) ?? []), n])
  }
  const resolved: ResolvedBody[] = []
  const bodyIndex = new Map<number, number>()
  const stack = roots.reverse().map((n) => n)
  while (stack.length > 0) {
    const n = stack.pop()!
    const b = bodyOfNode.get(n)!
    const l = Math.sqrt(b.axis[0] ** 2 + b.axis[1] ** 2 + b.axis[2] ** 2)
    const p = parentNode.get(n)!
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
      parentBody: p < 0 ? -1 : bodyIndex.get(p)!,
    })
    const kids = (children.get(n) ?? []).sort((x, y) => rank.get(x)! - rank.get(y)!)
    for (let c = kids.length - 1; c >= 0; c--) stack.push(kids[c]!)
  }
  if (resolved.length !== bodyOfNode.size) {
    const lost = [...bodyOfNode.keys()].some((n) => !rank.has(n))
    throw new AnimationError(
      'ragdoll',
      lost
        ? `${view.source}: some ragdoll bodies sit on nodes outside the scene tree`
        : `${view.source}: the ragdoll bodies' parents form a cycle`,
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
