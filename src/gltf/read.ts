import type { Document, GLTF, JSONDocument, Node } from '@gltf-transform/core'
import type { AnimationAsset, AssetNode, Skeleton } from './asset.ts'
import { checkGltfJson } from './checkJson.ts'
import { checkSparseIndices, morphTargetCount } from './checkAccessors.ts'
import { meshoptOf } from './extensions.ts'
import { decodeOnlyViewsInUse, io, meshoptDecoder, meshoptIO } from './readers.ts'
import { compressClip, type CompressOptions } from '../clip/compress.ts'
import { clipWithChannels, type Clip } from '../clip/clip.ts'
import { AnimationError, showValue } from '../errors.ts'
import { createAccessorReader } from './accessorData.ts'
import { clipFromAnimation, clipsFromJson, type ClipContext } from './clips.ts'
import { parseContainer, resolveBuffers } from './container.ts'
import { describeThrown, gltfError, shown } from './gltfError.ts'
import { MAX_NODES } from './limits.ts'
import { buildNodeTree } from './nodeTree.ts'
import { buildSkeleton } from './skeleton.ts'
import { documentJson, jsonNodeTable, sceneRoots, type NodeTable } from './fileNodes.ts'

type Vec3 = readonly [number, number, number]
type Vec4 = readonly [number, number, number, number]

/**
 * glTF 2.0 → AnimationAsset, platform-neutral (no fs, no fetch: the browser demo imports this file).
 *
 *   bytes ──parseContainer──▶ JSON + buffers ──checkGltfJson──▶ gltf-transform readJSON ──▶ Document (skins,
 *         meshes) ──buildAsset──▶ AnimationAsset (nodes and clips from the JSON and buffers, skeletons)
 *
 * checkGltfJson bounds every size before anything is allocated (limits.ts); gltf-transform is then handed
 * only the skins, the accessors they read (the others empty), the nodes they name, the meshes and no image
 * data. The nodes come from the JSON (fileNodes.ts), the clips from the JSON and buffers (clips.ts,
 * accessorData.ts), each for its own reason of time.
 *
 * All or nothing: any problem throws AnimationError (kind 'gltf', or 'clip' from buildClip) whose message
 * starts with `source`; no partly built asset is ever returned.
 */

export interface ReadAssetOptions extends LoadAssetOptions {
  /**
   * Bytes of the external files a .gltf refers to, keyed by the uri exactly as written in the file
   * (e.g. `{ 'Fox.bin': bytes }`). Only buffers are read; external images are not needed and ignored.
   */
  resources?: Readonly<Record<string, Uint8Array>>
}

/** Options of loadAsset (and readAsset). */
export interface LoadAssetOptions {
  /**
   * Compact clips (src/clip/compress.ts): keys that interpolation reproduces within `tolerance` of world
   * space at `distance` from each joint removed, the rest quantized to 16 bits per component; about a tenth
   * of an exact clip's memory. `true` takes the defaults (0.1 mm at 1 m, in the file's units: metres by glTF's
   * convention). Clips with STEP or CUBICSPLINE channels stay exact. Default false: every clip exact, as the
   * file has it.
   */
  compress?: boolean | CompressOptions
}

/**
 * Reads a .glb, or a .gltf whose buffers are embedded (`data:` uris) or supplied in `options.resources`.
 * `source` names the file in messages and becomes `asset.source`.
 */
