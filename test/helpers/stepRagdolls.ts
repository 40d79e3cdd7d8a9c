/**
 * Shared setup of the stepRagdolls tests (test/systems/stepRagdolls.*.test.ts): the ragdoll hand-off end to end,
 * through the plugin, two characters (or a ragdoll and a pure-animation twin) per world throughout.
 *
 * The independent side: joint world matrices come from the scene graph of a twin character that never
 * ragdolls (and the scene graph is itself checked against three.js in propagateTransforms.test.ts); poses are
 * decomposed with three.js; finite differences, angles and the swing-twist split are written here with Math.*.
 */
import { createWorld } from 'bitecs'
import type { Body, ConeTwistConstraint } from 'cannon-es'
import { Matrix4, Quaternion, Vector3 } from 'three'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createHasher } from '../../src/sim/hasher.ts'
import { createAnimationPlugin, type AnimationPlugin, contextOf } from '../../entry/plugin.ts'
import { makeHumanoidAsset } from './humanoid.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

/** The Fox, loaded by `loadFox` (a test file calls it in beforeAll). */
export let fox: AnimationAsset

/** Loads the Fox (once per test file). */
export async function loadFox(): Promise<void> {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
}

export const DT = 1 / 60

export const humanoid = makeHumanoidAsset()

export function newPlugin(options: Parameters<typeof createAnimationPlugin>[1] = {}): AnimationPlugin {
  return createAnimationPlugin(createWorld(), { capacity: 4096, ...options })
}

/** A character of `asset` at `at`, walking; the Fox is in centimetres, so its root is scaled to metres. */
export function addWalker(
  p: AnimationPlugin,
  asset: AnimationAsset,
  at: [number, number, number] = [0, 0, 0],
): number {
  const c = p.addCharacter(asset)
  const S = p.stores.SceneNode
  if (asset === fox) S.scale.fill(0.01, c * 3, c * 3 + 3)
  S.translation.set(at, c * 3)
  S.dirty[c] = 1
  p.play(c, 'Walk')
  return c
}

export function run(p: AnimationPlugin, steps: number, each?: (s: number) => void): void {
  for (let s = 0; s < steps; s++) {
    p.step()
    each?.(s)
  }
}

/** The joint's world matrix (three.js, from the scene graph). */
export function worldMatrix(
  p: AnimationPlugin,
  jointEntity: number,
  world = p.stores.SceneNode.world,
): Matrix4 {
  return new Matrix4().fromArray(Array.from(world.subarray(jointEntity * 16, jointEntity * 16 + 16)))
}

export function decompose(m: Matrix4): { p: Vector3; q: Quaternion; s: number } {
  const p = new Vector3()
  const q = new Quaternion()
  const s = new Vector3()
  m.decompose(p, q, s)
  return { p, q, s: s.x }
}

/** Bone centre of a resolved body in world: joint origin + (rotation · scale)(axis · length / 2). */
export function boneCentre(m: Matrix4, axis: readonly number[], length: number): Vector3 {
  const half = new Vector3(axis[0], axis[1], axis[2]).multiplyScalar(length / 2)
  return half.applyMatrix4(m)
}

/** World angular velocity (rad/s) turning rotation a into b over dt, short arc. */
export function angularVelocityOf(a: Quaternion, b: Quaternion, dt: number): Vector3 {
  const d = b.clone().multiply(a.clone().invert())
  if (d.w < 0) d.set(-d.x, -d.y, -d.z, -d.w)
  const s = Math.hypot(d.x, d.y, d.z)
  if (s === 0) return new Vector3()
  const angle = 2 * Math.atan2(s, d.w)
  return new Vector3(d.x, d.y, d.z).multiplyScalar(angle / s / dt)
}

export function ragdollOf(p: AnimationPlugin, c: number) {
  const rt = contextOf(p).ragdolls[c]
  if (!rt?.instance) throw new Error(`character ${c} has no live ragdoll`)
  return { rt, r: ragdollInstance(rt.instance) }
}

/** Cone angle between the constraint axes in world, and the twist of B relative to A about the axis (swing-twist). */
export function jointAngles(c: ConeTwistConstraint): { cone: number; twist: number } {
  const qa = c.bodyA.quaternion
  const qb = c.bodyB.quaternion
  const a = qa.vmult(c.axisA).unit()
  const b = qb.vmult(c.axisB).unit()
  const cone = Math.acos(Math.min(1, Math.max(-1, a.dot(b))))
  const rel = qa.conjugate().mult(qb)
  const axis = c.axisA.unit()
  const along = rel.x * axis.x + rel.y * axis.y + rel.z * axis.z
  const twist = 2 * Math.atan2(Math.abs(along), Math.abs(rel.w))
  return { cone, twist }
}

/** Lowest point of any body (its spheres' bottoms; a box's lowest corner), world y. */
export function lowestSurface(bodies: readonly Body[]): number {
  let lowest = Infinity
  for (const b of bodies) {
    b.shapes.forEach((shape, i) => {
      const centre = b.position.vadd(b.quaternion.vmult(b.shapeOffsets[i]!))
      if ('radius' in shape) lowest = Math.min(lowest, centre.y - (shape as { radius: number }).radius)
      else {
        const box = shape as unknown as {
          convexPolyhedronRepresentation: { vertices: { x: number; y: number; z: number }[] }
        }
        const q = b.quaternion.mult(b.shapeOrientations[i]!)
        for (const v of box.convexPolyhedronRepresentation.vertices)
          lowest = Math.min(lowest, centre.y + q.vmult(v as never).y)
      }
    })
  }
  return lowest
}

export function hasNaN(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (Number.isNaN(a[i]!)) return true
  return false
}

/** Hash of the plugin state and every cannon-es body's position, orientation and velocities (bits). */
export function fullHash(p: AnimationPlugin): string {
  const h = createHasher()
  const state = new Float64Array(13)
  for (const b of p.physics.bodies) {
    state.set([
      ...b.position.toArray(),
      ...b.quaternion.toArray(),
      ...b.velocity.toArray(),
      ...b.angularVelocity.toArray(),
    ])
    h.update(state)
  }
  return `${p.hash()}:${h.digest()}`
}
