import { Raycaster, SkinnedMesh, Vector2, Vector3, type Camera, type Object3D } from 'three'
import type { AnimationPlugin } from '../entry/index.ts'

/**
 * Click-to-hit: a ray from the camera through the pointer against the character's meshes (skinned meshes
 * first get bounds of their current pose: three caches the bind pose's), then the joint nearest to the hit
 * point. Joints are the skin's (or every node for unskinned files); their positions come from the scene graph.
 */
export interface Hit {
  /** glTF node index of the nearest joint. */
  node: number
  /** World point hit, metres. */
  point: Vector3
  /** Unit direction of the ray (the way the blow goes). */
  direction: Vector3
}

const raycaster = new Raycaster()
const ndc = new Vector2()

export function pick(
  plugin: AnimationPlugin,
  character: number,
  root: Object3D,
  camera: Camera,
  pointer: { x: number; y: number; width: number; height: number },
  joints: readonly number[],
): Hit | null {
  root.traverse((o) => {
    if (o instanceof SkinnedMesh) {
      o.computeBoundingSphere()
      o.computeBoundingBox()
    }
  })
  ndc.set((pointer.x / pointer.width) * 2 - 1, -(pointer.y / pointer.height) * 2 + 1)
  raycaster.setFromCamera(ndc, camera)
  const hit = raycaster.intersectObject(root, true)[0]
  if (!hit) return null
  return {
    node: nearestJoint(plugin, character, joints, hit.point),
    point: hit.point,
    direction: raycaster.ray.direction.clone(),
  }
}

/** glTF node index (from `joints`) whose world origin is nearest to `point`. */
export function nearestJoint(
  plugin: AnimationPlugin,
  character: number,
  joints: readonly number[],
  point: Vector3,
): number {
  const world = plugin.stores.SceneNode.world
  let best = joints[0] ?? 0
  let bestD = Infinity
  for (const node of joints) {
    const o = plugin.jointEntity(character, node) * 16
    const d =
      (world[o + 12]! - point.x) ** 2 + (world[o + 13]! - point.y) ** 2 + (world[o + 14]! - point.z) ** 2
    if (d < bestD) {
      bestD = d
      best = node
    }
  }
  return best
}

/** The mean world position of a character's `joints` (glTF node indices): its body's middle. */
export function centroid(plugin: AnimationPlugin, character: number, joints: readonly number[]): Vector3 {
  const world = plugin.stores.SceneNode.world
  const c = new Vector3()
  for (const node of joints) {
    const o = plugin.jointEntity(character, node) * 16
    c.x += world[o + 12]!
    c.y += world[o + 13]!
    c.z += world[o + 14]!
  }
  return c.multiplyScalar(1 / Math.max(1, joints.length))
}
