/**
 * Measures of how whole a live ragdoll is, for the hard-hit and any-rig tests: the gap at each joint (how far
 * the two bodies' pivot points have pulled apart), finiteness, and the character's size that scales the
 * limits ("3 cm for a 1.8 m character"). Written here with cannon-es's own vector maths and Math.*, from the
 * bodies and constraints as cannon-es holds them.
 */
import type { ConeTwistConstraint } from 'cannon-es'
import { createWorld } from 'bitecs'
import type { AnimationPlugin } from '../../entry/plugin.ts'
import { contextOf, createAnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { ragdollInstance } from '../../src/physics/ragdoll.ts'

/** Distance between a constraint's pivot as body A carries it and as body B carries it, world units. */
export function jointGap(c: ConeTwistConstraint): number {
  const a = c.bodyA.position.vadd(c.bodyA.quaternion.vmult(c.pivotA))
  const b = c.bodyB.position.vadd(c.bodyB.quaternion.vmult(c.pivotB))
  return a.distanceTo(b)
}

/** The largest joint gap of a character's live ragdoll (0 without one). */
export function largestGap(p: AnimationPlugin, c: number): number {
  const r = ragdollInstance(contextOf(p).ragdolls[c]?.instance)
  if (!r) return 0
  let gap = 0
  for (const k of r.constraints) gap = Math.max(gap, jointGap(k))
  return gap
}

/** True when every body of the character's live ragdoll has a finite position, orientation and velocity. */
export function ragdollFinite(p: AnimationPlugin, c: number): boolean {
  const r = ragdollInstance(contextOf(p).ragdolls[c]?.instance)
  if (!r) return true
  return r.bodies.every((b) =>
    [b.position, b.velocity, b.angularVelocity].every((v) => Number.isFinite(v.x + v.y + v.z)),
  )
}

/** World position of an entity, from its world matrix. */
export function worldPosition(p: AnimationPlugin, entity: number): [number, number, number] {
  const w = p.stores.SceneNode.world
  return [w[entity * 16 + 12]!, w[entity * 16 + 13]!, w[entity * 16 + 14]!]
}

/**
 * The character's size in world units: the largest extent of its skinned joints' world positions (as the scene
 * graph has them now; call it while it stands in its rest or animated pose).
 */
export function characterSize(p: AnimationPlugin, c: number, asset: AnimationAsset): number {
  const lo = [Infinity, Infinity, Infinity]
  const hi = [-Infinity, -Infinity, -Infinity]
  for (const node of asset.skeletons[0]!.joints) {
    const at = worldPosition(p, p.jointEntity(c, node))
    for (let k = 0; k < 3; k++) {
      lo[k] = Math.min(lo[k]!, at[k]!)
      hi[k] = Math.max(hi[k]!, at[k]!)
    }
  }
  return Math.max(hi[0]! - lo[0]!, hi[1]! - lo[1]!, hi[2]! - lo[2]!)
}

/**
 * A fresh plugin (capacity 4096) with `assets` added, restored from `p`'s snapshot now; checks that it
 * snapshots to the same bytes. Then `steps` steps of both, `before(k)` called before step k on both, each step's
 * hashes compared: returns the first step at which they differ, or -1.
 */
export function restoreAndStep(
  p: AnimationPlugin,
  assets: readonly AnimationAsset[],
  steps: number,
  before: (q: AnimationPlugin, k: number) => void = () => {},
): { copy: AnimationPlugin; diverged: number } {
  const bytes = p.snapshot()
  const copy = createAnimationPlugin(createWorld(), { capacity: 4096 })
  for (const a of assets) copy.addAsset(a)
  copy.restore(bytes)
  if (!Buffer.from(copy.snapshot()).equals(Buffer.from(bytes))) return { copy, diverged: 0 }
  for (let k = 0; k < steps; k++) {
    before(p, k)
    before(copy, k)
    p.step()
    copy.step()
    if (copy.hash() !== p.hash()) return { copy, diverged: k + 1 }
  }
  return { copy, diverged: -1 }
}

/** A character and its twin side by side, both playing one clip; the twin only animates (the reference). */
export interface TwinScene {
  p: AnimationPlugin
  c: number
  twin: number
  /** characterSize at the scale. */
  size: number
  asset: AnimationAsset
  /** The twin's x minus the character's (change it when the character moves). */
  offset: number
}

/**
 * A TwinScene (capacity 4096): character and twin at uniform `scale`, the twin 4 sizes along +x, both playing
 * `clip`, stepped 20 times.
 */
export function twinScene(asset: AnimationAsset, scale: number, clip: string): TwinScene {
  const p = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const probe = p.addCharacter(asset)
  p.setTransform(probe, { scale: [scale, scale, scale] })
  p.step()
  const size = characterSize(p, probe, asset)
  p.removeCharacter(probe)
  const offset = 4 * size
  const [c, twin] = [0, 1].map((i) => {
    const e = p.addCharacter(asset)
    p.setTransform(e, { position: [i * offset, 0, 0], scale: [scale, scale, scale] })
    p.play(e, clip)
    return e
  }) as [number, number]
  for (let s = 0; s < 20; s++) p.step()
  return { p, c, twin, size, asset, offset }
}

/** Where glTF node `node` of the character is from the twin's (shifted back by the offset), in sizes. */
export function fromTwin(s: TwinScene, node: number): [number, number, number] {
  const a = worldPosition(s.p, s.p.jointEntity(s.c, node))
  const b = worldPosition(s.p, s.p.jointEntity(s.twin, node))
  return [(a[0] - b[0] + s.offset) / s.size, (a[1] - b[1]) / s.size, (a[2] - b[2]) / s.size]
}
