import { Body, SAPBroadphase, type World } from 'cannon-es'
import { RagdollBroadphase } from '../broadphase.ts'
import { GHOST_GROUP } from '../ghosts.ts'

/**
 * RagdollBroadphase (the same pairs, dropped for the same reasons) with SAPBroadphase's sweep faster: it was
 * quadratic in resting bodies and in ghosts. The same pairs in the same order
 * (test/physics/cannonPatches/sweep.test.ts).
 */
export class SweptRagdollBroadphase extends RagdollBroadphase {
  /**
   * Per place k in the sorted list: the first place ≥ k of a body that is neither static nor asleep
   * (`nextAwake`), that is no ghost (`nextSolid`), and that is neither (`nextAwakeSolid`).
   */
  private nextAwake = new Int32Array(0)
  private nextSolid = new Int32Array(0)
  private nextAwakeSolid = new Int32Array(0)

  constructor(world: World) {
    super(world)
  }

  /**
   * SAPBroadphase.collisionPairs, the same pairs in the same order, without its quadratic cases. Its sweep skips
   * a pair that needs no collision test before it checks the bounds that end the sweep, so from a static or
   * sleeping body it walked every later body that is static or sleeping too (they never need a test): 100 Fox
   * ragdolls asleep, 1,601 bodies, took 1.3 million pair checks a step, 77 % of the step. Likewise from a ghost
   * (src/physics/ghosts.ts) over every other ghost: 100 humanoids spawned at one spot, 1,500 ghost bodies, took
   * ~600,000 checks a step. From such a body, this sweep steps over the bodies it skipped anyway to the next
   * one that may need a test; from any other body it is the same.
   */
  override collisionPairs(_world: World, p1: Body[], p2: Body[]): void {
    const bodies = this.axisList
    const n = bodies.length
    const axis = this.axisIndex
    if (this.dirty) {
      this.sortList()
      this.dirty = false
    }
    if (this.nextAwake.length < n + 1) {
      this.nextAwake = new Int32Array(2 * n + 1)
      this.nextSolid = new Int32Array(2 * n + 1)
      this.nextAwakeSolid = new Int32Array(2 * n + 1)
    }
    const awake = this.nextAwake
    const solid = this.nextSolid
    const both = this.nextAwakeSolid
    awake[n] = n
    solid[n] = n
    both[n] = n
    for (let k = n - 1; k >= 0; k--) {
      const r = resting(bodies[k]!)
      const g = ghost(bodies[k]!)
      awake[k] = r ? awake[k + 1]! : k
      solid[k] = g ? solid[k + 1]! : k
      both[k] = r || g ? both[k + 1]! : k
    }
    for (let i = 0; i !== n; i++) {
      const bi = bodies[i]!
      const r = resting(bi)
      const g = ghost(bi)
      const next = r ? (g ? both : awake) : g ? solid : null
      for (let j = next === null ? i + 1 : next[i + 1]!; j < n; j = next === null ? j + 1 : next[j + 1]!) {
        const bj = bodies[j]!
        if (!this.needBroadphaseCollision(bi, bj)) continue
        if (!SAPBroadphase.checkBounds(bi, bj, axis)) break
        this.intersectionTest(bi, bj, p1, p2)
      }
    }
  }
}

/** Static or asleep: a pair of two such bodies never needs a collision test (Broadphase.needBroadphaseCollision). */
function resting(b: Body): boolean {
  return (b.type & Body.STATIC) !== 0 || b.sleepState === Body.SLEEPING
}

/** A ghost: its collision filter leaves out every other ghost (Broadphase.needBroadphaseCollision's test). */
function ghost(b: Body): boolean {
  return b.collisionFilterGroup === GHOST_GROUP && (b.collisionFilterMask & GHOST_GROUP) === 0
}
