/**
 * The package, tried as a new user would: `npm pack` (which builds, through prepack), install the tarball into a
 * scratch project next to bitecs, run a game loop there with plain `node`, and type-check a TypeScript consumer
 * against the shipped declarations. Slow (a build and an install: tens of seconds), so one file, one setup.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { addComponent, addEntity, createWorld } from 'bitecs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAnimationPlugin } from '../../entry/index.ts'
import { loadAsset } from '../../entry/node.ts'
import { assetPath } from '../helpers/gltfFiles.ts'
import { runGame, type GameResult } from './fixture/game.mjs'

const REPO = resolve('.')
const FOX = resolve(assetPath('Fox/glTF-Binary/Fox.glb'))
const FIXTURE = resolve('test/package/fixture')
const TSC = join(REPO, 'node_modules/.bin/tsc')

interface Output {
  stdout: string
  stderr: string
}

/** Runs a program; rejects with its output when it fails. */
function sh(file: string, args: string[], cwd: string): Promise<Output> {
  return new Promise((done, fail) => {
    execFile(file, args, { cwd, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`${file} ${args.join(' ')} (in ${cwd}) failed:\n${stdout}\n${stderr}`))
      else done({ stdout, stderr })
    })
  })
}

interface PackEntry {
  filename: string
  files: { path: string }[]
}

/** A TypeScript consumer of the package's types; the @ts-expect-error lines fail if the types were `any`. */
const CONSUMER_TS = `import { createWorld } from 'bitecs'
import { AnimationError, createAnimationPlugin } from 'ecs-anim'
import type { AnimationAsset, AnimationPlugin, PlayOptions } from 'ecs-anim'
import { loadAsset } from 'ecs-anim/node'

const anim: AnimationPlugin = createAnimationPlugin(createWorld(), { dt: 1 / 60 })
const asset: AnimationAsset = await loadAsset('Fox.glb')
const fox: number = anim.addCharacter(asset)
const walk: PlayOptions = { loop: 'repeat', speed: 1, rotation: 'squad' }
anim.play(fox, 'Walk', walk)
anim.crossFade(fox, 1, 0.3)
anim.step()
const matrices: Float32Array = anim.stores.SceneNode.world
const hash: string = anim.hash()
const kind: string = new AnimationError('argument', 'x').kind
export const used = [matrices, hash, kind]

// @ts-expect-error: a clip is a name or an index
anim.play(fox, { name: 'Walk' })
// @ts-expect-error: 'bounce' is not a loop mode
anim.play(fox, 'Walk', { loop: 'bounce' })
// @ts-expect-error: loadAsset lives in 'ecs-anim/node', not in the browser-safe entry
import { loadAsset as notHere } from 'ecs-anim'
export const alsoUsed = notHere
`

const tsconfig = (moduleResolution: string, module: string) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module,
      moduleResolution,
      // ESNext, not ES2022: @gltf-transform/core's declarations (reached through assetFromDocument) name
      // Float16Array. A consumer with skipLibCheck (the usual setting) does not need it.
      lib: ['ESNext', 'DOM'],
      types: [],
      strict: true,
      noEmit: true,
      // Check the shipped .d.ts files too, not only their use.
      skipLibCheck: false,
    },
    files: ['consumer.ts'],
  })

