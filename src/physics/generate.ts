import { AnimationError } from '../errors.ts'
import type { AnimationAsset } from '../gltf/asset.ts'
import {
  skeletonViewOf,
  topological,
  type RagdollBodySpec,
  type RagdollDescription,
  type RagdollSkeletonView,
} from './description.ts'

/** Generating a ragdoll description from a skeleton's own hierarchy (description.ts has the format). */

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
 *   limits, and the Fox 0.6 rad; with these masses, at most 0.26 rad
 *   (test/systems/stepRagdolls.handoff.test.ts);
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
