/**
 * A checked graph (plugin/graphCheck.ts) compiled for one asset: its clips and masks resolved, each state's play
 * settings and an additive layer's references made, everything the step reads in typed arrays
 * (systems/graphState.ts GraphPlan). Compiled once per asset and graph text and shared by every character that
 * runs it (AnimationContext.graphPlans).
 */
import type { AnimationContext, RegisteredAsset, RegisteredClip } from './context.ts'
import { findClip } from './assets.ts'
import { maskWeights, type MaskEntry } from './layers.ts'
import { playSettings, type PlaySettings } from './playback.ts'
import { layerReferences, type LayerReferences } from './additiveLayers.ts'
import type { CheckedGraph, CheckedLayer } from './graphCheck.ts'
import { STATE_BLEND_SPACE, STATE_CLIP, type GraphLayerPlan, type GraphPlan } from '../systems/graphState.ts'
import type { LayerMode } from '../systems/layerState.ts'

/** A graph layer compiled, with what entering its states needs (plugin/graphPlayback.ts). */
export interface PlannedLayer extends GraphLayerPlan {
  /** Per state: a clip state's clip and play settings (null for the others). */
  readonly clips: readonly (RegisteredClip | null)[]
  readonly settings: readonly (PlaySettings | null)[]
  /** Per state: a blend space's clips and points ([x, y]), and its dimensions and sync; null for the others. */
  readonly blendSpaces: readonly ({
    readonly clips: readonly RegisteredClip[]
    readonly coords: readonly (readonly [number, number])[]
    readonly dims: number
    readonly sync: number
  } | null)[]
  /** Per state of an additive layer: its references made ahead (null for other layers and empty states). */
  readonly references: readonly (LayerReferences | null)[]
  /** The layer's setLayer options as the graph gives them (undefined where not given). */
  readonly mode: LayerMode | undefined
  readonly mask: readonly MaskEntry[] | null | undefined
  readonly weight: number
  readonly weightGiven: boolean
  /** The most points of its blend spaces (its pose block is made with room for them). */
  readonly maxPoints: number
}

/** A graph compiled for one asset. */
export interface PlannedGraph extends GraphPlan {
  readonly layers: readonly PlannedLayer[]
  /** The text's UTF-8 bytes (snapshots write them). */
  readonly bytes: Uint8Array
  /** Snapshot bookkeeping (snapshot/graphs.ts): the last snapshot that listed it and its place there. */
  listed: number
  listedAt: number
}

/**
 * The graph `checked` compiled for characters of asset `assetId`: the one compiled before for the same text and
 * asset, else a new one. Throws AnimationError('argument') naming the path of an unknown clip or mask joint
 * (`what` names the call) before it changes anything.
 */
export function graphPlan(
  ctx: AnimationContext,
  assetId: number,
  checked: CheckedGraph,
  what: string,
): PlannedGraph {
  const byAsset = ctx.graphPlans.get(checked.text)
  const known = byAsset?.[assetId]
  if (known !== undefined) return known
  const plan = compile(ctx, ctx.assets[assetId]!, checked, what)
  if (byAsset === undefined) ctx.graphPlans.set(checked.text, [])
  ctx.graphPlans.get(checked.text)![assetId] = plan
  return plan
}

function compile(ctx: AnimationContext, asset: RegisteredAsset, g: CheckedGraph, what: string): PlannedGraph {
  const layers = g.layers.map((layer, k) => compileLayer(ctx, asset, layer, k, what))
  return {
    text: g.text,
    bytes: new TextEncoder().encode(g.text),
    asset: asset.id,
    paramNames: g.params.map((p) => p.name),
    paramType: Uint8Array.from(g.params, (p) => p.type),
    paramDefault: Float64Array.from(g.params, (p) => p.value),
    layers,
    listed: -1,
    listedAt: 0,
  }
}

function compileLayer(
  ctx: AnimationContext,
  asset: RegisteredAsset,
  layer: CheckedLayer,
  k: number,
  what: string,
): PlannedLayer {
  const clipAt = (clip: string | number, path: string): RegisteredClip =>
    ctx.clips[findClip(ctx, asset, clip, `${what}: ${path}`)]!
  // Masks are checked now (they need the asset's joints); setGraph gives setLayer the entries.
  if (Array.isArray(layer.mask)) maskWeights(ctx, asset, what, layer.mask, `${layer.path}.mask`)
  const additive = layer.mode === 'additive'
  const states = layer.states
  const clips = states.map((s) => (s.kind === STATE_CLIP ? clipAt(s.clip, `${s.path}.clip`) : null))
  const settings = states.map((s, i) =>
    s.kind === STATE_CLIP ? playSettings(`${what}: ${s.path}`, clips[i]!, s.options) : null,
  )
  const blendSpaces = states.map((s) =>
    s.kind !== STATE_BLEND_SPACE
      ? null
      : {
          clips: s.points.map((p, i) => clipAt(p.clip, `${s.path}.blendSpace.points[${i}].clip`)),
          coords: s.points.map((p) => p.at),
          dims: s.dims,
          sync: s.sync ? 1 : 0,
        },
  )
  const references = states.map((s, i) => {
    if (!additive) return null
    if (s.kind === STATE_CLIP) return layerReferences(ctx, asset.id, [clips[i]!.id], false)
    const bs = blendSpaces[i]
    return bs
      ? layerReferences(
          ctx,
          asset.id,
          bs.clips.map((c) => c.id),
          true,
        )
      : null
  })
  const transitions = layer.transitions
  const conditions = transitions.flatMap((t) => t.conditions)
  const condFirst = new Int32Array(transitions.length)
  for (let t = 1; t < transitions.length; t++) {
    condFirst[t] = condFirst[t - 1]! + transitions[t - 1]!.conditions.length
  }
  return {
    name: layer.name,
    index: k,
    entry: layer.entry,
    stateNames: states.map((s) => s.name),
    kind: Uint8Array.from(states, (s) => s.kind),
    clip: Int32Array.from(clips, (c) => c?.id ?? -1),
    duration: Float64Array.from(clips, (c) => c?.clip.duration ?? 0),
    start: Float64Array.from(settings, (s) => s?.phase ?? 0),
    speed: Float64Array.from(states, (s) => s.speed),
    once: Uint8Array.from(settings, (s) => (s?.loop === 0 ? 1 : 0)),
    paramX: Int32Array.from(states, (s) => s.paramX),
    paramY: Int32Array.from(states, (s) => s.paramY),
    from: Int32Array.from(transitions, (t) => t.from),
    to: Int32Array.from(transitions, (t) => t.to),
    fade: Float64Array.from(transitions, (t) => t.fade),
    exitTime: Float64Array.from(transitions, (t) => t.exitTime),
    interruption: Uint8Array.from(transitions, (t) => t.interruption),
    toSelf: Uint8Array.from(transitions, (t) => (t.toSelf ? 1 : 0)),
    condFirst,
    condCount: Int32Array.from(transitions, (t) => t.conditions.length),
    condParam: Int32Array.from(conditions, (c) => c.param),
    condOp: Uint8Array.from(conditions, (c) => c.op),
    condValue: Float64Array.from(conditions, (c) => c.value),
    clips,
    settings,
    blendSpaces,
    references,
    mode: layer.mode,
    mask: layer.mask,
    weight: layer.weight,
    weightGiven: layer.weightGiven,
    maxPoints: Math.max(0, ...blendSpaces.map((b) => b?.clips.length ?? 0)),
  }
}
