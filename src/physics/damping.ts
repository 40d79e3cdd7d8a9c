import { Body, type BodyOptions, type World } from 'cannon-es'
import { RagdollBody } from './broadphase.ts'
import { detExp, detLog } from '../math/detmath.ts'

/**
 * The velocity that survives `dt` seconds of damping: (1 − damping)^dt, as cannon-es defines its damping
 * (`damping` is the fraction of velocity lost per second, in [0, 1]), computed as e^(dt·ln(1 − damping)) with
 * the deterministic exp and log: the same bits in every engine. 1 for damping 0, 0 for damping 1.
 */
export function dampingScale(damping: number, dt: number): number {
  return detExp(dt * detLog(1 - damping))
}

/**
 * A ragdoll body whose velocity damping gives the same bits in every JavaScript engine.
 *
 * cannon-es 0.20 damps every dynamic body in `World.internalStep`, after the solver and just before it
 * integrates, by `v *= Math.pow(1 − linearDamping, dt)` (and the same for ω): a pow with a non-integer
 * exponent, which Node 20 and Chromium 156 round differently in the last bit for ~10 % of inputs
 * (measured for damping 0.8 at dt 1/30). This body keeps cannon-es's own damping at 0 — pow(1, dt) is exactly 1
 * everywhere, so that multiply changes nothing — and applies its own damping, with the same meaning, at the
 * start of `integrate`, which World.internalStep calls right after its damping loop: the same place in the
 * step. The two factors are computed with dampingScale when the step length changes (once, for a fixed step).
 *
 * `detLinearDamping` and `detAngularDamping` are what a snapshot stores as the body's damping. Writing
 * cannon-es's `linearDamping` / `angularDamping` on this body brings back the engine-dependent pow: don't.
 */
export class DampedRagdollBody extends RagdollBody {
  readonly detLinearDamping: number
  readonly detAngularDamping: number
  /** dampingScale of the two dampings for `scaleDt` seconds (NaN: not computed yet). */
  private scaleDt = NaN
  private linearScale = 1
  private angularScale = 1

  /**
   * cannon-es's body options; `linearDamping` and `angularDamping` (fractions of velocity lost per second,
   * [0, 1]) default to 0 here, not to cannon-es's 0.01.
   */
  constructor(options: NonNullable<BodyOptions>) {
    super({ ...options, linearDamping: 0, angularDamping: 0 })
    this.detLinearDamping = options.linearDamping ?? 0
    this.detAngularDamping = options.angularDamping ?? 0
  }

  override integrate(dt: number, quatNormalize: boolean, quatNormalizeFast: boolean): void {
    // cannon-es damps every body whose type has the DYNAMIC bit, asleep or not.
    if ((this.type & Body.DYNAMIC) !== 0) {
      if (dt !== this.scaleDt) {
        this.linearScale = dampingScale(this.detLinearDamping, dt)
        this.angularScale = dampingScale(this.detAngularDamping, dt)
        this.scaleDt = dt
      }
      this.velocity.scale(this.linearScale, this.velocity)
      this.angularVelocity.scale(this.angularScale, this.angularVelocity)
    }
    super.integrate(dt, quatNormalize, quatNormalizeFast)
  }
}

/**
 * The ragdoll body class of a world: DampedRagdollBody, or the faster form of it the world's cannon-es patches
 * registered (src/physics/cannonPatches/: the same bits). spawnRagdoll and a snapshot's rebuild make their
 * bodies with it.
 */
const bodyClasses = new WeakMap<World, typeof DampedRagdollBody>()

export function ragdollBodyClass(world: World): typeof DampedRagdollBody {
  return bodyClasses.get(world) ?? DampedRagdollBody
}

export function setRagdollBodyClass(world: World, body: typeof DampedRagdollBody): void {
  bodyClasses.set(world, body)
}
