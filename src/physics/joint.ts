import {
  ConeTwistConstraint,
  Equation,
  PointToPointConstraint,
  Quaternion,
  RotationalMotorEquation,
  Vec3,
  type Body,
} from 'cannon-es'
import { detCos } from '../math/detmath.ts'

/**
 * cannon-es's ConeTwistConstraint with its twist limit repaired and its limit equations made deterministic.
 *
 * The twist limit is a RotationalEquation that keeps `tA · tB ≥ cos(twistAngle)` for two tangents of the joint
 * axis, one fixed in each body. cannon-es 0.20 makes those tangents with `Vec3.tangents`, which does not
 * normalize them: for an axis n with |n.x| < 0.9 they have length √(1 − n.x²). Then `tA · tB` is at most
 * 1 − n.x², below cos(twistAngle) whenever n.x² > 1 − cos(twistAngle) (|n.x| > 0.24 for a 0.35 rad limit):
 * the equation is violated even with no twist at all, its bias stays large while its Jacobian (tA × tB) goes to
 * zero near alignment, and the solver answers with huge impulses. Measured: a generated humanoid whose right
 * forearm axis had n.x = -0.89 spun that forearm at 100-190 rad/s and exploded in 8 of 20 hand-offs from its
 * walk. Normalizing the two world tangents after cannon-es computes them makes the equation mean what it says.
 *
 * cannon-es's cone and twist equations evaluate `Math.cos(limit)` in every step, and Math.cos differs in the
 * last bit between engines (Node 20 and Chromium 156 disagree on cos 0.44 and cos 0.77, for example): a ragdoll
 * with such a limit parted the two engines' state hashes 10 steps after it hit a limit (e2e/determinism). So
 * the constraint's two limit equations are replaced by LimitEquations, which take the cosine from detCos.
 * `update` (cannon-es's, run by the world every step) still fills in their world axes and limit angles.
 */
export class RagdollJoint extends ConeTwistConstraint {
  /**
   * Where the joint's limits are centred, for a powered ragdoll (src/physics/motors.ts): the rotation from body
   * B's frame to body A's at which the two axes (and their twist tangents) coincide. Null: the frames at
   * activation (both bodies start unrotated, so axisA = axisB there), as cannon-es has it.
   */
  reference: Quaternion | null = null
  /**
   * A powered ragdoll's motor (src/physics/motors.ts): three cannon-es RotationalMotorEquations about the world
   * x, y and z axes, after the limit equations; null for none.
   */
  motors: RotationalMotorEquation[] | null = null
  /** The body the motor turns body B against: a ragdoll body's index, or −1 − k for anchor k. */
  motorRoot = 0
  /** The limits are centred on `reference` (once a motor has run; before, they are cannon-es's). */
  centred = false

  constructor(bodyA: Body, bodyB: Body, options: ConstructorParameters<typeof ConeTwistConstraint>[2] = {}) {
    super(bodyA, bodyB, options)
    const maxForce = options.maxForce ?? 1e6
    const cone = new ConeLimitEquation(bodyA, bodyB, maxForce)
    const twist = new TwistLimitEquation(bodyA, bodyB, maxForce)
    // cannon-es's constructor appends its cone and twist equations after the three point equations; swap
    // them in place, so the solver sees the same equations in the same order.
    const equations = this.equations
    equations[equations.indexOf(this.coneEquation)] = cone
    equations[equations.indexOf(this.twistEquation)] = twist
    this.coneEquation = cone
    this.twistEquation = twist
  }

  override update(): void {
    const q = this.reference
    if (q === null || !this.centred) {
      super.update()
    } else {
      // ConeTwistConstraint.update with body A's axis and twist tangent taken from body B's through the
      // reference rotation, so both limits are measured from it.
      PointToPointConstraint.prototype.update.call(this)
      const cone = this.coneEquation
      const twist = this.twistEquation
      q.vmult(this.axisB, local)
      this.bodyA.vectorToWorldFrame(local, cone.axisA)
      this.bodyB.vectorToWorldFrame(this.axisB, cone.axisB)
      this.axisB.tangents(tangent, tangent)
      q.vmult(tangent, local)
      this.bodyA.vectorToWorldFrame(local, twist.axisA)
      this.bodyB.vectorToWorldFrame(tangent, twist.axisB)
      cone.angle = this.angle
      twist.maxAngle = this.twistAngle
    }
    this.twistEquation.axisA.normalize()
    this.twistEquation.axisB.normalize()
  }

