/**
 * anim.retarget and anim.retargetMap (plugin/retarget.ts, issue 35) through the public plugin: the Mannequin's
 * Mixamo-named clips on RobotExpressive, played like the robot's own (cuts, fades, layers, markers), every
 * refusal naming what it refuses and changing nothing, and snapshots that need the same retarget calls.
 */
import { createWorld } from 'bitecs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createAnimationPlugin, contextOf, type AnimationPlugin } from '../../entry/plugin.ts'
import { loadAsset } from '../../src/gltf/load.ts'
import { AnimationError } from '../../src/errors.ts'
import { isClipEvent } from '../../systems/state.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { samplePose } from '../../src/retarget/pose.ts'

let mannequin: AnimationAsset
let robot: AnimationAsset
let fox: AnimationAsset

beforeAll(async () => {
  mannequin = await loadAsset('assets/Mannequin/Mannequin.glb')
  robot = await loadAsset('assets/RobotExpressive/RobotExpressive.glb')
  fox = await loadAsset('assets/Fox/glTF-Binary/Fox.glb')
})

function plugin(): AnimationPlugin {
  const anim = createAnimationPlugin(createWorld(), { capacity: 1024 })
  anim.addAsset(mannequin)
  anim.addAsset(robot)
  return anim
}

/** Unreal-named hips and legs, no spine, arms or clips: a rig the Mannequin's clips mostly miss. */
function legsOnly(): AnimationAsset {
  const names = ['pelvis', 'thigh_l', 'calf_l', 'foot_l', 'thigh_r', 'calf_r', 'foot_r']
  const parents = [-1, 0, 1, 2, 0, 4, 5]
  const offsets = [
    [0, 1, 0],
    [0.1, -0.05, 0],
    [0, -0.45, 0],
    [0, -0.42, 0],
    [-0.1, -0.05, 0],
    [0, -0.45, 0],
    [0, -0.42, 0],
  ]
  return {
    source: 'legs',
    nodes: names.map((name, index) => ({
      index,
      name,
      parent: parents[index]!,
      children: parents.flatMap((p, c) => (p === index ? [c] : [])),
      translation: offsets[index] as [number, number, number],
      rotation: [0, 0, 0, 1],
      scale: [1, 1, 1],
      weights: [],
      skin: -1,
      mesh: -1,
    })),
    roots: [0],
    skeletons: [],
    clips: [],
  }
}

const worldY = (anim: AnimationPlugin, eid: number, joint: string): number =>
  anim.stores.SceneNode.world[anim.jointEntity(eid, joint) * 16 + 13]!

function distance(anim: AnimationPlugin, eid: number, a: string, b: string): number {
  const w = anim.stores.SceneNode.world
  const [i, j] = [anim.jointEntity(eid, a) * 16, anim.jointEntity(eid, b) * 16]
  return Math.hypot(w[i + 12]! - w[j + 12]!, w[i + 13]! - w[j + 13]!, w[i + 14]! - w[j + 14]!)
}

