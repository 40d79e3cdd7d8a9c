import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { assetPath } from '../helpers/gltfFiles.ts'
import { deepDifference } from '../helpers/deepDifference.ts'

const dir = mkdtempSync(join(tmpdir(), 'ecs-anim-load-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function failure(path: string): Promise<AnimationError> {
  const error = await loadAsset(path).then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AnimationError)
  expect((error as AnimationError).kind).toBe('gltf')
  return error as AnimationError
}

it('reads a .gltf buffer from a percent-encoded sibling file name', async () => {
  const json = JSON.parse(readFileSync(assetPath('Fox/glTF/Fox.gltf'), 'utf8'))
  json.buffers[0].uri = 'fox%20data.bin'
  const path = join(dir, 'renamed.gltf')
  writeFileSync(path, JSON.stringify(json))
  copyFileSync(assetPath('Fox/glTF/Fox.bin'), join(dir, 'fox data.bin'))
  const asset = await loadAsset(path)
  const original = await loadAsset(assetPath('Fox/glTF/Fox.gltf'))
  expect(asset.source).toBe(path)
  expect(deepDifference(asset.clips, original.clips)).toBeNull()
})

it('names a missing file, a missing buffer file and a directory', async () => {
  const missing = join(dir, 'nothing.glb')
  expect((await failure(missing)).message).toBe(`${missing}: cannot read the file (no such file)`)

  const lonely = join(dir, 'lonely.gltf')
  copyFileSync(assetPath('Fox/glTF/Fox.gltf'), lonely)
  expect((await failure(lonely)).message).toBe(
    `${lonely}: cannot read buffer file "Fox.bin" (${join(dir, 'Fox.bin')}: no such file)`,
  )

  expect((await failure(dir)).message).toBe(`${dir}: cannot read the file (is a directory)`)
})

it('refuses buffer uris that are not local files', async () => {
  const json = JSON.parse(readFileSync(assetPath('Fox/glTF/Fox.gltf'), 'utf8'))
  json.buffers[0].uri = 'https://example.com/Fox.bin'
  const path = join(dir, 'remote.gltf')
  writeFileSync(path, JSON.stringify(json))
  expect((await failure(path)).message).toBe(
    `${path}: buffer uri "https://example.com/Fox.bin" is not a relative file path (only local files are read)`,
  )
})

it('reports a .gltf that is not JSON through the same message as readAsset', async () => {
  const path = join(dir, 'broken.gltf')
  writeFileSync(path, '{"asset": {"version": "2.0"}, "nodes": [')
  expect((await failure(path)).message).toMatch(/^.*broken\.gltf: the file is not valid JSON \(.+\)$/)
})
