/**
 * Test-side access to the shared glTF assets, written without gltf-transform or src/gltf so the loader can be
 * checked against an independent reading: a GLB splitter/joiner, raw buffer resolution and raw accessor reads.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

export const ASSETS = 'assets'

/** Every asset file the loader must read, relative to ASSETS. */
export const ASSET_FILES = [
  'InterpolationTest/glTF-Binary/InterpolationTest.glb',
  'InterpolationTest/glTF/InterpolationTest.gltf',
  'SimpleSkin/glTF/SimpleSkin.gltf',
  'SimpleSkin/glTF-Embedded/SimpleSkin.gltf',
  'RiggedSimple/glTF-Binary/RiggedSimple.glb',
  'RiggedSimple/glTF/RiggedSimple.gltf',
  'RiggedFigure/glTF-Binary/RiggedFigure.glb',
  'Fox/glTF-Binary/Fox.glb',
  'Fox/glTF/Fox.gltf',
  'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb',
  'BoxAnimated/glTF-Binary/BoxAnimated.glb',
  'AnimatedTriangle/glTF/AnimatedTriangle.gltf',
  'AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf',
] as const

/** Pairs of files holding the same model in two containers. */
export const SAME_MODEL_PAIRS: [string, string][] = [
  ['InterpolationTest/glTF-Binary/InterpolationTest.glb', 'InterpolationTest/glTF/InterpolationTest.gltf'],
  ['SimpleSkin/glTF/SimpleSkin.gltf', 'SimpleSkin/glTF-Embedded/SimpleSkin.gltf'],
  ['RiggedSimple/glTF-Binary/RiggedSimple.glb', 'RiggedSimple/glTF/RiggedSimple.gltf'],
  ['Fox/glTF-Binary/Fox.glb', 'Fox/glTF/Fox.gltf'],
  ['AnimatedTriangle/glTF/AnimatedTriangle.gltf', 'AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf'],
]

export function assetPath(file: string): string {
  return join(ASSETS, file)
}

export interface ManifestChannel {
  node: string
  path: string
  interp: string
  keys: number
  outCount: number
}
export interface ManifestAnimation {
  name: string
  channels: number
  duration: number
  channelDetail: ManifestChannel[]
}
export interface ManifestAsset {
  file: string
  skins: { name: string; joints: number; skeleton: string | null }[]
  maxMorphTargets: number
  animations: ManifestAnimation[]
}

/** The manifest's entry for one file (written by another tool: an independent source of truth). */
export function manifestEntry(file: string): ManifestAsset {
  const manifest = JSON.parse(readFileSync(join(ASSETS, 'manifest.json'), 'utf8')) as Record<
    string,
    { assets: ManifestAsset[] }
  >
  for (const model of Object.values(manifest)) {
    const entry = model.assets.find((asset) => asset.file === file)
    if (entry) return entry
  }
  throw new Error(`manifest.json has no entry for ${file}`)
}

// ---- GLB container, written from the spec (glTF 2.0 §4.4) ----

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Json = any

export function splitGlb(bytes: Uint8Array): { json: Json; bin: Uint8Array | null } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== 0x46546c67) throw new Error('not a GLB')
  const jsonLength = view.getUint32(12, true)
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)))
  const binStart = 20 + jsonLength
  if (binStart >= bytes.length) return { json, bin: null }
  const binLength = view.getUint32(binStart, true)
  return { json, bin: bytes.subarray(binStart + 8, binStart + 8 + binLength) }
}

/** A GLB from JSON and an optional BIN chunk (glbFromText). */
export function joinGlb(json: Json, bin: Uint8Array | null): Uint8Array {
  return glbFromText(new TextEncoder().encode(JSON.stringify(json)), bin)
}

/**
 * A GLB from JSON text (UTF-8) and an optional BIN chunk, padded as glTF 2.0 §4.4.3 says (JSON with spaces, BIN
 * with zeros); the JSON chunk starts at byte 20.
 */
export function glbFromText(text: Uint8Array, bin: Uint8Array | null): Uint8Array {
  const jsonLength = Math.ceil(text.length / 4) * 4
  const binLength = bin ? Math.ceil(bin.length / 4) * 4 : 0
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0)
  const out = new Uint8Array(total)
  const view = new DataView(out.buffer)
  view.setUint32(0, 0x46546c67, true)
  view.setUint32(4, 2, true)
  view.setUint32(8, total, true)
  view.setUint32(12, jsonLength, true)
  view.setUint32(16, 0x4e4f534a, true)
  out.fill(0x20, 20, 20 + jsonLength)
  out.set(text, 20)
  if (bin) {
    const at = 20 + jsonLength
    view.setUint32(at, binLength, true)
    view.setUint32(at + 4, 0x004e4942, true)
    out.set(bin, at + 8)
  }
  return out
}

/** The JSON and every buffer's bytes of an asset file (.glb, or .gltf with data: or sibling-file buffers). */
export function readRaw(file: string): { json: Json; buffers: Uint8Array[] } {
  const path = assetPath(file)
  const bytes = new Uint8Array(readFileSync(path))
  if (file.endsWith('.glb')) {
    const { json, bin } = splitGlb(bytes)
    return { json, buffers: bin ? [bin] : [] }
  }
  const json = JSON.parse(new TextDecoder().decode(bytes))
  const buffers = (json.buffers ?? []).map((buffer: { uri: string }) =>
    buffer.uri.startsWith('data:')
      ? new Uint8Array(Buffer.from(buffer.uri.slice(buffer.uri.indexOf(',') + 1), 'base64'))
      : new Uint8Array(readFileSync(join(dirname(path), decodeURIComponent(buffer.uri)))),
  )
  return { json, buffers }
}

const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 }

/** A tightly packed FLOAT accessor's values, read straight from the bytes. */
export function rawFloatAccessor(raw: { json: Json; buffers: Uint8Array[] }, index: number): number[] {
  const accessor = raw.json.accessors[index]
  if (accessor.componentType !== 5126 || accessor.sparse)
    throw new Error('helper reads plain FLOAT accessors only')
  const view = raw.json.bufferViews[accessor.bufferView]
  const n = accessor.count * COMPONENTS[accessor.type]!
  if (view.byteStride !== undefined && view.byteStride !== 4 * COMPONENTS[accessor.type]!) {
    throw new Error('helper reads tightly packed accessors only')
  }
  const bytes = raw.buffers[view.buffer]!
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const start = (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0)
  return Array.from({ length: n }, (_, i) => data.getFloat32(start + 4 * i, true))
}

/** A .gltf with its buffers inlined as data: uris, as bytes (for readAsset, which takes no sibling files). */
export function embeddedGltf(json: Json, buffers: Uint8Array[]): Uint8Array {
  const copy = structuredClone(json)
  copy.buffers = buffers.map((bytes, i) => ({
    ...copy.buffers[i],
    uri: `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`,
  }))
  return new TextEncoder().encode(JSON.stringify(copy))
}
