/**
 * The project's side of the benchmark: one bitecs world and animation plugin holding the whole crowd; a step
 * is `plugin.step()`, the full fixed step: cross-fades, sampling, ragdolls (none here, but the plugin's default
 * cannon-es world with its ground plane is stepped as in a game), blend, dirty scene graph.
 *
 * Alignment with three.js (see three.ts): after `createOurCrowd` has run its two setup steps, every character
 * shows clip A at phase + dt (paused: phase; finished: the clip's end), and every fading character additionally
 * clip B at its phase, blended by dt / fadeSeconds. Each later step advances all of it by dt. The layered crowd's
 * layers and the blend space's phase start the same way (a layer's first step shows its start time). The lod
 * crowd's characters stand at their places from the start and get levels of detail after the setup steps.
 */
import { createWorld, type World } from 'bitecs'
import { createAnimationPlugin, type AnimationPlugin } from '../../entry/plugin.ts'
import type { CrowdPlan } from './crowd.ts'
import { defaultKernels } from '../../plugin/options.ts'
import type { SceneKernels } from '../../components/SceneNode.ts'
import { contextOf } from '../../entry/plugin.ts'

export interface OurCrowd {
  readonly plugin: AnimationPlugin
  readonly world: World
  /** Character entity ids, in plan order. */
  readonly characters: Int32Array
  /** Scene nodes per character (every node of the asset's scene is a joint). */
  readonly joints: number
  /** glTF node index of the plugin's joint j. */
  readonly jointNodes: Int32Array
  /** Runs `steps` fixed steps, reading and clearing the event queue after each, as a game does. */
  run(steps: number): void
  /** The most events one step of `run` queued, since the crowd was made. */
  maxEventsPerStep(): number
  /** Writes the world matrix (column-major) of character c's joint j at out[o..o+16). */
  worldMatrix(c: number, j: number, out: Float64Array, o: number): void
}

/**
 * The crowd of `plan` in one plugin, with the plugin's `kernels` option (default: the plugin's own default,
 * defaultKernels) and `workers` (0).
 */
export function createOurCrowd(plan: CrowdPlan, kernels?: SceneKernels, workers = 0): OurCrowd {
  const count = plan.roles.length
  const world = createWorld()
  const nodeCount = plan.asset.nodes.length
  const plugin = createAnimationPlugin(world, {
    capacity: count * (nodeCount + 1) + 16,
    dt: plan.dt,
    // 5 slots per joint, and a layer block of 6 (+1 per blend-space point) per layer used (layered: 0, 1, 2).
    maxPoseSlots: Math.max(1024, count * nodeCount * 24),
    kernels: kernels ?? defaultKernels(workers),
    workers,
  })
  const handle = plugin.addAsset(plan.asset)
  const durationA = plan.asset.clips[plan.clipA]!.duration
  const characters = new Int32Array(count)
  const { layered, blend, lod } = plan
  for (let i = 0; i < count; i++) {
    const eid = plugin.addCharacter(handle)
    characters[i] = eid
    if (lod !== null)
      plugin.setTransform(eid, { position: [lod.positions[2 * i]!, 0, lod.positions[2 * i + 1]!] })
    if (blend !== null) {
      const points = blend.clips.map((clip, p) => ({ clip, at: blend.at[p]! }))
      plugin.playBlendSpace(eid, points, { parameter: blend.parameter[i]!, sync: true })
      plugin.setTime(eid, blend.phase[i]! * blend.cycle[i]!)
      continue
    }
    const role = plan.roles[i]!
    plugin.play(eid, plan.clipA, {
      time: role === 'finished' ? durationA : plan.phaseA[i]!,
      speed: role === 'paused' ? 0 : 1,
      loop: role === 'finished' ? 'once' : 'repeat',
      rotation: plan.rotation,
    })
    if (layered !== null) {
      const mask = layered.maskRoots.map((node) => plan.asset.nodes[node]!.name)
      plugin.setLayer(eid, 1, { mask, weight: layered.overrideWeight })
      plugin.play(eid, layered.overrideClip, {
        layer: 1,
        time: layered.phaseOverride[i]!,
        rotation: plan.rotation,
      })
      plugin.setLayer(eid, 2, { mode: 'additive', weight: layered.additiveWeight })
      plugin.play(eid, layered.additiveClip, {
        layer: 2,
        time: layered.phaseAdditive[i]!,
        rotation: plan.rotation,
      })
    }
  }
  plugin.step()
  for (let i = 0; i < count; i++) {
    if (plan.roles[i] !== 'fade') continue
    plugin.crossFade(characters[i]!, plan.clipB, plan.fadeSeconds, {
      time: plan.phaseB[i]!,
      rotation: plan.rotation,
    })
  }
  plugin.step()
  // Levels of detail from the first timed step on: both sides start from the same full-rate pose.
  if (lod !== null) plugin.setLod({ near: lod.near, far: lod.far, camera: [0, 0, 0] })

  const registered = contextOf(plugin).assets[handle.id]!
  const joints = registered.jointNodes.length
  const jointEntities = characters.length > 0 ? Array.from(characters, (c) => plugin.joints(c)) : []
  const store = plugin.stores.SceneNode.world
  let maxEvents = 0
  return {
    plugin,
    world,
    characters,
    joints,
    jointNodes: registered.jointNodes,
    run(steps: number): void {
      // As a game does: reads the step's events (loops fire all the time in a playing crowd) and clears them.
      const events = plugin.events
      for (let s = 0; s < steps; s++) {
        plugin.step()
        if (events.length > maxEvents) maxEvents = events.length
        events.length = 0
      }
    },
    maxEventsPerStep: () => maxEvents,
    worldMatrix(c: number, j: number, out: Float64Array, o: number): void {
      const e = jointEntities[c]![j]!
      for (let k = 0; k < 16; k++) out[o + k] = store[e * 16 + k]!
    },
  }
}
