/**
 * The allocation measurement of test/physics/limbColliders.test.ts, in a process of its own (node --expose-gc):
 * ten Fox ragdolls of every kind (limp, partial — a foreleg, with its limb pushes —, powered with the root held,
 * per-joint weights) lying, stepped with cannon-es's step replaced by one that does nothing, so what is measured
 * is the plugin's ragdoll layer (anchors, motors, projection, limb pushes, read-back, blend) and the step around
 * it. Prints measureAllocation's result as JSON.
 */
import { createWorld } from 'bitecs'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createGcTracker, measureAllocation } from '../../scripts/bench/measure.ts'
import { foxGrid, gridHit } from './foxGrid.ts'
const asset = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
const plugin = createAnimationPlugin(createWorld(), { capacity: 1 << 14 })
const cs = foxGrid(plugin, asset, 10, 4)
cs.forEach((c, i) => {
  const hit = gridHit(i)
  if (i % 4 === 0) plugin.ragdoll(c, { impulse: hit })
  else if (i % 4 === 1)
    plugin.ragdoll(c, { root: 'b_LeftUpperArm_09', impulse: { ...hit, joint: 'b_LeftForeArm_010' } })
  else if (i % 4 === 2) plugin.ragdoll(c, { motors: { strength: 1, holdRoot: true } })
  else plugin.ragdoll(c, { impulse: hit })
})
plugin.step()
cs.forEach((c, i) => {
  if (i % 4 === 3) plugin.setRagdollWeight(c, { weight: 0.5, joints: 'b_Neck_04' })
})
for (let s = 0; s < 600; s++) plugin.step()
const physics = plugin.physics
const tracker = createGcTracker()
physics.step = () => physics
const own = await measureAllocation(
  {
    name: 'layer',
    run: (k) => {
      for (let i = 0; i < k; i++) plugin.step()
    },
  },
  1000,
  tracker,
)
tracker.stop()
console.log(JSON.stringify(own))
