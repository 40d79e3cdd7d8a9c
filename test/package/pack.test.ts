/**
 * The package, tried as a new user would: `npm pack` (which builds, through prepack), install the tarball into a
 * scratch project made by `npm init -y` next to bitecs, run a game loop there with plain `node`, type-check a
 * TypeScript consumer against the shipped declarations (`skipLibCheck: false`), and follow the steps of
 * docs/guides/packaging.md with the README's "Add it to an existing bitecs game" snippet: `tsc --init`, compile, run with node. Slow (a build
 * and an install: tens of seconds), so one file, one setup.
 */
import { execFile } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
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
const README = readFileSync(join(REPO, 'README.md'), 'utf8')

/** The README's code block (```ts) under the heading `heading`. */
function readmeSnippet(heading: string): string {
  const section = README.split(/^## /m).find((s) => s.startsWith(`${heading}\n`))
  const code = section?.match(/^```ts\n([\s\S]*?)^```$/m)?.[1]
  if (!code) throw new Error(`README has no \`\`\`ts block under "## ${heading}"`)
  return code
}

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

/** The dev versions of the r3f consumer's packages (package.json's devDependencies: the ones tested here). */
const DEV_DEPENDENCIES = (
  JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }
).devDependencies

/** A TSX consumer of ecs-anim/r3f, as an r3f app writes it; the @ts-expect-error lines fail if the types were `any`. */
const R3F_CONSUMER_TSX = `import { Canvas } from '@react-three/fiber'
import { useRef, useEffect } from 'react'
import type { Group } from 'three'
import { AnimationProvider, InstancedCrowd, useAnimationPlugin, useAnimations, useCharacter } from 'ecs-anim/r3f'
import type { GltfSource } from 'ecs-anim/r3f'

declare const gltf: GltfSource & { animations: import('three').AnimationClip[] }

function Fox() {
  const { character, object } = useCharacter('/Fox.glb', { clip: 'Walk' })
  const plugin = useAnimationPlugin()
  useEffect(() => {
    if (character !== null) plugin.crossFade(character, 'Run', 0.3)
  }, [character, plugin])
  return <primitive object={object} />
}

function Ported() {
  const group = useRef<Group>(null)
  const { actions } = useAnimations(gltf.animations, group)
  useEffect(() => {
    actions.Walk?.reset().fadeIn(0.5).play()
    return () => void actions.Walk?.fadeOut(0.5)
  }, [actions])
  return <group ref={group}><primitive object={gltf.scene} /></group>
}

export const app = (
  <Canvas>
    <AnimationProvider options={{ capacity: 4096 }}>
      <Fox />
      <Ported />
      <InstancedCrowd asset={gltf} count={24} clip="Walk" />
    </AnimationProvider>
  </Canvas>
)
// @ts-expect-error: count is required
export const wrong = <InstancedCrowd asset={gltf} />
`

/** Runs README's snippet (compiled to main.js) for a second of frames; prints the Fox's head joint and the hash. */
const README_RUN = `import { anim, fox, frame } from './main.js'
for (let i = 0; i < 60; i++) frame(1 / 60)
const head = anim.jointEntity(fox, 'b_Head_05')
const world = Array.from(anim.stores.SceneNode.world.subarray(head * 16, head * 16 + 16))
console.log(JSON.stringify({ fox, head, world, hash: anim.hash() }))
`

const tsconfig = (moduleResolution: string, module: string) =>
  JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module,
      moduleResolution,
      // ES2022: the declarations of @gltf-transform/core (reached through assetFromDocument) name Float16Array,
      // which is ES2025; the package's dist/types/globals.d.ts supplies the name (scripts/fix-dts.mjs).
      lib: ['ES2022', 'DOM'],
      types: [],
      strict: true,
      noEmit: true,
      // Check the shipped .d.ts files too, not only their use.
      skipLibCheck: false,
    },
    files: ['consumer.ts'],
  })

