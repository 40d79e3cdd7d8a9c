/**
 * three.js as an independent oracle for clip sampling.
 *
 * The file is parsed by three's own GLTFLoader and sampled by three's AnimationMixer; nothing under src/ is used.
 * Results are read back from the three objects that stand for glTF nodes (found through
 * `gltf.parser.associations`), so the whole three path is exercised: track building, interpolants, the mixer's
 * time clamping and property bindings.
 *
 * What three does, so that a difference can be told from a quirk:
 * - KeyframeTrack times and values are Float32Array (the file's float32 data, unchanged); the arithmetic and the
 *   mixer's result buffer are float64.
 * - Clip duration is the latest key time over all tracks (AnimationClip.resetDuration).
 * - LoopOnce: a time below 0 clamps to 0 and a time above the duration clamps to the duration.
 * - Before the first key an interpolant returns key 0; at or after the last key, the last key. STEP at exactly a
 *   key time returns that key. CUBICSPLINE before/after returns the key's value (not a tangent).
 * - LINEAR rotation: Quaternion.slerpFlat on the file's keys as stored (three does not normalize them), short
 *   arc, normalized lerp when cos > 0.9995. CUBICSPLINE rotation: Hermite per component, then normalized.
 * - Morph weights are bound to the node's mesh(es) `morphTargetInfluences`, not to the node.
 *
 * One deliberate change to what three is fed, on by default (`unitRotationKeys`): rotation keys (the value
 * elements of CUBICSPLINE triplets) are normalized before sampling. Files store unit quaternions rounded to a few
 * digits (SimpleSkin and AnimatedTriangle have `[0, 0, 0.707, 0.707]`, length 1 − 1.5e-4) and three slerps them
 * as stored, so its output is off the spec's unit-quaternion slerp by up to 2.1e-4 (measured) and is not unit
 * length. The spec says rotation outputs are unit quaternions, and the project normalizes at load; normalizing
 * here compares the sampling, not this quirk. Pass `unitRotationKeys: false` to see three as it is.
 *
 * Node 20 has no `self`, `ProgressEvent` or image decoding:
 * - `globalThis.self` is set to `globalThis` (GLTFLoader reads `self.URL` for embedded images); the texture then
 *   fails to decode and GLTFLoader logs "Couldn't load texture"; that one message is swallowed, others pass.
 * - A .gltf is repacked in memory into a .glb (its buffers, from data: URIs or sibling files, concatenated into the
 *   BIN chunk) because GLTFLoader's FileLoader needs `ProgressEvent` to fetch them.
 */
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  AnimationMixer,
  LoopOnce,
  QuaternionKeyframeTrack,
  type AnimationAction,
  type AnimationClip,
  type Object3D,
} from 'three'
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'

/** One node's local transform as three holds it. Rotation is `[x, y, z, w]`. */
export interface OracleTransform {
  node: number
  translation: number[]
  rotation: number[]
  scale: number[]
  /** Present only for nodes whose weights the clip animates. */
  weights?: number[]
}

export interface OracleClip {
  /** Index of the glTF animation. */
  index: number
  /** Name from the file, '' when unnamed (three itself calls it `animation_<i>`). */
  fileName: string
  /** three's AnimationClip.duration, seconds. */
  duration: number
  /** glTF node indices the clip animates (any path), ascending. */
  nodes: number[]
  /** glTF node indices whose weights the clip animates. */
  weightNodes: Set<number>
}

export interface ThreeOracle {
  /** Node names as written in the file ('' when unnamed), by glTF node index. */
  nodeNames: string[]
  clips: OracleClip[]
  /** Samples clip `clipIndex` at `time` seconds (LoopOnce, clamped) and reads every animated node back. */
  sample(clipIndex: number, time: number): OracleTransform[]
}

interface GltfJson {
  nodes?: { name?: string; mesh?: number }[]
  animations?: { name?: string; channels: { target: { node?: number; path: string } }[] }[]
  buffers?: { uri?: string; byteLength: number }[]
  bufferViews?: { buffer: number; byteOffset?: number }[]
}