describe('retarget', () => {
  it("makes the Mannequin's clips clips of RobotExpressive that its characters play", () => {
    const anim = plugin()
    const before = anim.addCharacter(robot) // made before the retarget: its cursors grow when it plays one
    const names = anim.retarget(mannequin, robot, { prefix: 'mx ' })
    expect(names).toEqual(['mx Walk', 'mx Run', 'mx Idle', 'mx Wave'])
    const handle = anim.addAsset(robot)
    expect(handle.clips.length).toBe(robot.clips.length + 4)
    expect(anim.clipId(handle, 'mx Walk')).toBe(handle.clips[robot.clips.length])
    const after = anim.addCharacter(robot)
    anim.step() // both at rest
    anim.play(before, 'mx Walk')
    anim.play(after, 'mx Run')
    const restFoot = worldY(anim, after, 'Foot.L')
    const restShin = distance(anim, after, 'Foot.L', 'LowerLeg.L')
    const hips: number[] = []
    const foot: number[] = []
    for (let i = 0; i < 60; i++) {
      anim.step()
      hips.push(worldY(anim, after, 'Body'))
      foot.push(worldY(anim, after, 'Foot.L'))
      // Its IK feet hang from the armature, not the shins: they are pinned to the shins as they were at rest
      // (exactly at the clip's keys; between keys the foot moves in a line as the shin turns: within 2 %).
      expect(Math.abs(distance(anim, after, 'Foot.L', 'LowerLeg.L') / restShin - 1)).toBeLessThan(0.02)
    }
    const world = anim.stores.SceneNode.world
    for (const eid of [before, after])
      for (const e of anim.joints(eid)) expect(Number.isFinite(world[e * 16 + 13]!)).toBe(true)
    // The run bobs the robot's body and lifts its feet.
    expect(Math.max(...hips) - Math.min(...hips)).toBeGreaterThan(0.02)
    expect(Math.max(...foot) - restFoot).toBeGreaterThan(0.3)
    // Fades and layers take them as any clip.
    anim.crossFade(after, 'mx Walk', 0.2)
    anim.setLayer(before, 1, { mask: ['Shoulder.R'] })
    anim.play(before, 'mx Wave', { layer: 1 })
    for (let i = 0; i < 30; i++) anim.step()
    expect(anim.getLayer(before, 1).clip).toBe('mx Wave')
  })

  it("carries the source clips' markers, the file's and addMarker's, to the new clips", () => {
    const anim = plugin()
    anim.addMarker(mannequin, 'Walk', 0.25, 'mid')
    anim.retarget(mannequin, robot, { clips: ['Walk'], prefix: 'mx ' })
    const eid = anim.addCharacter(robot)
    anim.play(eid, 'mx Walk')
    const seen: string[] = []
    for (let i = 0; i < 61; i++) {
      anim.step()
      for (const e of anim.events) if (isClipEvent(e) && e.kind === 'marker') seen.push(`${e.clip}:${e.name}`)
      anim.events.length = 0
    }
    expect(seen.slice(0, 4)).toEqual([
      'mx Walk:footstep.L',
      'mx Walk:mid',
      'mx Walk:footstep.R',
      'mx Walk:footstep.L',
    ])
  })

  it('bakes a compact source clip from its decoded keys, as the exact one within the compression', async () => {
    const compact = await loadAsset('assets/Mannequin/Mannequin.glb', { compress: { tolerance: 0.001 } })
    const anim = plugin()
    anim.addAsset(compact)
    anim.retarget(mannequin, robot, { clips: ['Walk'], prefix: 'exact ' })
    anim.retarget(compact, robot, { clips: ['Walk'], prefix: 'compact ' })
    const ctx = contextOf(anim)
    const clip = (name: string) => ctx.clips[anim.clipId(anim.addAsset(robot), name)]!.clip
    const [exact, packed] = [clip('exact Walk'), clip('compact Walk')]
    expect(compact.clips[0]!.compression).not.toBeNull()
    expect(packed.compression).toBeNull()
    expect(packed.channels.map((c) => [c.node, c.path])).toEqual(exact.channels.map((c) => [c.node, c.path]))
    // Sampled through the walk, the two robots' poses agree within the compression's tolerance.
    const rig = contextOf(anim).assets[anim.addAsset(robot).id]!
    const [a, b] = [new Float32Array(rig.rest.length), new Float32Array(rig.rest.length)]
    let worst = 0
    for (let t = 0; t <= 1; t += 0.05) {
      samplePose(a, rig, exact, t, new Uint32Array(exact.channels.length))
      samplePose(b, rig, packed, t, new Uint32Array(packed.channels.length))
      a.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - b[k]!))))
    }
    expect(worst).toBeGreaterThan(0)
    expect(worst).toBeLessThan(0.01)
  })

  it('retargetMap gives the auto map by name; passed back as map, it bakes the same clips', () => {
    const anim = plugin()
    const map = anim.retargetMap(mannequin, robot)
    // The robot's legs hang from Body, above the joint it names Hips: Body is its hips, Hips the spine's start.
    expect(map).toMatchObject({
      Body: 'mixamorig:Hips',
      Hips: 'mixamorig:Spine',
      Abdomen: 'mixamorig:Spine1',
      Torso: 'mixamorig:Spine2',
      'UpperLeg.L': 'mixamorig:LeftUpLeg',
      'LowerLeg.R': 'mixamorig:RightLeg',
      'Foot.L': 'mixamorig:LeftFoot',
      'UpperArm.L': 'mixamorig:LeftArm',
      'Thumb.L': 'mixamorig:LeftHandThumb1',
    })
    anim.retarget(mannequin, robot, { prefix: 'auto ' })
    anim.retarget(mannequin, robot, { prefix: 'given ', map })
    const ctx = contextOf(anim)
    const clip = (name: string) => ctx.clips[anim.clipId(anim.addAsset(robot), name)]!.clip
    for (const name of ['Walk', 'Wave']) {
      const a = clip(`auto ${name}`)
      const b = clip(`given ${name}`)
      expect(b.channels.map((c) => [c.node, c.path, Array.from(c.values)])).toEqual(
        a.channels.map((c) => [c.node, c.path, Array.from(c.values)]),
      )
    }
  })

  describe('refuses, naming what, and changes nothing', () => {
    const cases: [string, (anim: AnimationPlugin) => unknown, RegExp][] = [
      [
        'an asset not added',
        (a) => a.retarget(fox, robot),
        /source .* not an asset or asset handle of this plugin/,
      ],
      [
        'options not an object',
        (a) => a.retarget(mannequin, robot, 'auto' as never),
        /options must be an object/,
      ],
      ['an unknown option', (a) => a.retarget(mannequin, robot, { scale: 2 } as never), /no option "scale"/],
      [
        'a translation mode',
        (a) => a.retarget(mannequin, robot, { translation: 'some' as never }),
        /translation "some" is not one of/,
      ],
      ['a prefix', (a) => a.retarget(mannequin, robot, { prefix: 5 as never }), /prefix 5 is not a string/],
      [
        'clips not an array',
        (a) => a.retarget(mannequin, robot, { clips: 'Walk' as never }),
        /clips "Walk" is not an array/,
      ],
      [
        'an unknown clip',
        (a) => a.retarget(mannequin, robot, { clips: ['Nope'] }),
        /clips\[0\]: no clip named "Nope"/,
      ],
      [
        'a clip of another asset',
        (a) => a.retarget(mannequin, robot, { clips: ['Wave', 'Dance'] }),
        /clips\[1\] "Dance" is not a clip of the source/,
      ],
      [
        'a name the target has',
        (a) => a.retarget(mannequin, robot, { clips: ['Wave'] }),
        /already has clips named "Wave"; pass another prefix/,
      ],
      [
        'a name twice',
        (a) => a.retarget(mannequin, robot, { clips: ['Walk', 'Walk'], prefix: 'x' }),
        /would get two clips named "xWalk"/,
      ],
      [
        'a map that is no object',
        (a) => a.retarget(mannequin, robot, { map: 3 as never, prefix: 'x' }),
        /map 3 is not 'auto' or an object/,
      ],
      [
        'an empty map',
        (a) => a.retarget(mannequin, robot, { map: {}, prefix: 'x' }),
        /map \{\} maps no joint/,
      ],
      [
        'an unknown target joint',
        (a) => a.retarget(mannequin, robot, { map: { Tail: 'mixamorig:Hips' }, prefix: 'x' }),
        /map key \(target joint\): .*RobotExpressive.* has no scene node "Tail"/,
      ],
      [
        'an unknown source joint',
        (a) => a.retarget(mannequin, robot, { map: { Body: 'Hips' }, prefix: 'x' }),
        /map\["Body"\] \(source joint\): .*Mannequin.* has no scene node "Hips"/,
      ],
      [
        'a source joint that is no name',
        (a) => a.retarget(mannequin, robot, { map: { Body: 1 as never }, prefix: 'x' }),
        /map\["Body"\] 1 is not a joint name/,
      ],
      [
        'hips that do not stand above the feet',
        (a) =>
          a.retarget(mannequin, mannequin, {
            map: { 'mixamorig:LeftToe_End': 'mixamorig:LeftToe_End' },
            prefix: 'x',
          }),
        /'hips-scaled' needs hips above the feet, but the hips \(mixamorig:LeftToe_End ← mixamorig:LeftToe_End\) stand 0 and 0 above/,
      ],
      [
        'an auto map without hips',
        (a) => a.retarget(a.addAsset(fox), robot, { prefix: 'x' }),
        /finds no hips .* in .*Fox\.glb/,
      ],
    ]
    it.each(cases)('%s', (_, call, message) => {
      const anim = plugin()
      const eid = anim.addCharacter(robot)
      anim.play(eid, 'Walking')
      anim.step()
      if (/without hips/.test(_)) anim.addAsset(fox)
      const hash = anim.hash()
      const bytes = anim.snapshot()
      const clips = anim.addAsset(robot).clips.length
      let thrown: unknown
      try {
        call(anim)
      } catch (e) {
        thrown = e
      }
      expect(thrown).toBeInstanceOf(AnimationError)
      expect((thrown as AnimationError).message).toMatch(message)
      expect(anim.hash()).toBe(hash)
      expect(anim.snapshot()).toEqual(bytes)
      expect(anim.addAsset(robot).clips.length).toBe(clips)
    })

    it("an 'auto' map that leaves more than a third of the animated joints unmatched, naming them", () => {
      const anim = plugin()
      const legs = legsOnly()
      anim.addAsset(legs)
      const hash = anim.hash()
      expect(() => anim.retarget(mannequin, legs)).toThrow(
        /leaves 9 of the 16 joints .*Mannequin.*'s clips animate unmatched on legs \(more than a third\): mixamorig:Spine, mixamorig:Spine1, mixamorig:Spine2, mixamorig:Neck, mixamorig:Head, mixamorig:LeftArm, mixamorig:LeftForeArm, mixamorig:RightArm, mixamorig:RightForeArm; it matched 7: pelvis ← mixamorig:Hips, thigh_l ← mixamorig:LeftUpLeg, /,
      )
      expect(anim.hash()).toBe(hash)
      // Only the clips it retargets count: Idle animates 13 joints, 6 of them unmatched.
      expect(() => anim.retarget(mannequin, legs, { clips: ['Idle'] })).toThrow(/leaves 6 of the 13 joints/)
    })
  })
})