describe('the packed package', { timeout: 120_000 }, () => {
  let scratch = ''
  let pack: PackEntry
  let tarball: string[]

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'ecs-anim-pack-'))
    const started = performance.now()
    // Runs prepack (npm run build:lib) first; --json output is the file list.
    const packed = await sh('npm', ['pack', '--json', '--pack-destination', scratch], REPO)
    pack = (JSON.parse(packed.stdout) as PackEntry[])[0]!
    const tgz = join(scratch, pack.filename)
    tarball = (await sh('tar', ['-tzf', tgz], scratch)).stdout.trim().split('\n')
    const project = join(scratch, 'consumer')
    await sh('mkdir', [project], scratch)
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    )
    await sh(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-exact', tgz, 'bitecs@0.4.0'],
      project,
    )
    for (const file of ['main.mjs', 'game.mjs']) copyFileSync(join(FIXTURE, file), join(project, file))
    writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS)
    console.info(`npm pack + npm install: ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }, 120_000)

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  it('holds dist/ and the README only: bundles, declarations, no sources or tests', () => {
    const paths = pack.files.map((f) => f.path).sort()
    expect(tarball.map((p) => p.replace(/^package\//, '')).sort()).toEqual(paths)
    for (const path of paths) {
      expect(['README.md', 'package.json'].includes(path) || path.startsWith('dist/'), path).toBe(true)
      expect(path.endsWith('.ts') && !path.endsWith('.d.ts'), path).toBe(false)
      expect(path, path).not.toMatch(/(^|\/)(test|e2e|demo)\//)
    }
    expect(paths).toEqual(
      expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/node.js']),
    )
    // Every target of the exports map ships.
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, string | Record<string, string>>
    }
    const targets = Object.values(manifest.exports).flatMap((t) =>
      typeof t === 'string' ? [t] : Object.values(t),
    )
    for (const target of targets) expect(paths, target).toContain(target.replace(/^\.\//, ''))
    // The browser-safe entry and its chunks never import node: modules.
    const installed = join(scratch, 'consumer/node_modules/ecs-anim')
    const browserFiles = new Set(['dist/index.js'])
    for (const file of browserFiles) {
      const code = readFileSync(join(installed, file), 'utf8')
      expect(code, file).not.toMatch(/from\s+['"]node:/)
      for (const [, chunk] of code.matchAll(/from\s+['"]\.\/([^'"]+)['"]/g)) browserFiles.add(`dist/${chunk}`)
    }
    expect(browserFiles.size).toBeGreaterThan(1)
  })

  it('runs a game loop under plain node, giving what the sources give', async () => {
    const project = join(scratch, 'consumer')
    const { stdout } = await sh(process.execPath, ['main.mjs', FOX], project)
    const packaged = JSON.parse(stdout) as GameResult
    const fromSources = await runGame(
      { createWorld, addEntity, addComponent, createAnimationPlugin, loadAsset },
      FOX,
    )

    expect(packaged.fox).toBe(2) // entity 1 is the game's own player
    expect(packaged.health).toBe(100)
    for (const m of [packaged.start, packaged.walking, packaged.running]) {
      expect(m).toHaveLength(16)
      expect(m.every(Number.isFinite)).toBe(true)
      expect([m[3], m[7], m[11], m[15]]).toEqual([0, 0, 0, 1])
    }
    // The head moved while walking, and again while fading into Run (translation, column 3).
    const moved = (a: number[], b: number[]) => Math.hypot(a[12]! - b[12]!, a[13]! - b[13]!, a[14]! - b[14]!)
    expect(moved(packaged.start, packaged.walking)).toBeGreaterThan(0.1)
    expect(moved(packaged.walking, packaged.running)).toBeGreaterThan(0.1)

    for (const key of ['start', 'walking', 'running'] as const) {
      packaged[key].forEach((x, i) =>
        expect(Math.abs(x - fromSources[key][i]!), `${key}[${i}]`).toBeLessThan(1e-6),
      )
    }
    // The bundle is the same code: the same bits, so the same state hash.
    expect(packaged.hash).toBe(fromSources.hash)
  })

  it.each([
    ['bundler', 'ESNext'],
    ['nodenext', 'NodeNext'],
  ])(
    'type-checks a TypeScript consumer against the shipped declarations (moduleResolution %s)',
    async (resolution, module) => {
      const project = join(scratch, 'consumer')
      writeFileSync(join(project, 'tsconfig.json'), tsconfig(resolution, module))
      await expect(sh(TSC, ['--noEmit', '-p', 'tsconfig.json'], project)).resolves.toBeDefined()
      // And it does fail on a type error, so the pass above means something.
      writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS + 'export const wrong: string = anim.dt\n')
      try {
        await expect(sh(TSC, ['--noEmit', '-p', 'tsconfig.json'], project)).rejects.toThrow(
          /consumer\.ts\(\d+,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
        )
      } finally {
        writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS)
      }
    },
  )
})
