/**
 * The fuzzer's subjects: every asset of ASSET_FILES taken apart once (glTF JSON + one byte array per buffer),
 * with what the mutations aim at (float layouts, animation and skin accessors, every JSON location). Part of
 * the loader fuzzer's engine, test/helpers/mutate.ts.
 */
import type { Json } from '../gltfFiles.ts'
import { ASSET_FILES, readRaw } from '../gltfFiles.ts'
import type { Container, Path } from '../mutate.ts'

/** One asset file, parsed once; mutations start from a copy of it. */
export interface Subject {
  file: string
  container: Container
  /**
   * The JSON as in the file, except embedded buffers' uris hold a placeholder (`BUFFER_URI(i)`) until
   * written.
   */
  json: Json
  buffers: Uint8Array[]
  /**
   * Byte offset (in its buffer) and stride of every plain FLOAT accessor, for data edits; undefined
   * otherwise.
   */
  floatLayout: (
    { buffer: number; offset: number; stride: number; components: number; count: number } | undefined
  )[]
  animationInputs: number[]
  /** Output accessors with their channel's path (rotation keys are edited differently). */
  animationOutputs: { accessor: number; path: string; interpolation: string }[]
  ibmAccessors: number[]
  /** Every JSON location, root-first (objects, arrays and leaves), for untargeted edits. */
  paths: Path[]
  /** The object locations among `paths`. */
  objectPaths: Path[]
  /** Required glTF properties present in this file (glTF 2.0 schema), for deletions. */
  requiredPaths: Path[]
  /** Parent node index of each node (-1: root), for cycle-making edits. */
  parents: number[]
}

export const placeholder = (i: number): string => `data:application/octet-stream;base64,@@BUFFER${i}@@`

function makeSubject(file: string): Subject {
  const raw = readRaw(file)
  const json = structuredClone(raw.json)
  let container: Container = 'glb'
  if (file.endsWith('.gltf')) {
    const embedded = (json.buffers ?? []).every((b: Json) => String(b.uri).startsWith('data:'))
    container = embedded ? 'embedded' : 'external'
    if (embedded) json.buffers.forEach((b: Json, i: number) => (b.uri = placeholder(i)))
  }
  const inputs = new Set<number>()
  const outputs = new Map<number, { accessor: number; path: string; interpolation: string }>()
  for (const animation of json.animations ?? []) {
    for (const channel of animation.channels) {
      const sampler = animation.samplers[channel.sampler]
      inputs.add(sampler.input)
      outputs.set(sampler.output, {
        accessor: sampler.output,
        path: channel.target.path,
        interpolation: sampler.interpolation ?? 'LINEAR',
      })
    }
  }
  const parents = new Array<number>(json.nodes?.length ?? 0).fill(-1)
  ;(json.nodes ?? []).forEach((node: Json, i: number) => {
    for (const c of node.children ?? []) parents[c] = i
  })
  const paths: Path[] = []
  const objectPaths: Path[] = []
  const walk = (value: Json, path: Path): void => {
    paths.push(path)
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]))
    else if (value !== null && typeof value === 'object') {
      objectPaths.push(path)
      for (const [k, v] of Object.entries(value)) if (k !== 'uri') walk(v, [...path, k])
    }
  }
  walk(json, [])
  return {
    file,
    container,
    json,
    buffers: raw.buffers,
    floatLayout: (json.accessors ?? []).map((a: Json) => floatLayout(json, a)),
    animationInputs: [...inputs].sort((a, b) => a - b),
    animationOutputs: [...outputs.values()].sort((a, b) => a.accessor - b.accessor),
    ibmAccessors: (json.skins ?? [])
      .map((s: Json) => s.inverseBindMatrices)
      .filter((i: unknown) => typeof i === 'number'),
    paths,
    objectPaths,
    requiredPaths: requiredPaths(json),
    parents,
  }
}

export const COMPONENTS: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
}

function floatLayout(json: Json, accessor: Json): Subject['floatLayout'][number] {
  if (accessor.componentType !== 5126 || accessor.bufferView === undefined || accessor.sparse)
    return undefined
  const view = json.bufferViews[accessor.bufferView]
  const components = COMPONENTS[accessor.type]!
  return {
    buffer: view.buffer,
    offset: (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0),
    stride: view.byteStride ?? 4 * components,
    components,
    count: accessor.count,
  }
}

/** Required properties by the glTF 2.0 JSON schema, as paths into this file. */
function requiredPaths(json: Json): Path[] {
  const out: Path[] = [['asset'], ['asset', 'version']]
  const each = (key: string, fields: string[]): void =>
    (json[key] ?? []).forEach((item: Json, i: number) => {
      for (const f of fields) if (item[f] !== undefined) out.push([key, i, f])
    })
  each('accessors', ['componentType', 'count', 'type'])
  each('bufferViews', ['buffer', 'byteLength'])
  each('buffers', ['byteLength'])
  each('skins', ['joints'])
  each('meshes', ['primitives'])
  ;(json.animations ?? []).forEach((a: Json, i: number) => {
    out.push(['animations', i, 'channels'], ['animations', i, 'samplers'])
    a.channels.forEach((_: Json, c: number) =>
      out.push(
        ['animations', i, 'channels', c, 'sampler'],
        ['animations', i, 'channels', c, 'target'],
        ['animations', i, 'channels', c, 'target', 'path'],
      ),
    )
    a.samplers.forEach((_: Json, s: number) =>
      out.push(['animations', i, 'samplers', s, 'input'], ['animations', i, 'samplers', s, 'output']),
    )
  })
  return out
}

let subjects: Subject[] | undefined
/** Every asset file of ASSET_FILES, parsed (cached). */
export function loadSubjects(): readonly Subject[] {
  subjects ??= ASSET_FILES.map(makeSubject)
  return subjects
}
