import { execFile } from 'node:child_process'
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { main } from '../../cli/main.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { assetPath } from '../helpers/gltfFiles.ts'
import { problems } from '../helpers/ecs.ts'

const FOX = assetPath('Fox/glTF-Binary/Fox.glb')

/** Runs the CLI in this process, capturing its output. */
async function run(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const status = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) })
  return { status, stdout, stderr }
}

interface Height {
  node: number
  name: string
  height: number
}

interface Result {
  hash: string
  steps: number
  characters: number
  msPerStep: number
  events: { step: number; entity: number; kind: string; message: string }[]
  eventsByKind: Record<string, number>
  final: { entity: number; ragdoll: string; ragdollWeight: number; root: Height; highest: Height }[]
}

/** `simulate FOX ...args --json`, which must succeed. */
async function simulate(...args: string[]): Promise<Result> {
  const { status, stdout, stderr } = await run('simulate', FOX, ...args, '--json')
  expect(stderr).toBe('')
  expect(status).toBe(0)
  return JSON.parse(stdout) as Result
}

describe('simulate', () => {
  it('prints the hash, steps, characters, time per step, events and the end state as JSON', async () => {
    const result = await simulate('--characters', '3', '--steps', '120')
    expect(Object.keys(result)).toEqual([
      'hash',
      'steps',
      'characters',
      'msPerStep',
      'events',
      'eventsByKind',
      'final',
    ])
    expect(result.hash).toMatch(/^[0-9a-f]{16}$/)
    expect([result.steps, result.characters, result.events]).toEqual([120, 3, []])
    expect(result.msPerStep).toBeGreaterThan(0)
    expect(result.msPerStep).toBeLessThan(100)
    // Every kind is listed; 2 s of Survey (3.4 s) do not loop.
    expect(result.eventsByKind).toEqual({
      'ragdoll-exploded': 0,
      'pose-non-finite': 0,
      'pose-stage-error': 0,
      'world-non-finite': 0,
      'ragdoll-limited': 0,
      'ragdoll-get-up': 0,
      marker: 0,
      loop: 0,
      finished: 0,
      'state-enter': 0,
      'state-exit': 0,
      'transition-start': 0,
      'transition-end': 0,
    })
    expect(result.final.map((c) => [c.entity, c.ragdoll, c.ragdollWeight, c.root.node, c.root.name])).toEqual(
      [
        [1, 'off', 0, 4, 'b_Hip_01'],
        [28, 'off', 0, 4, 'b_Hip_01'],
        [55, 'off', 0, 4, 'b_Hip_01'],
      ],
    )
    // Standing Foxes, unscaled (centimetres): the pelvis about 40 cm up, the head or ears higher.
    for (const c of result.final) {
      expect(c.root.height).toBeGreaterThan(30)
      expect(c.highest.height).toBeGreaterThan(c.root.height)
    }
  })

  it('reports the ragdoll state, the heights and the events of each character at the end', async () => {
    const base = ['--clip', 'Walk', '--characters', '2', '--scale', '0.01']
    const standing = await simulate(...base, '--steps', '240')
    const fallen = await simulate(...base, '--steps', '240', '--ragdoll-at', '0.5')
    const gettingUp = await simulate(...base, '--steps', '130', '--ragdoll-at', '0.5', '--getup-at', '2')
    const exploded = await simulate(
      ...base,
      '--steps',
      '60',
      '--ragdoll-at',
      '0.5',
      '--impulse',
      'b_Head_05:1000,0,0',
    )
    expect(standing.final.map((c) => [c.ragdoll, c.ragdollWeight])).toEqual([
      ['off', 0],
      ['off', 0],
    ])
    expect(fallen.final.map((c) => [c.ragdoll, c.ragdollWeight])).toEqual([
      ['falling', 1],
      ['falling', 1],
    ])
    // Get-up at step 120 ramps the weight down at 5 per second: 10 steps later it is 1 − 10·5/60.
    for (const c of gettingUp.final) {
      expect(c.ragdoll).toBe('getting-up')
      expect(c.ragdollWeight).toBeCloseTo(1 - 50 / 60, 9)
    }
    // The hip of a standing Fox is about 0.4 m up; 3.5 s after the hand-off it lies on the ground.
    for (const c of standing.final) expect(c.root.height).toBeGreaterThan(0.3)
    for (const c of fallen.final) {
      expect(c.root.height).toBeLessThan(0.15)
      expect(c.highest.height).toBeLessThan(0.3)
    }
    // 1000 N·s on a 0.6 kg head: the ragdoll explodes, is removed, and the Fox is animated again.
    // Clip events are counted, not listed: each Fox's Walk (0.71 s) wrapped once (clips run on under a ragdoll).
    expect(exploded.eventsByKind).toEqual({
      'ragdoll-exploded': 2,
      'pose-non-finite': 0,
      'pose-stage-error': 0,
      'world-non-finite': 0,
      'ragdoll-limited': 0,
      'ragdoll-get-up': 0,
      marker: 0,
      loop: 2,
      finished: 0,
      'state-enter': 0,
      'state-exit': 0,
      'transition-start': 0,
      'transition-end': 0,
    })
    expect(exploded.events.map((e) => [e.entity, e.kind])).toEqual([
      [1, 'ragdoll-exploded'],
      [28, 'ragdoll-exploded'],
    ])
    expect(exploded.final.map((c) => c.ragdoll)).toEqual(['off', 'off'])
  })

  it("reports the ragdoll's root joint and the highest skin joint, or scene nodes without a skin", async () => {
    const end = async (file: string): Promise<Result['final'][number]> => {
      const { status, stdout, stderr } = await run('simulate', assetPath(file), '--steps', '1', '--json')
      expect([status, stderr]).toEqual([0, ''])
      return (JSON.parse(stdout) as Result).final[0]!
    }
    // RobotExpressive: Bone (at its feet) is the first joint that branches; the head is its highest joint.
    const robot = await end('RobotExpressive/RobotExpressive.glb')
    expect([robot.root.node, robot.root.name, robot.highest.node, robot.highest.name]).toEqual([
      2,
      'Bone',
      12,
      'Head',
    ])
    expect(robot.highest.height).toBeGreaterThan(2)
    // AnimatedMorphCube has no skin: its one node is both.
    const cube = await end('AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb')
    expect([cube.root.node, cube.highest.node]).toEqual([0, 0])
  })

  it('gives the same hash for the same arguments, run after run', async () => {
    const args = [
      '--clip',
      'Run',
      '--characters',
      '5',
      '--steps',
      '200',
      '--crossfade-to',
      'Walk',
      '--at',
      '1',
    ]
    const [a, b] = [await simulate(...args), await simulate(...args)]
    expect(a.hash).toBe(b.hash)
    expect(a.events).toEqual(b.events)
  })

  it('gives a different hash when any argument that shapes the run changes', async () => {
    const base = ['--clip', 'Walk', '--characters', '2', '--steps', '90']
    const variants = [
      base,
      ['--clip', 'Run', '--characters', '2', '--steps', '90'],
      ['--clip', 'Walk', '--characters', '3', '--steps', '90'],
      ['--clip', 'Walk', '--characters', '2', '--steps', '91'],
      [...base, '--dt', '1/50'],
      [...base, '--scale', '0.01'],
      [...base, '--crossfade-to', 'Run', '--at', '0.5'],
      [...base, '--crossfade-to', 'Run', '--at', '0.6'],
      [...base, '--crossfade-to', 'Run', '--at', '0.5', '--duration', '0.1'],
    ]
    const hashes = []
    for (const args of variants) hashes.push((await simulate(...args)).hash)
    expect(new Set(hashes).size).toBe(variants.length)
    // The defaults are what the usage says.
    const defaults = await simulate()
    const explicit = await simulate('--clip', '0', '--characters', '1', '--steps', '600', '--dt', '1/60')
    expect(defaults.hash).toBe(explicit.hash)
    expect(defaults.steps).toBe(600)
  })

  it('repeats a ragdoll hand-off with a hit, and the hit and the get-up change the outcome', async () => {
    const ragdoll = [
      '--clip',
      'Walk',
      '--characters',
      '3',
      '--steps',
      '240',
      '--scale',
      '0.01',
      '--ragdoll-at',
      '0.5',
    ]
    const hit = [...ragdoll, '--impulse', 'b_Spine02_03:5,0,0']
    const [a, b] = [await simulate(...hit), await simulate(...hit)]
    expect(a.hash).toBe(b.hash)
    expect(a.events).toEqual(b.events)
    const others = [
      await simulate('--clip', 'Walk', '--characters', '3', '--steps', '240', '--scale', '0.01'),
      await simulate(...ragdoll),
      await simulate(...ragdoll, '--impulse', 'b_Spine02_03:0,0,5'),
      await simulate(...ragdoll, '--impulse', 'b_Spine02_03:-5,0,0'),
      await simulate(...hit, '--getup-at', '3'),
      await simulate(...hit, '--getup-at', '3', '--getup-clip', 'Survey'),
    ]
    expect(new Set([a.hash, ...others.map((r) => r.hash)]).size).toBe(7)
    // A node index names the same joint as its name (b_Spine02_03 is node 6).
    expect((await simulate(...ragdoll, '--impulse', '6:5,0,0')).hash).toBe(a.hash)
  })

  it('runs what its usage says: one character, scaled, playing Walk, hit at 0.5 s and got up at 2 s', async () => {
    const cli = await simulate(
      '--clip',
      'Walk',
      '--steps',
      '180',
      '--scale',
      '0.01',
      '--ragdoll-at',
      '0.5',
      '--impulse',
      'b_Spine02_03:5,0,0',
      '--getup-at',
      '2',
      '--getup-clip',
      'Survey',
    )
    // The same run written against the plugin directly: the actions happen before steps 30 and 120.
    const plugin = createAnimationPlugin(createWorld(), { dt: 1 / 60 })
    const fox = plugin.addCharacter(await loadAsset(FOX))
    plugin.stores.SceneNode.scale.fill(0.01, fox * 3, fox * 3 + 3)
    plugin.stores.SceneNode.dirty[fox] = 1
    plugin.play(fox, 'Walk')
    for (let step = 0; step < 180; step++) {
      if (step === 30) plugin.ragdoll(fox, { impulse: { joint: 'b_Spine02_03', impulse: [5, 0, 0] } })
      if (step === 120) plugin.getUp(fox, { clip: 'Survey' })
      plugin.step()
    }
    expect(cli.hash).toBe(plugin.hash())
    expect(cli.events).toEqual(problems(plugin))
    // The end heights are world y (SceneNode.world, column-major: element 13) of the pelvis and the highest joint.
    const asset = await loadAsset(FOX)
    const y = (node: number): number =>
      plugin.stores.SceneNode.world[plugin.jointEntity(fox, node) * 16 + 13]!
    const joints = [...asset.skeletons[0]!.joints].sort((a, b) => a - b)
    const top = joints.reduce((a, b) => (y(b) > y(a) ? b : a))
    expect(cli.final).toEqual([
      {
        entity: fox,
        ragdoll: 'off',
        ragdollWeight: 0,
        root: { node: 4, name: 'b_Hip_01', height: y(4) },
        highest: { node: top, name: asset.nodes[top]!.name, height: y(top) },
      },
    ])
    // A time between step starts moves to the next one: 0.49 s is step 30 (29.4 rounds up), 0.5 s exactly too.
    const at = (t: string) => simulate('--steps', '60', '--crossfade-to', 'Run', '--at', t)
    expect((await at('0.49')).hash).toBe((await at('0.5')).hash)
    expect((await at('0.49')).hash).not.toBe((await at('0.48')).hash)
  })

  it('prints a short text report without --json', async () => {
    const { status, stdout, stderr } = await run('simulate', FOX, '--characters', '2', '--steps', '60')
    const json = await simulate('--characters', '2', '--steps', '60')
    expect([status, stderr]).toEqual([0, ''])
    const lines = stdout.split('\n')
    expect(lines[0]).toBe(`${FOX}: 2 characters playing "Survey", 60 steps of 0.0166667 s (1 s)`)
    expect(lines[1]).toBe(`hash    ${json.hash}`)
    expect(lines[2]).toMatch(/^time {4}\d+\.\d{3} ms per step \(\d+\.\d ms in all\)$/)
    const row = (c: Result['final'][number]): string =>
      `  ${String(c.entity).padStart(6)}  off       0.000  ${c.root.height.toFixed(3).padStart(6)}  ` +
      `${c.highest.name} (node ${c.highest.node})`
    expect(lines.slice(3, 7)).toEqual([
      'events  none',
      '',
      'at the end (y: world height in world units; root: b_Hip_01 (node 4)):',
      expect.stringMatching(/^ {2}entity {2}ragdoll {2}weight {2}root y {2}highest +y$/),
    ])
    expect(lines.slice(7, 9).map((line) => line.replace(/ +\S+$/, ''))).toEqual(json.final.map(row))
    expect(lines.slice(7, 9).map((line) => line.split(/ +/).at(-1))).toEqual(
      json.final.map((c) => c.highest.height.toFixed(3)),
    )
    expect(lines.slice(9)).toEqual([''])
  })

  it('works as `npm run anim` in its own process: 100 Foxes, 600 steps, the same hash as in this process', async () => {
    const argv = ['simulate', FOX, '--characters', '100', '--steps', '600', '--json']
    const started = performance.now()
    const child = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile('npm', ['run', 'anim', '--', ...argv], (error, stdout, stderr) => {
        resolve({ status: error ? Number(error.code) : 0, stdout, stderr })
      })
    })
    const seconds = (performance.now() - started) / 1000
    expect(child.status).toBe(0)
    // npm prints its `> ecs-anim@0.1.0 anim` header first; the JSON follows.
    const result = JSON.parse(child.stdout.slice(child.stdout.indexOf('\n{') + 1)) as Result
    expect([result.steps, result.characters]).toEqual([600, 100])
    expect(result.hash).toBe(JSON.parse((await run(...argv)).stdout).hash)
    console.info(
      `npm run anim -- simulate (100 Foxes × 600 steps): ${seconds.toFixed(2)} s wall, ` +
        `${result.msPerStep.toFixed(3)} ms per step`,
    )
  })
})

