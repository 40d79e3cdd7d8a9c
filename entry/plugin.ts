import type { World } from 'bitecs'
import { observe, onRemove } from 'bitecs'
import { AnimationError, showValue } from '../src/errors.ts'
import type { AnimationPlugin } from './api.ts'
import { createEvaluateGraphsSystem } from '../systems/evaluateGraphs.ts'
import { createScheduleLodSystem } from '../systems/scheduleLod.ts'
import { createAdvanceTracksSystem } from '../systems/advanceTracks.ts'
import { createSampleTracksSystem } from '../systems/sampleTracks.ts'
import { createSampleMorphWeightsSystem } from '../systems/sampleMorphWeights.ts'
import { createExtractRootMotionSystem } from '../systems/extractRootMotion.ts'
import { createStepRagdollsSystem } from '../systems/stepRagdolls.ts'
import { createBlendPosesSystem } from '../systems/blendPoses.ts'
import { createPropagateTransformsSystem } from '../systems/propagateTransforms.ts'
import { createReportWorldFaultsSystem } from '../systems/reportWorldFaults.ts'
import { createAdvanceClockSystem } from '../systems/advanceClock.ts'
import { createRestorePosesSystem, createRunPoseStagesSystem } from '../systems/poseStages.ts'
import type { AnimationContext } from '../plugin/context.ts'
import { checkLive, createContext, type AnimationPluginOptions } from '../plugin/options.ts'
import { addAsset, addMarker, markers } from '../plugin/assets.ts'
import { addClip } from '../plugin/addClip.ts'
import { retarget, retargetMap } from '../plugin/retarget.ts'
import {
  addCharacter,
  characterIds,
  forgetJoint,
  jointEntity,
  joints,
  releaseCharacter,
  removeCharacter,
} from '../plugin/characters.ts'
import { clipId, crossFade, play } from '../plugin/playback.ts'
import { applyImpulse, ragdoll } from '../plugin/ragdolls.ts'
import { getUp } from '../plugin/getUp.ts'
import { hashAnimationState } from '../plugin/hash.ts'
import { setRagdollMotors, setRagdollWeight } from '../plugin/ragdollControl.ts'
import { hit } from '../plugin/hitReactions.ts'
import { setLayer, stopLayer } from '../plugin/layers.ts'
import { playBlendSpace, setBlendParameter } from '../plugin/blendSpaces.ts'
import { getLayer, getLayers, pause, resume, setSpeed, setTime } from '../plugin/layerControl.ts'
import { getMorphWeights, morphWeights, setMorphWeights } from '../plugin/morphs.ts'
import { getTransform, setTransform } from '../plugin/placement.ts'
import { rootMotionDelta, setRootMotion } from '../plugin/rootMotion.ts'
import { paletteLayout, writePalette } from '../plugin/palette.ts'
import { lodRate, setLod, setLodCamera } from '../plugin/lod.ts'
import { setTimeScale } from '../plugin/clock.ts'
import { addPoseStage, checkNotInStage } from '../plugin/poseStages.ts'
import { setIK } from '../plugin/ik.ts'
import { getState, setGraph, setParameter, trigger } from '../plugin/graphs.ts'
import { createGraphPlayback } from '../plugin/graphPlayback.ts'
import { snapshotAnimation, snapshotAnimationInto } from '../snapshot/write.ts'
import { CHARACTER_DATA } from '../characterData/index.ts'
import { restoreAnimation } from '../snapshot/apply.ts'

export type * from './api.ts'

/**
 * Plugs the animation components and systems into an existing bitecs world. Everything it makes — stores,
 * queries, pools, registries — belongs to this call's result; two plugins on two worlds share nothing.
 * Throws AnimationError('argument') for bad options, before anything registers with the world.
 */
