/**
 * A scripted scene for the deterministic simulation test next to it: three Foxes and a list of what happens at
 * which fixed step (clips, cross-fades, a game moving a character, ragdolls with hits, get-ups). The script is
 * data, so a run from step 0 and a run restored from a snapshot at step k replay exactly the same calls.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationAsset, type AnimationPlugin } from 'ecs-anim'

/** Steps in the whole script (6 s at the default 1/60 s). */
export const STEPS = 360

/** Every option the plugin is made with; a restoring plugin must be made with the same. */
const OPTIONS = { capacity: 256 } as const

export interface Scene {
  readonly plugin: AnimationPlugin
  /** The three Foxes' character entities, A B C. */
  readonly foxes: readonly [number, number, number]
}

/** A fresh world and plugin with the Fox asset registered, and no characters yet (what `restore` needs). */
export function createPlugin(fox: AnimationAsset): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), OPTIONS)
  plugin.addAsset(fox)
  return plugin
}

/** Step 0 of the script: three Foxes a metre apart, in metres (Fox is authored in centimetres). */
export function createScene(fox: AnimationAsset): Scene {
  const plugin = createPlugin(fox)
  const { SceneNode } = plugin.stores
  const foxes = [-1, 0, 1].map((x) => {
    const eid = plugin.addCharacter(fox)
    SceneNode.scale.fill(0.01, eid * 3, eid * 3 + 3)
    SceneNode.translation[eid * 3] = x
    SceneNode.dirty[eid] = 1
    return eid
  }) as [number, number, number]
  return { plugin, foxes }
}

/** The scene with an existing plugin, e.g. one a snapshot was restored into (same entity ids). */
export function sceneOf(plugin: AnimationPlugin, foxes: readonly [number, number, number]): Scene {
  return { plugin, foxes }
}

type Action = (s: Scene) => void

/** What happens before fixed step `k` runs (k = 0 .. STEPS-1). */
const SCRIPT: Record<number, Action> = {
  0: ({ plugin, foxes: [a, b, c] }) => {
    plugin.play(a, 'Walk')
    plugin.play(b, 'Run', { rotation: 'squad' })
    plugin.play(c, 'Survey', { speed: 0.8, loop: 'pingpong' })
  },
  30: ({ plugin, foxes: [a] }) => plugin.crossFade(a, 'Run', 0.3),
  45: ({ plugin, foxes: [, b] }) =>
    plugin.ragdoll(b, { impulse: { joint: 'b_Spine02_03', impulse: [4, 1, 0] } }),
  90: ({ plugin, foxes: [, , c] }) => plugin.crossFade(c, 'Walk', 0.5),
  110: ({ plugin, foxes: [, b] }) => plugin.applyImpulse(b, 'b_Head_05', [0, 0, 2]),
  150: ({ plugin, foxes: [, b] }) => plugin.getUp(b, { clip: 'Survey' }),
  180: ({ plugin, foxes: [a] }) => plugin.ragdoll(a, { rate: 3 }),
  270: ({ plugin, foxes: [a] }) => plugin.getUp(a, { clip: 'Walk', play: { loop: 'repeat' } }),
  300: ({ plugin, foxes: [, , c] }) => {
    // The game moves a character itself: a write to its root's local transform, marked dirty.
    const { SceneNode } = plugin.stores
    SceneNode.translation[c * 3 + 2] = 0.5
    SceneNode.dirty[c] = 1
  },
}

/** Runs steps `from .. to-1` of the script, each one's actions first; `after(k)` is called after step k. */
export function run(scene: Scene, from: number, to: number, after: (k: number) => void = () => {}): void {
  for (let k = from; k < to; k++) {
    SCRIPT[k]?.(scene)
    scene.plugin.step()
    after(k)
  }
}
