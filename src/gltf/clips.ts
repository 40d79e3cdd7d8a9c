import type { Accessor, Animation, GLTF, Node } from '@gltf-transform/core'
import type { Clip, RawChannel } from '../clip/clip.ts'
import { buildClip, clipWithChannels } from '../clip/clip.ts'
import { AnimationError } from '../errors.ts'
import type { AccessorData } from './accessorData.ts'
import { animationCopies } from './animationCopies.ts'
import { gltfError, shown } from './gltfError.ts'

/** What a clip needs to know about the asset's nodes. */
export interface ClipContext {
  source: string
  /** The asset's node count. */
  nodeCount: number
  /** Names as the asset reports them (unnamed nodes: `node<i>`). */
  nodeNames: readonly string[]
  /** Morph target count of each node's mesh (0 without a mesh or targets). */
  morphTargets: readonly number[]
}

/** Element type each path's output accessor must have (glTF 2.0 §3.11). */
const OUTPUT_TYPE: Record<string, string> = {
  translation: 'VEC3',
  rotation: 'VEC4',
  scale: 'VEC3',
  weights: 'SCALAR',
}

/**
 * One channel of a glTF animation as either source gives it: `node` its glTF index (-1: a node the Document
 * does not hold), `input` and `output` null when its sampler lacks them.
 */
interface ChannelSource {
  node: number
  path: string
  interpolation: string
  input: AccessorData | null
  output: AccessorData | null
}

/**
 * The clips of a file's animations, from its JSON (checked by checkGltfJson) and `accessor` (accessorData.ts).
 * An animation whose channels are an earlier one's (the same nodes, paths, accessors and interpolations, in
 * the same order: animationCopies) gets that clip's channels, not built again, under its own name and markers.
 */
export function clipsFromJson(
  json: GLTF.IGLTF,
  accessor: (index: number) => AccessorData,
  context: ClipContext,
): Clip[] {
  const animations = json.animations ?? []
  const firstOf = animationCopies(json)
  const clips: Clip[] = []
  animations.forEach((animation, a) => {
    const name = animation.name || `animation${a}`
    if (firstOf[a] !== a) {
      const where = `animation ${a} "${name}"`
      const markers = markersOf(animation.extras, (what) => {
        throw gltfError(context.source, `${where}: ${what}`)
      })
      clips.push(withSource(context, where, () => clipWithChannels(clips[firstOf[a]!]!, name, markers)))
      return
    }
    const sources: ChannelSource[] = []
    for (const channel of animation.channels) {
      const node = channel.target.node
      // A channel without a target node is an extension's business (glTF 2.0 §5.6): skipped.
      if (node === undefined) continue
      const sampler = animation.samplers[channel.sampler]!
      sources.push({
        node,
        path: channel.target.path,
        interpolation: sampler.interpolation ?? 'LINEAR',
        input: accessor(sampler.input),
        output: accessor(sampler.output),
      })
    }
    clips.push(clipFromSources(name, a, sources, animation.extras, context))
  })
  return clips
}

/**
 * One Clip per glTF animation of a Document (assetFromDocument), named after it (`animation<i>` when unnamed).
 * Channels without a target node are skipped; `nodeIndex` gives each target's glTF index.
 */
export function clipFromAnimation(
  animation: Animation,
  index: number,
  nodeIndex: ReadonlyMap<Node, number>,
  context: ClipContext,
): Clip {
  const sources: ChannelSource[] = []
  for (const channel of animation.listChannels()) {
    const target = channel.getTargetNode()
    if (!target) continue
    const sampler = channel.getSampler()
    const input = sampler?.getInput()
    const output = sampler?.getOutput()
    sources.push({
      node: nodeIndex.get(target) ?? -1,
      path: channel.getTargetPath() ?? '',
      interpolation: sampler?.getInterpolation() ?? 'LINEAR',
      input: input ? accessorData(input) : null,
      output: output ? accessorData(output) : null,
    })
  }
  return clipFromSources(
    animation.getName() || `animation${index}`,
    index,
    sources,
    animation.getExtras(),
    context,
  )
}

function accessorData(accessor: Accessor): AccessorData {
  return {
    // No glTF component type makes a Float16Array.
    array: (accessor.getArray() ?? new Float32Array(0)) as AccessorData['array'],
    type: accessor.getType(),
    componentType: accessor.getComponentType(),
    normalized: accessor.getNormalized(),
  }
}

/**
 * The clip of one animation's channels. Errors from `buildClip` (kind 'clip') keep their kind and gain the
 * source as a prefix; accessor problems are kind 'gltf'. Channels are numbered as the source lists them.
 */
