import { readFile } from 'node:fs/promises'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { parseContainer } from '../src/gltf/container.ts'
import { loadAsset } from '../src/gltf/load.ts'
import type { CliIO, Command } from './command.ts'
import { clipBytes } from '../src/clip/compactClip.ts'
import type { ClipCompression } from '../src/clip/clip.ts'
import {
  COMPRESS_ARGS,
  COMPRESS_USAGE,
  compressOption,
  formatJson,
  parseCommandArgs,
  singleFile,
} from './command.ts'

/**
 * `anim inspect FILE [--json]`: what a file holds for animation: skins, the node tree (which nodes are joints,
 * which carry meshes and morph targets) and clips with their channels.
 */
export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'list the skins, node tree (joints, meshes, morph targets) and clips of a .glb/.gltf',
  usage: [
    'usage: anim inspect FILE [--json] [--compress [--tolerance T] [--distance D]]',
    '',
    'Lists every skin (joint count, root node), the node tree, and every clip (name, duration in seconds,',
    'channels: node index and name, path, interpolation, key count). The tree shows each node indented under',
    'its parent with its glTF node index, the skins it is a joint of, and its mesh: the mesh index and name,',
    'the skin that deforms it, and its morph targets with their names when the file gives them',
    '(mesh.extras.targetNames). Nodes are named in other commands by name or index; where several nodes share',
    'a name, the name means the lowest index. --json prints the same as JSON ("tree": one entry per node, in',
    'node index order).',
    ...COMPRESS_USAGE,
    'Each compact clip then also shows its keys kept, its bytes a key and the world error measured.',
  ].join('\n'),
  async run(args: string[], io: CliIO): Promise<void> {
    const { values, positionals } = parseCommandArgs('inspect', args, {
      json: { type: 'boolean' },
      ...COMPRESS_ARGS,
    })
    const file = singleFile('inspect', positionals)
    const asset = await loadAsset(file, { compress: compressOption('inspect', values) })
    const report = describeAsset(asset, await readMeshNames(file))
    io.stdout(values.json ? formatJson(report) + '\n' : formatReport(report))
  },
}

/** What the asset does not carry about a glTF mesh: its name and its morph target names. */
export interface MeshNames {
  /** `mesh.name`, or null when the file gives none. */
  name: string | null
  /**
   * `mesh.extras.targetNames` (the convention Blender and three.js follow; glTF itself does not name targets):
   * one string per morph target, else null.
   */
  targetNames: string[] | null
}

/**
 * Mesh names and morph target names, in glTF mesh order, from the file's JSON. Called after loadAsset read the
 * same file, so the container is known to be sound; the JSON is all it reads (no buffers).
 */
async function readMeshNames(file: string): Promise<MeshNames[]> {
  const { json } = parseContainer(new Uint8Array(await readFile(file)), file)
  return (json.meshes ?? []).map((mesh) => {
    const names: unknown = mesh.extras?.['targetNames']
    const targets = mesh.primitives?.[0]?.targets?.length ?? 0
    const valid =
      Array.isArray(names) && names.length === targets && names.every((name) => typeof name === 'string')
    return { name: typeof mesh.name === 'string' ? mesh.name : null, targetNames: valid ? names : null }
  })
}

export interface InspectReport {
  source: string
  nodes: number
  roots: number[]
  skins: { index: number; name: string; joints: number; root: number; rootName: string | null }[]
  /** One entry per node, in node index order (`tree[i].node === i`). */
  tree: TreeNode[]
  clips: {
    index: number
    name: string
    /** Seconds. */
    duration: number
    channels: { node: number; name: string; path: string; interpolation: string; keys: number }[]
    /** A compact clip's (--compress): how it was made, and the bytes its keys take. */
    compression?: ClipCompression & { bytes: number }
  }[]
}

export interface TreeNode {
  node: number
  name: string
  /** Parent node index, -1 for a root. */
  parent: number
  children: number[]
  /** Steps from its root: 0 for a root. */
  depth: number
  /** Whether it is under a root of the scene the asset uses (`roots`); a character is made of those. */
  inScene: boolean
  /** Indices of the skins this node is a joint of, ascending. */
  jointOf: number[]
  mesh: {
    index: number
    /** `mesh.name` from the file; null when it has none (or describeAsset was given no MeshNames). */
    name: string | null
    /** The skin (index into skins) that deforms the mesh, -1 for none. */
    skin: number
    morphTargets: number
    targetNames: string[] | null
  } | null
}

/**
 * The report for `asset`; `meshes` (glTF mesh order, from readMeshNames) adds the mesh and morph target names
 * the asset does not carry.
 */
export function describeAsset(asset: AnimationAsset, meshes: readonly MeshNames[] = []): InspectReport {
  const jointOf = asset.nodes.map((): number[] => [])
  asset.skeletons.forEach((skeleton, s) =>
    skeleton.joints.forEach((node) => jointOf[node]!.at(-1) !== s && jointOf[node]!.push(s)),
  )
  const depth = new Array<number>(asset.nodes.length).fill(0)
  const inScene = new Array<boolean>(asset.nodes.length).fill(false)
  const visit = (node: number, each: (node: number, d: number) => void, d = 0): void => {
    each(node, d)
    for (const child of asset.nodes[node]!.children) visit(child, each, d + 1)
  }
  for (const node of asset.nodes) if (node.parent === -1) visit(node.index, (n, d) => (depth[n] = d))
  for (const root of asset.roots) visit(root, (n) => (inScene[n] = true))
  return {
    source: asset.source,
    nodes: asset.nodes.length,
    roots: [...asset.roots],
    skins: asset.skeletons.map((skeleton, index) => ({
      index,
      name: skeleton.name,
      joints: skeleton.joints.length,
      root: skeleton.root,
      rootName: asset.nodes[skeleton.root]?.name ?? null,
    })),
    tree: asset.nodes.map((node) => ({
      node: node.index,
      name: node.name,
      parent: node.parent,
      children: [...node.children],
      depth: depth[node.index]!,
      inScene: inScene[node.index]!,
      jointOf: jointOf[node.index]!,
      mesh:
        node.mesh < 0
          ? null
          : {
              index: node.mesh,
              name: meshes[node.mesh]?.name ?? null,
              skin: node.skin,
              morphTargets: node.weights.length,
              targetNames: meshes[node.mesh]?.targetNames ?? null,
            },
    })),
    clips: asset.clips.map((clip, index) => ({
      index,
      name: clip.name,
      duration: clip.duration,
      channels: clip.channels.map((channel) => ({
        node: channel.node,
        name: channel.nodeName,
        path: channel.path,
        interpolation: channel.interpolation,
        keys: channel.times.length,
      })),
      ...(clip.compression ? { compression: { ...clip.compression, bytes: clipBytes(clip) } } : {}),
    })),
  }
}