export function createAnimationPlugin(world: World, options?: AnimationPluginOptions): AnimationPlugin {
  const ctx = guardCall('createAnimationPlugin', () => createContext(world, options, CHARACTER_DATA))
  const guard = <T>(what: string, call: () => T): T => guardCall(what, call, ctx)
  // Restore recomputes world matrices with the step's own pass (the same bits).
  const propagate = createPropagateTransformsSystem(ctx)
  const systems = [
    createEvaluateGraphsSystem(ctx, createGraphPlayback(ctx)),
    createScheduleLodSystem(ctx),
    createAdvanceTracksSystem(ctx),
    createRestorePosesSystem(ctx),
    createSampleTracksSystem(ctx),
    createSampleMorphWeightsSystem(ctx),
    createExtractRootMotionSystem(ctx),
    createRunPoseStagesSystem(ctx),
    createStepRagdollsSystem(ctx),
    createBlendPosesSystem(ctx),
    propagate,
    createReportWorldFaultsSystem(ctx),
    createAdvanceClockSystem(ctx),
  ] as const
  const { Pose } = ctx.stores
  const nodes = ctx.sceneGraph.store
  // A character leaves through removeCharacter, through bitecs's removeEntity on it (a game's own cleanup), or
  // through removeComponent(world, eid, Pose): all three reach the first observer, which frees what the plugin
  // holds for it, so no system ever reads a freed pose slice and no body is left in the physics world.
  const unobserve = [
    observe(world, onRemove(Pose), (eid: number) => releaseCharacter(ctx, eid)),
    observe(world, onRemove(nodes), (eid: number) => forgetJoint(ctx, eid)),
  ]

  const plugin: AnimationPlugin = {
    world,
    dt: ctx.dt,
    stores: { ...ctx.stores, SceneNode: nodes },
    sceneGraph: ctx.sceneGraph,
    systems,
    step() {
      checkLive(ctx, 'step')
      checkNotInStage(ctx, 'step')
      for (let i = 0; i < systems.length; i++) systems[i]!(world)
    },
    addAsset: (asset) => guard('addAsset', () => addAsset(ctx, asset)),
    addMarker: (asset, clip, seconds, name) =>
      guard('addMarker', () => addMarker(ctx, asset, clip, seconds, name)),
    markers: (asset, clip) => guard('markers', () => markers(ctx, asset, clip)),
    addClip: (asset, clip) => guard('addClip', () => addClip(ctx, asset, clip)),
    retarget: (source, target, o) => guard('retarget', () => retarget(ctx, source, target, o)),
    retargetMap: (source, target) => guard('retargetMap', () => retargetMap(ctx, source, target)),
    addCharacter: (asset, o) =>
      guard('addCharacter', () => {
        checkNotInStage(ctx, 'addCharacter')
        return addCharacter(ctx, asset, o)
      }),
    joints: (eid) => guard('joints', () => joints(ctx, eid)),
    jointEntity: (eid, node) => guard('jointEntity', () => jointEntity(ctx, eid, node)),
    clipId: (owner, clip) => guard('clipId', () => clipId(ctx, owner, clip)),
    play: (eid, clip, o) => guard('play', () => play(ctx, eid, clip, o)),
    crossFade: (eid, clip, seconds, o) => guard('crossFade', () => crossFade(ctx, eid, clip, seconds, o)),
    removeCharacter: (eid) =>
      guard('removeCharacter', () => {
        checkNotInStage(ctx, 'removeCharacter')
        removeCharacter(ctx, eid)
      }),
    addPoseStage: (stage) => guard('addPoseStage', () => addPoseStage(ctx, stage)),
    setIK: (eid, name, o) => guard('setIK', () => setIK(ctx, eid, name, o)),
    setLayer: (eid, k, o) => guard('setLayer', () => setLayer(ctx, eid, k, o)),
    stopLayer: (eid, k, seconds) => guard('stopLayer', () => stopLayer(ctx, eid, k, seconds)),
    playBlendSpace: (eid, points, o) => guard('playBlendSpace', () => playBlendSpace(ctx, eid, points, o)),
    setBlendParameter: (eid, v, o) => guard('setBlendParameter', () => setBlendParameter(ctx, eid, v, o)),
    setSpeed: (eid, v, o) => guard('setSpeed', () => setSpeed(ctx, eid, v, o)),
    setTime: (eid, v, o) => guard('setTime', () => setTime(ctx, eid, v, o)),
    pause: (eid, o) => guard('pause', () => pause(ctx, eid, o)),
    resume: (eid, o) => guard('resume', () => resume(ctx, eid, o)),
    getLayer: (eid, k) => guard('getLayer', () => getLayer(ctx, eid, k)),
    getLayers: (eid) => guard('getLayers', () => getLayers(ctx, eid)),
    setMorphWeights: (eid, node, w) => guard('setMorphWeights', () => setMorphWeights(ctx, eid, node, w)),
    getMorphWeights: (eid, node) => guard('getMorphWeights', () => getMorphWeights(ctx, eid, node)),
    morphWeights: (eid) => guard('morphWeights', () => morphWeights(ctx, eid)),
    setLod: (o) => guard('setLod', () => setLod(ctx, o)),
    setLodCamera(position) {
      const removals = ctx.removals.count
      try {
        setLodCamera(ctx, position)
      } catch (error) {
        throw asAnimationError('setLodCamera', error, ctx, removals)
      }
    },
    lodRate: (eid) => guard('lodRate', () => lodRate(ctx, eid)),
    setTimeScale: (scale) => guard('setTimeScale', () => setTimeScale(ctx, scale)),
    get timeScale() {
      return ctx.timeScale
    },
    setGraph: (eid, graph) => guard('setGraph', () => setGraph(ctx, eid, graph)),
    setParameter(eid, name, value) {
      // guard() without its closure: a call every frame.
      try {
        setParameter(ctx, eid, name, value)
      } catch (error) {
        throw asAnimationError('setParameter', error)
      }
    },
    trigger(eid, name) {
      try {
        trigger(ctx, eid, name)
      } catch (error) {
        throw asAnimationError('trigger', error)
      }
    },
    getState: (eid, layer) => guard('getState', () => getState(ctx, eid, layer)),
    paletteLayout: (owner) => guard('paletteLayout', () => paletteLayout(ctx, owner)),
    writePalette(out, eid, offset) {
      // guard() without its closure: a per-frame call for every character must not allocate.
      const removals = ctx.removals.count
      try {
        writePalette(ctx, out, eid, offset)
      } catch (error) {
        throw asAnimationError('writePalette', error, ctx, removals)
      }
    },
    ragdoll: (eid, o) => guard('ragdoll', () => ragdoll(ctx, eid, o)),
    applyImpulse: (eid, joint, impulse) =>
      guard('applyImpulse', () => applyImpulse(ctx, eid, joint, impulse)),
    getUp: (eid, o) => guard('getUp', () => getUp(ctx, eid, o)),
    setRagdollWeight: (eid, o) => guard('setRagdollWeight', () => setRagdollWeight(ctx, eid, o)),
    hit: (eid, joint, impulse, o) => guard('hit', () => hit(ctx, eid, joint, impulse, o)),
    setRagdollMotors: (eid, o) => guard('setRagdollMotors', () => setRagdollMotors(ctx, eid, o)),
    setTransform: (eid, t) => guard('setTransform', () => setTransform(ctx, eid, t)),
    getTransform: (eid) => guard('getTransform', () => getTransform(ctx, eid)),
    setRootMotion: (eid, o) => guard('setRootMotion', () => setRootMotion(ctx, eid, o)),
    rootMotionDelta: (eid) => guard('rootMotionDelta', () => rootMotionDelta(ctx, eid)),
    physics: ctx.physics.world,
    events: ctx.events,
    get droppedEvents() {
      return ctx.droppedEvents
    },
    hash: () => hashAnimationState(ctx, characterIds(ctx)),
    snapshot() {
      checkLive(ctx, 'snapshot')
      return snapshotAnimation(ctx)
    },
    snapshotInto(buffer) {
      checkLive(ctx, 'snapshotInto')
      // Not through guard: its closure would be the one allocation of a ring of snapshots.
      try {
        return snapshotAnimationInto(ctx, buffer)
      } catch (error) {
        throw asAnimationError('snapshotInto', error)
      }
    },
    restore(bytes) {
      checkLive(ctx, 'restore')
      guard('restore', () => checkNotInStage(ctx, 'restore'))
      guard('restore', () => restoreAnimation(ctx, bytes, propagate))
    },
    dispose() {
      if (ctx.disposed) return
      checkNotInStage(ctx, 'dispose')
      for (const eid of characterIds(ctx)) removeCharacter(ctx, eid)
      for (const off of unobserve) off()
      ctx.parallel?.dispose()
      ctx.disposed = true
    },
  }
  contexts.set(plugin, ctx)
  return plugin
}

