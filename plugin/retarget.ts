import { AnimationError, showValue } from '../src/errors.ts'
import type { Clip, ClipMarker } from '../src/clip/clip.ts'
import { expandCompactClip } from '../src/clip/compactClip.ts'
import {
  autoJointMap,
  defaultHips,
  findHumanoid,
  jointName,
  mapNames,
  resolveJointMap,
  type RigView,
} from '../src/retarget/map.ts'
import { planRetarget, TRANSLATION_MODES, type TranslationMode } from '../src/retarget/plan.ts'
import { bakeClip } from '../src/retarget/bake.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { AnimationContext, AssetHandle, RegisteredAsset } from './context.ts'
import { addedHandle, findClip, registerClip } from './assets.ts'
import { optionsObject } from './checks.ts'
import { checkLive } from './options.ts'

/** Options of `retarget` (issue 35). */
export interface RetargetOptions {
  /**
   * Which source joint drives which target joint: `'auto'` (default) matches humanoid joints by name and
   * place (Mixamo, VRM, Unreal, Unity, Blender and more; `retargetMap` shows the result), or an object
   * `{ [targetJoint]: sourceJoint }` of node names. Target joints left out keep their rest pose.
   */
  map?: 'auto' | Readonly<Record<string, string>>
  /** The source clips to retarget, by name or asset clip index. Default: all of the source asset's clips. */
  clips?: readonly (string | number)[]
  /** The new clips' names on the target are `prefix` + the source clip's name. Default ''. */
  prefix?: string
  /**
   * 'hips-scaled' (default): the hips move as the source's, scaled by the ratio of the two rigs' hips heights;
   * 'none': every joint keeps the target's rest translation; 'all': mapped joints copy the source's local
   * translations (rigs of the same proportions).
   */
  translation?: TranslationMode
}

const OPTION_NAMES = { map: true, clips: true, prefix: true, translation: true } as const

/** The clips retarget made (in any plugin): snapshots fingerprint them apart from an asset's others. */
const retargeted = new WeakSet<Clip>()

/** Whether `clip` is one retarget baked. */
export function isRetargeted(clip: Clip): boolean {
  return retargeted.has(clip)
}

/**
 * Bakes clips of `source` into clips of `target` (both added assets or their handles) and registers them as
 * clips of `target`, so every character of it plays them like its own: by the rule that each mapped joint's
 * world rotation relative to its rest pose is the source joint's (docs/guides/retargeting.md). Baked once, here;
 * the step is unchanged. The new clips carry the source clips' markers (the file's and addMarker's so far).
 * Returns their names. Throws AnimationError('argument') before changing anything for a bad argument, a name
 * clash, an 'auto' map that leaves the hips or more than a third of the source's animated joints unmatched
 * (naming them), or hips 'hips-scaled' cannot scale by.
 */
export function retarget(
  ctx: AnimationContext,
  source: AnimationAsset | AssetHandle,
  target: AnimationAsset | AssetHandle,
  options?: RetargetOptions,
): string[] {
  checkLive(ctx, 'retarget')
  const what = 'retarget'
  const from = added(ctx, source, what, 'source')
  const to = added(ctx, target, what, 'target')
  const o = optionsObject<RetargetOptions>(options, what, OPTION_NAMES)
  const translation = o.translation ?? 'hips-scaled'
  if (!TRANSLATION_MODES.includes(translation)) {
    throw new AnimationError(
      'argument',
      `${what}: translation ${showValue(translation)} is not one of ${TRANSLATION_MODES.map((m) => `'${m}'`).join(', ')}`,
    )
  }
  const prefix = o.prefix ?? ''
  if (typeof prefix !== 'string')
    throw new AnimationError('argument', `${what}: prefix ${showValue(prefix)} is not a string`)
  const clips = sourceClips(ctx, from, o.clips, what)
  const names = clips.map((c) => prefix + c.clip.name)
  checkNames(ctx, to, names, what)
  const sv = view(from)
  const tv = view(to)
  // Compact clips decoded once: the auto map's checks read their keys, the baking their values.
  const exact = clips.map((c) => expandCompactClip(c.clip))
  let map: Int32Array
  let hips: number
  if (o.map === undefined || o.map === 'auto') {
    ;({ map, hips } = autoJointMap(sv, tv))
    checkAutoMap(sv, tv, map, hips, exact, what)
  } else {
    map = resolveJointMap(sv, tv, o.map, what)
    hips = defaultHips(tv, map, translatedJoints(sv, exact))
  }
  const plan = planRetarget(sv, tv, map, hips, translation, what)
  const baked = exact.map((clip, i) => bakeClip(plan, clip, names[i]!, markersOf(clips[i]!.markers)))
  for (const clip of baked) {
    retargeted.add(clip)
    registerClip(ctx, to, clip)
  }
  return names
}

