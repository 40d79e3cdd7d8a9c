import { execFile } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { joinNegativeValues } from '../../cli/command.ts'
import { main } from '../../cli/main.ts'
import { sampleNodeTransforms } from '../../src/skeleton/nodeTransforms.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { assetPath, manifestEntry } from '../helpers/gltfFiles.ts'

const FOX = assetPath('Fox/glTF-Binary/Fox.glb')

/** Runs the CLI in this process, capturing its output. */
async function run(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const status = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) })
  return { status, stdout, stderr }
}

/** Runs the CLI as its own process, the way `npm run anim` does (bundled, plain node: scripts/anim.mjs). */
function spawn(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/anim.mjs', ...argv], (error, stdout, stderr) => {
      resolve({ status: error ? Number(error.code) : 0, stdout, stderr })
    })
  })
}

function expectUserError(result: { status: number; stdout: string; stderr: string }, message: string): void {
  expect(result.status).toBe(2)
  expect(result.stdout).toBe('')
  expect(result.stderr).toBe(`anim: ${message}\n`)
}

describe('as a process', () => {
  it('exits 0 with JSON on stdout, and 2 with one stderr line and no stack for mistakes', async () => {
    const [inspect, sample, badFile, unknownClip, noTime] = await Promise.all([
      spawn('inspect', FOX, '--json'),
      spawn('sample', FOX, '--clip', 'Walk', '--time', '0.5', '--json'),
      spawn('inspect', 'no/such/file.glb'),
      spawn('sample', FOX, '--clip', 'Jump', '--time', '1'),
      spawn('sample', FOX, '--clip', 'Walk'),
    ])
    expect(inspect.status).toBe(0)
    expect(JSON.parse(inspect.stdout)).toEqual(JSON.parse((await run('inspect', FOX, '--json')).stdout))
    expect(sample.status).toBe(0)
    expect(sample.stdout).toBe((await run('sample', FOX, '--clip', 'Walk', '--time', '0.5', '--json')).stdout)
    expectUserError(badFile, 'no/such/file.glb: cannot read the file (no such file)')
    expectUserError(unknownClip, `${FOX} has no clip "Jump" (clips: 0 "Survey", 1 "Walk", 2 "Run")`)
    expectUserError(noTime, 'sample needs at least one --time T (seconds)')
  })
})

describe('inspect', () => {
  it('prints the clips and skins of Fox as JSON matching manifest.json', async () => {
    const { status, stdout, stderr } = await run('inspect', FOX, '--json')
    expect([status, stderr]).toEqual([0, ''])
    const report = JSON.parse(stdout)
    const entry = manifestEntry('Fox/glTF-Binary/Fox.glb')
    expect(report.nodes).toBe(26)
    expect(report.skins).toEqual([{ index: 0, name: '', joints: 24, root: 2, rootName: '_rootJoint' }])
    expect(report.clips.map((c: { name: string }) => c.name)).toEqual(['Survey', 'Walk', 'Run'])
    report.clips.forEach((clip: { duration: number; channels: Record<string, unknown>[] }, i: number) => {
      const expected = entry.animations[i]!
      expect(clip.duration).toBe(expected.duration)
      expect(clip.channels.map((c) => [c['name'], c['path'], c['interpolation'], c['keys']])).toEqual(
        expected.channelDetail.map((c) => [c.node, c.path, c.interp, c.keys]),
      )
    })
    expect(report.clips[1].channels[0]).toEqual({
      node: 8,
      name: 'b_Head_05',
      path: 'rotation',
      interpolation: 'LINEAR',
      keys: 18,
    })
  })

  it('prints a readable table', async () => {
    const { status, stdout } = await run('inspect', FOX)
    expect(status).toBe(0)
    const lines = stdout.split('\n')
    expect(lines.slice(0, 4)).toEqual([
      FOX,
      '  26 nodes, 1 skin, 3 clips',
      '',
      'skin 0: 24 joints, root node 2 "_rootJoint"',
    ])
    expect(lines).toContain('clip 1 "Walk": 0.708 s, 21 channels')
    expect(lines).toContain('  node  name                path         interpolation  keys')
    expect(lines).toContain('     8  b_Head_05           rotation     LINEAR           18')
    expect(lines).toContain('     4  b_Hip_01            translation  LINEAR           18')
  })
})

