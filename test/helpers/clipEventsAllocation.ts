/**
 * The allocation measurement of test/systems/clipEvents.test.ts, run in a process of its own (the test spawns
 * `node --expose-gc --import tsx` on this file): inside a vitest worker, the worker's own messages and timers
 * allocate in every window. Prints one JSON line: the heap bytes of each clean window (no GC ran, and, for
 * `quiet`, no event fired), for a crowd whose steps meet nothing (`quiet`) and for one character that meets a
 * marker in every step (`busy`, the measurement's control: records must show), and for the same character in a game that clears
 * the queue after every step (`cleared`: the records are reused).
 *
 * Scenario: 12 characters of the synthetic rig with markers on every clip, in every loop mode, both
 * directions, a long fade, a finished once-clip held at its end, a paused one; at 0.01× speed each meets a
 * marker or an end every few hundred steps, so most 200-step windows meet nothing.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { makeTestAsset } from './ecs.ts'
import { heapWindows } from './heapWindows.ts'

function crowd(): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), {
    capacity: 512,
    dt: 1 / 64,
    physics: { gravity: [0, 0, 0], ground: false },
  })
  const handle = plugin.addAsset(makeTestAsset())
  plugin.addMarker(handle, 'Turn', 0.75, 'right')
  plugin.addMarker(handle, 'Turn', 0.25, 'left')
  plugin.addMarker(handle, 'Nod', 0, 'down')
  plugin.addMarker(handle, 'Nod', 0.5, 'up')
  plugin.addMarker(handle, 'Wag', 1, 'middle')
  const chars = Array.from({ length: 12 }, () => plugin.addCharacter(handle))
  chars.forEach((c, i) => {
    const loop = (['repeat', 'pingpong', 'once'] as const)[i % 3]
    plugin.play(c, i % 2 ? 'Turn' : 'Wag', { loop, speed: i % 4 === 3 ? -0.01 : 0.01, time: 0.3 })
  })
  plugin.play(chars[11]!, 'Turn', { speed: 0 })
  plugin.play(chars[8]!, 'Turn', { loop: 'once', time: 1 })
  for (let i = 0; i < 4; i++) plugin.step()
  plugin.crossFade(chars[0]!, 'Turn', 1000, { speed: 0.01, time: 0.3 })
  return plugin
}

function busy(): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 64, dt: 1 / 64 })
  const handle = plugin.addAsset(makeTestAsset())
  plugin.addMarker(handle, 'Nod', 0.25, 'mid')
  plugin.play(plugin.addCharacter(handle), 'Nod', { speed: 16 }) // 0.25 s a step: the marker, then the wrap
  return plugin
}

/**
 * Heap bytes of each clean window of `steps` steps. `quiet`: keep only windows where no event fired. `clear`: when
 * the game clears the queue: before each window, never, or after every step down to its first record (the pool's
 * records are then reused; a queue kept non-empty keeps its storage, where `length = 0` would hand it back to V8
 * and the next push would allocate it anew, which is the array's cost, not the step's).
 */
function windows(
  plugin: AnimationPlugin,
  steps: number,
  quiet: boolean,
  clear: 'window' | 'never' | 'step',
): Promise<number[]> {
  const run = (n: number): void => {
    if (clear === 'window') plugin.events.length = 0
    for (let i = 0; i < n; i++) {
      plugin.step()
      if (clear === 'step' && plugin.events.length > 1) plugin.events.length = 1
    }
  }
  return heapWindows(run, steps, () => !quiet || plugin.events.length === 0)
}

console.log(
  JSON.stringify({
    quiet: await windows(crowd(), 200, true, 'window'),
    busy: await windows(busy(), 200, false, 'never'),
    cleared: await windows(busy(), 200, false, 'step'),
  }),
)
