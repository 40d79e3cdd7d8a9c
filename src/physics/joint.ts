import { ConeTwistConstraint } from 'cannon-es'

/**
 * cannon-es's ConeTwistConstraint with its twist limit repaired.
 *
 * The twist limit is a RotationalEquation that keeps `tA · tB ≥ cos(twistAngle)` for two tangents of the joint
 * axis, one fixed in each body. cannon-es 0.20 makes those tangents with `Vec3.tangents`, which does not
 * normalize them: for an axis n with |n.x| < 0.9 they have length √(1 − n.x²). Then `tA · tB` is at most
 * 1 − n.x², below cos(twistAngle) whenever n.x² > 1 − cos(twistAngle) (|n.x| > 0.24 for a 0.35 rad limit):
 * the equation is violated even with no twist at all, its bias stays large while its Jacobian (tA × tB) goes to
 * zero near alignment, and the solver answers with huge impulses. Measured: a generated humanoid whose right
 * forearm axis had n.x = -0.89 spun that forearm at 100-190 rad/s and exploded in 8 of 20 hand-offs from its
 * walk. Normalizing the two world tangents after cannon-es computes them makes the equation mean what it says.
 */
export class RagdollJoint extends ConeTwistConstraint {
  override update(): void {
    super.update()
    this.twistEquation.axisA.normalize()
    this.twistEquation.axisB.normalize()
  }
}