describe('sample', async () => {
  const asset = await loadAsset(FOX)
  const walk = asset.clips[1]!

  it('prints the transforms of every node Walk animates at 0.5 s, as sampleNodeTransforms gives them', async () => {
    const { status, stdout, stderr } = await run('sample', FOX, '--clip', 'Walk', '--time', '0.5', '--json')
    expect([status, stderr]).toEqual([0, ''])
    const result = JSON.parse(stdout)
    expect(Object.keys(result)).toEqual(['clip', 'samples'])
    expect(result.clip).toBe('Walk')
    expect(result.samples).toHaveLength(1)
    expect(Object.keys(result.samples[0])).toEqual(['requested', 'time', 'nodes'])
    expect([result.samples[0].requested, result.samples[0].time]).toEqual([0.5, 0.5])
    const nodes = result.samples[0].nodes
    const animated = [...new Set(walk.channels.map((c) => c.node))].sort((a, b) => a - b)
    expect(nodes.map((n: { node: number }) => n.node)).toEqual(animated)
    expect(nodes).toHaveLength(20)
    for (const node of nodes) {
      expect(Object.keys(node)).toEqual(['node', 'name', 'translation', 'rotation', 'scale'])
      expect(node.name).toBe(asset.nodes[node.node]!.name)
    }
    expect(nodes).toEqual(sampleNodeTransforms(asset, walk, 0.5))
  })

  it('gives the key values exactly at a key time, and the rest transform for unanimated paths', async () => {
    const channel = walk.channels[0]! // b_Head_05.rotation
    const time = channel.times[5]!
    const { stdout } = await run('sample', FOX, '--clip', '1', '--time', String(time), '--json')
    const head = JSON.parse(stdout).samples[0].nodes.find((n: { node: number }) => n.node === channel.node)
    expect(head.rotation).toEqual(Array.from(channel.values.subarray(20, 24)))
    expect(head.translation).toEqual([...asset.nodes[channel.node]!.translation])
    expect(head.scale).toEqual([...asset.nodes[channel.node]!.scale])
  })

  it('clamps times outside [0, duration], reports both times, and keeps the requested order', async () => {
    const { stdout } = await run(
      'sample',
      FOX,
      '--clip',
      'Walk',
      '--time',
      '10',
      '--time=-1',
      '--time',
      '0',
      '--json',
    )
    const samples = JSON.parse(stdout).samples
    expect(samples.map((s: { requested: number }) => s.requested)).toEqual([10, -1, 0])
    expect(samples.map((s: { time: number }) => s.time)).toEqual([walk.duration, 0, 0])
    expect(samples[0].nodes).toEqual(sampleNodeTransforms(asset, walk, walk.duration))
    expect(samples[1].nodes).toEqual(samples[2].nodes)
    // Clamped, not wrapped: 10 s would wrap to 0.0833 s, which is between keys and samples differently.
    expect(samples[0].nodes).not.toEqual(sampleNodeTransforms(asset, walk, 10 % walk.duration))
  })

  it('takes a negative number as an option value: --time -0.1 is --time=-0.1, clamped to 0', async () => {
    const spaced = await run('sample', FOX, '--clip', 'Walk', '--time', '-0.1', '--json')
    expect([spaced.status, spaced.stderr]).toEqual([0, ''])
    expect(spaced.stdout).toBe((await run('sample', FOX, '--clip', 'Walk', '--time=-0.1', '--json')).stdout)
    expect(JSON.parse(spaced.stdout).samples[0].nodes).toEqual(sampleNodeTransforms(asset, walk, 0))
    const exponent = await run('sample', FOX, '--clip', 'Walk', '--time', '-.5e-1', '--json')
    expect(JSON.parse(exponent.stdout).samples[0].nodes).toEqual(sampleNodeTransforms(asset, walk, 0))
  })

  it('takes a comma-separated list of times, mixed with repeated --time, in the order given', async () => {
    const list = await run(
      'sample',
      FOX,
      '--clip',
      'Walk',
      '--time',
      '-0.1,0.25,2',
      '--time',
      '0.5',
      '--json',
    )
    expect([list.status, list.stderr]).toEqual([0, ''])
    const samples = JSON.parse(list.stdout).samples
    expect(samples.map((s: { requested: number; time: number }) => [s.requested, s.time])).toEqual([
      [-0.1, 0],
      [0.25, 0.25],
      [2, walk.duration],
      [0.5, 0.5],
    ])
    expect(samples.map((s: { nodes: unknown }) => s.nodes)).toEqual(
      [0, 0.25, walk.duration, 0.5].map((t) => sampleNodeTransforms(asset, walk, t)),
    )
  })

  it('prints the clamped time next to the requested one in the text report', async () => {
    const { status, stdout } = await run('sample', FOX, '--clip', 'Walk', '--time', '-0.1,0.5,2')
    expect(status).toBe(0)
    expect(stdout.split('\n').filter((line) => line.startsWith('t = '))).toEqual([
      't = -0.1 s (clamped to 0 s)',
      't = 0.5 s',
      't = 2 s (clamped to 0.708333 s)',
    ])
  })

  it('samples LINEAR rotations with squad when asked', async () => {
    const { stdout } = await run(
      'sample',
      FOX,
      '--clip',
      'Walk',
      '--time',
      '0.3',
      '--rotation',
      'squad',
      '--json',
    )
    const nodes = JSON.parse(stdout).samples[0].nodes
    expect(nodes).toEqual(sampleNodeTransforms(asset, walk, 0.3, { rotationMode: 'squad' }))
    expect(nodes).not.toEqual(sampleNodeTransforms(asset, walk, 0.3))
  })

  it('reports weights for a clip that animates them', async () => {
    const file = assetPath('AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb')
    const { stdout } = await run('sample', file, '--clip', 'Square', '--time', '1', '--json')
    const [node] = JSON.parse(stdout).samples[0].nodes
    expect(node.weights).toHaveLength(2)
  })
})