export interface ThreeOracleOptions {
  /** Normalize rotation keys before three samples them (see the header). Default true. */
  unitRotationKeys?: boolean
}

export async function loadThreeOracle(path: string, options: ThreeOracleOptions = {}): Promise<ThreeOracle> {
  const glb = path.endsWith('.glb') ? await readFile(path) : await packGltfAsGlb(path)
  const gltf = await parseQuietly(toArrayBuffer(glb))
  if (options.unitRotationKeys ?? true) for (const clip of gltf.animations) normalizeRotationKeys(clip)
  const json = gltf.parser.json as GltfJson

  const objects = nodeObjects(gltf, json.nodes?.length ?? 0)
  const mixer = new AnimationMixer(gltf.scene)
  const clips: OracleClip[] = []
  const actions: AnimationAction[] = []
  for (const [index, clip] of gltf.animations.entries()) {
    const def = json.animations?.[index]
    if (!def) throw new Error(`${path}: three produced animation ${index}, the file has no such animation`)
    const animated = new Set<number>()
    const weightNodes = new Set<number>()
    for (const ch of def.channels) {
      if (ch.target.node === undefined) continue
      animated.add(ch.target.node)
      if (ch.target.path === 'weights') weightNodes.add(ch.target.node)
    }
    clips.push({
      index,
      fileName: def.name ?? '',
      duration: clip.duration,
      nodes: [...animated].sort((a, b) => a - b),
      weightNodes,
    })
    const action = mixer.clipAction(clip)
    action.setLoop(LoopOnce, 1)
    action.clampWhenFinished = true
    actions.push(action)
  }

  const sample = (clipIndex: number, time: number): OracleTransform[] => {
    const clip = clips[clipIndex]
    const action = actions[clipIndex]
    if (!clip || !action) throw new Error(`${path}: no clip ${clipIndex}`)
    // Stopping every action gives every bound property back its rest value and forgets the last sample, so a
    // sample never depends on the one before (the mixer skips writing a value equal to its previous result).
    mixer.stopAllAction()
    action.play()
    // From a reset action (time 0), one update of `time` seconds: three's LoopOnce clamps it into [0, duration].
    mixer.update(time)
    return clip.nodes.map((node) => readTransform(objects, node, clip.weightNodes.has(node), path))
  }

  return { nodeNames: (json.nodes ?? []).map((n) => n.name ?? ''), clips, sample }
}

/** Normalizes, in place, every rotation key of the clip's quaternion tracks (for CUBICSPLINE, the value elements). */
export function normalizeRotationKeys(clip: AnimationClip): void {
  for (const track of clip.tracks) {
    if (!(track instanceof QuaternionKeyframeTrack)) continue
    // GLTFLoader marks its CUBICSPLINE tracks on the factory it installs (the values are [in, value, out] triplets).
    const factory = (track as { createInterpolant?: { isInterpolantFactoryMethodGLTFCubicSpline?: boolean } })
      .createInterpolant
    const cubic = factory?.isInterpolantFactoryMethodGLTFCubicSpline === true
    const values = track.values
    for (let e = 0; e < values.length / 4; e++) {
      if (cubic && e % 3 !== 1) continue
      const o = e * 4
      const len = Math.hypot(values[o]!, values[o + 1]!, values[o + 2]!, values[o + 3]!)
      for (let j = 0; j < 4; j++) values[o + j] = values[o + j]! / len
    }
  }
}

function readTransform(
  objects: Object3D[],
  node: number,
  withWeights: boolean,
  path: string,
): OracleTransform {
  const object = objects[node]!
  const out: OracleTransform = {
    node,
    translation: object.position.toArray(),
    rotation: object.quaternion.toArray(),
    scale: object.scale.toArray(),
  }
  if (withWeights) {
    const holders = morphHolders(object)
    const first = holders[0]
    if (!first) throw new Error(`${path}: node ${node} has animated weights but no mesh with morph targets`)
    out.weights = [...first]
    for (const h of holders) {
      if (h.length !== first.length || h.some((w, i) => w !== first[i])) {
        throw new Error(`${path}: node ${node}: its primitives hold different morph weights`)
      }
    }
  }
  return out
}