export async function readAsset(
  bytes: Uint8Array,
  source: string,
  options: ReadAssetOptions = {},
): Promise<AnimationAsset> {
  const compress = compressOptions(options.compress)
  const container = parseContainer(bytes, source)
  const buffers = resolveBuffers(container, options.resources, source)
  checkGltfJson(container.json, source)
  checkSparseIndices(container.json, buffers, source)

  // gltf-transform is handed the skins alone: the nodes they name (documentJson), the inverse bind matrices'
  // accessors (renumbered) and the buffers. The asset's nodes, meshes and clips come from the JSON: each of
  // these, handed over, cost time in its number (a property with events and graph edges each, ~20–40 µs).
  const accessors = container.json.accessors ?? []
  const ibm = new Map<number, number>()
  const skins = (container.json.skins ?? []).map((skin) => {
    const matrices = skin.inverseBindMatrices
    if (matrices === undefined) return { ...skin, extras: undefined, extensions: undefined }
    if (!ibm.has(matrices)) ibm.set(matrices, ibm.size)
    return { ...skin, inverseBindMatrices: ibm.get(matrices)!, extras: undefined, extensions: undefined }
  })
  // Every buffer under a private uri ("__" marks it internal), so gltf-transform never resolves one.
  const resources: Record<string, Uint8Array<ArrayBuffer>> = {}
  const json: GLTF.IGLTF = {
    asset: container.json.asset,
    buffers: (container.json.buffers ?? []).map((buffer, i) => {
      resources[`__buffer${i}`] = buffers[i] as Uint8Array<ArrayBuffer>
      return { ...buffer, uri: `__buffer${i}` }
    }),
    bufferViews: container.json.bufferViews,
    accessors: [...ibm.keys()].map((i) => explicitSparseOffsets(accessors[i]!)),
    nodes: container.json.nodes,
    skins,
    extensionsUsed: container.json.extensionsUsed,
    extensionsRequired: container.json.extensionsRequired,
  }
  if (json.skins!.length === 0) delete json.skins
  if (json.bufferViews === undefined) delete json.bufferViews
  const compressed = decodeOnlyViewsInUse(json, viewsOf(json))
  // The clips' accessors are read here (accessorData.ts), compressed views decoded with meshopt's decoder.
  const clipViews = viewsOf({ ...container.json, skins: [] })
  const clipDecoder = container.json.bufferViews?.some((v, i) => clipViews[i] && meshoptOf(v) !== undefined)
    ? await meshoptDecoder()
    : null
  const reduced = documentJson(json)
  const jsonDoc: JSONDocument = { json: reduced.json, resources }

  let document: Document
  try {
    document = await (compressed ? meshoptIO() : io).then((reader) => reader.readJSON(jsonDoc))
  } catch (error) {
    throw gltfError(source, `gltf-transform could not read the file: ${describeThrown(error)}`, error)
  }
  const kept = reduced.kept
  const nodeIndex = new Map<Node, number>(
    document
      .getRoot()
      .listNodes()
      .map((node, k) => [node, kept[k]!]),
  )
  const scenes = (container.json.scenes ?? []).map((scene) => scene.nodes ?? [])
  const asset = buildAsset(
    document,
    source,
    jsonNodeTable(container.json.nodes ?? []),
    nodeIndex,
    (container.json.meshes ?? []).map((mesh) => ({
      targets: morphTargetCount(mesh as unknown as Record<string, unknown>),
      weights: mesh.weights ?? [],
    })),
    (parents) => sceneRoots(scenes, container.json.scene ?? -1, parents, source),
    (context) =>
      clipsFromJson(
        container.json,
        createAccessorReader(container.json, buffers, source, clipDecoder),
        context,
      ),
  )
  if (compress === null) return asset
  // A copy of an animation (its channels another clip's) is compressed once: the copies share the result.
  const compact = new Map<readonly unknown[], Clip>()
  const clips = asset.clips.map((clip) => {
    const first = compact.get(clip.channels)
    if (first !== undefined) return clipWithChannels(first, clip.name, clip.markers)
    const made = compressClip(clip, asset.nodes, compress)
    compact.set(clip.channels, made)
    return made
  })
  return Object.freeze({ ...asset, clips: Object.freeze(clips) })
}

/** The buffer views the accessors of `json`'s animations and skins read (by view; sparse parts included). */
function viewsOf(json: GLTF.IGLTF): boolean[] {
  const used = new Array<boolean>(json.bufferViews?.length ?? 0).fill(false)
  const accessors = json.accessors ?? []
  const mark = (i: number | undefined): void => {
    const accessor = i === undefined ? undefined : accessors[i]
    if (accessor === undefined) return
    if (accessor.bufferView !== undefined) used[accessor.bufferView] = true
    if (accessor.sparse)
      used[accessor.sparse.indices.bufferView] = used[accessor.sparse.values.bufferView] = true
  }
  for (const animation of json.animations ?? []) {
    for (const sampler of animation.samplers) {
      mark(sampler.input)
      mark(sampler.output)
    }
  }
  for (const skin of json.skins ?? []) mark(skin.inverseBindMatrices)
  return used
}

/** The `compress` option checked: null for none. Throws AnimationError 'argument'. */
function compressOptions(value: unknown): CompressOptions | null {
  if (value === undefined || value === false) return null
  if (value === true) return {}
  const fail = (): never => {
    throw new AnimationError(
      'argument',
      `readAsset: compress ${showValue(value)} is not true, false or { tolerance?, distance? } ` +
        '(a tolerance > 0 and a distance ≥ 0, finite)',
    )
  }
  if (typeof value !== 'object' || value === null) return fail()
  const { tolerance, distance, ...rest } = value as CompressOptions
  if (Object.keys(rest).length > 0) fail()
  const ok = (v: unknown, min: number, open: boolean) =>
    v === undefined || (typeof v === 'number' && Number.isFinite(v) && (open ? v > min : v >= min))
  if (!ok(tolerance, 0, true) || !ok(distance, 0, false)) fail()
  return { tolerance, distance }
}

