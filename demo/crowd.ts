import type { Scene } from 'three'
import type { AnimationPlugin } from '../entry/index.ts'
import type { ThreeAdapter } from '../adapters/three.ts'
import { despawn, spawn, type Character, type Model } from './characters.ts'

/**
 * Crowd mode: N more characters of the current model on a square grid around the hero (its centre cell left
 * free), each a SkeletonUtils clone with its own bones, playing the model's clips in turn at staggered phases.
 * Phases and facings come from the index, not Math.random, so the same N gives the same state hash every run.
 */
/** Grid cell size as a multiple of the model's footprint. */
export const CROWD_SPACING = 1.15

export interface Crowd {
  readonly members: readonly Character[]
  /** Adds or removes characters until there are `n` (clamped to [0, max]). Returns the new count. */
  setCount(n: number): number
  /** Removes everyone (before the model changes). */
  clear(): void
}

export function createCrowd(
  plugin: AnimationPlugin,
  adapter: ThreeAdapter,
  scene: Scene,
  model: () => Model,
  max: () => number,
): Crowd {
  const members: Character[] = []

  function place(i: number, spacing: number): { x: number; z: number } {
    // Cells in rings around the origin, ring r holding 8r cells; cell 0 of ring 0 is the hero's.
    let ring = 1
    let k = i
    while (k >= 8 * ring) {
      k -= 8 * ring
      ring++
    }
    const side = 2 * ring
    const edge = Math.floor(k / side)
    const t = (k % side) - ring
    const [x, z] = edge === 0 ? [t, -ring] : edge === 1 ? [ring, t] : edge === 2 ? [-t, ring] : [-ring, -t]
    return { x: x * spacing, z: z * spacing }
  }

  function add(): void {
    const m = model()
    const i = members.length
    const { x, z } = place(i, m.footprint * CROWD_SPACING)
    const half = ((i * 0.618034) % 1) * Math.PI // a spread of facings, from the golden ratio
    const c = spawn(plugin, adapter, scene, m, { x, z, yaw: [Math.sin(half), Math.cos(half)] })
    const clips = m.clipNames.length
    if (clips > 0) {
      const clip = i % clips
      const duration = m.handle.asset.clips[clip]!.duration
      plugin.play(c.eid, clip, { time: duration > 0 ? (i * 0.37) % duration : 0 })
    }
    members.push(c)
  }

  return {
    members,
    setCount(n) {
      const target = Math.max(0, Math.min(Math.floor(n), max()))
      while (members.length < target) add()
      while (members.length > target) despawn(plugin, adapter, members.pop()!)
      return members.length
    },
    clear() {
      while (members.length > 0) despawn(plugin, adapter, members.pop()!)
    },
  }
}
