/**
 * The allocation measurement of snapshotInto (test/snapshot/inPlace.test.ts), in a process of its own, as
 * clipEventsAllocation.ts is (a vitest worker's own messages allocate in every window), with the benchmark's
 * measure (scripts/bench/measure.ts: GC-free windows, the heap reading's own bytes taken off). Prints one JSON
 * line: bytes per call of snapshotInto into a ring of 8 buffers, for a crowd that plays, cross-fades, lies in a
 * ragdoll and has layers (`ring`), and, the control, of snapshot(), which allocates its result (`copies`).
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { makeTestAsset } from './ecs.ts'
import { collectGarbage, createGcTracker, measureAllocation } from '../../scripts/bench/measure.ts'

function crowd(): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 512 })
  const handle = plugin.addAsset(makeTestAsset())
  const chars = Array.from({ length: 8 }, () => plugin.addCharacter(handle))
  chars.forEach((c, i) => plugin.play(c, i % 2 ? 'Turn' : 'Wag', { time: 0.1 * i }))
  plugin.step()
  plugin.crossFade(chars[1]!, 'Nod', 1000)
  plugin.setLayer(chars[2]!, 1, { weight: 0.5 })
  plugin.play(chars[2]!, 'Nod', { layer: 1 })
  plugin.ragdoll(chars[3]!)
  for (let i = 0; i < 30; i++) plugin.step()
  return plugin
}

if (!collectGarbage()) throw new Error('run with node --expose-gc')
const plugin = crowd()
const size = plugin.snapshot().length
const ring = Array.from({ length: 8 }, () => new Uint8Array(size + 4096))
let slot = 0
const calls = (f: () => void) => ({
  name: 'snapshots',
  run(n: number): void {
    for (let i = 0; i < n; i++) f()
  },
})
const into = calls(() => void plugin.snapshotInto(ring[slot++ % 8]!))
const copy = calls(() => void plugin.snapshot())
// Warm: every path optimized, every view made.
into.run(20000)
copy.run(2000)
const tracker = createGcTracker()
const ringBytes = await measureAllocation(into, 200, tracker)
const copyBytes = await measureAllocation(copy, 200, tracker)
tracker.stop()
console.log(JSON.stringify({ bytes: size, ring: ringBytes, copies: copyBytes }))