describe('the packed package', () => {
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
    mkdirSync(project)
    // docs/guides/packaging.md: a new project, ES modules (npm 11's `npm init -y` writes "type": "commonjs").
    await sh('npm', ['init', '-y'], project)
    await sh('npm', ['pkg', 'set', 'type=module'], project)
    // --engine-strict: the install fails if this Node is outside the package's (or bitecs's) `engines`.
    await sh(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--engine-strict',
        '--save-exact',
        tgz,
        'bitecs@0.4.0',
      ],
      project,
    )
    for (const file of ['main.mjs', 'game.mjs']) copyFileSync(join(FIXTURE, file), join(project, file))
    writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS)

    // docs/guides/packaging.md: `tsc --init` (its defaults, skipLibCheck false), the snippet as main.ts, the Fox where
    // the snippet loads it from. In a folder of its own (`tsc --init` takes every .ts file beside it), inside
    // the project, so node_modules and "type": "module" are the project's. The snippet gets one line more, its
    // objects exported to readme.mjs, which steps it and prints what came out (plain JavaScript: the snippet
    // type-checks without DOM or @types/node, and `console` would need one of them).
    const readme = join(project, 'readme')
    mkdirSync(join(readme, 'assets/Fox/glTF-Binary'), { recursive: true })
    await sh(TSC, ['--init'], readme)
    const init = readFileSync(join(readme, 'tsconfig.json'), 'utf8')
    expect(init).toMatch(/"skipLibCheck": true/)
    writeFileSync(
      join(readme, 'tsconfig.json'),
      init.replace(/"skipLibCheck": true/, '"skipLibCheck": false'),
    )
    const snippet = readmeSnippet('Add it to an existing bitecs game')
    writeFileSync(join(readme, 'main.ts'), `${snippet}\nexport { anim, fox, frame } // pack.test.ts\n`)
    writeFileSync(join(readme, 'readme.mjs'), README_RUN)
    copyFileSync(FOX, join(readme, 'assets/Fox/glTF-Binary/Fox.glb'))
    console.info(`npm pack + npm install: ${((performance.now() - started) / 1000).toFixed(1)} s`)
  })

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  }, 60_000)

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
    // Nothing of ecs-anim/r3f in the other entries: no file they load imports react or @react-three.
    const reached = new Set(['dist/index.js', 'dist/node.js', 'dist/kernels.js', 'dist/three.js'])
    for (const file of reached) {
      const code = readFileSync(join(installed, file), 'utf8')
      expect(code, file).not.toMatch(/from\s+['"](react|@react-three)/)
      for (const [, chunk] of code.matchAll(/from\s+['"]\.\/([^'"]+)['"]/g)) reached.add(`dist/${chunk}`)
    }
    // react and @react-three/fiber are optional peers: installing the package alone brings neither.
    expect(existsSync(join(scratch, 'consumer/node_modules/react'))).toBe(false)
    expect(existsSync(join(scratch, 'consumer/node_modules/@react-three/fiber'))).toBe(false)
  })

  it('ecs-anim/r3f: installs with react and @react-three/fiber, imports in node, and type-checks a TSX consumer', async () => {
    const project = join(scratch, 'r3f-consumer')
    mkdirSync(project)
    await sh('npm', ['init', '-y'], project)
    await sh('npm', ['pkg', 'set', 'type=module'], project)
    const devVersion = (name: string) => `${name}@${DEV_DEPENDENCIES[name]}`
    await sh(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--save-exact',
        join(scratch, pack.filename),
        'bitecs@0.4.0',
        ...['react', 'react-dom', '@react-three/fiber', 'three', '@types/react', '@types/three'].map(
          devVersion,
        ),
      ],
      project,
    )
    // The entry loads (no DOM needed to import it) and exports the contract's names.
    const { stdout } = await sh(
      process.execPath,
      ['-e', "import('ecs-anim/r3f').then((m) => console.log(Object.keys(m).sort().join(' ')))"],
      project,
    )
    expect(stdout.trim().split(' ')).toEqual(
      expect.arrayContaining([
        'AnimationProvider',
        'InstancedCrowd',
        'useAnimationPlugin',
        'useAnimations',
        'useCharacter',
      ]),
    )
    writeFileSync(join(project, 'consumer.tsx'), R3F_CONSUMER_TSX)
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          jsx: 'react-jsx',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.tsx'],
      }),
    )
    await expect(sh(TSC, ['--noEmit', '-p', 'tsconfig.json'], project)).resolves.toBeDefined()
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

  it("runs the packaged WebAssembly kernel (kernels 'wasm') to the JavaScript kernel's bits", async () => {
    const project = join(scratch, 'consumer')
    const run = async (kernels: string) =>
      JSON.parse((await sh(process.execPath, ['main.mjs', FOX, kernels], project)).stdout) as GameResult
    const [js, wasm] = [await run('js'), await run('wasm')]
    expect(wasm.running).toEqual(js.running)
    expect(wasm.hash).toBe(js.hash)
    const head = (m: number[]) => m.slice(12, 15)
    expect(head(js.running)).not.toEqual(head(js.walking)) // it did animate
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

  it('is ES modules only and needs Node 20 or later (engines), as README says', async () => {
    const project = join(scratch, 'consumer')
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules/ecs-anim/package.json'), 'utf8'),
    ) as {
      type: string
      engines?: { node?: string }
      exports: Record<string, string | Record<string, string>>
    }
    expect(installed.type).toBe('module')
    // The install above ran with --engine-strict, so this Node satisfies the range.
    expect(installed.engines).toEqual({ node: '>=20' })
    expect(README).toContain('Node 20 or later (`engines`)')
    // No CommonJS: no entry has a `require` or `default` condition, and require() says so.
    for (const [subpath, target] of Object.entries(installed.exports)) {
      if (typeof target === 'object') expect(Object.keys(target).sort(), subpath).toEqual(['import', 'types'])
    }
    expect(README).toContain('**ES modules only**')
    await expect(sh(process.execPath, ['-e', "require('ecs-anim')"], project)).rejects.toThrow(
      /ERR_PACKAGE_PATH_NOT_EXPORTED/,
    )
  })

  it("type-checks and runs README's snippet in a new project (tsc --init, skipLibCheck false)", async () => {
    const readme = join(scratch, 'consumer/readme')
    // Its defaults (target esnext, module nodenext, strict, exactOptionalPropertyTypes, ...), emitting main.js.
    await sh(TSC, ['-p', '.'], readme)
    const { stdout } = await sh(process.execPath, ['readme.mjs'], readme)
    const out = JSON.parse(stdout) as { fox: number; head: number; world: number[]; hash: string }
    expect(out.fox).toBe(1) // the snippet's world has no entity of its own before the Fox
    expect(out.head).toBeGreaterThan(out.fox)
    expect(out.world).toHaveLength(16)
    expect(out.world.every(Number.isFinite)).toBe(true)
    expect([out.world[3], out.world[7], out.world[11], out.world[15]]).toEqual([0, 0, 0, 1])
    expect(out.hash).toMatch(/^[0-9a-f]+$/)
  })

  it('type-checks the snippet with an older lib too: ES2022, no DOM (globals.d.ts), and not without it', async () => {
    const readme = join(scratch, 'consumer/readme')
    const older = ['-p', '.', '--noEmit', '--target', 'es2022', '--lib', 'es2022']
    await expect(sh(TSC, older, readme)).resolves.toBeDefined()
    // The shim is what makes that pass: emptied, @gltf-transform/core's declarations fail on Float16Array.
    const globals = join(scratch, 'consumer/node_modules/ecs-anim/dist/types/globals.d.ts')
    const shim = readFileSync(globals, 'utf8')
    writeFileSync(globals, '')
    try {
      await expect(sh(TSC, older, readme)).rejects.toThrow(
        /@gltf-transform\/core\/dist\/index\.d\.ts\(\d+,\d+\): error TS2304: Cannot find name 'Float16Array'/,
      )
    } finally {
      writeFileSync(globals, shim)
    }
  })
})
