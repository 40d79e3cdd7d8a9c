/**
 * `anim graph check GRAPH.json MODEL.glb`: a graph setGraph accepts is summarized (text and --json); a graph it
 * refuses, a file that is not JSON or not there, and bad arguments are one stderr line with the path and exit 2.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../cli/main.ts'
import { assetPath } from '../helpers/gltfFiles.ts'

const FOX = assetPath('Fox/glTF-Binary/Fox.glb')
const dir = mkdtempSync(join(tmpdir(), 'anim-graph-'))

const GRAPH = {
  parameters: { speed: { type: 'float' }, look: { type: 'trigger' } },
  layers: [
    {
      name: 'base',
      entry: 'idle',
      states: {
        idle: { clip: 'Survey' },
        move: {
          blendSpace: {
            points: [
              { clip: 'Walk', at: 1 },
              { clip: 'Run', at: 3 },
            ],
            parameter: 'speed',
          },
        },
      },
      transitions: [
        { from: 'idle', to: 'move', when: [['speed', '>', 0.1]], duration: 0.25 },
        { from: 'move', to: 'idle', when: [['speed', '<=', 0.1]], duration: 0.3 },
      ],
    },
    {
      name: 'head',
      mask: ['b_Neck_04'],
      entry: 'off',
      states: { off: {}, look: { clip: 'Survey', loop: 'once' } },
      transitions: [{ from: 'off', to: 'look', when: [['look']] }],
    },
  ],
}

function file(name: string, content: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

async function run(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const status = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) })
  return { status, stdout, stderr }
}

describe('graph check', () => {
  it('summarizes a graph the model takes', async () => {
    const graph = file('good.json', GRAPH)
    const text = await run('graph', 'check', graph, FOX)
    expect([text.status, text.stderr]).toEqual([0, ''])
    expect(text.stdout).toContain(`${graph}: a valid graph for ${FOX}: 2 layer(s), 4 states, 3 transitions`)
    expect(text.stdout).toContain('move   blend space of "Walk", "Run" by speed')
    expect(text.stdout).toContain('off    nothing')
    const json = JSON.parse((await run('graph', 'check', graph, FOX, '--json')).stdout)
    expect(json.parameters).toEqual([
      { name: 'speed', type: 'float' },
      { name: 'look', type: 'trigger' },
    ])
    expect(
      json.layers.map((l: { name: string; layer: number; transitions: number }) => [
        l.name,
        l.layer,
        l.transitions,
      ]),
    ).toEqual([
      ['base', 0, 2],
      ['head', 1, 1],
    ])
  })

  it("refuses what setGraph refuses, naming the path, and what is not a graph's file", async () => {
    const sped = structuredClone(GRAPH)
    sped.layers[0]!.transitions![1]!.when = [['sped', '<=', 0.1]]
    const joint = structuredClone(GRAPH)
    joint.layers[1]!.mask = ['b_Nek']
    const cases: [string[], string][] = [
      [
        ['graph', 'check', file('sped.json', sped), FOX],
        `${join(dir, 'sped.json')}: layers[0].transitions[1].when[0]: no parameter "sped"`,
      ],
      [['graph', 'check', file('joint.json', joint), FOX], `${join(dir, 'joint.json')}: layers[1].mask[0]: `],
      [['graph', 'check', file('bad.json', '{"layers": ['), FOX], `${join(dir, 'bad.json')}: not JSON: `],
      [
        ['graph', 'check', join(dir, 'none.json'), FOX],
        `${join(dir, 'none.json')}: cannot read the file (no such file)`,
      ],
      [['graph', 'check', file('g.json', GRAPH)], 'graph check needs GRAPH.json and MODEL.glb'],
      [['graph', 'verify', 'a', 'b'], 'graph: unknown subcommand "verify" (graph check)'],
    ]
    for (const [argv, message] of cases) {
      const result = await run(...argv)
      expect(result.status, argv.join(' ')).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr.startsWith(`anim: ${message}`), result.stderr).toBe(true)
      expect(result.stderr.split('\n')).toHaveLength(2)
    }
  })
})
