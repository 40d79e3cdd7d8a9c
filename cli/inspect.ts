import type { AnimationAsset } from '../src/gltf/asset.ts'
import { loadAsset } from '../src/gltf/load.ts'
import type { CliIO, Command } from './command.ts'
import { formatJson, parseCommandArgs, singleFile } from './command.ts'

/** `anim inspect FILE [--json]`: what a file holds for animation: clips with their channels, and skins. */
export const inspectCommand: Command = {
  name: 'inspect',
  summary: 'list the clips (channels, key counts) and skins of a .glb/.gltf',
  usage: [
    'usage: anim inspect FILE [--json]',
    '',
    'Lists every clip (name, duration in seconds, channels: node index and name, path, interpolation, key count)',
    'and every skin (joint count, root node). --json prints the same as JSON.',
  ].join('\n'),
  async run(args: string[], io: CliIO): Promise<void> {
    const { values, positionals } = parseCommandArgs('inspect', args, { json: { type: 'boolean' } })
    const asset = await loadAsset(singleFile('inspect', positionals))
    const report = describeAsset(asset)
    io.stdout(values.json ? formatJson(report) + '\n' : formatReport(report))
  },
}

export interface InspectReport {
  source: string
  nodes: number
  roots: number[]
  skins: { index: number; name: string; joints: number; root: number; rootName: string | null }[]
  clips: {
    index: number
    name: string
    /** Seconds. */
    duration: number
    channels: { node: number; name: string; path: string; interpolation: string; keys: number }[]
  }[]
}

export function describeAsset(asset: AnimationAsset): InspectReport {
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
  for (const clip of report.clips) {
    lines.push(
      '',
      `clip ${clip.index} "${clip.name}": ${clip.duration.toFixed(3)} s, ${plural(clip.channels.length, 'channel')}`,
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
