import { Body, SAPBroadphase, type BodyOptions, type Broadphase } from 'cannon-es'

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
}

/**
 * Sweep-and-prune broadphase that also drops the pairs a ragdoll's joints link (a body and the body it hangs
 * from) and the pairs that overlap in the rest pose (src/physics/selfCollision.ts), so the ragdoll's constraints can say `collideConnected: true`; cannon-es would otherwise remove those
 * pairs after the broadphase by scanning every constraint against every pair (`World.internalStep`,
 * O(constraints × pairs) with splices). Here the test is two property reads per candidate pair.
 *
 * Measured by `npm run bench:ragdoll` (cannon-es alone, configurations stepped side by side): against cannon-es's
 * default NaiveBroadphase with the collideConnected filter, ~10 % less step time at 50 Fox ragdolls, within the
 * noise (±10 %) at 1 and 10; the solver is most of a ragdoll step either way. Deterministic: the sort is an
 * insertion sort over the world's body order, the same every run. The plugin's own world sweeps faster, to the
 * same pairs (SweptRagdollBroadphase, src/physics/cannonPatches/sweep.ts).
 */
export class RagdollBroadphase extends SAPBroadphase {
  readonly dropsRagdollLinks = true

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

/** True when `broadphase` drops linked ragdoll pairs itself (then joints may say collideConnected: true). */
export function dropsRagdollLinks(broadphase: Broadphase): boolean {
  return (broadphase as { dropsRagdollLinks?: boolean }).dropsRagdollLinks === true
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