/**
 * Builds the asset from a gltf-transform Document (as read from a file, or made in code). Node indices are
 * the Document's `listNodes()` order, which for a Document read from a file is the file's node order. Throws
 * AnimationError as `readAsset` does.
 */
export function assetFromDocument(document: Document, source: string): AnimationAsset {
  const root = document.getRoot()
  const docNodes = root.listNodes()
  if (docNodes.length > MAX_NODES) {
    throw gltfError(source, `the document has ${docNodes.length} nodes, more than the limit of ${MAX_NODES}`)
  }
  const nodeIndex = new Map<Node, number>(docNodes.map((node, i) => [node, i]))
  const skinIndex = new Map(root.listSkins().map((skin, i) => [skin, i]))
  const meshIndex = new Map(root.listMeshes().map((mesh, i) => [mesh, i]))
  const table: NodeTable = {
    count: docNodes.length,
    name: (i) => docNodes[i]!.getName(),
    translation: (i) => docNodes[i]!.getTranslation(),
    rotation: (i) => docNodes[i]!.getRotation(),
    scale: (i) => docNodes[i]!.getScale(),
    weights: (i) => docNodes[i]!.getWeights(),
    children: (i) => docNodes[i]!.listChildren().map((child) => nodeIndex.get(child)!),
    skin: (i) => skinIndex.get(docNodes[i]!.getSkin()!) ?? -1,
    mesh: (i) => meshIndex.get(docNodes[i]!.getMesh()!) ?? -1,
  }
  const scenes = root.listScenes()
  const sceneNodes = scenes.map((scene) => scene.listChildren().map((node) => nodeIndex.get(node)!))
  const defaultScene = root.getDefaultScene()
  return buildAsset(
    document,
    source,
    table,
    nodeIndex,
    root.listMeshes().map((mesh) => ({
      targets: mesh.listPrimitives()[0]?.listTargets().length ?? 0,
      weights: mesh.getWeights(),
    })),
    (parents) => sceneRoots(sceneNodes, defaultScene ? scenes.indexOf(defaultScene) : -1, parents, source),
    (context) =>
      root.listAnimations().map((animation, a) => clipFromAnimation(animation, a, nodeIndex, context)),
  )
}

/**
 * The asset of a Document whose nodes are `table`'s: `nodeIndex` gives the glTF index of each Document node that
 * skins name, `meshes` each mesh's morph target count (of its first primitive) and default weights, `roots`
 * the scene's roots once the parents are known, `clips` the clips.
 */
function buildAsset(
  document: Document,
  source: string,
  table: NodeTable,
  nodeIndex: ReadonlyMap<Node, number>,
  meshes: readonly { targets: number; weights: readonly number[] }[],
  roots: (parents: Int32Array) => number[],
  clips: (context: ClipContext) => Clip[],
): AnimationAsset {
  const root = document.getRoot()
  const count = table.count
  const parents = new Int32Array(count).fill(-1)
  for (let i = 0; i < count; i++) {
    for (const c of table.children(i)) {
      if (parents[c] !== -1)
        throw gltfError(source, `node ${c} is a child of both node ${parents[c]} and node ${i}`)
      parents[c] = i
    }
  }

  const morphTargets = Array.from({ length: count }, (_, i) => meshes[table.mesh(i)]?.targets ?? 0)
  const nodes: AssetNode[] = Array.from({ length: count }, (_, i) => {
    const mesh = table.mesh(i)
    return Object.freeze({
      index: i,
      name: table.name(i) || `node${i}`,
      parent: parents[i]!,
      children: Object.freeze([...table.children(i)]),
      translation: finite(table.translation(i) as Vec3, source, i, 'translation'),
      rotation: unitQuaternion(table.rotation(i) as Vec4, source, i),
      scale: finite(table.scale(i) as Vec3, source, i, 'scale'),
      weights: Object.freeze(
        defaultWeights(table.weights(i), meshes[mesh]?.weights ?? [], morphTargets[i]!, source, i),
      ),
      skin: table.skin(i),
      mesh,
    })
  })
  const tree = buildNodeTree(parents, (node) => {
    throw gltfError(source, `node ${node} is its own ancestor (the node tree has a cycle)`)
  })

  const skeletons: Skeleton[] = root.listSkins().map((skin, s) => {
    const ibm = skin.getInverseBindMatrices()
    if (ibm && (ibm.getType() !== 'MAT4' || ibm.getComponentType() !== 5126)) {
      throw gltfError(source, `skin ${s}: inverseBindMatrices must be FLOAT MAT4, got ${ibm.getType()}`)
    }
    if (ibm) checkInverseBindMatrices(ibm.getArray()!, source, s)
    const skeleton = skin.getSkeleton()
    return Object.freeze(
      buildSkeleton(
        {
          name: skin.getName(),
          joints: skin.listJoints().map((joint) => nodeIndex.get(joint) ?? -1),
          inverseBindMatrices: ibm ? ibm.getArray() : null,
          skeleton: skeleton ? (nodeIndex.get(skeleton) ?? -1) : -1,
        },
        parents,
        `${source}: skin ${s}${skin.getName() ? ` "${skin.getName()}"` : ''}`,
        tree,
      ),
    )
  })

  const context = {
    source,
    nodeCount: count,
    nodeNames: nodes.map((node) => node.name),
    morphTargets,
  }
  return Object.freeze({
    source,
    nodes: Object.freeze(nodes),
    roots: Object.freeze(roots(parents)),
    skeletons: Object.freeze(skeletons),
    clips: Object.freeze(clips(context)),
  })
}

