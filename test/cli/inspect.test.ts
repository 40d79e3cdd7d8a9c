import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { TreeNode } from '../../cli/inspect.ts'
import { main } from '../../cli/main.ts'
import { assetPath, joinGlb, readRaw, type Json } from '../helpers/gltfFiles.ts'

const FOX = 'Fox/glTF-Binary/Fox.glb'
const ROBOT = 'RobotExpressive/RobotExpressive.glb'

/** Runs the CLI in this process, capturing its output. */
async function run(...argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const status = await main(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) })
  return { status, stdout, stderr }
}

async function tree(path: string): Promise<TreeNode[]> {
  const { status, stdout, stderr } = await run('inspect', path, '--json')
  expect([status, stderr]).toEqual([0, ''])
  return JSON.parse(stdout).tree as TreeNode[]
}

/** The tree as the file's JSON says it, read without the loader or the CLI (all these files name every node). */
function expectedTree(json: Json): TreeNode[] {
  const nodes = json.nodes as Json[]
  const parent = nodes.map((_, i) => nodes.findIndex((n) => (n.children ?? []).includes(i)))
  const depth = (i: number): number => (parent[i] === -1 ? 0 : 1 + depth(parent[i]!))
  const scene = json.scenes[json.scene ?? 0].nodes as number[]
  const root = (i: number): number => (parent[i] === -1 ? i : root(parent[i]!))
  return nodes.map((n, i) => {
    const mesh = n.mesh === undefined ? null : json.meshes[n.mesh]
    return {
      node: i,
      name: n.name,
      parent: parent[i]!,
      children: n.children ?? [],
      depth: depth(i),
      inScene: scene.includes(root(i)),
      jointOf: (json.skins ?? []).flatMap((s: Json, k: number) => (s.joints.includes(i) ? [k] : [])),
      mesh: mesh && {
        index: n.mesh,
        name: mesh.name ?? null,
        skin: n.skin ?? -1,
        morphTargets: mesh.primitives[0].targets?.length ?? 0,
        targetNames: mesh.extras?.targetNames ?? null,
      },
    }
  })
}

