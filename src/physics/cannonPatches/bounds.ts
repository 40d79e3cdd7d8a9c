import { Body, Shape, Vec3, type Sphere } from 'cannon-es'
import { DampedRagdollBody } from '../damping.ts'

/**
 * A ragdoll body bounded as sphereBounds bounds it: the same bits as Body.updateAABB, faster. cannon-es calls
 * updateAABB from SAPBroadphase.sortList for every moved body each step, and from updateMassProperties as
 * shapes are added: building a 64-body ragdoll took ~2 ms more with cannon-es's own.
 */
export class SphereBoundedBody extends DampedRagdollBody {
  override updateAABB(): void {
    sphereBounds(this)
  }
}

/**
 * Body.updateAABB for a body of spheres, the same bits with less work: each sphere's centre as cannon-es
 * computes it (the body's rotation of its offset, plus the position), ± its radius, combined by Math.min and
 * Math.max as AABB.extend does. cannon-es's loop also turns each shape's orientation, which a sphere's bounds do
 * not use, and Sphere.calculateWorldAABB reads the axes by name: the sweep and prune's bounds were ~5 % of a
 * falling ragdoll step (npm run bench:ragdoll, --cpu-prof). A body with no shape or any other shape: cannon-es's
 * own.
 */
export function sphereBounds(body: Body): void {
  const shapes = body.shapes
  const n = shapes.length
  for (let i = 0; i < n; i++)
    if (shapes[i]!.type !== Shape.types.SPHERE) return Body.prototype.updateAABB.call(body)
  if (n === 0) return Body.prototype.updateAABB.call(body)
  const lower = body.aabb.lowerBound
  const upper = body.aabb.upperBound
  for (let i = 0; i < n; i++) {
    body.quaternion.vmult(body.shapeOffsets[i]!, centre)
    centre.vadd(body.position, centre)
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
  body.aabbNeedsUpdate = false
}

const centre = new Vec3()
