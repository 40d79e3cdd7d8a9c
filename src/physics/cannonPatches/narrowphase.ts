import { Narrowphase, Vec3, type Body, type Quaternion, type Shape, type Sphere, type Plane } from 'cannon-es'

/**
 * cannon-es's Narrowphase with its sphere–plane test made before a contact equation is taken, not after: the
 * same contacts, the same numbers (the same bits).
 *
 * cannon-es 0.20's spherePlane takes a ContactEquation from the pool (or makes a new one) first and tests
 * second; when the sphere does not touch, the equation is dropped, neither kept nor returned to the pool. Every
 * body is paired with the ground plane (its bounds are infinite), so every sphere of every awake ragdoll body
 * costs a pool entry per step, and once the pool (last step's contacts) runs dry a new ContactEquation (ten
 * objects) for each sphere off the ground. Here the test runs first, on a scratch normal computed by the same
 * operations in the same order, and only a touching sphere goes on to cannon-es's own spherePlane, which
 * repeats the test and makes the contact exactly as before.
 */
export class RagdollNarrowphase extends Narrowphase {
  override spherePlane(
    si: Sphere,
    sj: Plane,
    xi: Vec3,
    xj: Vec3,
    qi: Quaternion,
    qj: Quaternion,
    bi: Body,
    bj: Body,
    rsi?: Shape | null,
    rsj?: Shape | null,
    justTest?: boolean,
  ): true | void {
    // cannon-es's normal and test (Narrowphase.spherePlane), on scratch vectors.
    normal.set(0, 0, 1)
    qj.vmult(normal, normal)
    normal.negate(normal)
    normal.normalize()
    xi.vsub(xj, planeToSphere)
    if (!(-planeToSphere.dot(normal) <= si.radius)) return
    return super.spherePlane(si, sj, xi, xj, qi, qj, bi, bj, rsi, rsj, justTest)
  }
}

const normal = new Vec3()
const planeToSphere = new Vec3()