/**
 * Runs a public call. The calls check every value they read and throw AnimationError before changing anything;
 * a value that throws when read (a Proxy, a throwing getter) surfaces here as AnimationError('argument') too,
 * with what it threw as `cause`. With `ctx`, a call that throws after an argument's getter removed a character
 * says so (whatever the call then tripped on is the `cause`).
 */
function guardCall<T>(what: string, call: () => T, ctx?: AnimationContext): T {
  const removals = ctx === undefined ? 0 : ctx.removals.count
  try {
    return call()
  } catch (error) {
    throw asAnimationError(what, error, ctx, removals)
  }
}

/**
 * A call's error as an AnimationError: a removal during the call (ctx.removals moved past `removals`), the
 * error itself, or 'argument' for a throw while reading an argument.
 */
function asAnimationError(
  what: string,
  error: unknown,
  ctx?: AnimationContext,
  removals = 0,
): AnimationError {
  if (ctx !== undefined && ctx.removals.count !== removals) {
    const removed = `character ${ctx.removals.last} was removed during the call`
    return new AnimationError('argument', `${what}: ${removed} (by a getter or Proxy of an argument)`, {
      cause: error,
    })
  }
  if (error instanceof AnimationError) return error
  const message = error instanceof Error ? error.message : showValue(error)
  return new AnimationError('argument', `${what}: reading an argument threw: ${message}`, { cause: error })
}

const contexts = new WeakMap<AnimationPlugin, AnimationContext>()

/**
 * A plugin's internals (stores, pools, registries), for the project's own tools and tests; not part of the
 * public entry. Throws for an object that no createAnimationPlugin call made.
 */
export function contextOf(plugin: AnimationPlugin): AnimationContext {
  const ctx = contexts.get(plugin)
  if (!ctx) throw new Error('contextOf: not an animation plugin')
  return ctx
}
