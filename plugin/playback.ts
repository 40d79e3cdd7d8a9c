import { AnimationError, showValue } from '../src/errors.ts'
import { finiteNumber, optionsObject, type OptionNames } from './checks.ts'
import { prepareSquad, type RotationMode } from '../src/clip/clip.ts'
import { JOINT_STRIDE, POSE_ANIM, POSE_FROM, POSE_TO, poseOffset } from '../components/Pose.ts'
import { advancePhase, LOOP_MODES, type LoopMode } from '../src/clip/phase.ts'
import {
  copyTrack,
  ROTATION_SLERP,
  ROTATION_SQUAD,
  SAMPLER_HOLD,
  SAMPLER_RESET_REST,
} from '../components/Sampler.ts'
import { resetFade } from '../components/CrossFade.ts'
import { planFadePaths, type AnimationContext, type AssetHandle, type RegisteredClip } from './context.ts'
import { bindClip, findClip, resolveAsset } from './assets.ts'
import { checkClipFits } from './clipRig.ts'
import { checkCharacter } from './characters.ts'
import { checkLive } from './options.ts'
import { blockOffset, layerIndex } from './layers.ts'
import { crossFadeOnLayer, playOnLayer } from './layerPlayback.ts'
import type { LayerReferences } from './additiveLayers.ts'
import { BLOCK_OUT, SOURCE_BLEND_SPACE, SOURCE_CLIP } from '../systems/layerState.ts'

/**
 * Options of play and crossFade (and of getUp's clip). Checked before anything changes: AnimationError
 * 'argument' for a speed or time that is not a finite number, or a loop or rotation that is not one of its names.
 */
export interface PlayOptions {
  /** Playback rate, finite; 1 normal, 0 paused, negative plays backwards. Default 1. */
  speed?: number
  /** What happens at the clip's ends: 'once', 'repeat' or 'pingpong'. Default 'repeat'. */
  loop?: LoopMode
  /** Start time, seconds into the clip, finite (wrapped or clamped by the loop mode). Default 0. */
  time?: number
  /** How LINEAR rotation channels are sampled. Default 'slerp'. */
  rotation?: RotationMode
  /** The layer to play on, an integer in [0, 8). Default 0, the base layer (see setLayer). */
  layer?: number
}

/** PlayOptions' option names (optionsObject). */
export const PLAY_OPTIONS: OptionNames<PlayOptions> = {
  speed: true,
  loop: true,
  time: true,
  rotation: true,
  layer: true,
}

/** Play options checked and resolved to store values. */
export interface PlaySettings {
  readonly speed: number
  readonly loop: number
  /** The start time, clamped for a once-clip. */
  readonly phase: number
  /** The phase the clip starts at: advancePhase from 0 by `phase` (wrapped or clamped as playback would). */
  readonly start: number
  readonly rotation: number
}

/** Clip id by name or asset clip index, looked up among the character's (or asset's) clips, then all. */
export function clipId(ctx: AnimationContext, owner: number | AssetHandle, clip: string | number): number {
  checkLive(ctx, 'clipId')
  const asset =
    typeof owner === 'number'
      ? ctx.assets[ctx.stores.Pose.asset[checkCharacter(ctx, owner, 'clipId')]!]!
      : resolveOwner(ctx, owner)
  const id = findClip(ctx, asset, clip, 'clipId')
  checkClipFits(ctx, ctx.clips[id]!, asset.id, 'clipId')
  return id
}

/** Cuts to `clip`: no fade, sampling restarts from the rest pose. */
export function play(ctx: AnimationContext, eid: number, clipRef: string | number, o?: PlayOptions): void {
  checkCharacter(ctx, eid, 'play')
  const clip = characterClip(ctx, eid, clipRef, 'play')
  const what = `play(${eid}, "${clip.clip.name}")`
  const s = playSettings(what, clip, o)
  playResolved(ctx, eid, layerIndex(o?.layer, what), clip, s)
}

/**
 * play after its checks: cuts layer k of a character to `clip` with checked settings (`known`: an additive
 * layer's references made ahead, plugin/additiveLayers.ts layerReferences).
 */
export function playResolved(
  ctx: AnimationContext,
  eid: number,
  k: number,
  clip: RegisteredClip,
  s: PlaySettings,
  known: LayerReferences | null = null,
): void {
  if (k > 0) playOnLayer(ctx, eid, k, clip, s, known)
  else playClip(ctx, eid, clip, s)
}

/**
 * Fades from what the character shows now into `clip` over `durationSeconds` (finite, ≥ 0; 0 is a cut).
 * A no-op when the character already plays or fades to `clip`, whatever the duration and options, so a game
 * may call it with the clip its state wants every frame; but a 'once' clip that has finished (holds its last
 * pose) is faded into again from its start, so an emote can be replayed. Mid-fade, the current blend is frozen
 * as the pose faded from.
 */
