import { AnimationError, showValue } from '../src/errors.ts'
import { isBuiltClip, markerTime, type Clip, type ClipMarker } from '../src/clip/clip.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { pathOffset, JOINT_STRIDE } from '../src/math/poseLayout.ts'
import { buildRig } from '../src/skeleton/rig.ts'
import type { AnimationContext, AssetHandle, RegisteredAsset, RegisteredClip } from './context.ts'
import type { ClipMarkers } from '../systems/state.ts'
import { checkLive } from './options.ts'

/** Registers an asset's rig and clips, once per asset object; registering the same object again returns it. */
export function addAsset(ctx: AnimationContext, asset: AnimationAsset): AssetHandle {
  checkLive(ctx, 'addAsset')
  const known = typeof asset === 'object' && asset !== null ? ctx.handles.get(asset) : undefined
  if (known) return known
  checkAssetShape(asset)
  const registered = registerAsset(ctx, asset)
  const handle: AssetHandle = Object.freeze({ id: registered.id, asset, clips: registered.clipIds })
  ctx.handles.set(asset, handle)
  return handle
}

/** The registered asset behind an asset or handle (registering a new asset). */
export function resolveAsset(ctx: AnimationContext, asset: AnimationAsset | AssetHandle): RegisteredAsset {
  if (typeof asset !== 'object' || asset === null) {
    throw new AnimationError('argument', `${showValue(asset)} is not an asset or asset handle`)
  }
  const handle = isHandle(asset) ? asset : addAsset(ctx, asset)
  const registered = ctx.assets[handle.id]
  if (!registered || registered.asset !== handle.asset) {
    throw new AnimationError('argument', `asset handle ${handle.id} does not belong to this plugin`)
  }
  return registered
}

function isHandle(x: AnimationAsset | AssetHandle): x is AssetHandle {
  return 'asset' in x && typeof (x as AssetHandle).id === 'number'
}

/** Builds the asset's rig (src/skeleton/rig.ts) and registers it and its clips. Throws before registering. */
function registerAsset(ctx: AnimationContext, asset: AnimationAsset): RegisteredAsset {
  const id = ctx.assets.length
  const rig = buildRig(asset)
  const clipIds: number[] = []
  const registered: RegisteredAsset = { id, asset, ...rig, clipIds }
  ctx.assets.push(registered)
  for (const clip of asset.clips) registerClip(ctx, registered, clip)
  return registered
}

/** The registration `clip` gets on `registered` (made, not yet kept): its clip id, empty binding caches. */
export function clipRegistration(
  ctx: AnimationContext,
  registered: RegisteredAsset,
  clip: Clip,
): RegisteredClip {
  return {
    id: ctx.clips.length,
    clip,
    asset: registered.id,
    bindings: [],
    morphBindings: [],
    deltas: new Map(),
    markers: markerList(clip.markers),
  }
}

/** Registers one of an asset's clips (a file's, or addClip's): a clip id, its binding on its own asset. */
export function registerClip(ctx: AnimationContext, registered: RegisteredAsset, clip: Clip): RegisteredClip {
  const rc = clipRegistration(ctx, registered, clip)
  ctx.clips.push(rc)
  // The list is readonly to readers; registration is where it grows (the asset's handle shares it).
  ;(registered.clipIds as number[]).push(rc.id)
  bindClip(ctx, rc, registered.id)
  if (clip.channels.length > ctx.morphCursors.length) ctx.morphCursors = new Uint32Array(clip.channels.length)
  return rc
}

/**
 * The channel → pose-offset table of `clip` on characters of asset `assetId`: on its own asset by node index,
 * on another asset by node name (so a clip from an animation-only file drives a character with the same rig).
 * Made on first use and cached in the clip.
 */