  /**
   * Gives the joint its motor (three equations, disabled), between `root` and body B, and a reference rotation
   * (identity). `rootIndex` says which body root is (motorRoot).
   */
  addMotors(root: Body, rootIndex: number): void {
    if (this.motors !== null) return
    this.reference = new Quaternion(0, 0, 0, 1)
    this.motorRoot = rootIndex
    this.motors = [new Vec3(1, 0, 0), new Vec3(0, 1, 0), new Vec3(0, 0, 1)].map((axis) => {
      const m = new RotationalMotorEquation(root, this.bodyB, 0)
      m.axisA.copy(axis)
      m.axisB.copy(axis)
      m.enabled = false
      return m
    })
    this.equations.push(...this.motors)
  }
}

const local = new Vec3()
const tangent = new Vec3()

/**
 * An angular limit between two world directions, nA fixed in body A and nB in body B (unit vectors, written
 * by the constraint's update before every solve): the angle between them may not exceed `limit`, i.e.
 *
 *   C = cos(limit) − nA·nB ≤ 0.
 *
 * Written here from that constraint and the SPOOK terms of cannon-es's Equation (a, b, eps from the
 * stiffness and relaxation; computeGW and computeGiMf from the Jacobian below); not copied from cannon-es,
 * though it reaches the same formula as its ConeEquation and RotationalEquation, apart from the cosine.
 * - Jacobian: d(nA·nB)/dt = (ωA × nA)·nB + nA·(ωB × nB) = ωA·(nA × nB) + ωB·(nB × nA), so
 *   dC/dt = (nB × nA)·ωA + (nA × nB)·ωB: no linear part; rotational parts nB × nA for A and nA × nB for B.
 * - Right-hand side: B = −a·C − b·G·W − h·G·M⁻¹·f, with G·W the constraint velocity dC/dt and G·M⁻¹·f
 *   the same for the velocity the external forces would add over a step.
 * The multiplier is held to [−maxForce, 0] (it can only push the directions together), so inside the limit
 * (C < 0) the equation does nothing.
 *
 * cos(limit) comes from detCos, evaluated again only when the limit changes (the constraint's update writes
 * it every step). Allocation-free.
 */
abstract class LimitEquation extends Equation {
  axisA = new Vec3()
  axisB = new Vec3()
  /** The limit the cached cosine belongs to (NaN: none yet). */
  private cachedLimit = NaN
  private cosLimit = 1

  constructor(bodyA: Body, bodyB: Body, maxForce: number) {
    super(bodyA, bodyB, -maxForce, 0)
  }

  /** The limit angle, radians, as cannon-es's update wrote it. */
  protected abstract limit(): number

  /** cos(limit), from detCos, evaluated again only when the limit has changed. */
  limitCosine(): number {
    const angle = this.limit()
    if (angle !== this.cachedLimit) {
      this.cosLimit = detCos(angle)
      this.cachedLimit = angle
    }
    return this.cosLimit
  }

  override computeB(h: number): number {
    const cosLimit = this.limitCosine()
    const nA = this.axisA
    const nB = this.axisB
    const gA = this.jacobianElementA
    const gB = this.jacobianElementB
    gA.spatial.set(0, 0, 0)
    gB.spatial.set(0, 0, 0)
    nB.cross(nA, gA.rotational)
    nA.cross(nB, gB.rotational)
    const c = cosLimit - nA.dot(nB)
    return -c * this.a - this.computeGW() * this.b - h * this.computeGiMf()
  }
}

/** The cone (swing) limit: the angle between the two bodies' joint axes. cannon-es's update writes `angle`. */
export class ConeLimitEquation extends LimitEquation {
  angle = 0

  protected limit(): number {
    return this.angle
  }
}

/**
 * The twist limit: the angle between a tangent of the joint axis fixed in each body. cannon-es's update
 * writes `maxAngle`.
 */
export class TwistLimitEquation extends LimitEquation {
  maxAngle = 0

  protected limit(): number {
    return this.maxAngle
  }
}