describe('inspect: the node tree', () => {
  it('gives every Fox node with its parent, depth, skin joints and mesh, as the file says', async () => {
    const fox = await tree(assetPath(FOX))
    expect(fox).toEqual(expectedTree(readRaw(FOX).json))
    expect(fox).toHaveLength(26)
    expect(fox[1]).toEqual({
      node: 1,
      name: 'fox',
      parent: -1,
      children: [],
      depth: 0,
      inScene: true,
      jointOf: [],
      mesh: { index: 0, name: 'fox1', skin: 0, morphTargets: 0, targetNames: null },
    })
    expect(fox.filter((n) => n.jointOf.length > 0).map((n) => n.node)).toEqual(
      Array.from({ length: 24 }, (_, i) => i + 2),
    )
    expect(fox[8]).toMatchObject({ name: 'b_Head_05', parent: 7, depth: 7, jointOf: [0], mesh: null })
    // The same from the .gltf (JSON container, external buffer).
    expect(await tree(assetPath('Fox/glTF/Fox.gltf'))).toEqual(fox)
  })

  it('tells RobotExpressive bones from the mesh nodes of the same name, and names the Head morph targets', async () => {
    const robot = await tree(assetPath(ROBOT))
    expect(robot).toEqual(expectedTree(readRaw(ROBOT).json))
    expect(robot[12]).toMatchObject({ name: 'Head', jointOf: [0, 1], mesh: null })
    expect(robot[13]).toMatchObject({
      name: 'Head',
      parent: 12,
      jointOf: [],
      mesh: { index: 2, name: 'Head', skin: -1, morphTargets: 3, targetNames: ['Angry', 'Surprised', 'Sad'] },
    })
    expect(robot[7]).toMatchObject({ name: 'Torso', parent: 6, jointOf: [], mesh: { name: 'Torso' } })
    expect(robot[10]).toMatchObject({ name: 'Torso', parent: 9, jointOf: [0, 1], mesh: null })
    expect(robot[72]!.mesh).toMatchObject({ name: 'Hand.R', skin: 0, morphTargets: 0 })
  })

  it('prints Fox as an indented tree with indices, joints and meshes', async () => {
    const { status, stdout } = await run('inspect', assetPath(FOX))
    expect(status).toBe(0)
    const lines = stdout.split('\n')
    const start = lines.indexOf(
      'node tree (each node under its parent; joint of: the skins it is a joint of):',
    )
    expect(lines.slice(start, start + 6)).toEqual([
      'node tree (each node under its parent; joint of: the skins it is a joint of):',
      '  node  name                             joint of  mesh',
      '     0  root',
      '     2    _rootJoint                     skin 0',
      '     3      b_Root_00                    skin 0',
      '     4        b_Hip_01                   skin 0',
    ])
    expect(lines).toContain('     8                b_Head_05          skin 0')
    // Depth first: node 1 (the other scene root) comes after node 0's whole subtree.
    expect(lines[start + 27]).toBe(
      '     1  fox                                        mesh 0 "fox1", skinned by skin 0',
    )
    expect(lines[start + 28]).toBe('')
    expect(stdout).not.toContain('names shared by several nodes')
  })

  it('prints the RobotExpressive morph targets and the names several nodes share', async () => {
    const { status, stdout } = await run('inspect', assetPath(ROBOT))
    expect(status).toBe(0)
    const lines = stdout.split('\n').map((line) => line.replace(/ +/g, ' '))
    expect(lines).toContain(' 12 Head skins 0, 1')
    expect(lines).toContain(' 13 Head mesh 2 "Head", 3 morph targets: Angry, Surprised, Sad')
    expect(lines).toContain(' 72 Hand.R mesh 12 "Hand.R", skinned by skin 0')
    const shared = lines.indexOf(
      'names shared by several nodes (a name means the lowest index; give the index for another):',
    )
    expect(shared).toBeGreaterThan(0)
    expect(lines.slice(shared + 1, shared + 5)).toEqual([
      ' name nodes',
      ' Foot.L 3 (joint), 4 (mesh)',
      ' Torso 7 (mesh), 10 (joint)',
      ' Head 12 (joint), 13 (mesh)',
    ])
  })

  describe('of files changed for the test', () => {
    const dir = mkdtempSync(join(tmpdir(), 'anim-inspect-'))
    afterAll(() => rmSync(dir, { recursive: true, force: true }))
    let files = 0

    /** A .glb of `file` after `change` edited its JSON. */
    function changed(file: string, change: (json: Json) => void): string {
      const { json, buffers } = readRaw(file)
      change(json)
      const path = join(dir, `${files++}.glb`)
      writeFileSync(path, joinGlb(json, buffers[0]!))
      return path
    }

    /** AnimatedMorphCube (one mesh, two morph targets, no names) with `extras` set on its mesh. */
    const cubeWith = (extras: unknown): string =>
      changed(
        'AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb',
        (json) => (json.meshes[0].extras = extras),
      )

    it('marks the nodes under a root the scene does not list, and prints them after the scene', async () => {
      const file = changed(FOX, (json) => (json.scenes[0].nodes = [1]))
      const fox = await tree(file)
      expect(fox).toEqual(expectedTree(readRaw(FOX).json).map((n) => ({ ...n, inScene: n.node === 1 })))
      const lines = (await run('inspect', file)).stdout.split('\n').map((line) => line.replace(/ +/g, ' '))
      const start = lines.indexOf(' 1 fox mesh 0 "fox1", skinned by skin 0')
      expect(lines.slice(start, start + 4)).toEqual([
        ' 1 fox mesh 0 "fox1", skinned by skin 0',
        ' 0 root (not in the scene)',
        ' 2 _rootJoint (not in the scene) skin 0',
        ' 3 b_Root_00 (not in the scene) skin 0',
      ])
    })

    it.each([
      [undefined, null],
      [{ targetNames: ['thin', 'wide'] }, ['thin', 'wide']],
      // Not one string per target: not names the CLI can show.
      [{ targetNames: ['thin'] }, null],
      [{ targetNames: ['thin', 7] }, null],
      [{ targetNames: 'thin,wide' }, null],
    ])('extras %j → %j', async (extras, names) => {
      const [node] = await tree(cubeWith(extras))
      expect(node!.mesh).toEqual({ index: 0, name: 'Cube', skin: -1, morphTargets: 2, targetNames: names })
      const { stdout } = await run('inspect', cubeWith(extras))
      expect(stdout).toContain(
        names
          ? `mesh 0 "Cube", 2 morph targets: ${names.join(', ')}`
          : 'mesh 0 "Cube", 2 morph targets (unnamed)',
      )
    })
  })
})