export function crossFade(
  ctx: AnimationContext,
  eid: number,
  clipRef: string | number,
  durationSeconds: number,
  o?: PlayOptions,
): void {
  checkCharacter(ctx, eid, 'crossFade')
  const clip = characterClip(ctx, eid, clipRef, 'crossFade')
  const what = `crossFade(${eid}, "${clip.clip.name}", ${showValue(durationSeconds)})`
  if (!(typeof durationSeconds === 'number' && Number.isFinite(durationSeconds) && durationSeconds >= 0)) {
    throw new AnimationError(
      'argument',
      `${what}: duration ${showValue(durationSeconds)} s must be a finite number ≥ 0`,
    )
  }
  const s = playSettings(what, clip, o)
  FADE[0] = durationSeconds
  crossFadeResolved(ctx, eid, layerIndex(o?.layer, what), clip, FADE, s)
}

/** crossFade's duration on its way to crossFadeResolved. */
const FADE = new Float64Array(1)

/**
 * crossFade after its checks: layer k of a character fades into `clip` over `fade[0]` seconds (finite, ≥ 0) with
 * checked settings (`known` as playResolved's). Never throws; allocates nothing once the layer exists and its
 * cursors have room (a state machine's transitions call it in the step: systems/evaluateGraphs.ts). The
 * duration comes through memory: a float argument of a call V8 does not inline is boxed.
 */
export function crossFadeResolved(
  ctx: AnimationContext,
  eid: number,
  k: number,
  clip: RegisteredClip,
  fade: Float64Array,
  s: PlaySettings,
  known: LayerReferences | null = null,
): void {
  if (k > 0) {
    crossFadeOnLayer(ctx, eid, k, clip, fade, s, known)
    return
  }
  const { Pose, Sampler, CrossFade, AnimLayer } = ctx.stores
  const current = Sampler.clip[eid]!
  if (current === clip.id && Sampler.finished[eid] === 0) return
  const base0 = ctx.layers[eid]?.layers[0]
  const fromBlendSpace = current < 0 && AnimLayer.source[eid] === SOURCE_BLEND_SPACE
  if (fade[0] === 0 || (current < 0 && !fromBlendSpace)) {
    playClip(ctx, eid, clip, s)
    return
  }
  const n = Pose.count[eid]!
  const base = Pose.base[eid]!
  const data = ctx.pool.data
  const cursors = ctx.cursors[eid]!
  const half = cursors.length >>> 1
  const from = poseOffset(base, n, POSE_FROM)
  // The fade starts from exactly what the character's layer 0 shows now: ANIM, or with layers, layer 0's own
  // pose (ANIM holds all layers composed).
  const shown = base0 !== undefined ? blockOffset(base0, BLOCK_OUT, n) : poseOffset(base, n, POSE_ANIM)
  data.copyWithin(from, shown, shown + n * JOINT_STRIDE)
  ctx.posesUsed[eid] = ctx.posesUsed[eid]! | (1 << POSE_FROM)
  if (CrossFade.active[eid] === 1 || fromBlendSpace) {
    // Mid-fade: freeze the current blend as the outgoing pose (no pop; the old clips stop).
    CrossFade.from.clip[eid] = -1
    ctx.fromBinding[eid] = undefined
  } else {
    // The clip playing now goes on as the track the fade leaves.
    copyTrack(CrossFade.from, eid, Sampler, eid)
    ctx.fromBinding[eid] = ctx.binding[eid]
    cursors.copyWithin(half, 0, half)
  }
  CrossFade.blend[eid] = 0
  CrossFade.steps[eid] = 0
  CrossFade.duration[eid] = fade[0]!
  CrossFade.active[eid] = 1
  data.set(ctx.assets[Pose.asset[eid]!]!.rest, poseOffset(base, n, POSE_TO))
  startClip(ctx, eid, clip, s)
  showClipOnBase(ctx, eid)
  const now = ctx.cursors[eid]!
  now.fill(0, 0, now.length >>> 1)
  planFadePaths(ctx, eid)
}

/**
 * Builds the squad data of the clips a character samples in squad mode (its clip, and the clip it fades
 * from): squad's per-segment data is made on a clip's first squad use, outside the step.
 */
export function prepareCharacterSquad(ctx: AnimationContext, eid: number): void {
  const { Sampler, CrossFade } = ctx.stores
  for (const tracks of [Sampler, CrossFade.from]) {
    if (tracks.rotation[eid] === ROTATION_SQUAD && tracks.clip[eid]! >= 0) {
      prepareSquad(ctx.clips[tracks.clip[eid]!]!.clip)
    }
  }
}