describe('simulate mistakes', () => {
  it.each([
    [['--characters', '0'], 'simulate: --characters "0" must be a whole number ≥ 1'],
    [['--characters', '2.5'], 'simulate: --characters "2.5" must be a whole number ≥ 1'],
    [['--characters=-3'], 'simulate: --characters "-3" must be a whole number ≥ 1'],
    [['--steps', 'many'], 'simulate: --steps "many" must be a whole number ≥ 1'],
    [['--dt', '0'], 'simulate: --dt 0 s must be > 0'],
    [['--dt=-0.1'], 'simulate: --dt "-0.1" is not a finite number of seconds ≥ 0'],
    [['--dt', '1e999'], 'simulate: --dt "1e999" is not a finite number of seconds ≥ 0'],
    [['--dt', '1/0'], 'simulate: --dt "1/0" is not a finite number of seconds ≥ 0'],
    [['--scale', '0'], 'simulate: --scale 0 must be > 0'],
    // A negative value may follow its option with a space; it is judged as with `=`.
    [['--scale', '-1'], 'simulate: --scale -1 must be > 0'],
    [['--dt', '-0.1'], 'simulate: --dt "-0.1" is not a finite number of seconds ≥ 0'],
    [['--characters', '-3'], 'simulate: --characters "-3" must be a whole number ≥ 1'],
    [['--ragdoll-at', '-1'], 'simulate: --ragdoll-at "-1" is not a finite number of seconds ≥ 0'],
    [['--scale', 'big'], 'simulate: --scale "big" is not a finite number'],
    [['--clip', 'Jump'], `${FOX} has no clip "Jump" (clips: 0 "Survey", 1 "Walk", 2 "Run")`],
    [
      ['--crossfade-to', 'Fly', '--at', '1'],
      `${FOX} has no clip "Fly" (clips: 0 "Survey", 1 "Walk", 2 "Run")`,
    ],
    [['--crossfade-to', 'Run'], 'simulate: --crossfade-to needs --at S (seconds into the run)'],
    [['--at', '1'], 'simulate: --at needs --crossfade-to'],
    [['--duration', '1'], 'simulate: --duration needs --crossfade-to'],
    [
      ['--crossfade-to', 'Run', '--at', '1', '--duration', 'long'],
      'simulate: --duration "long" is not a finite number of seconds ≥ 0',
    ],
    [
      ['--steps', '60', '--crossfade-to', 'Run', '--at', '1'],
      'simulate: --at 1 s is outside the run (60 steps of 0.0166667 s; the last step starts at 0.983333 s)',
    ],
    [
      ['--ragdoll-at', '10'],
      'simulate: --ragdoll-at 10 s is outside the run (600 steps of 0.0166667 s; the last step starts at 9.98333 s)',
    ],
    [['--ragdoll-at=-1'], 'simulate: --ragdoll-at "-1" is not a finite number of seconds ≥ 0'],
    [['--impulse', 'b_Head_05:1,0,0'], 'simulate: --impulse needs --ragdoll-at'],
    [['--getup-at', '2'], 'simulate: --getup-at needs --ragdoll-at'],
    [['--ragdoll-at', '1', '--getup-clip', 'Survey'], 'simulate: --getup-clip needs --getup-at'],
    [
      ['--ragdoll-at', '1', '--getup-at', '1'],
      'simulate: --getup-at 1 s (step 60) must come after --ragdoll-at 1 s (step 60)',
    ],
    [
      ['--ragdoll-at', '1', '--getup-at', '2', '--getup-clip', 'Sit'],
      `${FOX} has no clip "Sit" (clips: 0 "Survey", 1 "Walk", 2 "Run")`,
    ],
    [
      ['--ragdoll-at', '1', '--impulse', 'b_Head_05:1,0'],
      'simulate: --impulse "b_Head_05:1,0" must be JOINT:x,y,z (a node name or index, then three finite numbers, N·s)',
    ],
    [
      ['--ragdoll-at', '1', '--impulse', '1,0,0'],
      'simulate: --impulse "1,0,0" must be JOINT:x,y,z (a node name or index, then three finite numbers, N·s)',
    ],
    [
      ['--ragdoll-at', '1', '--impulse', 'b_Tail:1,0,0'],
      `${FOX} has no node "b_Tail" for --impulse (nodes are named, or numbered 0..25)`,
    ],
    [
      ['--frames', '3'],
      "simulate: Unknown option '--frames'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--frames\"",
    ],
  ])('%j', async (args, message) => {
    const result = await run('simulate', FOX, ...args)
    expect(result).toEqual({ status: 2, stdout: '', stderr: `anim: ${message}\n` })
  })

  it('needs exactly one FILE, and reports a missing one as the loader does', async () => {
    expect((await run('simulate')).stderr).toBe('anim: simulate needs exactly one FILE (got none)\n')
    const missing = await run('simulate', 'no/such/file.glb', '--steps', '1')
    expect(missing).toEqual({
      status: 2,
      stdout: '',
      stderr: 'anim: no/such/file.glb: cannot read the file (no such file)\n',
    })
  })

  it('is listed in anim --help and has its own usage', async () => {
    expect((await run('--help')).stdout).toContain('  simulate  run N characters for K fixed steps headless')
    expect((await run('simulate', '--help')).stdout).toMatch(
      /^usage: anim simulate FILE \[--clip NAME\|INDEX\]/,
    )
  })
})
