import type { Clip } from '../src/clip/clip.ts'
import type { NodeTransform } from '../src/skeleton/nodeTransforms.ts'
import { sampleNodeTransforms } from '../src/skeleton/nodeTransforms.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import { loadAsset } from '../src/gltf/load.ts'
import type { CliIO, Command } from './command.ts'
import {
  argumentError,
  COMPRESS_ARGS,
  COMPRESS_USAGE,
  compressOption,
  formatJson,
  parseCommandArgs,
  singleFile,
} from './command.ts'
import { table } from './inspect.ts'

/**
 * `anim sample FILE --clip NAME|INDEX --time T[,T...] [--time T ...] [--rotation slerp|squad] [--json]`: the
 * local transform of every node the clip animates, at each clip-local time (seconds, clamped to [0, duration]),
 * reported with the time asked for and the time sampled.
 */
export const sampleCommand: Command = {
  name: 'sample',
  summary: 'print the local transforms a clip gives its nodes at given times',
  usage: [
    'usage: anim sample FILE --clip NAME|INDEX --time T[,T...] [--time T ...] [--rotation slerp|squad] [--json]',
    '                   [--compress [--tolerance T] [--distance D]]',
    '',
    'Samples the clip at each clip-local time T (seconds; clamped to [0, duration], no wrap) and prints the local',
    'translation, rotation [x, y, z, w] and scale (and morph weights when animated) of every node the clip',
    'animates, in node index order. Paths the clip does not animate show the rest transform.',
    '--time takes one time or a comma-separated list (--time -0.1,0.5,2), and may be repeated; the samples',
    'come in the order given. A time outside the clip is shown with the time it was clamped to.',
    '--clip takes a clip name, or an index when no clip has that name. --rotation squad samples LINEAR',
    'rotations with squad instead of slerp. --json prints',
    '  {"clip": NAME, "samples": [{"requested": T, "time": T clamped, "nodes": [{"node", "name", "translation",',
    '   "rotation", "scale", "weights"?}]}]}',
    ...COMPRESS_USAGE,
  ].join('\n'),
  async run(args: string[], io: CliIO): Promise<void> {
    const { values, positionals } = parseCommandArgs('sample', args, {
      ...COMPRESS_ARGS,
      clip: { type: 'string' },
      time: { type: 'string', multiple: true },
      rotation: { type: 'string', default: 'slerp' },
      json: { type: 'boolean' },
    })
    const file = singleFile('sample', positionals)
    if (values.clip === undefined) throw argumentError('sample needs --clip NAME|INDEX')
    if (!values.time || values.time.length === 0)
      throw argumentError('sample needs at least one --time T (seconds)')
    const times = values.time.flatMap(parseTimes)
    const rotationMode = values.rotation
    if (rotationMode !== 'slerp' && rotationMode !== 'squad') {
      throw argumentError(`sample: --rotation must be slerp or squad, got "${rotationMode}"`)
    }

    const asset = await loadAsset(file, { compress: compressOption('sample', values) })
    const clip = findClip(asset, values.clip)
    const samples: Sample[] = times.map((requested) => {
      // sampleNodeTransforms throws for a non-finite time before the clamp could hide it.
      const nodes = sampleNodeTransforms(asset, clip, requested, { rotationMode })
      return { requested, time: clampTime(clip, requested), nodes }
    })
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

/**
 * One sample as printed: `requested` is the time asked for, `time` the clip-local time sampled (the request
 * clamped to [0, duration]; the same number when inside the clip).
 */
export interface Sample {
  requested: number
  time: number
  nodes: NodeTransform[]
}

/** The clamp sampleNodeTransforms applies: [0, duration], no wrap. */
function clampTime(clip: Clip, time: number): number {
  return Math.min(Math.max(time, 0), clip.duration)
}

const SECONDS = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i

/** One --time value: a number of seconds, or several separated by commas. */
function parseTimes(text: string): number[] {
  const items = text.split(',')
  return items.map((item, i) => {
    if (SECONDS.test(item.trim())) return Number(item)
    throw argumentError(
      items.length === 1
        ? `sample: --time "${text}" is not a number of seconds`
        : `sample: --time "${text}": item ${i + 1} "${item}" is not a number of seconds`,
    )
  })
}

function formatSamples(clip: Clip, mode: string, samples: Sample[]): string {
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
    const clamped =
      sample.time === sample.requested ? '' : ` (clamped to ${Number(sample.time.toPrecision(6))} s)`
    lines.push('', `t = ${sample.requested} s${clamped}`)
    lines.push(...table(header, rows, [true]))
  }
  return lines.join('\n') + '\n'
}
