import { MathUtils } from '@gltf-transform/core'
import type { GLTF, mat4, vec3, vec4 } from '@gltf-transform/core'
import { gltfError } from './gltfError.ts'

/**
 * What an asset takes from each node, by glTF node index: from a Document's nodes (assetFromDocument) or
 * straight from a file's JSON (readAsset, below). Values as a gltf-transform Node reports them.
 */
export interface NodeTable {
  readonly count: number
  /** '' when the node has none. */
  name(i: number): string
  translation(i: number): readonly number[]
  rotation(i: number): readonly number[]
  scale(i: number): readonly number[]
  /** The node's own default weights ([] when it gives none). */
  weights(i: number): readonly number[]
  children(i: number): readonly number[]
  /** Skin and mesh indices, -1 for none. */
  skin(i: number): number
  mesh(i: number): number
}

const NONE: readonly number[] = Object.freeze([])

/**
 * A file's nodes from its JSON, which checkGltfJson has checked (indices in range, one parent at most, finite
 * numbers). As gltf-transform's reader makes them: T, R and S default to the identity's, and a matrix, when
 * given, replaces them by MathUtils.decompose's.
 */
export function jsonNodeTable(nodes: readonly GLTF.INode[]): NodeTable {
  const trs = nodes.map((def) => {
    const t = def.translation ?? [0, 0, 0]
    const r = def.rotation ?? [0, 0, 0, 1]
    const s = def.scale ?? [1, 1, 1]
    if (def.matrix === undefined) return { t, r, s }
    const dt: vec3 = [0, 0, 0]
    const dr: vec4 = [0, 0, 0, 1]
    const ds: vec3 = [1, 1, 1]
    MathUtils.decompose(def.matrix as mat4, dt, dr, ds)
    return { t: dt, r: dr, s: ds }
  })
  return {
    count: nodes.length,
    name: (i) => nodes[i]!.name ?? '',
    translation: (i) => trs[i]!.t,
    rotation: (i) => trs[i]!.r,
    scale: (i) => trs[i]!.s,
    weights: (i) => nodes[i]!.weights ?? NONE,
    children: (i) => nodes[i]!.children ?? NONE,
    skin: (i) => nodes[i]!.skin ?? -1,
    mesh: (i) => nodes[i]!.mesh ?? -1,
  }
}

/**
 * The JSON gltf-transform is given: only the nodes skins name (as empty nodes, renumbered), no scenes and no
 * animations; the asset's nodes come from jsonNodeTable, its clips from clips.ts. gltf-transform builds a
 * property with events and edges per node: a file with a 16,000-node chain spent most of its load there (0.8 of
 * 1.2 s of CPU). `kept[k]` is the file's index of the Document's node k.
 */
export function documentJson(json: GLTF.IGLTF): { json: GLTF.IGLTF; kept: Int32Array } {
  const nodes = json.nodes ?? []
  const named = new Uint8Array(nodes.length)
  for (const skin of json.skins ?? []) {
    for (const joint of skin.joints) named[joint] = 1
    if (skin.skeleton !== undefined) named[skin.skeleton] = 1
  }
  const renumber = new Int32Array(nodes.length).fill(-1)
  const kept: number[] = []
  for (let i = 0; i < nodes.length; i++) {
    if (named[i] === 0) continue
    renumber[i] = kept.length
    kept.push(i)
  }
  const reduced: GLTF.IGLTF = {
    ...json,
    nodes: kept.map(() => ({})),
    skins: json.skins?.map((skin) => ({
      ...skin,
      joints: skin.joints.map((joint) => renumber[joint]!),
      ...(skin.skeleton === undefined ? {} : { skeleton: renumber[skin.skeleton]! }),
    })),
  }
  delete reduced.scenes
  delete reduced.scene
  delete reduced.animations
  if (reduced.skins === undefined) delete reduced.skins
  return { json: reduced, kept: Int32Array.from(kept) }
}

/**
 * Roots of the default scene; else of every scene; else every parentless node. Ascending node index, each
 * once (a root listed twice is listed once). Throws when that leaves no root: such an asset has nothing a
 * character could be made of.
 */
export function sceneRoots(
  scenes: readonly (readonly number[])[],
  defaultScene: number,
  parents: Int32Array,
  source: string,
): number[] {
  const chosen = defaultScene >= 0 ? [scenes[defaultScene]!] : scenes
  const roots = new Set<number>()
  if (chosen.length === 0) parents.forEach((p, i) => p === -1 && roots.add(i))
  for (const scene of chosen) for (const node of scene) roots.add(node)
  if (roots.size === 0) {
    const which =
      defaultScene >= 0
        ? `the default scene ${defaultScene} lists no nodes`
        : scenes.length > 0
          ? `none of the ${scenes.length} scenes lists a node`
          : 'the file has no nodes'
    throw gltfError(source, `${which}: there is nothing to animate`)
  }
  return [...roots].sort((a, b) => a - b)
}
