/**
 * Optimized versions of the shipped models, made by the real tools people run on their files: gltfpack (the
 * npm package's WebAssembly build, through its `pack` API, which its own CLI calls) and gltf-transform's CLI
 * (its `program`, run in this process: the same commands and defaults as `npx gltf-transform …`, without a
 * Node start per file). Each file is made once and kept in node_modules/.cache/ecs-anim-optimized, under a
 * name that hashes the input's bytes, the tool, its version and the arguments, so a new tool version or a
 * changed model makes a new file.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { vi } from 'vitest'

/** One way to optimize a file: the tool and its command-line arguments (input and output left out). */
export interface Recipe {
  readonly label: string
  readonly tool: 'gltfpack' | 'gltf-transform'
  readonly args: readonly string[]
}

export const RECIPES: readonly Recipe[] = [
  { label: 'gltfpack -c', tool: 'gltfpack', args: ['-c'] },
  { label: 'gltfpack -cc', tool: 'gltfpack', args: ['-cc'] },
  { label: 'gltfpack -cc -ce khr', tool: 'gltfpack', args: ['-cc', '-ce', 'khr'] },
  { label: 'gltfpack -cc -af 0 -ar 16', tool: 'gltfpack', args: ['-cc', '-af', '0', '-ar', '16'] },
  { label: 'gltf-transform meshopt', tool: 'gltf-transform', args: ['meshopt'] },
  { label: 'gltf-transform draco', tool: 'gltf-transform', args: ['draco'] },
  { label: 'gltf-transform resample', tool: 'gltf-transform', args: ['resample'] },
  { label: 'gltf-transform quantize', tool: 'gltf-transform', args: ['quantize'] },
]

/** Every shipped model with animations, one file each (the .glb where there is one). */
export const ANIMATED_MODELS: readonly string[] = [
  'assets/Fox/glTF-Binary/Fox.glb',
  'assets/RobotExpressive/RobotExpressive.glb',
  'assets/RiggedSimple/glTF-Binary/RiggedSimple.glb',
  'assets/RiggedFigure/glTF-Binary/RiggedFigure.glb',
  'assets/SimpleSkin/glTF/SimpleSkin.gltf',
  'assets/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb',
  'assets/BoxAnimated/glTF-Binary/BoxAnimated.glb',
  'assets/InterpolationTest/glTF-Binary/InterpolationTest.glb',
  'assets/AnimatedTriangle/glTF/AnimatedTriangle.gltf',
]

const CACHE = resolve('node_modules/.cache/ecs-anim-optimized')

/** The path of `model` optimized by `recipe` (a .glb), made now unless the cache has it. */
export async function optimizedFile(model: string, recipe: Recipe): Promise<string> {
  const version = toolVersion(recipe.tool)
  const hash = createHash('sha256')
    .update(readFileSync(model))
    .update(JSON.stringify([recipe.tool, version, recipe.args]))
    .digest('hex')
    .slice(0, 16)
  const out = join(CACHE, `${basename(model).replace(/\.gl(b|tf)$/, '')}-${hash}.glb`)
  if (existsSync(out)) return out
  mkdirSync(CACHE, { recursive: true })
  // Made under a name of its own, then renamed: test files run in parallel workers and may make it together.
  const partial = `${out}.${process.pid}.partial.glb`
  if (recipe.tool === 'gltfpack') await runGltfpack(model, partial, recipe.args)
  else await runGltfTransform(model, partial, recipe.args)
  if (!existsSync(partial)) throw new Error(`${recipe.label} wrote no file for ${model}`)
  renameSync(partial, out)
  return out
}

function toolVersion(tool: Recipe['tool']): string {
  const pkg = tool === 'gltfpack' ? 'node_modules/gltfpack' : 'node_modules/@gltf-transform/cli'
  return (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version
}

async function runGltfpack(input: string, output: string, args: readonly string[]): Promise<void> {
  const { pack } = (await import('gltfpack' as string)) as {
    pack(
      args: string[],
      iface: { read(path: string): Uint8Array; write(path: string, data: Uint8Array): void },
    ): Promise<string>
  }
  // gltfpack asks for the .gltf's buffers by path relative to it.
  await pack(['-i', input, '-o', output, ...args], {
    read: (path) => readFileSync(existsSync(path) ? path : join(dirname(input), path)),
    write: (path, data) => writeFileSync(path, data),
  })
}

async function runGltfTransform(input: string, output: string, args: readonly string[]): Promise<void> {
  const { program, programReady } = await import('@gltf-transform/cli')
  await programReady
  // Its logger reports each step on the console; a failure still throws.
  const quiet = vi.spyOn(console, 'log').mockImplementation(() => {})
  const quieter = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    await program.exec([args[0]!, input, output, ...args.slice(1)])
  } finally {
    quiet.mockRestore()
    quieter.mockRestore()
  }
}
