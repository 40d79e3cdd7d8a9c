import { Vector3 } from 'three'
import type { AnimationPlugin, FixedStepper } from '../entry/index.ts'
import type { ThreeAdapter } from '../adapters/three.ts'
import type { Character, Model } from './characters.ts'
import type { Footsteps } from './footsteps.ts'
import type { ShippedModel } from './shipped.ts'
import type { Stage } from './stage.ts'
import { probe } from './probe.ts'
import type { Crowd } from './crowd.ts'
import type { IKProbe } from './ik.ts'

const RAGDOLL_STATES = ['off', 'falling', 'getting up'] as const

/** What the hook reads from the page (demo/main.ts): its parts, and its state through getters. */
export interface HookSources {
  readonly plugin: AnimationPlugin
  readonly adapter: ThreeAdapter
  readonly stepper: FixedStepper
  readonly stage: Stage
  readonly footsteps: Footsteps
  hero(): Character | null
  model(): Model | null
  /** The picker's entry of the model on stage; null for a file of the user's. */
  shipped(): ShippedModel | null
  /** glTF node indices of the hero a hit can land on (the skin's joints, or every node). */
  hitJoints(): readonly number[]
  crowdCount(): number
  crowd(): Crowd
  frames(): number
  steps(): number
  /** The IK panel's points and its obstacles' heights (demo/ik.ts). */
  readonly ik: IKProbe
}

/**
 * The test hook, `window.__demo`, for the e2e test (and the curious, from the console): the plugin and the
 * stage, and helpers that read the hero's state, the scene graph and the canvas. The page writes `ready`,
 * `error`, `source`, `events`, `hash`, `statsUpdates` and `timings`.
 */
export function createHook(s: HookSources) {
  const { plugin, stage, footsteps } = s
  const { Sampler, CrossFade, Ragdoll, SceneNode } = plugin.stores
  const heroId = (): number => {
    const hero = s.hero()
    if (!hero) throw new Error('no character loaded yet')
    return hero.eid
  }
  const position = (node: number | string): [number, number, number] => {
    const o = plugin.jointEntity(heroId(), node) * 16
    return [SceneNode.world[o + 12]!, SceneNode.world[o + 13]!, SceneNode.world[o + 14]!]
  }
  return {
    ready: false,
    error: null as string | null,
    source: '',
    /** Events the step reported (main.ts showEvents; footsteps not), oldest first. */
    events: [] as string[],
    hash: '',
    /** Times the readout refreshed (every STATS_MS of wall time). */
    statsUpdates: 0,
    timings: {} as Record<string, number>,
    plugin,
    adapter: s.adapter,
    stepper: s.stepper,
    stage,
    get frames() {
      return s.frames()
    },
    get steps() {
      return s.steps()
    },
    hero: () => s.hero()?.eid ?? -1,
    /** The picker's name of the model on stage, or null for a file of the user's. */
    model: () => s.shipped()?.name ?? null,
    /** The plugin's asset id of the model on stage (every load adds the file again: a new id), or -1. */
    assetId: () => s.model()?.handle.id ?? -1,
    clipNames: () => s.model()?.clipNames ?? [],
    currentClip: () => {
      const hero = s.hero()
      const model = s.model()
      if (!hero || !model) return null
      return model.clipNames[model.handle.clips.indexOf(Sampler.clip[hero.eid]!)] ?? null
    },
    /** Cross-fade blend of the hero while a fade runs, else null. */
    blend: () => {
      const eid = s.hero()?.eid
      return eid !== undefined && CrossFade.active[eid] === 1 ? CrossFade.blend[eid]! : null
    },
    weight: () => Ragdoll.weight[s.hero()?.eid ?? 0] ?? 0,
    /** What the hero's layer k shows (plugin.getLayer). */
    layer: (k: number) => plugin.getLayer(heroId(), k),
    ragdollState: () => {
      const eid = s.hero()?.eid
      return eid === undefined ? 'off' : RAGDOLL_STATES[Ragdoll.active[eid]!]
    },
    crowdCount: () => s.crowdCount(),
    crowdInstanced: () => s.crowd().instanced,
    /** Draws one frame and returns its draw calls (renderer.info, shadow pass included). */
    drawCalls: () => {
      stage.renderer.render(stage.scene, stage.camera)
      return stage.renderer.info.render.calls
    },
    /** The crowd's picture with the hero hidden: visible, a sample to compare moments, member 0 both ways. */
    probeCrowd: () => {
      const hero = s.hero()
      return s.crowd().probe(stage, hero ? [hero.view.scene] : [])
    },
    /** Highest world y (m) of the hero's joints (the skin's, or every node). */
    maxJointHeight: () => Math.max(...s.hitJoints().map((node) => position(node)[1])),
    /** World matrix translation of one of the hero's nodes (by glTF node index, or by a name no other node has). */
    nodePosition: position,
    /** Page (CSS pixel) coordinates of one of the hero's nodes, for clicking on it. */
    screenOf: (node: number) => {
      const v = new Vector3(...position(node)).project(stage.camera)
      const r = stage.renderer.domElement.getBoundingClientRect()
      return { x: r.left + ((v.x + 1) / 2) * r.width, y: r.top + ((1 - v.y) / 2) * r.height }
    },
    /** The hero on screen: the pixels its drawing changes inside its joints' screen box (demo/probe.ts). */
    probeHero: () => {
      const joints = s.hitJoints().map((node) => new Vector3(...position(node)))
      return probe(stage, joints, (visible) => (s.hero()!.view.scene.visible = visible))
    },
    /** Footsteps flashed so far, and the rings on the ground now: the pixels they change (demo/footsteps.ts). */
    footsteps: () => footsteps.count,
    probeFlashes: () => probe(stage, footsteps.shown(), (visible) => footsteps.setVisible(visible)),
    /** The hero's placement (plugin.getTransform). */
    transform: () => plugin.getTransform(heroId()),
    /** The IK panel's look-at point, ball, and ground height under (x, z) by three's raycaster (demo/ik.ts). */
    ik: s.ik,
    /** World matrix of one of the hero's nodes, column-major (the last step's). */
    nodeMatrix: (node: number | string): number[] => {
      const o = plugin.jointEntity(heroId(), node) * 16
      return Array.from(SceneNode.world.subarray(o, o + 16))
    },
  }
}