/** The morph weight arrays three binds a node's `weights` to: the node itself if it is a mesh, else its primitives. */
function morphHolders(object: Object3D): number[][] {
  const own = (object as { morphTargetInfluences?: number[] }).morphTargetInfluences
  if (own) return [own]
  const out: number[][] = []
  for (const child of object.children) {
    const w = (child as { morphTargetInfluences?: number[] }).morphTargetInfluences
    if (w) out.push(w)
  }
  return out
}

/** glTF node index → the three object standing for it, from the loader's own association map. */
function nodeObjects(gltf: GLTF, count: number): Object3D[] {
  const objects: (Object3D | undefined)[] = new Array(count)
  for (const [object, mapping] of gltf.parser.associations) {
    const node = (mapping as { nodes?: number } | undefined)?.nodes
    if (node === undefined || !(object as Object3D).isObject3D) continue
    if (objects[node]) throw new Error(`node ${node} maps to two three objects`)
    objects[node] = object as Object3D
  }
  for (let i = 0; i < count; i++) if (!objects[i]) throw new Error(`node ${i} has no three object`)
  return objects as Object3D[]
}

async function parseQuietly(data: ArrayBuffer): Promise<GLTF> {
  const g = globalThis as { self?: unknown }
  if (g.self === undefined) g.self = globalThis
  const error = console.error
  console.error = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith("THREE.GLTFLoader: Couldn't load texture")) return
    error(...args)
  }
  try {
    return await new GLTFLoader().parseAsync(data, '')
  } finally {
    console.error = error
  }
}

/**
 * Repacks a .gltf and its buffers (data: URIs or files beside it) into one .glb: the buffers are concatenated,
 * each at a 4-byte aligned offset, and every bufferView is pointed into the result. Images are left as they are.
 *
 *   | header 12 | JSON chunk: len, 'JSON', json padded with spaces | BIN chunk: len, 'BIN\0', buffers padded |
 */
export async function packGltfAsGlb(path: string): Promise<Buffer> {
  const json = JSON.parse(await readFile(path, 'utf8')) as GltfJson
  const parts: Buffer[] = []
  const starts: number[] = []
  let size = 0
  for (const buffer of json.buffers ?? []) {
    const uri = buffer.uri
    if (uri === undefined) throw new Error(`${path}: a buffer without uri (only a .glb has one)`)
    const bytes = uri.startsWith('data:')
      ? Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64')
      : await readFile(join(dirname(path), decodeURIComponent(uri)))
    if (bytes.length < buffer.byteLength) throw new Error(`${path}: buffer ${uri.slice(0, 40)} is short`)
    starts.push(size)
    parts.push(bytes, Buffer.alloc(pad4(bytes.length) - bytes.length))
    size += pad4(bytes.length)
  }
  for (const view of json.bufferViews ?? []) {
    view.byteOffset = (view.byteOffset ?? 0) + starts[view.buffer]!
    view.buffer = 0
  }
  json.buffers = [{ byteLength: size }]
  const text = Buffer.from(JSON.stringify(json), 'utf8')
  const jsonChunk = Buffer.concat([text, Buffer.alloc(pad4(text.length) - text.length, 0x20)])
  const bin = Buffer.concat(parts)
  const header = Buffer.alloc(12)
  header.writeUInt32LE(0x46546c67, 0) // 'glTF'
  header.writeUInt32LE(2, 4)
  header.writeUInt32LE(12 + 8 + jsonChunk.length + 8 + bin.length, 8)
  return Buffer.concat([
    header,
    chunkHeader(jsonChunk.length, 0x4e4f534a),
    jsonChunk,
    chunkHeader(bin.length, 0x004e4942),
    bin,
  ])
}

function chunkHeader(length: number, type: number): Buffer {
  const b = Buffer.alloc(8)
  b.writeUInt32LE(length, 0)
  b.writeUInt32LE(type, 4)
  return b
}

function pad4(n: number): number {
  return (n + 3) & ~3
}

function toArrayBuffer(b: Buffer): ArrayBuffer {
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
}
