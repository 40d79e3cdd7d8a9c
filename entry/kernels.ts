/**
 * ecs-anim/kernels: the lower-level pieces the plugin is built from, for tools that sample or blend without
 * the ECS (an offline baker, a clip inspector, a custom system), and the IK jobs the built-in solvers run. Each
 * is the plain reference form, gl-matrix style: output first, arrays and offsets, a weight or a time as a
 * number; it allocates nothing and trusts its inputs (clips are validated by buildClip). The plugin's systems
 * run faster twins of the sampling and blending ones (src/engine/), which give the same bits.
 *
 * @module
 */
export {
  buildClip,
  type BuildClipOptions,
  prepareSquad,
  type Channel,
  type ChannelPath,
  type Clip,
  type Interpolation,
  type RawChannel,
  type RawClip,
  type RotationMode,
  type SquadSegments,
} from '../src/clip/clip.ts'
export { sampleChannel, sampleClip, findSegment } from '../src/clip/sample.ts'
export { sampleNodeTransforms, type NodeTransform } from '../src/skeleton/nodeTransforms.ts'
export { catmullRomTangents, bezierToHermite, toCubicSplineValues } from '../src/clip/tangents.ts'
export { BLEND_S, BLEND_T, blendPoses, blendPaths, overridePose } from '../src/clip/blendPoses.ts'
export { addDeltaPose, blendWeightedPoses, toDeltaPose } from '../src/clip/layerBlend.ts'
export { JOINT_STRIDE, T_OFFSET, R_OFFSET, S_OFFSET } from '../src/math/poseLayout.ts'
export { createTwoBoneJob, runTwoBoneJob, validateTwoBoneJob, type TwoBoneJob } from '../src/ik/twoBone.ts'
export { createAimJob, runAimJob, validateAimJob, type AimJob } from '../src/ik/aim.ts'
export {
  CHAIN_CCD,
  CHAIN_FABRIK,
  chainScratchLength,
  createChainJob,
  runChainJob,
  validateChainJob,
  type ChainJob,
} from '../src/ik/chain.ts'