export function bindClip(ctx: AnimationContext, clip: RegisteredClip, assetId: number): Int32Array {
  const known = clip.bindings[assetId]
  if (known) return known
  const joints = channelJoints(ctx, clip, assetId)
  const binding = new Int32Array(clip.clip.channels.length)
  clip.clip.channels.forEach((ch, c) => {
    const joint = joints[c]!
    const offset = pathOffset(ch.path)
    binding[c] = joint < 0 || offset < 0 ? -1 : joint * JOINT_STRIDE + offset
  })
  clip.bindings[assetId] = binding
  bindMorphs(ctx, clip, assetId)
  return binding
}

/**
 * Channel → joint of asset `assetId` that `clip`'s channel drives (-1 for none): by node index on the clip's
 * own asset, by node name on another. Shared by bindClip and bindMorphs, so both match nodes the same way.
 */
function channelJoints(ctx: AnimationContext, clip: RegisteredClip, assetId: number): Int32Array {
  const target = ctx.assets[assetId]!
  const owner = ctx.assets[clip.asset]!
  const byName = new Map<string, number>()
  if (assetId !== clip.asset)
    target.asset.nodes.forEach((n) => byName.has(n.name) || byName.set(n.name, n.index))
  return Int32Array.from(clip.clip.channels, (ch) => {
    const node = assetId === clip.asset ? ch.node : (byName.get(owner.asset.nodes[ch.node]?.name ?? '') ?? -1)
    return node >= 0 && node < target.nodeJoint.length ? target.nodeJoint[node]! : -1
  })
}

/**
 * The channel → morph-weight offset table of `clip` on characters of asset `assetId` (RegisteredClip's
 * morphBindings), matching nodes as bindClip does; null when the clip drives no morph weights there. A
 * channel whose node has another number of morph targets than the clip's values is left unbound.
 */
export function bindMorphs(ctx: AnimationContext, clip: RegisteredClip, assetId: number): Int32Array | null {
  const known = clip.morphBindings[assetId]
  if (known !== undefined) return known
  const target = ctx.assets[assetId]!
  const joints = channelJoints(ctx, clip, assetId)
  const binding = new Int32Array(clip.clip.channels.length).fill(-1)
  let any = false
  clip.clip.channels.forEach((ch, c) => {
    if (ch.path !== 'weights') return
    const joint = joints[c]!
    const k = joint < 0 ? -1 : target.morphJoints.indexOf(joint)
    if (k < 0 || target.morphOffsets[k + 1]! - target.morphOffsets[k]! !== ch.components) return
    binding[c] = target.morphOffsets[k]!
    any = true
  })
  const result = any ? binding : null
  clip.morphBindings[assetId] = result
  return result
}

/**
 * A clip id by asset clip index, or by name among the asset's clips, then among all clips of the plugin.
 * Throws AnimationError('argument') naming `what` and the clips there are.
 */
export function findClip(
  ctx: AnimationContext,
  asset: RegisteredAsset,
  clip: string | number,
  what: string,
): number {
  if (typeof clip !== 'number' && typeof clip !== 'string') {
    throw new AnimationError('argument', `${what}: clip ${showValue(clip)} is not a clip name or index`)
  }
  if (typeof clip === 'number') {
    if (Number.isInteger(clip) && clip >= 0 && clip < asset.clipIds.length) return asset.clipIds[clip]!
    throw new AnimationError(
      'argument',
      `${what}: clip index ${showValue(clip)} is out of range (${asset.asset.source} has ${asset.clipIds.length} clips)`,
    )
  }
  for (const id of asset.clipIds) if (ctx.clips[id]!.clip.name === clip) return id
  for (const rc of ctx.clips) if (rc.clip.name === clip) return rc.id
  // The first names only: a file may have thousands of clips (MAX_CLIPS).
  const shown = asset.clipIds.slice(0, 16).map((id) => showValue(ctx.clips[id]!.clip.name))
  if (asset.clipIds.length > 16) shown.push(`… (${asset.clipIds.length} clips)`)
  throw new AnimationError(
    'argument',
    `${what}: no clip named ${showValue(clip)} (${asset.asset.source} has ${shown.join(', ') || 'none'})`,
  )
}

/**
 * An AnimationAsset as readAsset makes one, checked before anything registers it: a caller may pass any value.
 * Node trees and clips are checked further by buildRig and by the clip registry.
 */