function clipFromSources(
  name: string,
  index: number,
  sources: readonly ChannelSource[],
  extras: unknown,
  context: ClipContext,
): Clip {
  const where = `animation ${index} "${name}"`
  const fail = (what: string): never => {
    throw gltfError(context.source, `${where}: ${what}`)
  }
  const channels: RawChannel[] = []
  // "node/path" → its first channel: an animation must not drive one property twice (glTF 2.0 §3.11).
  const targets = new Map<string, number>()
  sources.forEach((source, c) => {
    const { node, path, input, output } = source
    if (node < 0) return fail(`channel ${c} targets a node that is not in the document`)
    const first = targets.get(`${node}/${path}`)
    if (first !== undefined) {
      fail(`channels ${first} and ${c} both animate ${context.nodeNames[node]}.${path} (node ${node})`)
    }
    targets.set(`${node}/${path}`, c)
    if (!input || !output) return fail(`channel ${c} has no sampler with input and output accessors`)
    const at = `channel ${c} (${context.nodeNames[node]}.${path})`

    if (input.type !== 'SCALAR' || input.componentType !== FLOAT) {
      fail(`${at}: input (key times) must be FLOAT SCALAR, got ${describeAccessor(input)}`)
    }
    const expectedType = OUTPUT_TYPE[path]
    if (expectedType !== undefined && output.type !== expectedType) {
      fail(`${at}: output must be ${expectedType} for ${path}, got ${describeAccessor(output)}`)
    }
    let components: number | undefined
    if (path === 'weights') {
      components = context.morphTargets[node]!
      if (components === 0) fail(`${at}: animates weights, but node ${node} has no morph targets`)
    }
    channels.push({
      node,
      nodeName: context.nodeNames[node]!,
      path,
      interpolation: source.interpolation,
      times: input.array,
      values: decodeOutput(output, path, (what) => fail(`${at}: ${what}`)),
      components,
    })
  })
  const markers = markersOf(extras, fail)
  return withSource(context, where, () =>
    buildClip({ name, channels, markers }, { nodeCount: context.nodeCount }),
  )
}

/** `make()`, its AnimationError (kind 'clip') prefixed with the source and the animation. */
function withSource(context: ClipContext, where: string, make: () => Clip): Clip {
  try {
    return make()
  } catch (error) {
    if (error instanceof AnimationError) {
      throw new AnimationError(error.kind, `${context.source}: ${where}: ${error.message}`, { cause: error })
    }
    throw error
  }
}

const FLOAT = 5126

/**
 * The markers of a glTF animation, by this library's convention: its `extras` object's `markers` array, each
 * `{ "name": "footstep", "time": 0.25 }` (a non-empty name, seconds into the clip, in [0, duration]; other
 * keys are ignored):
 *
 *   "animations": [{ "name": "Walk", "channels": [ … ], "samplers": [ … ],
 *                    "extras": { "markers": [{ "name": "footstep", "time": 0.25 }, { "name": "footstep", "time": 0.6 }] } }]
 *
 * No `extras`, or no `markers` in it, means none. A `markers` that is not an array of such objects throws (kind
 * 'gltf'); buildClip checks the names and times (kind 'clip').
 */
function markersOf(extras: unknown, fail: (what: string) => never): { name: string; time: number }[] {
  if (typeof extras !== 'object' || extras === null) return []
  const markers = (extras as { markers?: unknown }).markers
  if (markers === undefined) return []
  if (!Array.isArray(markers)) return fail(`extras.markers is ${shown(markers)}, not an array`)
  return markers.map((m: unknown, i) => {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) {
      return fail(`extras.markers[${i}] is ${shown(m)}, not an object { name, time }`)
    }
    const { name, time } = m as { name?: unknown; time?: unknown }
    return { name: name as string, time: time as number }
  })
}

/**
 * Output values as floats. gltf-transform's `getArray()` gives the stored integers of a normalized accessor
 * as they are; they are mapped to [-1, 1] / [0, 1] here (glTF 2.0 §3.11, "Animations"):
 *
 *   BYTE  f = max(c / 127, -1)     UNSIGNED_BYTE  f = c / 255
 *   SHORT f = max(c / 32767, -1)   UNSIGNED_SHORT f = c / 65535
 *
 * Rotation and weights accept FLOAT or those four normalized types. Translation and scale also accept
 * non-normalized BYTE/UNSIGNED_BYTE/SHORT/UNSIGNED_SHORT as plain numbers (KHR_mesh_quantization).
 */
function decodeOutput(accessor: AccessorData, path: string, fail: (what: string) => never): Float32Array {
  const raw = accessor.array
  const type = accessor.componentType
  if (type === FLOAT) return raw as Float32Array
  const scale = NORMALIZED_DIVISOR[type]
  if (scale === undefined) return fail(`output must not be ${describeAccessor(accessor)}`)
  const out = new Float32Array(raw.length)
  if (!accessor.normalized) {
    if (path !== 'translation' && path !== 'scale') {
      return fail(`output for ${path} must be FLOAT or normalized, got ${describeAccessor(accessor)}`)
    }
    for (let i = 0; i < raw.length; i++) out[i] = raw[i]!
    return out
  }
  for (let i = 0; i < raw.length; i++) out[i] = Math.max(raw[i]! / scale, -1)
  return out
}

/** Divisor for a normalized integer, by glTF componentType (BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT). */
const NORMALIZED_DIVISOR: Record<number, number> = { 5120: 127, 5121: 255, 5122: 32767, 5123: 65535 }

const COMPONENT_NAMES: Record<number, string> = {
  5120: 'BYTE',
  5121: 'UNSIGNED_BYTE',
  5122: 'SHORT',
  5123: 'UNSIGNED_SHORT',
  5125: 'UNSIGNED_INT',
  5126: 'FLOAT',
}

function describeAccessor(accessor: AccessorData): string {
  const type = accessor.componentType
  const normalized = accessor.normalized ? 'normalized ' : ''
  return `${normalized}${COMPONENT_NAMES[type] ?? `componentType ${type}`} ${accessor.type}`
}
