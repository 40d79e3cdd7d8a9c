import type { GLTF } from '@gltf-transform/core'
import { isObject, jsonCheck, nameOf, shown, type JsonCheck } from './gltfError.ts'
import { checkAccessors, checkBufferViews, checkDecodedSize } from './checkAccessors.ts'
import { checkMeshoptViews, checkRequiredExtensions } from './extensions.ts'
import { MAX_CHANNELS, MAX_CLIPS, MAX_NODES } from './limits.ts'
import { buildNodeTree } from './nodeTree.ts'

/**
 * Structural checks on the glTF JSON before gltf-transform reads it. gltf-transform trusts the file: an index
 * out of range becomes `undefined` (a channel silently loses its node), an accessor past the end of its
 * buffer view is silently cut short, and a node listed as the child of two parents is silently re-parented.
 * So every reference this project relies on is checked here, with the glTF indices still at hand for the
 * message:
 *
 *   extensions     only those the loader can honour are required (extensions.ts)
 *   buffer views   inside their buffer, byteStride a multiple of 4 in [4, 252]; meshopt-compressed views'
 *                  compressed bytes inside theirs, and their decoded size the view's (extensions.ts)
 *   accessors      known type, inside their buffer view (and sparse), offsets aligned to the component size,
 *                  an element fits in the view's byteStride, `normalized` a boolean and not on FLOAT
 *   nodes          at most MAX_NODES; children/mesh/skin exist, one parent at most, no cycles, finite
 *                  T/R/S/matrix/weights, a matrix that is a TRS (affine, no shear, no zero scale)
 *   skins          joints are distinct nodes; skeleton and inverseBindMatrices exist
 *   animations     channels and samplers are arrays; samplers' accessors exist and interpolation, when
 *                  given, is a non-empty string (gltf-transform reads null, 0 or "" as LINEAR); channels'
 *                  sampler and target node exist
 *   scenes         root nodes are node indices in range and have no parent; `scene` exists
 *   sizes          at most MAX_CLIPS animations and MAX_CHANNELS channels (checked first); no accessor over
 *                  MAX_ACCESSOR_ELEMENTS; the keys the loader will build within MAX_KEYS, and what it will
 *                  decode from the file (accessors in use, the compressed views they read, channels' copies
 *                  of their keys, nodes' morph weights) within MAX_DECODED_BYTES
 *
 * Buffer views, accessors and sizes are checked in checkAccessors.ts. Animation semantics (accessor types
 * per path, key counts, times) are checked later, on the Document.
 * Linear in the size of the JSON, without recursion. Throws AnimationError (kind 'gltf'); returns nothing.
 */