/**
 * The map `retarget` with `map: 'auto'` would use for these two assets, as node names
 * `{ [targetJoint]: sourceJoint }` in target joint order: to inspect, edit and pass as `map`. It does not refuse
 * what retarget would refuse; a joint it could not match is simply absent.
 */
export function retargetMap(
  ctx: AnimationContext,
  source: AnimationAsset | AssetHandle,
  target: AnimationAsset | AssetHandle,
): Record<string, string> {
  checkLive(ctx, 'retargetMap')
  const sv = view(added(ctx, source, 'retargetMap', 'source'))
  const tv = view(added(ctx, target, 'retargetMap', 'target'))
  return mapNames(sv, tv, autoJointMap(sv, tv).map)
}

function added(ctx: AnimationContext, asset: unknown, what: string, name: string): RegisteredAsset {
  const handle = addedHandle(ctx, asset)
  if (handle === undefined) {
    throw new AnimationError(
      'argument',
      `${what}: ${name} ${showValue(asset)} is not an asset or asset handle of this plugin (add the asset first)`,
    )
  }
  return ctx.assets[handle.id]!
}

const view = (ra: RegisteredAsset): RigView => ({ rig: ra, asset: ra.asset })

/** The registered clips to retarget: all of the source's, or those `given` names (its clips only). */
function sourceClips(ctx: AnimationContext, from: RegisteredAsset, given: unknown, what: string) {
  if (given === undefined) return from.clipIds.map((id) => ctx.clips[id]!)
  if (!Array.isArray(given)) {
    throw new AnimationError(
      'argument',
      `${what}: clips ${showValue(given)} is not an array of clip names or indices`,
    )
  }
  const ids = given.map((c: unknown, i) => {
    const id = findClip(ctx, from, c as string | number, `${what}: clips[${i}]`)
    if (ctx.clips[id]!.asset !== from.id) {
      throw new AnimationError(
        'argument',
        `${what}: clips[${i}] ${showValue(c)} is not a clip of the source, ${from.asset.source}`,
      )
    }
    return id
  })
  return ids.map((id) => ctx.clips[id]!)
}

/** The new names: none twice, none a clip the target has already. */
function checkNames(
  ctx: AnimationContext,
  to: RegisteredAsset,
  names: readonly string[],
  what: string,
): void {
  const taken = new Set(to.clipIds.map((id) => ctx.clips[id]!.clip.name))
  names.forEach((name, i) => {
    if (taken.has(name) || names.indexOf(name) !== i) {
      throw new AnimationError(
        'argument',
        `${what}: ${to.asset.source} ${taken.has(name) ? 'already has' : 'would get two'} clips named ${JSON.stringify(name)}; pass another prefix`,
      )
    }
  })
}

function markersOf(list: { readonly times: Float64Array; readonly names: readonly string[] }): ClipMarker[] {
  return list.names.map((name, i) => ({ name, time: list.times[i]! }))
}

