/**
 * StepState.posesUsed's promise (systems/state.ts): a character's PREV, PHYS, FROM or TO layer whose bit is
 * clear holds its asset's rest pose, bit for bit — snapshots skip comparing such a layer and restores skip
 * rewriting it, so a broken promise would lose a pose. Checked after every step and restore of a script that
 * writes every one of those layers (fades, a mid-fade fade, a whole and a partial ragdoll that grows, hits, a
 * get-up, a layered character), with and without workers.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createWorld } from 'bitecs'
import { loadAsset } from '../../src/gltf/load.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { JOINT_STRIDE, poseOffset, POSE_BUFFERS } from '../../components/Pose.ts'

let fox: AnimationAsset
let robot: AnimationAsset

beforeAll(async () => {
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
})

/** Each character's layers with a clear bit that are not the rest pose, as "eid/layer" (none expected). */
function broken(plugin: AnimationPlugin, characters: readonly number[]): string[] {
  const ctx = contextOf(plugin)
  const { Pose } = ctx.stores
  const data = new Int32Array(ctx.pool.data.buffer, ctx.pool.data.byteOffset, ctx.pool.data.length)
  const out: string[] = []
  for (const eid of characters) {
    const n = Pose.count[eid]!
    const base = Pose.base[eid]!
    const rest = ctx.assets[Pose.asset[eid]!]!.rest
    const restWords = new Int32Array(rest.buffer, rest.byteOffset, rest.length)
    for (let layer = 1; layer < POSE_BUFFERS; layer++) {
      if ((ctx.posesUsed[eid]! & (1 << layer)) !== 0) continue
      const o = poseOffset(base, n, layer)
      for (let k = 0; k < n * JOINT_STRIDE; k++) {
        if (data[o + k] !== restWords[k]) {
          out.push(`${eid}/${layer}`)
          break
        }
      }
    }
  }
  return out
}

function script(p: AnimationPlugin, c: number[], k: number): void {
  const [a, b, d, r] = c as [number, number, number, number]
  if (k === 0) {
    p.play(a, 'Walk')
    p.play(b, 'Run')
    p.play(d, 'Survey')
    p.play(r, 'Walking')
    p.setLayer(r, 1, { mask: ['Abdomen'], weight: 0.8 })
    p.play(r, 'Wave', { layer: 1 })
  }
  if (k === 10) p.crossFade(a, 'Run', 0.5)
  if (k === 15) p.crossFade(a, 'Survey', 0.5) // mid-fade: the blend is frozen into FROM
  if (k === 12) p.crossFade(r, 'Running', 0.3)
  if (k === 20) p.ragdoll(b, { impulse: { joint: 'b_Spine02_03', impulse: [3, 1, 0] } })
  if (k === 22) p.ragdoll(d, { root: 'b_Neck_04', impulse: { joint: 'b_Head_05', impulse: [0, 1, -2] } })
  if (k === 30) p.ragdoll(d, { root: 'b_Spine02_03' }) // the partial ragdoll grows
  if (k === 35) p.applyImpulse(b, 'b_Head_05', [0, 0, 2])
  if (k === 50) p.getUp(b, { clip: 'Walk' })
}

describe('posesUsed', () => {
  for (const workers of [0, 2]) {
    it(`a clear bit is a layer at the rest pose, after every step and restore (workers ${workers})`, () => {
      const plugin = createAnimationPlugin(createWorld(), { capacity: 1024, workers })
      try {
        plugin.addAsset(fox)
        plugin.addAsset(robot)
        const c = [
          plugin.addCharacter(fox),
          plugin.addCharacter(fox),
          plugin.addCharacter(fox),
          plugin.addCharacter(robot),
        ]
        c.slice(0, 3).forEach((e, i) =>
          plugin.setTransform(e, { position: [i, 0, 0], scale: [0.01, 0.01, 0.01] }),
        )
        expect(broken(plugin, c)).toEqual([])
        const saved = new Map<number, Uint8Array>()
        let cleared = 0
        for (let k = 0; k < 80; k++) {
          script(plugin, c, k)
          plugin.step()
          saved.set(k, plugin.snapshot())
          expect(broken(plugin, c), `after step ${k}`).toEqual([])
          for (const e of c) {
            for (let l = 1; l < POSE_BUFFERS; l++) cleared += ((contextOf(plugin).posesUsed[e]! >> l) & 1) ^ 1
          }
        }
        // Some bits stay clear (what the promise saves), others were set by each kind of writer.
        expect(cleared).toBeGreaterThan(0)
        const used = c.map((e) => contextOf(plugin).posesUsed[e]!)
        expect(used[0]! & 0b11000).toBe(0b11000) // FROM, TO: fades
        expect(used[1]! & 0b00100).toBe(0b00100) // PHYS: a ragdoll
        // Rewound to steps before and after each writer, both ways.
        for (const k of [5, 60, 11, 25, 40, 0, 79]) {
          plugin.restore(saved.get(k)!)
          expect(broken(plugin, c), `restored to step ${k}`).toEqual([])
          expect(plugin.snapshot(), `snapshot of the restore of step ${k}`).toEqual(saved.get(k))
          plugin.step()
          expect(broken(plugin, c), `a step after restoring step ${k}`).toEqual([])
        }
      } finally {
        plugin.dispose()
      }
    })
  }
})