export function checkGltfJson(json: GLTF.IGLTF, source: string): void {
  const check = jsonCheck(source)
  const { fail, ref } = check
  const list = (key: string): Record<string, unknown>[] => {
    const value = (json as unknown as Record<string, unknown>)[key]
    if (value === undefined) return []
    if (!Array.isArray(value)) return fail(`"${key}" is not an array`)
    value.forEach((item, i) => {
      if (!isObject(item)) fail(`${key} ${i} is not an object`)
      // gltf-transform keeps a name of any type, and names reach the asset (nodes, clips, skeletons).
      if (item['name'] !== undefined && typeof item['name'] !== 'string') {
        fail(`${key.replace(/(?<=sh)es$|s$/, '')} ${i}: name ${shown(item['name'])} is not a string`)
      }
    })
    return value as Record<string, unknown>[]
  }

  // Before anything per node or animation, so an oversized file costs nothing more.
  const nodeCount = Array.isArray(json.nodes) ? json.nodes.length : 0
  if (nodeCount > MAX_NODES) fail(`the file has ${nodeCount} nodes, more than the limit of ${MAX_NODES}`)
  checkAnimationCounts(check, json)

  checkRequiredExtensions(check, json)

  const buffers = list('buffers')
  const bufferViews = list('bufferViews')
  const accessors = list('accessors')
  const meshes = list('meshes')
  const skins = list('skins')
  const nodes = list('nodes')
  const animations = list('animations')
  const scenes = list('scenes')

  const viewLengths = checkBufferViews(check, buffers, bufferViews)
  const viewDecodedBytes = checkMeshoptViews(check, buffers, bufferViews, viewLengths)
  const decodedBytes = checkAccessors(check, accessors, bufferViews, viewLengths)

  // Nodes: references, one parent at most, finite transforms; then no cycles.
  const parentOf = new Array<number>(nodes.length).fill(-1)
  nodes.forEach((node, i) => {
    const where = `node ${i}${nameOf(node)}`
    const children = node['children'] ?? []
    if (!Array.isArray(children)) fail(`${where}: children is not an array`)
    for (const child of children as unknown[]) {
      const c = ref(child, nodes.length, 'child', where, 'nodes')
      if (c === i) fail(`${where}: lists itself as a child`)
      if (parentOf[c] !== -1) fail(`node ${c} is a child of both node ${parentOf[c]} and node ${i}`)
      parentOf[c] = i
    }
    if (node['mesh'] !== undefined) ref(node['mesh'], meshes.length, 'mesh', where, 'meshes')
    if (node['skin'] !== undefined) ref(node['skin'], skins.length, 'skin', where, 'skins')
    for (const [key, size] of [
      ['translation', 3],
      ['rotation', 4],
      ['scale', 3],
      ['matrix', 16],
      ['weights', -1],
    ]) {
      const value = node[key as string]
      if (value === undefined) continue
      const ok =
        Array.isArray(value) &&
        (size === -1 || value.length === size) &&
        value.every((v: unknown) => typeof v === 'number' && Number.isFinite(v))
      if (!ok)
        fail(`${where}: ${key} ${shown(value)} is not ${size === -1 ? 'an array of' : size} finite numbers`)
    }
    if (node['matrix'] !== undefined) {
      const problem = nonTrsMatrix(node['matrix'] as number[])
      if (problem) fail(`${where}: matrix ${shown(node['matrix'])} is not a TRS matrix (${problem})`)
    }
  })
  buildNodeTree(parentOf, (node) =>
    fail(`node ${node}${nameOf(nodes[node]!)} is its own ancestor (the node tree has a cycle)`),
  )

  skins.forEach((skin, i) => {
    const where = `skin ${i}${nameOf(skin)}`
    const joints = skin['joints']
    if (!Array.isArray(joints) || joints.length === 0) fail(`${where}: joints is not a non-empty array`)
    const seen = new Set<number>()
    ;(joints as unknown[]).forEach((joint, j) => {
      const node = ref(joint, nodes.length, `joint ${j}: node`, where, 'nodes')
      if (seen.has(node)) fail(`${where}: joint ${j} repeats node ${node}`)
      seen.add(node)
    })
    if (skin['skeleton'] !== undefined) ref(skin['skeleton'], nodes.length, 'skeleton node', where, 'nodes')
    if (skin['inverseBindMatrices'] !== undefined) {
      ref(skin['inverseBindMatrices'], accessors.length, 'inverseBindMatrices accessor', where, 'accessors')
    }
  })

  animations.forEach((animation, a) => {
    const where = `animation ${a}${nameOf(animation)}`
    const samplers = animation['samplers']
    const channels = animation['channels']
    // Both are required (glTF 2.0 schema); an empty list makes an empty clip.
    if (!Array.isArray(samplers) || !Array.isArray(channels))
      fail(`${where}: samplers or channels is missing or not an array`)
    ;(samplers as unknown[]).forEach((sampler, s) => {
      if (!isObject(sampler)) return fail(`${where}: sampler ${s} is not an object`)
      ref(sampler['input'], accessors.length, 'input accessor', `${where} sampler ${s}`, 'accessors')
      ref(sampler['output'], accessors.length, 'output accessor', `${where} sampler ${s}`, 'accessors')
      // Unknown non-empty names are reported by buildClip, with the channel that uses them.
      const interpolation = sampler['interpolation']
      if (interpolation !== undefined && (typeof interpolation !== 'string' || interpolation === '')) {
        fail(
          `${where} sampler ${s}: interpolation ${shown(interpolation)} ` +
            'is not STEP, LINEAR or CUBICSPLINE',
        )
      }
    })
    ;(channels as unknown[]).forEach((channel, c) => {
      const at = `${where} channel ${c}`
      if (!isObject(channel) || !isObject(channel['target'])) return fail(`${at}: has no target object`)
      ref(channel['sampler'], (samplers as unknown[]).length, 'sampler', at, 'samplers in this animation')
      const node = channel['target']['node']
      if (node !== undefined) ref(node, nodes.length, 'target node', at, 'nodes')
      if (typeof channel['target']['path'] !== 'string') fail(`${at}: target path is not a string`)
    })
  })

  scenes.forEach((scene, s) => {
    const where = `scene ${s}${nameOf(scene)}`
    const roots = scene['nodes'] ?? []
    if (!Array.isArray(roots)) fail(`${where}: nodes is not an array`)
    for (const root of roots as unknown[]) {
      // Roots become asset.roots: one out of range is named as such, with the node count.
      if (!Number.isInteger(root)) fail(`${where}: root node ${shown(root)} is not a node index`)
      const node = root as number
      if (node < 0 || node >= nodes.length) {
        fail(`${where}: root node ${node} is out of range (the file has ${nodes.length} nodes)`)
      }
      if (parentOf[node] !== -1) fail(`${where}: root node ${node} is the child of node ${parentOf[node]}`)
    }
  })
  if (json.scene !== undefined) ref(json.scene, scenes.length, 'default scene', 'the file', 'scenes')

  checkDecodedSize(check, json, decodedBytes, viewDecodedBytes)
}