/** Per source joint, 1 when one of the clips has a translation channel on it. */
function translatedJoints(sv: RigView, clips: readonly Clip[]): Uint8Array {
  const out = new Uint8Array(sv.rig.jointNodes.length)
  for (const clip of clips)
    for (const ch of clip.channels) {
      const j = ch.node < sv.rig.nodeJoint.length ? sv.rig.nodeJoint[ch.node]! : -1
      if (ch.path === 'translation' && j >= 0) out[j] = 1
    }
  return out
}

/**
 * The auto map's refusals: no hips on either side, or more than a third of the source joints the clips
 * animate (rotate or translate, with keys that change) left unmatched. Names them and what it matched.
 */
function checkAutoMap(
  sv: RigView,
  tv: RigView,
  map: Int32Array,
  hips: number,
  clips: readonly Clip[],
  what: string,
): void {
  const listed = (names: string[]): string =>
    names.length <= 12 ? names.join(', ') : `${names.slice(0, 12).join(', ')} and ${names.length - 12} more`
  const matched = (): string => {
    const pairs = Object.entries(mapNames(sv, tv, map)).map(([t, s]) => `${t} ← ${s}`)
    return `it matched ${pairs.length}: ${listed(pairs)}`
  }
  if (hips < 0) {
    const none = [sv, tv].filter((v) => findHumanoid(v).hips < 0).map((v) => v.asset.source)
    throw new AnimationError(
      'argument',
      `${what}: the 'auto' map finds no hips (two upper legs, or a joint named as hips) in ${none.join(' or ')}; ` +
        `${matched()}. Pass map: { [targetJoint]: sourceJoint }`,
    )
  }
  const animated = new Uint8Array(sv.rig.jointNodes.length)
  for (const clip of clips)
    for (const ch of clip.channels) {
      const j = ch.node < sv.rig.nodeJoint.length ? sv.rig.nodeJoint[ch.node]! : -1
      if (j >= 0 && (ch.path === 'rotation' || ch.path === 'translation') && varies(ch.values, ch.components))
        animated[j] = 1
    }
  const used = new Uint8Array(animated.length)
  for (const s of map) if (s >= 0) used[s] = 1
  const unmatched: string[] = []
  let count = 0
  animated.forEach((a, j) => {
    if (a === 0) return
    count++
    if (used[j] === 0) unmatched.push(jointName(sv, j))
  })
  if (3 * unmatched.length > count) {
    throw new AnimationError(
      'argument',
      `${what}: the 'auto' map leaves ${unmatched.length} of the ${count} joints ${sv.asset.source}'s clips animate ` +
        `unmatched on ${tv.asset.source} (more than a third): ${listed(unmatched)}; ${matched()}. ` +
        'Pass map: { [targetJoint]: sourceJoint } (retargetMap gives the auto map to edit)',
    )
  }
}

/**
 * Whether a channel's keys change beyond float rounding (a constant channel only holds a pose; an exporter's
 * constant rotations differ in their last bits): a rotation key more than 1e-4 rad from the first (the sign of
 * a quaternion aside), a translation component more than a millionth of its size off the first's.
 */
function varies(values: Float32Array, components: number): boolean {
  for (let o = components; o + components <= values.length; o += components) {
    if (components === 4) {
      // sin²(θ/2) = 1 − cos²(θ/2), cos(θ/2) = a·b / (|a||b|): well conditioned for keys a part in 10⁷ off unit.
      let dot = 0
      let aa = 0
      let bb = 0
      for (let k = 0; k < 4; k++) {
        dot += values[o + k]! * values[k]!
        aa += values[k]! * values[k]!
        bb += values[o + k]! * values[o + k]!
      }
      if (1 - (dot * dot) / (aa * bb) > 2.5e-9) return true
    } else {
      for (let k = 0; k < components; k++)
        if (Math.abs(values[o + k]! - values[k]!) > 1e-6 * (Math.abs(values[k]!) + 1e-3)) return true
    }
  }
  return false
}
