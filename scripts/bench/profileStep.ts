/**
 * `node --import tsx scripts/bench/profileStep.ts [asset] [crowd] [characters] [steps] [js|wasm] [fused|unfused]`: one crowd of the
 * benchmark stepped in this process, with each system's median CPU ms per step and ns per playing joint, for a
 * profile (`node --cpu-prof --import tsx ...`) or a quick look at where a step goes.
 */
import { makeCrowdPlan, type CrowdKind } from './crowd.ts'
import { createOurCrowd } from './ours.ts'
import { DEFAULT_FOX, DT, FADE_SECONDS, type AssetName } from './options.ts'
import { loadBenchAsset, planOptions } from './scenarioJob.ts'
import { contextOf } from '../../entry/plugin.ts'
import { setFusedKernel } from '../../src/engine/wasmKernels.ts'

const [
  assetName = 'rig-linear',
  crowdName = 'playing',
  count = '1000',
  stepsText = '400',
  kernels = 'js',
  fused,
] = process.argv.slice(2)
// 'fused' (the default under kernels 'wasm'): the fused pass; 'unfused': the three systems.
if (fused !== undefined) setFusedKernel(fused === 'fused')
const asset = await loadBenchAsset(assetName as AssetName, 64, DEFAULT_FOX)
const plan = makeCrowdPlan(asset, Number(count), crowdName as CrowdKind, {
  ...planOptions(assetName as AssetName, crowdName as CrowdKind),
  fadeSeconds: FADE_SECONDS,
  dt: DT,
})
const crowd = createOurCrowd(plan, kernels as 'js' | 'wasm')
crowd.run(200)
const { systems } = crowd.plugin
const context = contextOf(crowd.plugin)
const steps = Number(stepsText)
const times = systems.map(() => [] as number[])
for (let s = 0; s < steps; s++) {
  const before = context.step
  for (let k = 0; k < systems.length; k++) {
    const cpu = process.cpuUsage()
    systems[k]!(crowd.world)
    const used = process.cpuUsage(cpu)
    times[k]!.push((used.user + used.system) / 1000)
  }
  if (context.step === before) context.step++
  crowd.plugin.events.length = 0
}
const joints = asset.nodes.length * Number(count)
let total = 0
for (let k = 0; k < systems.length; k++) {
  const sorted = times[k]!.slice().sort((a, b) => a - b)
  const mean = times[k]!.reduce((a, b) => a + b, 0) / steps
  total += mean
  console.log(
    `${systems[k]!.name.padEnd(24)} median ${sorted[steps >> 1]!.toFixed(3)} ms  mean ${mean.toFixed(3)} ms  ${((mean * 1e6) / joints).toFixed(1)} ns/joint`,
  )
}
console.log(
  `total mean ${total.toFixed(3)} ms, ${((total * 1e6) / joints).toFixed(1)} ns/joint (${joints} joints)`,
)
