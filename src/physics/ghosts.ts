import { Vec3, type Body } from 'cannon-es'
import type { RagdollBody } from './broadphase.ts'
import type { RagdollInstance } from './ragdoll.ts'
import { staticBlocks } from './snapshotWrite.ts'

/**
 * Spawn de-penetration (issue 33): ragdolls that start inside each other pass through each other until apart.
 *
 * A ragdoll spawned where its bodies overlap another ragdoll's (characters placed 1 cm apart, all ragdolled at
 * once) would otherwise meet it with contacts as deep as the bodies themselves: 100 such humanoids made 274,000
 * contacts in one step (6 s of CPU), and their push-out flung the pile apart. So at spawn, a ragdoll whose
 * shapes overlap another ragdoll's shapes makes both of them ghosts: their bodies join GHOST_GROUP, which
 * collides with everything (the ground, other ragdolls, a game's bodies) but other ghosts. After each step a
 * ghost whose bounds overlap no other ghost's is itself again (settleGhosts). Shapes are compared by their
 * bounding spheres (exact for spheres, the shapes ragdolls are made of), bounds are each body's bounding sphere:
 * both from positions only, with no side effect on cannon-es's own bounds.
 *
 * The state is the bodies' collision filter (group and mask), which snapshots carry; a change forgets the
 * instance's kept static block. Ghosts are rare, so a ragdoll that is none costs one read per step.
 */

/** The collision group of a ghost ragdoll's bodies (mask: every group but this one). */
export const GHOST_GROUP = 1 << 30
/** cannon-es's defaults, what spawnRagdoll leaves a body with. */
const DEFAULT_GROUP = 1
const DEFAULT_MASK = -1

/** Whether the ragdoll is a ghost. */
export function isGhost(r: RagdollInstance): boolean {
  return r.bodies.length > 0 && r.bodies[0]!.collisionFilterGroup === GHOST_GROUP
}

/** Makes a ragdoll's bodies ghosts, or themselves again. */
function setGhost(bodies: readonly Body[], ghost: boolean): void {
  for (let i = 0; i < bodies.length; i++) {
    bodies[i]!.collisionFilterGroup = ghost ? GHOST_GROUP : DEFAULT_GROUP
    bodies[i]!.collisionFilterMask = ghost ? ~GHOST_GROUP : DEFAULT_MASK
  }
  staticBlocks.delete(bodies)
}

const a = new Vec3()
const b = new Vec3()

/** Whether any shape of body x overlaps any shape of body y (bounding spheres, at their places now). */
function shapesOverlap(x: Body, y: Body): boolean {
  const dx = x.position.x - y.position.x
  const dy = x.position.y - y.position.y
  const dz = x.position.z - y.position.z
  const reach = x.boundingRadius + y.boundingRadius
  if (!(dx * dx + dy * dy + dz * dz < reach * reach)) return false
  for (let i = 0; i < x.shapes.length; i++) {
    x.quaternion.vmult(x.shapeOffsets[i]!, a)
    a.vadd(x.position, a)
    const ri = x.shapes[i]!.boundingSphereRadius
    for (let j = 0; j < y.shapes.length; j++) {
      y.quaternion.vmult(y.shapeOffsets[j]!, b)
      b.vadd(y.position, b)
      const r = ri + y.shapes[j]!.boundingSphereRadius
      const ex = a.x - b.x
      const ey = a.y - b.y
      const ez = a.z - b.z
      if (ex * ex + ey * ey + ez * ez < r * r) return true
    }
  }
  return false
}

/**
 * After a spawn: when ragdoll r's shapes overlap another ragdoll's in `world` (a game's bodies are not
 * ragdolls), r and every such ragdoll become ghosts. Returns how many others it overlapped. O(bodies of the
 * world) plus the shape tests of the bodies within reach.
 */
export function ghostOnOverlap(bodies: readonly Body[], r: RagdollInstance): number {
  // The ragdolls found (a hand-off, not the steady state: allocated here).
  const found = new Set<readonly Body[]>()
  for (let i = 0; i < bodies.length; i++) {
    const other = bodies[i] as RagdollBody
    const group = other.ragdollGroup ?? null
    if (group === null || group === r.bodies || found.has(group)) continue
    let overlaps = false
    for (let k = 0; k < r.bodies.length && !overlaps; k++) overlaps = shapesOverlap(r.bodies[k]!, other)
    if (!overlaps) continue
    found.add(group)
    if (group[0]!.collisionFilterGroup !== GHOST_GROUP) setGhost(group, true)
  }
  if (found.size > 0) setGhost(r.bodies, true)
  return found.size
}

/** Scratch bounds of the ghosts settleGhosts compares: min xyz, max xyz per ghost (grown as needed). */
let bounds = new Float64Array(0)

/**
 * After a step: every ghost among `ragdolls[0 .. count)` whose bounds (its bodies' bounding spheres) overlap no
 * other ghost's becomes itself again. O(ghosts²), only while there are ghosts. Allocates only to grow its scratch.
 */
export function settleGhosts(ragdolls: readonly RagdollInstance[], count: number): void {
  if (bounds.length < 6 * count) bounds = new Float64Array(12 * count)
  let ghosts = 0
  for (let g = 0; g < count; g++) if (isGhost(ragdolls[g]!)) boundsOf(ragdolls[g]!, 6 * ghosts++)
  if (ghosts === 0) return
  let k = 0
  for (let g = 0; g < count; g++) {
    const r = ragdolls[g]!
    if (!isGhost(r)) continue
    let alone = true
    for (let m = 0; m < ghosts && alone; m++) if (m !== k && boxesOverlap(6 * k, 6 * m)) alone = false
    if (alone) setGhost(r.bodies, false)
    k++
  }
}

function boundsOf(r: RagdollInstance, o: number): void {
  bounds.fill(Infinity, o, o + 3)
  bounds.fill(-Infinity, o + 3, o + 6)
  for (let i = 0; i < r.bodies.length; i++) {
    const body = r.bodies[i]!
    const p = body.position
    const s = body.boundingRadius
    if (p.x - s < bounds[o]!) bounds[o] = p.x - s
    if (p.y - s < bounds[o + 1]!) bounds[o + 1] = p.y - s
    if (p.z - s < bounds[o + 2]!) bounds[o + 2] = p.z - s
    if (p.x + s > bounds[o + 3]!) bounds[o + 3] = p.x + s
    if (p.y + s > bounds[o + 4]!) bounds[o + 4] = p.y + s
    if (p.z + s > bounds[o + 5]!) bounds[o + 5] = p.z + s
  }
}

function boxesOverlap(i: number, j: number): boolean {
  return (
    bounds[i]! <= bounds[j + 3]! &&
    bounds[j]! <= bounds[i + 3]! &&
    bounds[i + 1]! <= bounds[j + 4]! &&
    bounds[j + 1]! <= bounds[i + 4]! &&
    bounds[i + 2]! <= bounds[j + 5]! &&
    bounds[j + 2]! <= bounds[i + 5]!
  )
}