describe('retarget and worker threads', () => {
  it('clips retargeted while characters play reach the workers: the same bits with 2 as with none', () => {
    const hashes = [0, 2].map((workers) => {
      const anim = createAnimationPlugin(createWorld(), { capacity: 4096, workers })
      anim.addAsset(mannequin)
      anim.addAsset(robot)
      const crowd = Array.from({ length: 6 }, () => anim.addCharacter(robot))
      for (const eid of crowd) anim.play(eid, 'Walking')
      anim.step()
      anim.retarget(mannequin, robot, { prefix: 'mx ' })
      crowd.forEach((eid, i) => anim.crossFade(eid, i % 2 === 0 ? 'mx Run' : 'mx Walk', 0.2))
      for (let i = 0; i < 40; i++) anim.step()
      const hash = anim.hash()
      anim.dispose()
      return hash
    })
    expect(hashes[1]).toBe(hashes[0])
  })
})

describe('retarget and snapshots', () => {
  /** A plugin that retargets as `calls` says, with a character playing `clip` for 20 steps. */
  function scene(calls: (anim: AnimationPlugin) => void, clip = 'mx Walk') {
    const anim = plugin()
    const eid = anim.addCharacter(robot)
    calls(anim)
    anim.play(eid, clip)
    for (let i = 0; i < 20; i++) anim.step()
    return anim
  }
  const same = (anim: AnimationPlugin) => void anim.retarget(mannequin, robot, { prefix: 'mx ' })

  it('restores into a plugin that made the same retarget calls, and both step on alike', () => {
    const a = scene(same)
    const bytes = a.snapshot()
    const b = plugin()
    same(b)
    b.restore(bytes)
    expect(b.hash()).toBe(a.hash())
    for (let i = 0; i < 10; i++) {
      a.step()
      b.step()
    }
    expect(b.hash()).toBe(a.hash())
  })

  it('refuses one without them, or with others, naming the retargeted clips', () => {
    const bytes = scene(same).snapshot()
    const none = plugin()
    expect(() => none.restore(bytes)).toThrow(
      /asset 1's retargeted clips \(4, fingerprint .*\) differ from those of this plugin's asset 1, .*RobotExpressive.glb \(0; .*make the same retarget calls/,
    )
    const other = plugin()
    other.retarget(mannequin, robot, { prefix: 'mx ', translation: 'none' })
    expect(() => other.restore(bytes)).toThrow(/\(4: "mx Walk", "mx Run", "mx Idle", "mx Wave"; fingerprint/)
    const fewer = plugin()
    fewer.retarget(mannequin, robot, { prefix: 'mx ', clips: ['Walk'] })
    expect(() => fewer.restore(bytes)).toThrow(/retargeted clips \(4, .*\(1: "mx Walk"/)
  })
})
