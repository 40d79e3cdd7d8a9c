import { readFile } from 'node:fs/promises'
import { createWorld } from 'bitecs'
import { loadAsset } from '../src/gltf/load.ts'
import { AnimationError } from '../src/errors.ts'
import { createAnimationPlugin, type AnimationGraph } from '../entry/index.ts'
import type { CliIO, Command } from './command.ts'
import { argumentError, formatJson, parseCommandArgs } from './command.ts'
import { table } from './inspect.ts'

/**
 * `anim graph check GRAPH.json MODEL.glb [--json]`: checks a state machine graph (setGraph's JSON) against a
 * model, exactly as setGraph does on a character of it, and summarizes it: its parameters, and per layer the
 * plugin layer it drives, its states (what each plays) and transitions.
 */
export const graphCommand: Command = {
  name: 'graph',
  summary: 'check a state machine graph (JSON) against a model',
  usage: [
    'usage: anim graph check GRAPH.json MODEL.glb [--json]',
    '',
    'Checks the graph as setGraph does on a character of MODEL: its JSON, its parameters, states, transitions',
    "and conditions, and the model's clips and joints it names. A mistake is one line naming its path, e.g.",
    '  anim: graph.json: layers[0].transitions[3].when[0]: no parameter "sped"',
    'with exit status 2. A graph that passes is summarized: parameters, and per layer the plugin layer it drives,',
    'its entry, states and transitions. --json prints',
    '  {"graph": FILE, "model": FILE, "parameters": [{"name", "type"}], "layers": [{"name", "layer", "entry",',
    '   "states": [{"name", "plays"}], "transitions": N}]}',
  ].join('\n'),
  async run(args: string[], io: CliIO): Promise<void> {
    const { values, positionals } = parseCommandArgs('graph', args, { json: { type: 'boolean' } })
    const [sub, graphFile, modelFile] = positionals
    if (sub !== 'check') {
      throw argumentError(
        `graph: unknown subcommand ${sub === undefined ? '(none)' : `"${sub}"`} (graph check)`,
      )
    }
    if (positionals.length !== 3) throw argumentError('graph check needs GRAPH.json and MODEL.glb')
    const graph = await readGraph(graphFile!)
    const asset = await loadAsset(modelFile!)
    const plugin = createAnimationPlugin(createWorld(), { capacity: asset.nodes.length + 64 })
    try {
      plugin.setGraph(plugin.addCharacter(asset), graph)
    } catch (error) {
      if (!(error instanceof AnimationError)) throw error
      throw new AnimationError(error.kind, `${graphFile}: ${error.message.replace(/^setGraph\(\d+\): /, '')}`)
    }
    const report = summarize(graph, graphFile!, modelFile!)
    io.stdout(values.json ? formatJson(report) + '\n' : formatReport(report))
  },
}

async function readGraph(file: string): Promise<AnimationGraph> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw argumentError(`${file}: cannot read the file${code === 'ENOENT' ? ' (no such file)' : ''}`)
  }
  try {
    return JSON.parse(text) as AnimationGraph
  } catch (error) {
    throw argumentError(`${file}: not JSON: ${(error as Error).message}`)
  }
}

interface GraphReport {
  graph: string
  model: string
  parameters: { name: string; type: string }[]
  layers: {
    name: string
    layer: number
    entry: string
    states: { name: string; plays: string }[]
    transitions: number
  }[]
}

/** What a checked graph holds (setGraph accepted it, so every field below is there and well-formed). */
function summarize(graph: AnimationGraph, graphFile: string, model: string): GraphReport {
  const parameters = Object.entries(graph.parameters ?? {}).map(([name, p]) => ({ name, type: p.type }))
  const layers = graph.layers.map((layer, k) => ({
    name: layer.name,
    layer: k,
    entry: layer.entry,
    states: Object.entries(layer.states).map(([name, state]) => ({ name, plays: plays(state) })),
    transitions: layer.transitions?.length ?? 0,
  }))
  return { graph: graphFile, model, parameters, layers }
}

function plays(state: AnimationGraph['layers'][number]['states'][string]): string {
  if ('clip' in state) return `clip ${JSON.stringify(state.clip)}`
  if ('blendSpace' in state) {
    const b = state.blendSpace
    const clips = b.points.map((p) => JSON.stringify(p.clip)).join(', ')
    return `blend space of ${clips} by ${typeof b.parameter === 'string' ? b.parameter : b.parameter.join(', ')}`
  }
  return 'nothing'
}

function formatReport(r: GraphReport): string {
  const states = r.layers.reduce((n, l) => n + l.states.length, 0)
  const transitions = r.layers.reduce((n, l) => n + l.transitions, 0)
  const lines = [
    `${r.graph}: a valid graph for ${r.model}: ${r.layers.length} layer(s), ${states} states, ` +
      `${transitions} transitions, ${r.parameters.length} parameter(s)`,
  ]
  if (r.parameters.length > 0) {
    const rows = r.parameters.map((p) => [p.name, p.type])
    lines.push('', ...table(['parameter', 'type'], rows, [false, false]))
  }
  for (const l of r.layers) {
    lines.push('', `layer ${l.layer} "${l.name}" (entry "${l.entry}", ${l.transitions} transitions):`)
    const rows = l.states.map((s) => [s.name, s.plays])
    lines.push(...table(['state', 'plays'], rows, [false, false]))
  }
  return lines.join('\n') + '\n'
}
