import { InterpolateDiscrete, InterpolateLinear, PropertyBinding } from 'three'
import type { AnimationClip, KeyframeTrack } from 'three'
import { AnimationError } from '../src/errors.ts'
import { buildClip, type AnimationAsset, type Clip, type RawChannel } from '../entry/index.ts'

/** Options of clipFromThree. */
export interface ClipFromThreeOptions {
  /**
   * Node names of the tracks → node names of the asset, for a clip made for a rig whose names differ
   * (`{ 'mixamorigHips': 'Hips', … }`). A track whose node is not in the map is looked up by its own name.
   */
  map?: Readonly<Record<string, string>>
}

/** three's track property → the glTF channel path it animates. */
const PATHS: Record<string, RawChannel['path']> = {
  position: 'translation',
  quaternion: 'rotation',
  scale: 'scale',
  morphTargetInfluences: 'weights',
}

/**
 * A `THREE.AnimationClip` (what FBXLoader, BVHLoader or GLTFLoader give, or one built in code) as a clip of
 * `asset`, for `plugin.addClip(asset, clip)`. Tracks are matched to the asset's nodes by name: a track
 * `<node>.position|quaternion|scale|morphTargetInfluences` drives the asset node of that name (through
 * `options.map` first), compared as written and as three's PropertyBinding.sanitizeNodeName writes node
 * names (GLTFLoader's tracks name `mixamorig:Hips` as `mixamorigHips`). Tracks of other properties
 * (visibility, materials), of one morph target (`.morphTargetInfluences[i]`), or of nodes the asset does not
 * have are left out; a clip of which no track is left is an error.
 *
 * Interpolation as three plays it: InterpolateLinear is LINEAR (rotations slerped, as three's
 * QuaternionLinearInterpolant), InterpolateDiscrete is STEP, and GLTFLoader's cubic-spline tracks are
 * CUBICSPLINE (their values are glTF's in-tangent, value, out-tangent triplets, tangents per second).
 * InterpolateSmooth (three's Catmull-Rom-like spline) has no glTF equivalent and is refused.
 *
 * Throws AnimationError ('argument' for the clip and its tracks, 'clip' for key data buildClip refuses: times
 * not increasing, values not finite), naming the clip and the track.
 */
export function clipFromThree(
  clip: AnimationClip,
  asset: AnimationAsset,
  options: ClipFromThreeOptions = {},
): Clip {
  const what = `clipFromThree("${clip?.name}", ${asset?.source})`
  if (typeof clip !== 'object' || clip === null || !Array.isArray(clip.tracks)) {
    throw new AnimationError('argument', `clipFromThree: ${String(clip)} is not a THREE.AnimationClip`)
  }
  const map = options.map ?? {}
  const nodeOf = nodeLookup(asset)
  const channels: RawChannel[] = []
  const taken = new Map<string, KeyframeTrack>()
  clip.tracks.forEach((track, t) => {
    const parsed = PropertyBinding.parseTrackName(track.name)
    const path = PATHS[parsed.propertyName]
    if (path === undefined || parsed.propertyIndex !== undefined) return
    const at = `${what}: track ${t} "${track.name}"`
    const interpolation = interpolationOf(track, at)
    const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1
    const components = track.values.length / (track.times.length * perKey)
    const node = nodeOf(map[parsed.nodeName] ?? parsed.nodeName, path === 'weights' ? components : 0)
    if (node === undefined) return
    const key = `${node}/${path}`
    const first = taken.get(key)
    if (first !== undefined) {
      // GLTFLoader gives each primitive of a mesh with morph targets its own track, all with the same keys.
      if (sameKeys(first, track)) return
      throw new AnimationError('argument', `${at}: a second track for ${asset.nodes[node]!.name}.${path}`)
    }
    taken.set(key, track)
    channels.push({
      node,
      nodeName: asset.nodes[node]!.name,
      path,
      interpolation,
      times: track.times,
      values: track.values,
      ...(path === 'weights' ? { components } : {}),
    })
  })
  if (channels.length === 0) {
    const names = clip.tracks.slice(0, 4).map((track) => `"${track.name}"`)
    throw new AnimationError(
      'argument',
      `${what}: none of its ${clip.tracks.length} tracks (${names.join(', ')}${clip.tracks.length > 4 ? ', …' : ''}) ` +
        `animates a node of ${asset.source} by name (map names that differ with options.map)`,
    )
  }
  try {
    return buildClip({ name: clip.name, channels }, { nodeCount: asset.nodes.length })
  } catch (error) {
    if (!(error instanceof AnimationError)) throw error
    throw new AnimationError(error.kind, `${what}: ${error.message}`, { cause: error })
  }
}

/**
 * The node a track's node name means, given the morph target count of a `weights` track (0 for the others):
 * the first node of that name, else the first whose name GLTFLoader would give it (sanitized, and numbered
 * `_1`, `_2`, … after the first of equal names, in node order), else, for weights, the first node with that
 * many morph targets named as the track without its number (GLTFLoader names each primitive of a mesh apart).
 */
function nodeLookup(asset: AnimationAsset): (name: string, morphTargets: number) => number | undefined {
  const exact = new Map<string, number[]>()
  const unique = new Map<string, number>()
  const used = new Map<string, number>()
  const add = (map: Map<string, number[]>, name: string, node: number): void => {
    const list = map.get(name)
    if (list) list.push(node)
    else map.set(name, [node])
  }
  for (const node of asset.nodes) {
    add(exact, node.name, node.index)
    const clean = PropertyBinding.sanitizeNodeName(node.name)
    const n = used.get(clean)
    used.set(clean, n === undefined ? 0 : n + 1)
    unique.set(n === undefined ? clean : `${clean}_${n + 1}`, node.index)
  }
  const fits = (node: number, morphTargets: number): boolean =>
    morphTargets === 0 || asset.nodes[node]!.weights.length === morphTargets
  return (name, morphTargets) => {
    const own = exact.get(name)?.find((node) => fits(node, morphTargets))
    if (own !== undefined) return own
    const named = unique.get(name)
    if (named !== undefined && fits(named, morphTargets)) return named
    if (morphTargets === 0) return undefined
    const base = name.replace(/_\d+$/, '')
    for (const [each, node] of unique) {
      if (each.replace(/_\d+$/, '') === base && fits(node, morphTargets)) return node
    }
    return undefined
  }
}

function sameKeys(a: KeyframeTrack, b: KeyframeTrack): boolean {
  const same = (x: ArrayLike<number>, y: ArrayLike<number>): boolean =>
    x.length === y.length && Array.prototype.every.call(x, (v: number, i: number) => v === y[i])
  return same(a.times, b.times) && same(a.values, b.values)
}

function interpolationOf(track: KeyframeTrack, at: string): RawChannel['interpolation'] {
  // GLTFLoader marks the interpolant factory it installs on its CUBICSPLINE tracks.
  const factory = (track as { createInterpolant?: { isInterpolantFactoryMethodGLTFCubicSpline?: boolean } })
    .createInterpolant
  if (factory?.isInterpolantFactoryMethodGLTFCubicSpline === true) return 'CUBICSPLINE'
  const mode = track.getInterpolation()
  if (mode === InterpolateLinear) return 'LINEAR'
  if (mode === InterpolateDiscrete) return 'STEP'
  throw new AnimationError(
    'argument',
    `${at}: interpolation ${mode} (InterpolateSmooth) has no glTF equivalent: resample the track to linear keys`,
  )
}
