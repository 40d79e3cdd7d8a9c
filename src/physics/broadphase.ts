import {
  Body,
  SAPBroadphase,
  Shape,
  Vec3,
  type BodyOptions,
  type Broadphase,
  type Sphere,
  type World,
} from 'cannon-es'

/**
 * A ragdoll body: a cannon-es Body that knows the body it hangs from (null for the ragdoll's root body) and the
 * bodies of its ragdoll it never collides with (src/physics/selfCollision.ts).
 */
export class RagdollBody extends Body {
  ragdollParent: Body | null
  /** Its index in its ragdoll's bodies, and those bodies (the same array for all of them). */
  ragdollIndex: number
  ragdollGroup: readonly Body[] | null
  /** Bit i set: never collides with its ragdoll's body i. */
  ragdollIgnore: Uint32Array | null

  constructor(options: BodyOptions) {
    super(options)
    this.ragdollParent = null
    this.ragdollIndex = 0
    this.ragdollGroup = null
    this.ragdollIgnore = null
  }

  /**
   * Body.updateAABB for a body of spheres (a ragdoll body's capsule and riding spheres), the same bits with
   * less work: each sphere's centre as cannon-es computes it (the body's rotation of its offset, plus the
   * position), ± its radius, combined by Math.min and Math.max as AABB.extend does. cannon-es's loop also turns
   * each shape's orientation, which a sphere's bounds do not use, and Sphere.calculateWorldAABB reads the axes
   * by name: the sweep and prune's bounds were ~5 % of a falling ragdoll step (npm run bench:ragdoll, --cpu-prof).
   * Any other shape: cannon-es's own.
   */
  override updateAABB(): void {
    const shapes = this.shapes
    const n = shapes.length
    for (let i = 0; i < n; i++) if (shapes[i]!.type !== Shape.types.SPHERE) return super.updateAABB()
    if (n === 0) return super.updateAABB()
    const lower = this.aabb.lowerBound
    const upper = this.aabb.upperBound
    for (let i = 0; i < n; i++) {
      this.quaternion.vmult(this.shapeOffsets[i]!, centre)
      centre.vadd(this.position, centre)
      const r = (shapes[i] as Sphere).radius
      if (i === 0) {
        lower.set(centre.x - r, centre.y - r, centre.z - r)
        upper.set(centre.x + r, centre.y + r, centre.z + r)
      } else {
        lower.set(
          Math.min(lower.x, centre.x - r),
          Math.min(lower.y, centre.y - r),
          Math.min(lower.z, centre.z - r),
        )
        upper.set(
          Math.max(upper.x, centre.x + r),
          Math.max(upper.y, centre.y + r),
          Math.max(upper.z, centre.z + r),
        )
      }
    }
    this.aabbNeedsUpdate = false
  }
}

const centre = new Vec3()

/**
 * Sweep-and-prune broadphase that also drops the pairs a ragdoll's joints link (a body and the body it hangs
 * from) and the pairs that overlap in the rest pose (src/physics/selfCollision.ts), so the ragdoll's constraints can say `collideConnected: true`; cannon-es would otherwise remove those
 * pairs after the broadphase by scanning every constraint against every pair (`World.internalStep`,
 * O(constraints × pairs) with splices). Here the test is two property reads per candidate pair.
 *
 * Measured by `npm run bench:ragdoll` (cannon-es alone, configurations stepped side by side): against cannon-es's
 * default NaiveBroadphase with the collideConnected filter, ~10 % less step time at 50 Fox ragdolls, within the
 * noise (±10 %) at 1 and 10; the solver is most of a ragdoll step either way. Deterministic: the sort is an
 * insertion sort over the world's body order, the same every run.
 */
export class RagdollBroadphase extends SAPBroadphase {
  readonly dropsRagdollLinks = true
  /** Per place k in the sorted list: the first place ≥ k of a body that is neither static nor asleep. */
  private nextAwake = new Int32Array(0)

  constructor(world: World) {
    super(world)
  }

  /**
   * SAPBroadphase.collisionPairs, the same pairs in the same order, without its quadratic case. Its sweep skips a
   * pair that needs no collision test before it checks the bounds that end the sweep, so from a static or sleeping
   * body it walked every later body that is static or sleeping too (they never need a test): 100 Fox ragdolls
   * asleep, 1,601 bodies, took 1.3 million pair checks a step, 77 % of the step. From such a body, this sweep
   * steps over those bodies (they were skipped anyway) to the next awake one; from an awake body it is the same.
   */
  override collisionPairs(_world: World, p1: Body[], p2: Body[]): void {
    const bodies = this.axisList
    const n = bodies.length
    const axis = this.axisIndex
    if (this.dirty) {
      this.sortList()
      this.dirty = false
    }
    if (this.nextAwake.length < n + 1) this.nextAwake = new Int32Array(2 * n + 1)
    const next = this.nextAwake
    next[n] = n
    for (let k = n - 1; k >= 0; k--) next[k] = resting(bodies[k]!) ? next[k + 1]! : k
    for (let i = 0; i !== n; i++) {
      const bi = bodies[i]!
      const all = !resting(bi)
      for (let j = all ? i + 1 : next[i + 1]!; j < n; j = all ? j + 1 : next[j + 1]!) {
        const bj = bodies[j]!
        if (!this.needBroadphaseCollision(bi, bj)) continue
        if (!SAPBroadphase.checkBounds(bi, bj, axis)) break
        this.intersectionTest(bi, bj, p1, p2)
      }
    }
  }

  override needBroadphaseCollision(a: Body, b: Body): boolean {
    const x = a as RagdollBody
    const y = b as RagdollBody
    if (x.ragdollParent === b || y.ragdollParent === a) return false
    const ignore = x.ragdollIgnore
    if (ignore && x.ragdollGroup === y.ragdollGroup) {
      const i = y.ragdollIndex
      if (((ignore[i >> 5]! >>> (i & 31)) & 1) !== 0) return false
    }
    return super.needBroadphaseCollision(a, b)
  }
}

/** Static or asleep: a pair of two such bodies never needs a collision test (Broadphase.needBroadphaseCollision). */
function resting(b: Body): boolean {
  return (b.type & Body.STATIC) !== 0 || b.sleepState === Body.SLEEPING
}

/** True when `broadphase` drops linked ragdoll pairs itself (then joints may say collideConnected: true). */
export function dropsRagdollLinks(broadphase: Broadphase): boolean {
  return (broadphase as { dropsRagdollLinks?: boolean }).dropsRagdollLinks === true
}