function checkAssetShape(asset: unknown): asserts asset is AnimationAsset {
  const fail = (what: string): never => {
    throw new AnimationError('argument', `addAsset: ${what}`)
  }
  if (typeof asset !== 'object' || asset === null) fail(`${showValue(asset)} is not an AnimationAsset`)
  const a = asset as Record<string, unknown>
  if (typeof a.source !== 'string') fail(`source ${showValue(a.source)} is not a string`)
  const where = a.source as string
  for (const key of ['nodes', 'roots', 'skeletons', 'clips']) {
    if (!Array.isArray(a[key])) fail(`${where}: ${key} ${showValue(a[key])} is not an array`)
  }
  const nodes = a.nodes as unknown[]
  nodes.forEach((node, i) => {
    if (typeof node !== 'object' || node === null) fail(`${where}: node ${i} is ${showValue(node)}`)
    const n = node as Record<string, unknown>
    if (n.index !== i) fail(`${where}: node ${i} has index ${showValue(n.index)}`)
    if (typeof n.name !== 'string') fail(`${where}: node ${i} has name ${showValue(n.name)}`)
    if (!Array.isArray(n.children)) fail(`${where}: node ${i} has children ${showValue(n.children)}`)
    for (const [key, length] of [
      ['translation', 3],
      ['rotation', 4],
      ['scale', 3],
    ] as const) {
      const v = n[key]
      if (
        !Array.isArray(v) ||
        v.length !== length ||
        !v.every((x) => typeof x === 'number' && Number.isFinite(x))
      ) {
        fail(`${where}: node ${i} ${key} ${showValue(v)} is not ${length} finite numbers`)
      }
    }
  })
  ;(a.skeletons as unknown[]).forEach((skin, i) => {
    const joints = (skin as { joints?: unknown } | null)?.joints
    if (!(joints instanceof Int32Array) && !Array.isArray(joints)) {
      fail(`${where}: skeleton ${i} has joints ${showValue(joints)}`)
    }
  })
  ;(a.clips as unknown[]).forEach((clip, i) => {
    if (!isBuiltClip(clip)) fail(`${where}: clip ${i} was not made by buildClip (or readAsset)`)
  })
}

/**
 * The most channels of any of the asset's own clips, those of its file (at least 1): a character's key cursor
 * half. Clips added (addClip) or retargeted (retarget) onto the asset later do not count: a character made
 * before them has its cursors, and its snapshots must restore; playing one grows the cursors as a clip of
 * another asset does.
 */
export function maxChannels(ctx: AnimationContext, asset: RegisteredAsset): number {
  let m = channelsMost.get(asset)
  if (m === undefined) {
    m = 1
    for (let i = 0; i < asset.asset.clips.length; i++)
      m = Math.max(m, ctx.clips[asset.clipIds[i]!]!.clip.channels.length)
    channelsMost.set(asset, m)
  }
  return m
}
/** maxChannels per registered asset, whose clips do not change (a restore asks once a character). */
const channelsMost = new WeakMap<RegisteredAsset, number>()

/**
 * Puts a marker named `name` at `seconds` on a clip (by name or asset clip index, looked up as play looks it
 * up: among the asset's clips, then all), for every character that plays it: the step reports a 'marker'
 * event whenever the play head meets it. `seconds` is in [0, duration] (a time just past the duration that
 * rounds to it as a float32 is taken as the duration). The asset must have been added. Adding the same marker
 * twice makes two. Throws AnimationError('argument') before changing anything.
 */
