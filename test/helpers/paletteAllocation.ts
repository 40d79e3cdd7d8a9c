/**
 * The allocation measurement of test/plugin/palette.test.ts, run in a process of its own (as
 * test/helpers/clipEventsAllocation.ts, which says why), with the benchmark's measureAllocation (GC-free
 * windows of heap growth): bytes per `writePalette` call on a walking Fox; per capture and render of an
 * instanced crowd of 16 walking Foxes (not the steps: their clips' loop events allocate records); and, as the measurement's control, per
 * `joints()` call (each returns a new array). Prints one JSON line.
 */
import { readFileSync } from 'node:fs'
import { createWorld } from 'bitecs'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { createInstancedCrowd, viewOfGltf } from '../../adapters/three.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { collectGarbage, createGcTracker, measureAllocation } from '../../scripts/bench/measure.ts'

const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
const handle = plugin.addAsset(await loadAsset(FOX))
const eid = plugin.addCharacter(handle)
plugin.play(eid, 'Walk')
plugin.step()
const out = new Float32Array(16 * plugin.paletteLayout(eid).matrices + 3)

// Each side its own loop: one helper looping over three different closures made its call site megamorphic,
// and the uninlined crowd side then allocated ~110 B a call that the game's loop does not.
const palette = {
  name: 'writePalette',
  run: (n: number) => {
    for (let i = 0; i < n; i++) plugin.writePalette(out, eid, 3)
  },
}
// GLTFLoader in Node: `self` for embedded images, whose decoding then fails (its message is muted).
;(globalThis as { self?: unknown }).self ??= globalThis
const bytes = readFileSync(FOX)
const error = console.error
console.error = () => {}
const gltf = await new GLTFLoader().parseAsync(
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  '',
)
console.error = error
const crowd = createInstancedCrowd(plugin, handle, viewOfGltf(gltf), { capacity: 16 })
for (let i = 0; i < 16; i++) {
  const c = plugin.addCharacter(handle)
  plugin.play(c, 'Walk', { time: i * 0.05 })
  crowd.add(c)
}
const crowdSteps = {
  name: 'crowd',
  run: (n: number) => {
    for (let i = 0; i < n; i++) {
      crowd.capture()
      crowd.render(0.5)
    }
  },
}
const control = {
  name: 'joints',
  run: (n: number) => {
    for (let i = 0; i < n; i++) plugin.joints(eid)
  },
}

if (!collectGarbage()) throw new Error('run with node --expose-gc')
const tracker = createGcTracker()
palette.run(20000) // warm: optimized
control.run(20000)
for (let i = 0; i < 60; i++) plugin.step()
crowdSteps.run(10000)
/**
 * The least of three measurements: on a loaded machine V8's background compiler can finish after the warm-up, so
 * a first window may still run code that allocates where the optimized code does not; an allocation of the code
 * itself shows in every window.
 */
async function least(side: typeof palette): Promise<number> {
  let best = Infinity
  for (let k = 0; k < 3; k++)
    best = Math.min(best, (await measureAllocation(side, 2000, tracker)).bytesPerStep)
  return best
}
console.log(
  JSON.stringify({
    palette: await least(palette),
    crowd: await least(crowdSteps),
    control: await least(control),
  }),
)
tracker.stop()