function formatReport(report: InspectReport): string {
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`
  const lines = [
    report.source,
    `  ${plural(report.nodes, 'node')}, ${plural(report.skins.length, 'skin')}, ${plural(report.clips.length, 'clip')}`,
  ]
  for (const skin of report.skins) {
    const root = skin.root === -1 ? 'no common root' : `root node ${skin.root} "${skin.rootName}"`
    lines.push(
      '',
      `skin ${skin.index}${skin.name ? ` "${skin.name}"` : ''}: ${plural(skin.joints, 'joint')}, ${root}`,
    )
  }
  lines.push('', ...formatTree(report.tree))
  for (const clip of report.clips) {
    lines.push(
      '',
      `clip ${clip.index} "${clip.name}": ${clip.duration.toFixed(3)} s, ${plural(clip.channels.length, 'channel')}` +
        compactSummary(clip.compression),
    )
    lines.push(
      ...table(
        ['node', 'name', 'path', 'interpolation', 'keys'],
        clip.channels.map((c) => [String(c.node), c.name, c.path, c.interpolation, String(c.keys)]),
        [true, false, false, false, true],
      ),
    )
  }
  return lines.join('\n') + '\n'
}

/**
 * The node tree, depth first from the scene roots (then any root outside the scene), children in file order:
 * index, name indented two spaces per level, the skins it is a joint of, its mesh. Then the names that more
 * than one node has, since on such a rig (RobotExpressive: "Head" is a bone and the mesh node under it) a name
 * given to another command means the lowest index, which may not be the joint one meant.
 */
function formatTree(tree: readonly TreeNode[]): string[] {
  const order: TreeNode[] = []
  const visit = (node: TreeNode): void => {
    order.push(node)
    for (const child of node.children) visit(tree[child]!)
  }
  for (const node of tree) if (node.parent === -1 && node.inScene) visit(node)
  for (const node of tree) if (node.parent === -1 && !node.inScene) visit(node)
  const skins = (list: number[]): string =>
    list.length === 0 ? '' : `${list.length === 1 ? 'skin' : 'skins'} ${list.join(', ')}`
  const rows = order.map((node) => [
    String(node.node),
    '  '.repeat(node.depth) + node.name + (node.inScene ? '' : ' (not in the scene)'),
    skins(node.jointOf),
    node.mesh ? describeMesh(node.mesh) : '',
  ])
  const lines = [
    'node tree (each node under its parent; joint of: the skins it is a joint of):',
    ...table(['node', 'name', 'joint of', 'mesh'], rows, [true, false, false, false]),
  ]

  const byName = new Map<string, TreeNode[]>()
  for (const node of tree) byName.set(node.name, [...(byName.get(node.name) ?? []), node])
  const shared = [...byName].filter(([, nodes]) => nodes.length > 1)
  if (shared.length > 0) {
    const role = (node: TreeNode): string =>
      node.jointOf.length > 0 ? ' (joint)' : node.mesh ? ' (mesh)' : ''
    lines.push(
      '',
      'names shared by several nodes (a name means the lowest index; give the index for another):',
      ...table(
        ['name', 'nodes'],
        shared.map(([name, nodes]) => [name, nodes.map((n) => `${n.node}${role(n)}`).join(', ')]),
        [false, false],
      ),
    )
  }
  return lines
}

function describeMesh(mesh: NonNullable<TreeNode['mesh']>): string {
  const parts = [`mesh ${mesh.index}${mesh.name === null ? '' : ` "${mesh.name}"`}`]
  if (mesh.skin >= 0) parts.push(`skinned by skin ${mesh.skin}`)
  if (mesh.morphTargets > 0) {
    const count = `${mesh.morphTargets} morph target${mesh.morphTargets === 1 ? '' : 's'}`
    parts.push(mesh.targetNames ? `${count}: ${mesh.targetNames.join(', ')}` : `${count} (unnamed)`)
  }
  return parts.join(', ')
}

/** Rows padded to column width, indented two spaces; `right[i]` right-aligns column i. */
export function table(header: string[], rows: string[][], right: boolean[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  return [header, ...rows].map(
    (row) =>
      '  ' +
      row
        .map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
  )
}

/** ", compact: K of N keys kept, B bytes a key, error E (tolerance T at D)" for a compact clip, else ''. */
function compactSummary(c: InspectReport['clips'][number]['compression']): string {
  if (!c) return ''
  return (
    `, compact: ${c.keys} keys → ${c.keptKeys}, ${(c.bytes / c.keys).toFixed(1)} bytes a key, ` +
    `error ${c.error.toPrecision(2)} (tolerance ${c.tolerance} at ${c.distance})`
  )
}