export function addMarker(
  ctx: AnimationContext,
  owner: AnimationAsset | AssetHandle,
  clipRef: string | number,
  seconds: number,
  name: string,
): void {
  checkLive(ctx, 'addMarker')
  const what = `addMarker(${showValue(clipRef)}, ${showValue(seconds)}, ${showValue(name)})`
  const added = addedAsset(ctx, owner, what)
  const rc = ctx.clips[findClip(ctx, added, clipRef, what)]!
  if (typeof name !== 'string' || name === '') {
    throw new AnimationError('argument', `${what}: name ${showValue(name)} is not a non-empty string`)
  }
  const time = markerTime(seconds, rc.clip.duration)
  if (Number.isNaN(time)) {
    throw new AnimationError(
      'argument',
      `${what}: ${showValue(seconds)} s is not a time on clip "${rc.clip.name}" (a number in [0, ${rc.clip.duration}] s)`,
    )
  }
  const old = rc.markers
  // After every marker at or before `time`: equal times keep the order they were added in.
  let at = 0
  while (at < old.times.length && old.times[at]! <= time) at++
  const times = new Float64Array(old.times.length + 1)
  times.set(old.times.subarray(0, at))
  times[at] = time
  times.set(old.times.subarray(at), at + 1)
  const names = [...old.names.slice(0, at), name, ...old.names.slice(at)]
  rc.markers = Object.freeze({ times, names: Object.freeze(names) })
}

/**
 * A clip's markers, the file's and addMarker's, in time order (equal times: the file's first, then in the order
 * they were added), as new objects. The clip is looked up as addMarker looks it up, on an added asset.
 */
export function markers(
  ctx: AnimationContext,
  owner: AnimationAsset | AssetHandle,
  clipRef: string | number,
): ClipMarker[] {
  checkLive(ctx, 'markers')
  const what = `markers(${showValue(clipRef)})`
  const { times, names } = ctx.clips[findClip(ctx, addedAsset(ctx, owner, what), clipRef, what)]!.markers
  return names.map((name, i) => ({ name, time: times[i]! }))
}

/**
 * The registered asset of an asset added to this plugin, given the asset or its very handle. Throws
 * AnimationError('argument') naming the asset when it is one the plugin does not have (not added yet, or a
 * handle of another plugin), and the value otherwise.
 */
export function addedAsset(ctx: AnimationContext, owner: unknown, what: string): RegisteredAsset {
  if (typeof owner === 'object' && owner !== null) {
    const known = ctx.handles.get(owner as AnimationAsset)
    if (known) return ctx.assets[known.id]!
    const asset = (owner as { asset?: unknown }).asset
    const handle = ctx.handles.get(asset as AnimationAsset)
    if (handle === owner) return ctx.assets[handle.id]!
    const source = sourceOf(owner) ?? sourceOf(asset)
    if (source !== null && asset === undefined) {
      const fix = 'add it first: addAsset(asset) or addCharacter(asset)'
      throw new AnimationError('argument', `${what}: asset ${source} is not added to this plugin (${fix})`)
    }
    if (source !== null) {
      const problem = handle
        ? 'is a copy of its handle (pass the handle addAsset returned, or the asset)'
        : 'is a handle of another plugin (pass the asset; addAsset(asset) adds it here)'
      throw new AnimationError('argument', `${what}: the asset handle of ${source} ${problem}`)
    }
  }
  throw new AnimationError('argument', `${what}: ${showValue(owner)} is not an asset or asset handle`)
}

/** An asset's `source` (its file name) as text for a message, or null when `x` has none. */
function sourceOf(x: unknown): string | null {
  if (typeof x !== 'object' || x === null) return null
  const source = (x as { source?: unknown }).source
  return typeof source === 'string' ? showValue(source) : null
}

/** The handle of an asset added to this plugin, given the asset or that very handle; undefined otherwise. */
export function addedHandle(ctx: AnimationContext, owner: unknown): AssetHandle | undefined {
  if (typeof owner !== 'object' || owner === null) return undefined
  const known = ctx.handles.get(owner as AnimationAsset)
  if (known) return known
  const handle = ctx.handles.get((owner as { asset?: unknown }).asset as AnimationAsset)
  return handle === owner ? handle : undefined
}

/** A clip's own markers (sorted by buildClip) as a plugin's marker list. */
function markerList(markers: readonly ClipMarker[]): ClipMarkers {
  return Object.freeze({
    times: Float64Array.from(markers, (m) => m.time),
    names: Object.freeze(markers.map((m) => m.name)),
  })
}
