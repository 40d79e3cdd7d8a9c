/**
 * 'ecs-anim/kernels' (entry/kernels.ts) exports the clean forms only: out first, a weight or a time as a number;
 * none of the fast twins of src/engine/ (weights and times read from arrays) is reachable from it.
 */
import { describe, expect, it } from 'vitest'
import * as kernels from '../../entry/kernels.ts'
import * as blend from '../../src/engine/blend.ts'
import * as layerBlend from '../../src/engine/layerBlend.ts'
import * as sample from '../../src/engine/sample.ts'

describe("'ecs-anim/kernels'", () => {
  it('exports these values, none of them a fast twin', () => {
    expect(Object.keys(kernels).sort()).toEqual(
      [
        'BLEND_S',
        'BLEND_T',
        'JOINT_STRIDE',
        'R_OFFSET',
        'S_OFFSET',
        'T_OFFSET',
        'addDeltaPose',
        'bezierToHermite',
        'blendPaths',
        'blendPoses',
        'blendWeightedPoses',
        'buildClip',
        'catmullRomTangents',
        'findSegment',
        'overridePose',
        'prepareSquad',
        'sampleChannel',
        'sampleClip',
        'sampleNodeTransforms',
        'toCubicSplineValues',
        'toDeltaPose',
        // the IK jobs (src/ik/), which have no twin
        'CHAIN_CCD',
        'CHAIN_FABRIK',
        'chainScratchLength',
        'createAimJob',
        'createChainJob',
        'createTwoBoneJob',
        'runAimJob',
        'runChainJob',
        'runTwoBoneJob',
        'validateAimJob',
        'validateChainJob',
        'validateTwoBoneJob',
      ].sort(),
    )
    const exported = new Set<unknown>(Object.values(kernels))
    for (const twin of [...Object.values(blend), ...Object.values(layerBlend), ...Object.values(sample)])
      expect(exported.has(twin)).toBe(false)
  })

  it('blends and samples with plain numbers', () => {
    const { blendPoses, buildClip, sampleClip, JOINT_STRIDE } = kernels
    const a = new Float32Array(JOINT_STRIDE).fill(0)
    const b = new Float32Array(JOINT_STRIDE).fill(0)
    a.set([0, 0, 0, 1], 3)
    b.set([2, 4, 6, 0, 0, 0, 1], 0)
    const out = blendPoses(new Float32Array(JOINT_STRIDE), 0, a, 0, b, 0, 1, 0.5)
    expect(Array.from(out.subarray(0, 3))).toEqual([1, 2, 3])
    const clip = buildClip({
      name: 'x',
      channels: [{ node: 0, path: 'translation', times: [0, 1], values: [0, 0, 0, 2, 4, 6] }],
    })
    const pose = sampleClip(
      new Float32Array(JOINT_STRIDE),
      0,
      clip,
      Int32Array.of(0),
      0.25,
      new Uint32Array(1),
      0,
    )
    expect(Array.from(pose.subarray(0, 3))).toEqual([0.5, 1, 1.5])
  })
})
