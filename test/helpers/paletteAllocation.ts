/**
 * The allocation measurement of test/plugin/palette.test.ts, run in a process of its own (as
 * test/helpers/clipEventsAllocation.ts, which says why), with the benchmark's measureAllocation (GC-free
 * windows of heap growth): bytes per `writePalette` call on a walking Fox, and, as the measurement's control,
 * per `joints()` call (each returns a new array). Prints one JSON line.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { collectGarbage, createGcTracker, measureAllocation } from '../../scripts/bench/measure.ts'

const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
const eid = plugin.addCharacter(await loadAsset('assets/Fox/glTF-Binary/Fox.glb'))
plugin.play(eid, 'Walk')
plugin.step()
const out = new Float32Array(16 * plugin.paletteLayout(eid).matrices + 3)

const palette = {
  name: 'writePalette',
  run: (n: number) => void repeat(n, () => plugin.writePalette(out, eid, 3)),
}
const control = { name: 'joints', run: (n: number) => void repeat(n, () => plugin.joints(eid)) }

function repeat(n: number, call: () => unknown): void {
  for (let i = 0; i < n; i++) call()
}

if (!collectGarbage()) throw new Error('run with node --expose-gc')
const tracker = createGcTracker()
palette.run(20000) // warm: optimized
control.run(20000)
console.log(
  JSON.stringify({
    palette: (await measureAllocation(palette, 2000, tracker)).bytesPerStep,
    control: (await measureAllocation(control, 2000, tracker)).bytesPerStep,
  }),
)
tracker.stop()
