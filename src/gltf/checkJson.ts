import type { GLTF } from '@gltf-transform/core'
import { isObject } from './container.ts'
import { gltfError, shown } from './gltfError.ts'
import { MAX_ACCESSOR_ELEMENTS, MAX_DECODED_BYTES, MAX_NODES } from './limits.ts'
import { buildNodeTree } from './nodeTree.ts'

/**
 * Structural checks on the glTF JSON before gltf-transform reads it. gltf-transform trusts the file: an index
 * out of range becomes `undefined` (a channel silently loses its node), an accessor past the end of its
 * buffer view is silently cut short, and a node listed as the child of two parents is silently re-parented.
 * So every reference this project relies on is checked here, with the glTF indices still at hand for the
 * message:
 *
 *   buffer views   inside their buffer, byteStride a multiple of 4 in [4, 252]
 *   accessors      known type, inside their buffer view (and sparse), offsets aligned to the component size,
 *                  an element fits in the view's byteStride, `normalized` a boolean and not on FLOAT
 *   nodes          at most MAX_NODES; children/mesh/skin exist, one parent at most, no cycles, finite
 *                  T/R/S/matrix/weights, a matrix that is a TRS (affine, no shear, no zero scale)
 *   skins          joints are distinct nodes; skeleton and inverseBindMatrices exist
 *   animations     channels and samplers are arrays; samplers' accessors exist and interpolation, when
 *                  given, is a non-empty string (gltf-transform reads null, 0 or "" as LINEAR); channels'
 *                  sampler and target node exist
 *   scenes         root nodes are node indices in range and have no parent; `scene` exists
 *   sizes          no accessor over MAX_ACCESSOR_ELEMENTS; what the loader will decode from the file
 *                  (accessors in use, channels' copies of their keys, nodes' morph weights) within
 *                  MAX_DECODED_BYTES
 *
 * Animation semantics (accessor types per path, key counts, times) are checked later, on the Document.
 * Linear in the size of the JSON, without recursion. Throws AnimationError (kind 'gltf'); returns nothing.
 */
