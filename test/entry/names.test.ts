/**
 * Joint names on a rig where meshes and bones share names (issue 14): RobotExpressive's `Head` and `Torso` are
 * both a bone and a mesh node. Names resolve to the skin joint; node indices always work.
 */
import { createWorld } from 'bitecs'
import { describe, expect, it } from 'vitest'
import { createAnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { problems } from '../helpers/ecs.ts'

describe('jointEntity by name on RobotExpressive', () => {
  it('prefers the skin joint over a mesh of the same name, and the index picks either', async () => {
    const robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
    const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
    const c = plugin.addCharacter(robot)
    const joints = new Set(robot.skeletons.flatMap((s) => Array.from(s.joints)))
    for (const name of ['Head', 'Torso']) {
      const nodes = robot.nodes.filter((n) => n.name === name)
      expect(nodes.length, name).toBe(2)
      const bone = nodes.find((n) => joints.has(n.index))!
      const mesh = nodes.find((n) => !joints.has(n.index))!
      expect(plugin.jointEntity(c, name)).toBe(plugin.jointEntity(c, bone.index))
      expect(plugin.jointEntity(c, mesh.index)).not.toBe(plugin.jointEntity(c, name))
    }
    // A hit by name lands on the bone too: the ragdoll accepts it.
    plugin.ragdoll(c, { impulse: { joint: 'Head', impulse: [1, 0, 0] } })
    plugin.step()
    expect(problems(plugin)).toEqual([])
  })
})