describe('joinNegativeValues', () => {
  const options = { time: { type: 'string', short: 't' }, json: { type: 'boolean' } } as const
  it.each([
    [['--time', '-0.1'], ['--time=-0.1']],
    [
      ['-t', '-2', '--time', '-.5', 'FILE'],
      ['--time=-2', '--time=-.5', 'FILE'],
    ],
    // Not a number, after a flag, or after `--`: left for parseArgs to judge.
    [
      ['--time', '-x'],
      ['--time', '-x'],
    ],
    [
      ['--json', '-1'],
      ['--json', '-1'],
    ],
    [
      ['--time', '1', '--', '--time', '-1'],
      ['--time', '1', '--', '--time', '-1'],
    ],
    [['--time=-1'], ['--time=-1']],
  ])('%j → %j', (args, joined) => {
    expect(joinNegativeValues(args, options)).toEqual(joined)
  })
})

describe('mistakes', () => {
  it.each([
    [['sample', FOX, '--clip', 'Walk', '--time', 'soon'], 'sample: --time "soon" is not a number of seconds'],
    [['sample', FOX, '--clip', 'Walk', '--time', ''], 'sample: --time "" is not a number of seconds'],
    [
      ['sample', FOX, '--clip', 'Walk', '--time', '0,soon,1'],
      'sample: --time "0,soon,1": item 2 "soon" is not a number of seconds',
    ],
    [
      ['sample', FOX, '--clip', 'Walk', '--time', '0.5,'],
      'sample: --time "0.5,": item 2 "" is not a number of seconds',
    ],
    [
      ['sample', FOX, '--clip', 'Walk', '--time', '-x'],
      "sample: Option '--time' argument is ambiguous. Did you forget to specify the option argument for '--time'? To specify an option argument starting with a dash use '--time=-XYZ'.",
    ],
    [['sample', FOX, '--time', '1'], 'sample needs --clip NAME|INDEX'],
    [
      ['sample', FOX, '--clip', '3', '--time', '1'],
      `${FOX} has no clip "3" (clips: 0 "Survey", 1 "Walk", 2 "Run")`,
    ],
    [
      ['sample', FOX, '--clip', 'Walk', '--time', '1', '--rotation', 'cubic'],
      'sample: --rotation must be slerp or squad, got "cubic"',
    ],
    [
      ['sample', FOX, '--clip', 'Walk', '--time', '1e999'],
      'clip "Walk": sample time Infinity is not a finite number',
    ],
    [['inspect'], 'inspect needs exactly one FILE (got none)'],
    [['inspect', FOX, FOX], `inspect needs exactly one FILE (got "${FOX}", "${FOX}")`],
    [
      ['inspect', FOX, '--verbose'],
      "inspect: Unknown option '--verbose'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--verbose\"",
    ],
    [
      ['inspect', assetPath('README.md')],
      `${assetPath('README.md')}: is neither a glTF binary (it does not start with the magic "glTF", it starts with "# An" (23 20 41 6e)) nor glTF JSON`,
    ],
    [['frob'], 'unknown command "frob" (commands: inspect, sample, simulate, graph; see anim --help)'],
  ])('%j', async (argv, message) => {
    expectUserError(await run(...argv), message)
  })

  it('prints usage for --help (exit 0) and on an empty command line (exit 2)', async () => {
    const help = await run('--help')
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/^usage: anim <command>/)
    expect(help.stdout).toContain('  sample    print the local transforms')
    const sampleHelp = await run('sample', '--help')
    expect(sampleHelp.stdout).toMatch(/^usage: anim sample FILE --clip NAME\|INDEX --time T/)
    const empty = await run()
    expect(empty.status).toBe(2)
    expect(empty.stderr).toBe(help.stdout)
  })
})