/**
 * The accessor with its sparse indices' and values' byteOffset written out (0 when absent, glTF 2.0 §5.4).
 * gltf-transform 4.5 reads each sparse part as `{ ...accessor, ...sparse.indices }`, so an absent offset
 * silently became the accessor's own byteOffset and the wrong bytes were read.
 */
function explicitSparseOffsets(accessor: GLTF.IAccessor): GLTF.IAccessor {
  const sparse = accessor.sparse
  if (!sparse) return accessor
  return {
    ...accessor,
    sparse: {
      ...sparse,
      indices: { ...sparse.indices, byteOffset: sparse.indices.byteOffset ?? 0 },
      values: { ...sparse.values, byteOffset: sparse.values.byteOffset ?? 0 },
    },
  }
}

/**
 * Every matrix of an inverse-bind-matrix accessor (numbered as in the file), including any past the joint
 * count: finite, and affine (glTF 2.0 §5.28: the last row, elements 3, 7, 11, 15 of a column-major matrix, is
 * [0, 0, 0, 1], here to 1e-5). buildSkeleton checks there is one per joint.
 */
function checkInverseBindMatrices(matrices: ArrayLike<number>, source: string, skin: number): void {
  for (let m = 0; m + 16 <= matrices.length; m += 16) {
    for (let e = 0; e < 16; e++) {
      const v = matrices[m + e]!
      if (!Number.isFinite(v))
        throw gltfError(source, `skin ${skin}: inverse bind matrix ${m / 16} element ${e} is ${v}`)
    }
    const row = [matrices[m + 3]!, matrices[m + 7]!, matrices[m + 11]!, matrices[m + 15]!]
    const off = Math.max(Math.abs(row[0]!), Math.abs(row[1]!), Math.abs(row[2]!), Math.abs(row[3]! - 1))
    if (off > 1e-5) {
      throw gltfError(
        source,
        `skin ${skin}: inverse bind matrix ${m / 16} has last row [${row.join(', ')}], not [0, 0, 0, 1]`,
      )
    }
  }
}

/**
 * Checks the values are numbers finite as float32 (the pose buffers' type: 1e39 is finite, its float32 is
 * not). Mesh weights reach here unchecked by checkGltfJson, so a string is possible.
 */
function finite<T extends readonly number[]>(values: T, source: string, node: number, what: string): T {
  if (!values.every((v) => typeof v === 'number' && Number.isFinite(Math.fround(v)))) {
    const text = values.map((v) => (typeof v === 'number' ? String(v) : shown(v))).join(', ')
    throw gltfError(source, `node ${node}: ${what} [${text}] is not finite as float32`)
  }
  return Object.freeze([...values]) as unknown as T
}

/** The rest rotation, normalized (files carry slightly non-unit quaternions); zero length is an error. */
function unitQuaternion(
  q: readonly [number, number, number, number],
  source: string,
  node: number,
): readonly [number, number, number, number] {
  finite(q, source, node, 'rotation')
  const length = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
  if (!(length > 1e-6))
    throw gltfError(source, `node ${node}: rotation [${q.join(', ')}] has length ${length}`)
  return Object.freeze([q[0] / length, q[1] / length, q[2] / length, q[3] / length] as const)
}

/**
 * Node weights, else mesh weights, else zeros; one per morph target (empty without targets). Weights given
 * for a different number of targets (none included) are an error, as are weights not finite as float32.
 */
function defaultWeights(
  own: readonly number[],
  ofMesh: readonly number[],
  targets: number,
  source: string,
  index: number,
): number[] {
  const given = [
    { weights: own, whose: '' },
    { weights: ofMesh, whose: ' (of its mesh)' },
  ]
  for (const { weights, whose } of given) {
    if (weights.length === 0) continue
    if (weights.length !== targets) {
      throw gltfError(
        source,
        `node ${index}: ${weights.length} default weights${whose} for ${targets} morph targets`,
      )
    }
    finite(weights, source, index, `default weights${whose}`)
    return [...weights]
  }
  return new Array<number>(targets).fill(0)
}
