import type { Clip } from '../src/clip/clip.ts'
import type { NodeTransform } from '../src/clip/nodeTransforms.ts'
import { sampleNodeTransforms } from '../src/clip/nodeTransforms.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { loadAsset } from '../src/gltf/load.ts'
import type { CliIO, Command } from './command.ts'
import { argumentError, formatJson, parseCommandArgs, singleFile } from './command.ts'
import { table } from './inspect.ts'

/**
 * `anim sample FILE --clip NAME|INDEX --time T [--time T ...] [--rotation slerp|squad] [--json]`: the local
 * transform of every node the clip animates, at each clip-local time (seconds, clamped to [0, duration]).
 */
export const sampleCommand: Command = {
  name: 'sample',
  summary: 'print the local transforms a clip gives its nodes at given times',
  usage: [
    'usage: anim sample FILE --clip NAME|INDEX --time T [--time T ...] [--rotation slerp|squad] [--json]',
    '',
    'Samples the clip at each clip-local time T (seconds; clamped to [0, duration], no wrap) and prints the local',
    'translation, rotation [x, y, z, w] and scale (and morph weights when animated) of every node the clip',
    'animates, in node index order. Paths the clip does not animate show the rest transform.',
    '--clip takes a clip name, or an index when no clip has that name. --rotation squad samples LINEAR',
    'rotations with squad instead of slerp. --json prints',
    '  {"clip": NAME, "samples": [{"time": T, "nodes": [{"node", "name", "translation", "rotation", "scale",',
    '   "weights"?}]}]}',
  ].join('\n'),
  async run(args: string[], io: CliIO): Promise<void> {
    const { values, positionals } = parseCommandArgs('sample', args, {
      clip: { type: 'string' },
      time: { type: 'string', multiple: true },
      rotation: { type: 'string', default: 'slerp' },
      json: { type: 'boolean' },
    })
    const file = singleFile('sample', positionals)
    if (values.clip === undefined) throw argumentError('sample needs --clip NAME|INDEX')
    if (!values.time || values.time.length === 0)
      throw argumentError('sample needs at least one --time T (seconds)')
    const times = values.time.map(parseSeconds)
    const rotationMode = values.rotation
    if (rotationMode !== 'slerp' && rotationMode !== 'squad') {
      throw argumentError(`sample: --rotation must be slerp or squad, got "${rotationMode}"`)
    }

    const asset = await loadAsset(file)
    const clip = findClip(asset, values.clip)
    const samples = times.map((time) => ({
      time,
      nodes: sampleNodeTransforms(asset, clip, time, { rotationMode }),
    }))
    io.stdout(
      values.json
        ? formatJson({ clip: clip.name, samples }) + '\n'
        : formatSamples(clip, rotationMode, samples),
    )
  },
}

/** A clip by exact name, else by index when the argument is a whole number. */
export function findClip(asset: AnimationAsset, wanted: string): Clip {
  const byName = asset.clips.find((clip) => clip.name === wanted)
  if (byName) return byName
  if (/^\d+$/.test(wanted) && Number(wanted) < asset.clips.length) return asset.clips[Number(wanted)]!
  const available = asset.clips.map((clip, i) => `${i} "${clip.name}"`).join(', ')
  throw argumentError(`${asset.source} has no clip "${wanted}" (clips: ${available || 'none'})`)
}

function parseSeconds(text: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text.trim())) {
    throw argumentError(`sample: --time "${text}" is not a number of seconds`)
  }
  return Number(text)
}

function formatSamples(
  clip: Clip,
  mode: string,
  samples: { time: number; nodes: NodeTransform[] }[],
): string {
  const vector = (v: readonly number[]): string => v.map((x) => x.toFixed(4)).join(' ')
  const lines = [`clip "${clip.name}" (${clip.duration.toFixed(3)} s), rotation ${mode}`]
  for (const sample of samples) {
    const weights = sample.nodes.some((n) => n.weights)
    const rows = sample.nodes.map((n) => [
      String(n.node),
      n.name,
      vector(n.translation),
      vector(n.rotation),
      vector(n.scale),
      ...(weights ? [n.weights ? vector(n.weights) : ''] : []),
    ])
    const header = [
      'node',
      'name',
      'translation',
      'rotation [x y z w]',
      'scale',
      ...(weights ? ['weights'] : []),
    ]
    lines.push('', `t = ${sample.time} s`)
    lines.push(...table(header, rows, [true]))
  }
  return lines.join('\n') + '\n'
}