export function checkGltfJson(
  json: GLTF.IGLTF,
  supportedExtensions: readonly string[],
  source: string,
): void {
  const fail = (what: string): never => {
    throw gltfError(source, what)
  }
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
  const ref = (value: unknown, count: number, what: string, where: string, plural: string): number => {
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= count) {
      fail(`${where}: ${what} ${shown(value)} does not exist (the file has ${count} ${plural})`)
    }
    return value as number
  }
  const natural = (value: unknown, fallback: number, what: string, where: string): number => {
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || (value as number) < 0) {
      fail(`${where}: ${what} ${shown(value)} is not a non-negative integer`)
    }
    return value as number
  }

  // Before anything per node, so an oversized file costs nothing more.
  const nodeCount = Array.isArray(json.nodes) ? json.nodes.length : 0
  if (nodeCount > MAX_NODES) fail(`the file has ${nodeCount} nodes, more than the limit of ${MAX_NODES}`)

  const required = json.extensionsRequired ?? []
  for (const name of Array.isArray(required) ? required : []) {
    if (!supportedExtensions.includes(name))
      fail(`requires the glTF extension "${name}", which is not supported`)
  }

  const buffers = list('buffers')
  const bufferViews = list('bufferViews')
  const accessors = list('accessors')
  const meshes = list('meshes')
  const skins = list('skins')
  const nodes = list('nodes')
  const animations = list('animations')
  const scenes = list('scenes')

  // Buffer views inside their buffers (whose data was checked to hold byteLength bytes).
  const viewLengths = bufferViews.map((view, i) => {
    const where = `bufferView ${i}`
    const buffer = ref(view['buffer'], buffers.length, 'buffer', where, 'buffers')
    const offset = natural(view['byteOffset'], 0, 'byteOffset', where)
    const length = natural(view['byteLength'], -1, 'byteLength', where)
    if (length < 1) fail(`${where}: byteLength ${shown(view['byteLength'])} is not a positive integer`)
    const bufferLength = buffers[buffer]!['byteLength'] as number
    if (offset + length > bufferLength) {
      fail(
        `${where}: bytes ${offset}..${offset + length} run past the end of buffer ${buffer} (${bufferLength} bytes)`,
      )
    }
    const stride = view['byteStride']
    if (
      stride !== undefined &&
      (!Number.isInteger(stride) ||
        (stride as number) < 4 ||
        (stride as number) > 252 ||
        (stride as number) % 4 !== 0)
    ) {
      fail(`${where}: byteStride ${shown(stride)} is not a multiple of 4 in [4, 252]`)
    }
    return length
  })
  const viewOffsets = bufferViews.map((view) => (view['byteOffset'] as number | undefined) ?? 0)

  // Accessors inside their buffer views: the last element must end within the view.
  const decodedBytes = new Array<number>(accessors.length).fill(0)
  accessors.forEach((accessor, i) => {
    const where = `accessor ${i}`
    // typeof: a string "5126" would find the same entry here and in gltf-transform's tables.
    const componentBytes =
      typeof accessor['componentType'] === 'number' ? COMPONENT_BYTES[accessor['componentType']] : undefined
    if (componentBytes === undefined) {
      fail(`${where}: componentType ${shown(accessor['componentType'])} is not a glTF component type`)
    }
    const components = TYPE_COMPONENTS[accessor['type'] as string]
    if (components === undefined) fail(`${where}: type ${shown(accessor['type'])} is not a glTF type`)
    const count = natural(accessor['count'], -1, 'count', where)
    if (count < 1) fail(`${where}: count ${shown(accessor['count'])} is not a positive integer`)
    const elementBytes = componentBytes! * components!
    if (count > MAX_ACCESSOR_ELEMENTS) {
      fail(
        `${where}: ${count} elements of ${elementBytes} bytes (${count * elementBytes} bytes) are more than ` +
          `the limit of ${MAX_ACCESSOR_ELEMENTS} elements`,
      )
    }
    // What gltf-transform allocates to read it (more when sparse, below).
    decodedBytes[i] = count * elementBytes
    const normalized = accessor['normalized']
    if (normalized !== undefined && typeof normalized !== 'boolean') {
      fail(`${where}: normalized ${shown(normalized)} is not true or false`)
    }
    // Only (U)BYTE/(U)SHORT may be normalized. gltf-transform ignores the flag on FLOAT, so a file saying
    // "normalized FLOAT" would load as plain floats; UNSIGNED_INT is rejected where it is used (clips,
    // skins).
    if (normalized === true && accessor['componentType'] === 5126) {
      fail(`${where}: normalized is true for a FLOAT accessor (only (U)BYTE and (U)SHORT can be normalized)`)
    }
    // `align` is the component size: glTF 2.0 §3.6.2.4 requires offsets (accessor's, and view's + accessor's)
    // to be multiples of it. gltf-transform reads a misaligned accessor without complaint (it copies the
    // bytes).
    const fits = (
      viewValue: unknown,
      offsetValue: unknown,
      n: number,
      bytes: number,
      align: number,
      what: string,
    ): void => {
      const view = ref(viewValue, bufferViews.length, 'bufferView', `${where}${what}`, 'buffer views')
      const offset = natural(offsetValue, 0, 'byteOffset', `${where}${what}`)
      if (offset % align !== 0 || (viewOffsets[view]! + offset) % align !== 0) {
        fail(
          `${where}${what}: byteOffset ${offset} (${viewOffsets[view]! + offset} into the buffer) is not a ` +
            `multiple of the component size ${align}`,
        )
      }
      const viewStride = bufferViews[view]!['byteStride'] as number | undefined
      if (viewStride !== undefined && viewStride < bytes) {
        fail(
          `${where}${what}: elements of ${bytes} bytes do not fit ` +
            `bufferView ${view}'s byteStride ${viewStride}`,
        )
      }
      const stride = viewStride ?? bytes
      const end = offset + stride * (n - 1) + bytes
      if (end > viewLengths[view]!) {
        fail(
          `${where}${what}: ${n} elements of ${bytes} bytes from offset ${offset} need ${end} bytes, ` +
            `bufferView ${view} has ${viewLengths[view]}`,
        )
      }
    }
    if (accessor['bufferView'] !== undefined) {
      fits(accessor['bufferView'], accessor['byteOffset'], count, elementBytes, componentBytes!, '')
    } else if (accessor['byteOffset'] !== undefined) {
      // Without a bufferView the accessor is zeros (§3.6.2.3); an offset says the view went missing.
      fail(`${where}: has a byteOffset but no bufferView`)
    }
    const sparse = accessor['sparse']
    if (sparse !== undefined) {
      if (!isObject(sparse) || !isObject(sparse['indices']) || !isObject(sparse['values'])) {
        return fail(`${where}: sparse is not an object with indices and values`)
      }
      const sparseCount = natural(sparse['count'], -1, 'sparse count', where)
      if (sparseCount < 1 || sparseCount > count) {
        fail(`${where}: sparse count ${shown(sparse['count'])} is not in [1, ${count}]`)
      }
      const indexType = sparse['indices']['componentType']
      const indexBytes = typeof indexType === 'number' ? SPARSE_INDEX_BYTES[indexType] : undefined
      if (indexBytes === undefined) {
        fail(`${where}: sparse indices componentType ${shown(indexType)} is not 5121, 5123 or 5125`)
      }
      fits(
        sparse['indices']['bufferView'],
        sparse['indices']['byteOffset'],
        sparseCount,
        indexBytes!,
        indexBytes!,
        ' sparse indices',
      )
      fits(
        sparse['values']['bufferView'],
        sparse['values']['byteOffset'],
        sparseCount,
        elementBytes,
        componentBytes!,
        ' sparse values',
      )
      // gltf-transform reads the elements again over a bufferView, then the sparse indices and values.
      decodedBytes[i] =
        count * elementBytes * (accessor['bufferView'] === undefined ? 1 : 2) +
        sparseCount * (indexBytes! + elementBytes)
    }
  })

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

  // The arrays made from the file's data, summed before any is made (MAX_DECODED_BYTES).
  let decoded = 0
  const spend = (bytes: number, what: string): void => {
    decoded += bytes
    if (decoded > MAX_DECODED_BYTES) {
      fail(
        `${what} (${bytes} bytes) would bring the data decoded from the file to ${decoded} bytes, ` +
          `more than the limit of ${MAX_DECODED_BYTES}`,
      )
    }
  }
  accessorsInUse(json).forEach((inUse, i) => {
    if (inUse) spend(decodedBytes[i]!, `accessor ${i}: reading its ${accessors[i]!['count']} elements`)
  })
  animations.forEach((animation, a) => {
    const samplers = animation['samplers'] as Record<string, unknown>[]
    ;(animation['channels'] as Record<string, unknown>[]).forEach((channel, c) => {
      // clips.ts skips a channel without a target node.
      if ((channel['target'] as Record<string, unknown>)['node'] === undefined) return
      const sampler = samplers[channel['sampler'] as number]!
      const input = accessors[sampler['input'] as number]!
      const output = accessors[sampler['output'] as number]!
      const keys = input['count'] as number
      const values = (output['count'] as number) * TYPE_COMPONENTS[output['type'] as string]!
      spend(
        4 * (keys + values),
        `animation ${a}${nameOf(animation)} channel ${c}: copying its ${keys} key times and ${values} values`,
      )
    })
  })
  nodes.forEach((node, i) => {
    const targets = node['mesh'] === undefined ? 0 : morphTargetCount(meshes[node['mesh'] as number]!)
    if (targets > 0) spend(8 * targets, `node ${i}${nameOf(node)}: its ${targets} default morph weights`)
  })
}

