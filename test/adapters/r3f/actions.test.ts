/**
 * drei-shaped actions (adapters/r3f/actions.ts) against three's AnimationMixer: the same calls at the same
 * frames on two copies of the Fox, one animated by three's mixer and actions, one by the plugin through the
 * actions; every joint's world matrix compared frame by frame. The plugin is one step behind three by design
 * (a clip played now shows its time 0 at the next step, three's state before its next update), so the
 * plugin after step i + 1 is compared with three after update i.
 */
import { createWorld } from 'bitecs'
import { AnimationMixer, LoopOnce, type AnimationAction as ThreeAction, type Object3D } from 'three'
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnimationActions, type AnimationAction } from '../../../adapters/r3f/actions.ts'
import { assetFromObject } from '../../../adapters/threeAsset.ts'
import { createAnimationPlugin } from '../../../entry/plugin.ts'
import { loadGltf } from '../../helpers/threeScene.ts'

let fox: GLTF
beforeAll(async () => {
  fox = await loadGltf('assets/Fox/glTF-Binary/Fox.glb')
})

type Script = Record<number, (a: Record<string, ActionLike>) => void>
/** The calls both kinds of action take. */
type ActionLike = Pick<
  AnimationAction,
  'play' | 'stop' | 'reset' | 'fadeIn' | 'fadeOut' | 'setEffectiveWeight' | 'setLoop' | 'clampWhenFinished'
> & { crossFadeTo(next: never, seconds: number, warp: boolean): unknown }

/** Runs `script` for `frames` frames on both; returns the largest joint position difference (Fox units, cm). */
function compare(
  frames: number,
  script: Script,
  skip: readonly number[] = [],
): { worst: number; at: number; moved: number } {
  const dt = 1 / 60
  const threeRoot = clone(fox.scene)
  const mixer = new AnimationMixer(threeRoot)
  const threeActions: Record<string, ThreeAction> = {}
  for (const clip of fox.animations) threeActions[clip.name] = mixer.clipAction(clip)

  const ourRoot = clone(fox.scene)
  const { asset, view } = assetFromObject(ourRoot, fox.animations, 'Fox (three objects)')
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256, dt })
  const character = plugin.addCharacter(asset)
  let steps = 0
  const ours = createAnimationActions(
    {
      plugin,
      get steps() {
        return steps
      },
    },
    fox.animations.map((c) => c.name),
  )
  ours.attach(character)

  const bones: [Object3D, number][] = []
  threeRoot.traverse((o) => {
    if (o === threeRoot) return
    const twin = ourRoot.getObjectByName(o.name)
    if (o.type === 'Bone' && twin) bones.push([o, plugin.jointEntity(character, view.nodes.get(twin)!)])
  })
  const world = plugin.stores.SceneNode.world
  let worst = 0
  let at = -1
  let moved = 0
  let previous: number[] = []
  for (let i = 0; i <= frames; i++) {
    script[i]?.(threeActions as unknown as Record<string, ActionLike>)
    script[i]?.(ours.actions as unknown as Record<string, ActionLike>)
    ours.beforeStep()
    const first = plugin.events.length
    plugin.step()
    steps++
    ours.afterStep(first)
    plugin.events.length = 0
    if (i > 0 && !skip.includes(i)) {
      // Ours after step i + 1 against three after update i (three's state now, before this frame's update).
      threeRoot.updateMatrixWorld(true)
      const now: number[] = []
      for (const [bone, e] of bones) {
        const m = bone.matrixWorld.elements
        for (let k = 12; k < 15; k++) {
          const d = Math.abs(m[k]! - world[16 * e + k]!)
          if (d > worst) [worst, at] = [d, i]
          now.push(m[k]!)
        }
      }
      if (previous.length) moved = Math.max(moved, ...now.map((x, k) => Math.abs(x - previous[k]!)))
      previous = now
    }
    mixer.update(dt)
  }
  return { worst, at, moved }
}

describe('useAnimations actions against three.js AnimationMixer (Fox, world positions of every bone)', () => {
  it('one action: play, then a fade in from the rest pose', () => {
    const r = compare(90, {
      0: (a) => a.Survey!.play(),
      30: (a) => a.Survey!.stop(),
      31: (a) => a.Walk!.reset().fadeIn(0.5).play(),
    })
    expect(r.moved).toBeGreaterThan(0.5) // it animates
    expect(r.worst, `worst at frame ${r.at}`).toBeLessThan(1e-3)
  })

  it('a cross-fade, drei style (fadeOut the old, reset().fadeIn().play() the new) and with crossFadeTo', () => {
    const r = compare(150, {
      0: (a) => a.Walk!.play(),
      20: (a) => {
        a.Walk!.fadeOut(0.4)
        a.Run!.reset().fadeIn(0.4).play()
      },
      70: (a) => {
        a.Survey!.reset().play()
        a.Run!.crossFadeTo(a.Survey as never, 0.5, false)
      },
    })
    expect(r.moved).toBeGreaterThan(0.5)
    expect(r.worst, `worst at frame ${r.at}`).toBeLessThan(1e-3)
  })

  it('weights that sum to 1 or more: one action at 0.4 over the rest pose, then two normalized', () => {
    const r = compare(60, {
      0: (a) => a.Walk!.setEffectiveWeight(0.4).play(),
      30: (a) => a.Run!.play(),
    })
    expect(r.moved).toBeGreaterThan(0.5)
    expect(r.worst, `worst at frame ${r.at}`).toBeLessThan(1e-3)
  })

  it('two actions below 1 in all, and fades that overlap: rotations within 0.1 Fox units (cm)', () => {
    // three slerps the actions' mix toward the rest pose by what they lack; layers start from the rest pose and
    // slerp toward each action in turn: the same shares, so the same translations, rotations a little apart.
    const weights = compare(60, {
      0: (a) => a.Walk!.setEffectiveWeight(0.4).play(),
      30: (a) => a.Run!.setEffectiveWeight(0.25).play(),
    })
    expect(weights.worst, `worst at frame ${weights.at}`).toBeLessThan(0.1)
    const overlap = compare(90, {
      0: (a) => a.Walk!.play(),
      10: (a) => a.Run!.reset().fadeIn(0.6).play(),
      20: (a) => a.Walk!.fadeOut(0.2),
    })
    expect(overlap.moved).toBeGreaterThan(0.5)
    expect(overlap.worst, `worst at frame ${overlap.at}`).toBeLessThan(0.1)
  })

  it("a 'once' clip holds its last pose with clampWhenFinished, or turns off (one step after three does)", () => {
    // Walk is 0.708 s: three's update 43 passes its end.
    const held = compare(70, {
      0: (a) => {
        a.Walk!.clampWhenFinished = true
        a.Walk!.setLoop(LoopOnce, 1).play()
      },
    })
    expect(held.worst, `worst at frame ${held.at}`).toBeLessThan(1e-3)
    // three drops a finishing action from the update that finishes it; the plugin reports the end after the
    // step that reaches it, and the action is off from the next step.
    const off = compare(70, { 0: (a) => a.Walk!.setLoop(LoopOnce, 1).play() }, [43])
    expect(off.worst, `worst at frame ${off.at}`).toBeLessThan(1e-3)
    const all = compare(70, { 0: (a) => a.Walk!.setLoop(LoopOnce, 1).play() })
    expect(all.at).toBe(43)
  })
})
