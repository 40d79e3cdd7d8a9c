/**
 * The allocation measurement of test/plugin/rootMotionBlend.test.ts, run in a process of its own (the test spawns
 * `node --expose-gc --import tsx` on this file): inside a vitest worker, the worker's own messages and timers
 * allocate in every window. Prints one JSON line: the heap bytes of each clean window (no GC ran in it):
 * - `steps`: 200 whole steps of a crowd of Foxes with root motion in every configuration (horizontal, full,
 *   reported only, backwards, ping-pong, a long fade, override and additive layers, a blend space) at speeds
 *   so slow that most windows fire no clip event (whose records allocate); windows where one fired are left out;
 * - `sources`: 2,000 rounds of the root motion kernels alone on the motions the crowd meets rarely — a wrap
 *   forwards, one backwards, several wraps in one step, a ping-pong turn — with a layer composed, the step
 *   finished and the pose taken out.
 */
import { createWorld } from 'bitecs'
import { contextOf, createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import { heapWindows } from './heapWindows.ts'
import {
  addRootMotionSource,
  composeRootMotionLayer,
  createRootMotionState,
  extractRootPose,
  finishRootMotionStep,
} from '../../systems/rootMotion.ts'
import { EMIT_AFTER, EMIT_BEFORE, EMIT_DELTA, EMIT_WEIGHT } from '../../systems/clipEvents.ts'
import { createLayer } from '../../systems/layerState.ts'
import { travellingFox } from './travel.ts'

const fox = await travellingFox()
const SLOW = 0.003

function crowd(): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 2048, physics: { ground: false } })
  const add = (mode: 'horizontal' | 'full', apply = true): number => {
    const c = plugin.addCharacter(fox)
    plugin.setRootMotion(c, { mode, apply })
    return c
  }
  plugin.play(add('horizontal'), 'WalkForward', { speed: SLOW, time: 0.3 })
  plugin.play(add('full'), 'WalkForward', { speed: SLOW, loop: 'pingpong', time: 0.3 })
  plugin.play(add('horizontal', false), 'WalkTurning', { speed: -SLOW, time: 0.3 })
  const fading = add('horizontal')
  plugin.play(fading, 'WalkForward', { speed: SLOW, time: 0.3 })
  const layered = add('horizontal')
  plugin.play(layered, 'WalkForward', { speed: SLOW, time: 0.3 })
  plugin.setLayer(layered, 1, { weight: 0.4 })
  plugin.play(layered, 'RunForward', { layer: 1, speed: SLOW, time: 0.2 })
  plugin.setLayer(layered, 2, { mode: 'additive', weight: 0.5 })
  plugin.play(layered, 'WalkFast', { layer: 2, speed: SLOW, time: 0.1 })
  const blended = add('horizontal')
  const points = [
    { clip: 'WalkForward', at: 0 },
    { clip: 'RunForward', at: 1 },
  ]
  plugin.playBlendSpace(blended, points, { parameter: 0.3 })
  plugin.setSpeed(blended, SLOW)
  for (let i = 0; i < 4; i++) plugin.step()
  plugin.crossFade(fading, 'RunForward', 1000, { speed: SLOW })
  return plugin
}

/** The kernels alone, on a Fox rig's travelling walk, through the motions listed in the header. */
function kernels(): (n: number) => void {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 256 })
  const handle = plugin.addAsset(fox)
  const ctx = contextOf(plugin)
  const rig = ctx.assets[handle.id]!
  const rc = ctx.clips[plugin.clipId(handle, 'WalkForward')]!
  const binding = rc.bindings[handle.id]!
  const joint = rig.nodeJoint[4]!
  const state = createRootMotionState(rig, 1, joint, true)
  const layer = createLayer(1, ctx.capacity)
  ctx.stores.AnimLayer.weight[layer.slot] = 1
  const pose = rig.rest.slice()
  const d = rc.clip.duration
  const input = new Float64Array(4)
  // before, delta, after, loop: a wrap forwards, backwards, three wraps in a step, a ping-pong turn.
  const motions = Float64Array.of(
    ...[d - 0.01, 0.02, 0.01],
    ...[0.01, -0.02, d - 0.01],
    ...[0.2, 3 * d, 0.2],
    ...[d - 0.01, 0.02, d + 0.01],
  )
  const loops = Int32Array.of(1, 1, 1, 2)
  return (n) => {
    for (let i = 0; i < n; i++) {
      for (let m = 0; m < loops.length; m++) {
        input[EMIT_BEFORE] = motions[3 * m]!
        input[EMIT_DELTA] = motions[3 * m + 1]!
        input[EMIT_AFTER] = motions[3 * m + 2]!
        input[EMIT_WEIGHT] = 0.75
        addRootMotionSource(state, rig.rest, rc.clip, binding, loops[m]!, input, false)
      }
      composeRootMotionLayer(state, ctx.stores.AnimLayer, layer)
      finishRootMotionStep(state, ctx.stores.AnimLayer, true, false)
      extractRootPose(state, pose, joint * 10, rig.rest)
    }
  }
}

const plugin = crowd()
const steps = await heapWindows(
  (n) => {
    plugin.events.length = 0
    for (let i = 0; i < n; i++) plugin.step()
  },
  200,
  () => plugin.events.length === 0,
)
const sources = await heapWindows(kernels(), 2000)
console.log(JSON.stringify({ steps, sources }))
