/**
 * Compact clips (loadAsset's `compress`) through the plugin: the same story played on characters of the exact
 * asset and of the compact one, in two plugins, keeps every joint's world matrix within the compression's
 * tolerance at each step (cross-fades, an override and an additive layer, a blend space, root motion), on two
 * characters in different states; and replays to the same bits.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
/** 0.1 mm in the Fox's units (centimetres), at 1 m. */
const COMPRESS = { tolerance: 1e-2, distance: 100 }

let exact: AnimationAsset
let compact: AnimationAsset

beforeAll(async () => {
  exact = await loadAsset(FOX)
  compact = await loadAsset(FOX, { compress: COMPRESS })
})

function story(asset: AnimationAsset): { anim: AnimationPlugin; characters: number[]; steps: () => void } {
  const anim = createAnimationPlugin(createWorld(), { capacity: 4096 })
  const a = anim.addCharacter(asset)
  const b = anim.addCharacter(asset)
  anim.play(a, 'Walk')
  anim.play(b, 'Survey', { time: 0.4 })
  anim.setRootMotion(a, { mode: 'horizontal' })
  let step = 0
  const steps = (): void => {
    if (step === 20) anim.crossFade(a, 'Run', 0.25)
    if (step === 30) {
      anim.setLayer(b, 1, { mask: ['b_Spine02_03'] })
      anim.crossFade(b, 'Walk', 0.2, { layer: 1 })
      anim.setLayer(b, 2, { mode: 'additive', weight: 0.5 })
      anim.play(b, 'Run', { layer: 2 })
    }
    if (step === 60) {
      anim.playBlendSpace(
        a,
        [
          { clip: 'Walk', at: 0 },
          { clip: 'Run', at: 1 },
        ],
        { parameter: 0.3, fadeSeconds: 0.2 },
      )
    }
    anim.step()
    step++
  }
  return { anim, characters: [a, b], steps }
}

function worlds(s: ReturnType<typeof story>): Float32Array[] {
  return s.characters.flatMap((c) =>
    Array.from(s.anim.joints(c), (e) => s.anim.stores.SceneNode.world.slice(16 * e, 16 * e + 16)),
  )
}

describe('compact clips in the plugin', () => {
  it('stay within the tolerance of the exact clips through fades, layers, a blend space and root motion', () => {
    const x = story(exact)
    const y = story(compact)
    expect(compact.clips.every((c) => c.compression !== null)).toBe(true)
    let worst = 0
    for (let s = 0; s < 100; s++) {
      x.steps()
      y.steps()
      const a = worlds(x)
      const b = worlds(y)
      a.forEach((m, j) => m.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - b[j]![i]!)))))
    }
    // Every element: the translations are the joints' origins, the 3×3 moves far less than a point at distance.
    expect(worst).toBeLessThanOrEqual(COMPRESS.tolerance)
    expect(worst).toBeGreaterThan(0)
  })

  it('replay to the same bits', () => {
    const x = story(compact)
    const y = story(compact)
    for (let s = 0; s < 80; s++) {
      x.steps()
      y.steps()
    }
    expect(x.anim.hash()).toBe(y.anim.hash())
  })
})
