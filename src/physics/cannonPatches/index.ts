import type { World } from 'cannon-es'
import { installContactBook } from './contactBook.ts'
import { RagdollNarrowphase } from './narrowphase.ts'
import { RagdollSolver } from './solver.ts'
import { SweptRagdollBroadphase } from './sweep.ts'
import { SphereBoundedBody } from './bounds.ts'
import { setRagdollBodyClass } from '../damping.ts'

/**
 * The project's speed-ups to cannon-es 0.20.0's internals, all of them, installed in one place. Each replaces a
 * part of cannon-es's World step with a faster form that gives the same bits (the same operations on the same
 * numbers in the same order, or work whose result nothing reads), and each has a lockstep test against the
 * installed cannon-es (test/physics/cannonPatches/). docs/cannon-es-patches.md lists them with their measured
 * gains and what cannon-es upstream would need to take them.
 *
 *   sweep.ts        SAPBroadphase.collisionPairs without its quadratic walks over resting bodies and ghosts
 *   bounds.ts       Body.updateAABB for a ragdoll body made of spheres, without its general loop
 *   contactBook.ts  World's collision matrices and overlap keepers (events only) at the cost of the contacts
 *   narrowphase.ts  Narrowphase.spherePlane tests before it takes a contact equation
 *   solver.ts       GSSolver.solve over typed arrays, with the right-hand sides (equationRows.ts) written out
 *
 * What the project changes in cannon-es's behaviour (not speed) is elsewhere, on purpose: the deterministic
 * damping (src/physics/damping.ts) and limit equations (src/physics/joint.ts), and which ragdoll pairs never
 * collide (src/physics/broadphase.ts). A world without these patches steps to the same bits
 * (createPhysicsWorld's `patched: false`).
 *
 * Installs them on a new cannon-es world, before any body is added (the broadphase listens to the world's
 * additions from its construction).
 */
export function installCannonPatches(world: World): void {
  world.broadphase = new SweptRagdollBroadphase(world)
  setRagdollBodyClass(world, SphereBoundedBody)
  installContactBook(world)
  world.solver = new RagdollSolver()
  world.narrowphase = new RagdollNarrowphase(world)
}