/**
 * Which accessors the asset reads (animation samplers' input and output, skins' inverse bind matrices), by
 * accessor index. The others (meshes') are handed to gltf-transform empty: the asset holds none of their data.
 * Expects JSON that passed checkGltfJson's reference checks.
 */
export function accessorsInUse(json: GLTF.IGLTF): boolean[] {
  const used = new Array<boolean>(json.accessors?.length ?? 0).fill(false)
  for (const animation of json.animations ?? []) {
    for (const sampler of animation.samplers) used[sampler.input] = used[sampler.output] = true
  }
  for (const skin of json.skins ?? []) {
    if (skin.inverseBindMatrices !== undefined) used[skin.inverseBindMatrices] = true
  }
  return used
}

/** Morph targets of a mesh's first primitive, as read.ts counts them (0 for a malformed mesh). */
function morphTargetCount(mesh: Record<string, unknown>): number {
  const primitive: unknown = Array.isArray(mesh['primitives']) ? mesh['primitives'][0] : undefined
  return isObject(primitive) && Array.isArray(primitive['targets']) ? primitive['targets'].length : 0
}

/**
 * Sparse indices must be strictly increasing and name elements of their accessor (glTF 2.0 §3.6.2.3).
 * gltf-transform applies them as they come: an index past the end is dropped without a word, a repeated one
 * applied twice. Only accessors in use are checked: the others are never read (accessorsInUse), and
 * reading the indices of every accessor would let many accessors over one block cost time in their number
 * times its size. Runs after checkGltfJson (every sparse block then lies inside its buffer view and buffer,
 * and the ones in use within MAX_DECODED_BYTES) on the buffers resolveBuffers returned. Throws AnimationError
 * (kind 'gltf').
 */
export function checkSparseIndices(json: GLTF.IGLTF, buffers: readonly Uint8Array[], source: string): void {
  const inUse = accessorsInUse(json)
  ;(json.accessors ?? []).forEach((accessor, i) => {
    const sparse = accessor.sparse
    if (!sparse || !inUse[i]) return
    const view = json.bufferViews![sparse.indices.bufferView]!
    const bytes = buffers[view.buffer]!
    const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const size = SPARSE_INDEX_BYTES[sparse.indices.componentType]!
    const start = (view.byteOffset ?? 0) + (sparse.indices.byteOffset ?? 0)
    let previous = -1
    for (let k = 0; k < sparse.count; k++) {
      const at = start + k * size
      const index =
        size === 1 ? data.getUint8(at) : size === 2 ? data.getUint16(at, true) : data.getUint32(at, true)
      if (index <= previous) {
        throw gltfError(
          source,
          `accessor ${i}: sparse index ${k} is ${index}, not after sparse index ${k - 1} (${previous})`,
        )
      }
      if (index >= accessor.count) {
        throw gltfError(
          source,
          `accessor ${i}: sparse index ${k} is ${index}, past its ${accessor.count} elements`,
        )
      }
      previous = index
    }
  })
}

/** Bytes per component, by glTF componentType. */
const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 }
const SPARSE_INDEX_BYTES: Record<number, number> = { 5121: 1, 5123: 2, 5125: 4 }

/** Components per element, by glTF accessor type. */
const TYPE_COMPONENTS: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
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

function nameOf(item: Record<string, unknown>): string {
  return typeof item['name'] === 'string' && item['name'] !== '' ? ` "${item['name']}"` : ''
}
