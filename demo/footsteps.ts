import { DoubleSide, Mesh, MeshBasicMaterial, RingGeometry, Vector3, type Scene } from 'three'
import { isClipEvent, type AnimationEvent, type AnimationPlugin, type AssetHandle } from '../entry/index.ts'

/**
 * Footstep flashes: markers on a model's clips (addMarker, at the times its paws touch down), and a ring on the
 * ground under the paw each time the hero's clip meets one ('marker' events). A marker's name says which paw:
 * `footstep:<node name>`.
 */
export const FOOTSTEP = 'footstep:'
/** Seconds a ring shows, growing and fading. */
const FLASH_SECONDS = 0.45
/** Rings at most on the ground at once (a ring reused when more paws land). */
const RINGS = 8
/** A flash is for the clip the hero mostly shows: not a clip fading out, not a light blend-space point. */
const MIN_WEIGHT = 0.5

/** Per clip name: the paws' touch-down times (seconds) and nodes. */
export type FootstepMarkers = Readonly<Record<string, readonly (readonly [number, string])[]>>

export interface Footsteps {
  /** Puts a model's footstep markers on its clips. */
  addMarkers(handle: AssetHandle, markers: FootstepMarkers): void
  /** Flashes a ring for a footstep marker of `hero` (a ring `size` metres across at its widest); false otherwise. */
  onEvent(e: AnimationEvent, hero: number, size: number): boolean
  /** Grows and fades the rings shown by `seconds` of display time. */
  update(seconds: number): void
  /** Footsteps flashed so far. */
  readonly count: number
  /** Rings on the ground now: the corners of their squares (for the pixel probe's box). */
  shown(): Vector3[]
  /** Shows or hides every ring (for the pixel probe). */
  setVisible(visible: boolean): void
  /** Takes every ring off the ground (a new model). */
  clear(): void
}

export function createFootsteps(scene: Scene, plugin: AnimationPlugin): Footsteps {
  const geometry = new RingGeometry(0.7, 1, 32).rotateX(-Math.PI / 2)
  const rings = Array.from({ length: RINGS }, () => {
    const material = new MeshBasicMaterial({ color: 0xfff1a0, transparent: true, side: DoubleSide })
    const mesh = new Mesh(geometry, material)
    mesh.visible = false
    mesh.renderOrder = 1
    scene.add(mesh)
    return { mesh, material, age: Infinity, size: 0 }
  })
  let next = 0
  let count = 0

  return {
    addMarkers(handle, markers) {
      for (const [clip, steps] of Object.entries(markers)) {
        if (!handle.asset.clips.some((c) => c.name === clip)) continue
        for (const [seconds, paw] of steps) plugin.addMarker(handle, clip, seconds, FOOTSTEP + paw)
      }
    },
    onEvent(e, hero, size) {
      if (!isClipEvent(e) || e.kind !== 'marker' || !e.name.startsWith(FOOTSTEP)) return false
      if (e.character !== hero || e.fading || e.weight < MIN_WEIGHT) return false
      const paw = plugin.jointEntity(hero, e.name.slice(FOOTSTEP.length)) * 16
      const world = plugin.stores.SceneNode.world
      const ring = rings[next]!
      next = (next + 1) % RINGS
      ring.mesh.position.set(world[paw + 12]!, 0.004, world[paw + 14]!)
      ring.age = 0
      ring.size = size
      count++
      return true
    },
    update(seconds) {
      for (const r of rings) {
        r.age += seconds
        const t = r.age / FLASH_SECONDS
        r.mesh.visible = t < 1
        if (t >= 1) continue
        r.mesh.scale.setScalar((r.size / 2) * (0.4 + 0.6 * t))
        r.material.opacity = 1 - t * t
      }
    },
    get count() {
      return count
    },
    shown() {
      return rings
        .filter((r) => r.age < FLASH_SECONDS)
        .flatMap((r) =>
          [-1, 1].map((s) =>
            r.mesh.position
              .clone()
              .addScalar((s * r.size) / 2)
              .setY(0),
          ),
        )
    },
    setVisible(visible) {
      for (const r of rings) r.mesh.visible = visible && r.age < FLASH_SECONDS
    },
    clear() {
      for (const r of rings) {
        r.age = Infinity
        r.mesh.visible = false
      }
    },
  }
}
