import type { Accessor, Animation, Node } from '@gltf-transform/core'
import type { Clip, RawChannel } from '../clip/clip.ts'
import { buildClip } from '../clip/clip.ts'
import { AnimationError } from '../errors.ts'
import { gltfError, shown } from './gltfError.ts'

/** What a clip needs to know about the asset's nodes. */
export interface ClipContext {
  source: string
  /** glTF node index of every Node in the Document (a file's are only those animations and skins name). */
  nodeIndex: ReadonlyMap<Node, number>
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
 * One Clip per glTF animation, named after it (`animation<i>` when unnamed). Channels without a target node
 * (an extension's business, glTF 2.0 §5.6) are skipped. Errors from `buildClip` (kind 'clip') keep their kind
 * and gain the source as a prefix; accessor problems are kind 'gltf'.
 */
export function clipFromAnimation(animation: Animation, index: number, context: ClipContext): Clip {
  const name = animation.getName() || `animation${index}`
  const where = `animation ${index} "${name}"`
  const fail = (what: string): never => {
    throw gltfError(context.source, `${where}: ${what}`)
  }
  const channels: RawChannel[] = []
  // "node/path" → its first channel: an animation must not drive one property twice (glTF 2.0 §3.11).
  const targets = new Map<string, number>()
  animation.listChannels().forEach((channel, c) => {
    const target = channel.getTargetNode()
    if (!target) return
    const node = context.nodeIndex.get(target)
    if (node === undefined) return fail(`channel ${c} targets a node that is not in the document`)
    const path = channel.getTargetPath() ?? ''
    const first = targets.get(`${node}/${path}`)
    if (first !== undefined) {
      fail(`channels ${first} and ${c} both animate ${context.nodeNames[node]}.${path} (node ${node})`)
    }
    targets.set(`${node}/${path}`, c)
    const sampler = channel.getSampler()
    const input = sampler?.getInput()
    const output = sampler?.getOutput()
    if (!sampler || !input || !output)
      return fail(`channel ${c} has no sampler with input and output accessors`)
    const at = `channel ${c} (${context.nodeNames[node]}.${path})`

    if (input.getType() !== 'SCALAR' || input.getComponentType() !== FLOAT) {
      fail(`${at}: input (key times) must be FLOAT SCALAR, got ${describeAccessor(input)}`)
    }
    const expectedType = OUTPUT_TYPE[path]
    if (expectedType !== undefined && output.getType() !== expectedType) {
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
      interpolation: sampler.getInterpolation(),
      times: input.getArray() ?? new Float32Array(0),
      values: decodeOutput(output, path, (what) => fail(`${at}: ${what}`)),
      components,
    })
  })
  const markers = markersOf(animation.getExtras(), fail)
  try {
    return buildClip({ name, channels, markers }, { nodeCount: context.nodeCount })
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
function decodeOutput(accessor: Accessor, path: string, fail: (what: string) => never): Float32Array {
  const raw = accessor.getArray()
  if (!raw) return fail('output accessor has no data')
  const type = accessor.getComponentType()
  if (type === FLOAT) return raw as Float32Array
  const scale = NORMALIZED_DIVISOR[type]
  if (scale === undefined) return fail(`output must not be ${describeAccessor(accessor)}`)
  const out = new Float32Array(raw.length)
  if (!accessor.getNormalized()) {
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

function describeAccessor(accessor: Accessor): string {
  const type = accessor.getComponentType()
  const normalized = accessor.getNormalized() ? 'normalized ' : ''
  return `${normalized}${COMPONENT_NAMES[type] ?? `componentType ${type}`} ${accessor.getType()}`
}
