import type { AnimationAsset } from '../../src/gltf/asset.ts'
import type { AnimationPlugin } from '../../entry/plugin.ts'

/**
 * The ragdoll bench's scene (scripts/bench-ragdoll.ts, apart): `count` Foxes on a 2 m grid `side` wide, each
 * turned by its index, in metres (scale 0.01), walking from its own phase; then 30 steps. Returns the characters.
 */
export function foxGrid(plugin: AnimationPlugin, fox: AnimationAsset, count: number, side: number): number[] {
  const cs: number[] = []
  for (let i = 0; i < count; i++) {
    const c = plugin.addCharacter(fox)
    plugin.setTransform(c, {
      position: [2 * (i % side), 0, 2 * Math.floor(i / side)],
      rotation: [0, Math.sin(i), 0, Math.cos(i)],
      scale: [0.01, 0.01, 0.01],
    })
    plugin.play(c, 'Walk', { time: (i * 0.137) % 0.7 })
    cs.push(c)
  }
  for (let s = 0; s < 30; s++) plugin.step()
  return cs
}

/** The bench's hit for character i of the grid: 2–4 N·s at the chest, sideways by index. */
export function gridHit(i: number): { joint: string; impulse: [number, number, number] } {
  return { joint: 'b_Spine02_03', impulse: [2 + (i % 3), 0, (i % 5) - 2] }
}