/**
 * The animation and channel counts within MAX_CLIPS and MAX_CHANNELS, looking at no channel: the time it takes
 * is in the number of animations, which the first check bounds.
 */
function checkAnimationCounts(check: JsonCheck, json: GLTF.IGLTF): void {
  const animations: unknown = json.animations
  if (!Array.isArray(animations)) return
  if (animations.length > MAX_CLIPS) {
    check.fail(`the file has ${animations.length} animations, more than the limit of ${MAX_CLIPS}`)
  }
  let channels = 0
  for (const animation of animations) {
    const list: unknown = isObject(animation) ? animation['channels'] : undefined
    if (Array.isArray(list)) channels += list.length
  }
  if (channels > MAX_CHANNELS) {
    check.fail(`the file's animations have ${channels} channels, more than the limit of ${MAX_CHANNELS}`)
  }
}

/**
 * Why a node matrix (16 finite numbers, column-major) is not translation × rotation × scale, or null when it
 * is: the last row must be [0, 0, 0, 1] (±1e-6), and the upper 3×3's columns non-zero and orthogonal (no
 * shear; to a relative 1e-4, the float noise of exported files). gltf-transform would otherwise decompose any
 * matrix into some TRS without a word.
 */
function nonTrsMatrix(m: readonly number[]): string | null {
  if (
    Math.abs(m[3]!) > 1e-6 ||
    Math.abs(m[7]!) > 1e-6 ||
    Math.abs(m[11]!) > 1e-6 ||
    Math.abs(m[15]! - 1) > 1e-6
  ) {
    return `last row [${m[3]}, ${m[7]}, ${m[11]}, ${m[15]}] is not [0, 0, 0, 1]`
  }
  const column = (c: number): number[] => [m[4 * c]!, m[4 * c + 1]!, m[4 * c + 2]!]
  const dot = (a: number[], b: number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!
  const columns = [column(0), column(1), column(2)]
  const lengths = columns.map((c) => Math.sqrt(dot(c, c)))
  for (let c = 0; c < 3; c++) if (!(lengths[c]! > 0)) return `column ${c} is zero (zero scale)`
  for (const [a, b] of [
    [0, 1],
    [0, 2],
    [1, 2],
  ] as const) {
    if (Math.abs(dot(columns[a]!, columns[b]!)) > 1e-4 * lengths[a]! * lengths[b]!) {
      return `columns ${a} and ${b} are not orthogonal (shear)`
    }
  }
  return null
}
