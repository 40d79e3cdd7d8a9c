/**
 * The allocation measurement of test/systems/ik.memory.test.ts, run in a process of its own (the test spawns
 * `node --expose-gc --import tsx` on this file; test/helpers/rootMotionAllocation.ts says why). Prints one JSON
 * line, the heap bytes of each clean window (no GC ran in it):
 * - `steps`: 200 whole steps of humanoids with every kind of solver — feet on a height function and on the
 *   physics world (rays), two-bone to a point and to a scene node with a pole, aim over a chain with limits,
 *   chain IK by FABRIK and by CCD, weights ramping —, a pose stage that reads and writes, world matrices
 *   included, one character paused (its edits restored every step) and one a levels-of-detail hold;
 * - `jobs`: 2,000 rounds of the three jobs alone (two-bone with twist and soften, aim with an offset, chain both
 *   ways).
 */
import { addEntity, createWorld } from 'bitecs'
import { createAnimationPlugin, addSceneNode, type AnimationPlugin } from '../../entry/index.ts'
import { heapWindows } from './heapWindows.ts'
import { makeHumanoidAsset } from './humanoid.ts'
import { createTwoBoneJob, runTwoBoneJob } from '../../src/ik/twoBone.ts'
import { createAimJob, runAimJob } from '../../src/ik/aim.ts'
import {
  CHAIN_CCD,
  CHAIN_FABRIK,
  chainScratchLength,
  createChainJob,
  runChainJob,
} from '../../src/ik/chain.ts'

const asset = makeHumanoidAsset()

function crowd(): AnimationPlugin {
  const plugin = createAnimationPlugin(createWorld(), { capacity: 1024 })
  const ball = addEntity(plugin.world)
  addSceneNode(plugin.sceneGraph, ball)
  plugin.stores.SceneNode.translation.set([0.4, 1.3, 0.4], 3 * ball)
  const characters: number[] = []
  for (let k = 0; k < 6; k++) {
    const c = plugin.addCharacter(asset)
    plugin.setTransform(c, { position: [3 * k, 0, 0] })
    plugin.play(c, k % 2 === 0 ? 'Walk' : 'Idle', { speed: 0.01 })
    characters.push(c)
    const ground = k % 3 === 0 ? 'physics' : (x: number, z: number): number => 0.05 * x + 0.1 * z
    plugin.setIK(c, 'feet', { kind: 'feet', left: 'foot.L', right: 'foot.R', ground, fadeSeconds: 100 })
    plugin.setIK(c, 'look', {
      kind: 'aim',
      joint: 'head',
      axis: [0, 0, 1],
      up: [0, 1, 0],
      target: [1, 2, 3],
      limits: { yaw: 1, pitch: 0.5 },
      chain: [{ joint: 'neck', weight: 0.5 }],
    })
    plugin.setIK(c, 'hand', {
      kind: 'two-bone',
      joint: 'hand.L',
      target: k % 2 === 0 ? { entity: ball } : [3 * k + 0.4, 1.2, 0.3],
      pole: [3 * k + 1, 1, -1],
      twist: 0.1,
      soften: 0.97,
    })
    plugin.setIK(c, 'arm', {
      kind: 'chain',
      joints: ['upperArm.R', 'forearm.R', 'hand.R'],
      target: [3 * k - 0.4, 1.2, 0.2],
      method: k % 2 === 0 ? 'fabrik' : 'ccd',
    })
  }
  plugin.pause(characters[1]!)
  plugin.setLod({ near: 4, far: 8, camera: [0, 0, 0] })
  const q = [0, 0, 0, 1]
  const m = new Float64Array(16)
  plugin.addPoseStage((pose) => {
    for (let i = 0; i < pose.characters.length; i++) {
      const c = pose.characters[i]!
      pose.getRotation(c, 'chest', q)
      q[0] = q[0]! + 0.01
      pose.setRotation(c, 'chest', q)
      pose.worldMatrix(c, 'head', m)
    }
  })
  for (let i = 0; i < 4; i++) plugin.step()
  return plugin
}

function jobs(): (n: number) => void {
  const two = createTwoBoneJob()
  two.start = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
  two.mid = Float64Array.of(0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1)
  two.end = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1)
  two.startCorrection = new Float64Array(4)
  two.midCorrection = new Float64Array(4)
  two.twistAngle = 0.3
  two.soften = 0.9
  two.target.set([1.5, 0.2, 0.3])
  const aim = createAimJob()
  aim.joint = two.start
  aim.correction = new Float64Array(4)
  aim.offset.set([0, 0.3, 0])
  aim.target.set([1, 2, 3])
  const chain = createChainJob()
  chain.count = 3
  chain.joints = new Float64Array(48)
  chain.joints.set(two.start, 0)
  chain.joints.set(two.mid, 16)
  chain.joints.set(two.end, 32)
  chain.corrections = new Float64Array(12)
  chain.scratch = new Float64Array(chainScratchLength(3))
  chain.target.set([0.5, 1.2, 0.4])
  return (n) => {
    for (let i = 0; i < n; i++) {
      runTwoBoneJob(two)
      runAimJob(aim)
      chain.method = i % 2 === 0 ? CHAIN_FABRIK : CHAIN_CCD
      runChainJob(chain)
    }
  }
}

const plugin = crowd()
const steps = await heapWindows(
  (n) => {
    plugin.events.length = 0
    for (let i = 0; i < n; i++) plugin.step()
  },
  200,
  () => plugin.events.length === 0,
  2000,
)
const kernels = await heapWindows(jobs(), 2000)
console.log(JSON.stringify({ steps, jobs: kernels }))
