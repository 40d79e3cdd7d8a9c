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

/**
 * Most bodies any ragdoll description may have (checked at ragdoll()): its bodies are built within 5 ms of CPU
 * (a chain of 64 capsules: 3 ms, best of five on a loaded 2-core machine; 128: 8–16 ms).
 */
export const MAX_RAGDOLL_BODIES = 64

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
export function topological(view: RagdollSkeletonView): number[] {
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