/** The handle (or registered asset) a clip lookup names; a lookup never registers an asset. */
function resolveOwner(ctx: AnimationContext, owner: unknown) {
  const asset = typeof owner === 'object' && owner !== null ? (owner as { asset?: unknown }).asset : undefined
  const known = ctx.handles.get(owner as never) ?? ctx.handles.get(asset as never)
  if (!known) {
    throw new AnimationError(
      'argument',
      `clipId: ${showValue(owner)} is not a character or an asset of this plugin`,
    )
  }
  return resolveAsset(ctx, known)
}

/** The clip a play call names, refused when it drives nothing on the character (checkClipFits). */
function characterClip(ctx: AnimationContext, eid: number, clip: string | number, what: string) {
  const asset = ctx.stores.Pose.asset[eid]!
  const found = ctx.clips[findClip(ctx, ctx.assets[asset]!, clip, what)]!
  checkClipFits(ctx, found, asset, what)
  return found
}

/** Validates play options; returns them resolved. Throws before anything changes. */
export function playSettings(
  what: string,
  clip: RegisteredClip,
  options: PlayOptions | undefined,
): PlaySettings {
  const o = optionsObject<PlayOptions>(options, what, PLAY_OPTIONS)
  const speed = finiteNumber(o.speed ?? 1, what, 'speed')
  const time = finiteNumber(o.time ?? 0, what, 'time', ' s')
  const loopName = o.loop ?? 'repeat'
  const loop = LOOP_MODES.indexOf(loopName)
  if (loop < 0) {
    throw new AnimationError(
      'argument',
      `${what}: loop ${showValue(loopName)} is not one of ${LOOP_MODES.join(', ')}`,
    )
  }
  const rotationName = o.rotation ?? 'slerp'
  if (rotationName !== 'slerp' && rotationName !== 'squad') {
    throw new AnimationError('argument', `${what}: rotation ${showValue(rotationName)} is not slerp or squad`)
  }
  const phase = loop === 0 ? Math.min(Math.max(time, 0), clip.clip.duration) : time
  const start = advancePhase(0, phase, clip.clip.duration, loop)
  return { speed, loop, phase, start, rotation: rotationName === 'squad' ? ROTATION_SQUAD : ROTATION_SLERP }
}

/** Cuts to `clip` (validated settings): no fade, sampling restarts from the rest pose. */
function playClip(ctx: AnimationContext, eid: number, clip: RegisteredClip, s: PlaySettings): void {
  resetFade(ctx.stores.CrossFade, eid)
  showClipOnBase(ctx, eid)
  ctx.fromBinding[eid] = undefined
  ctx.stores.Sampler.reset[eid] = SAMPLER_RESET_REST
  startClip(ctx, eid, clip, s)
  ctx.cursors[eid]!.fill(0)
}

function startClip(ctx: AnimationContext, eid: number, clip: RegisteredClip, s: PlaySettings): void {
  const { Sampler, Pose } = ctx.stores
  ensureCursors(ctx, eid, clip.clip.channels.length)
  Sampler.clip[eid] = clip.id
  Sampler.speed[eid] = s.speed
  ctx.stores.AnimLayer.paused[eid] = 0
  Sampler.loop[eid] = s.loop
  Sampler.rotation[eid] = s.rotation
  if (s.rotation === ROTATION_SQUAD) prepareSquad(clip.clip)
  Sampler.time[eid] = s.start
  Sampler.lastTime[eid] = NaN
  // Each play arms its own 'finished' (systems/clipEvents.ts).
  Sampler.finished[eid] = 0
  // The next step samples the start time itself; time advances from the step after.
  Sampler.reset[eid] = Sampler.reset[eid]! | SAMPLER_HOLD
  ctx.binding[eid] = bindClip(ctx, clip, Pose.asset[eid]!)
}

/** Layer 0 now shows the Sampler's clip (a blend space it played is gone). */
function showClipOnBase(ctx: AnimationContext, eid: number): void {
  ctx.stores.AnimLayer.source[eid] = SOURCE_CLIP
  const base0 = ctx.layers[eid]?.layers[0]
  if (base0 !== undefined) base0.blendSpace = null
}

/**
 * Cursors are `| current clip's channels | outgoing clip's channels |`, sized for the asset's own clips; a clip
 * of another asset (bound by node name) may have more channels. Grows (keeping the outgoing half) before the
 * clip is set, outside the step.
 */
function ensureCursors(ctx: AnimationContext, eid: number, channels: number): void {
  const old = ctx.cursors[eid]!
  const half = old.length >>> 1
  if (channels <= half) return
  const grown = new Uint32Array(2 * channels)
  grown.set(old.subarray(half), channels)
  ctx.cursors[eid] = grown
}
