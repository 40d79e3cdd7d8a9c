/**
 * ecs-anim: the public entry. Everything a game or tool needs is re-exported from here.
 */
export { AnimationError, type AnimationErrorKind } from './errors.ts'

// Clips and sampling
export {
  buildClip,
  prepareSquad,
  type Channel,
  type ChannelPath,
  type Clip,
  type Interpolation,
  type RawChannel,
  type RawClip,
  type RotationMode,
  type SquadSegments,
} from './clip/clip.ts'
export { sampleChannel, findSegment } from './clip/sample.ts'
export { sampleNodeTransforms, type NodeTransform } from './clip/nodeTransforms.ts'
export { catmullRomTangents, bezierToHermite, toCubicSplineValues } from './clip/tangents.ts'
export { BLEND_S, BLEND_T, blendJointLayers, blendPaths } from './clip/blendPose.ts'
export { JOINT_STRIDE, T_OFFSET, R_OFFSET, S_OFFSET } from './clip/poseLayout.ts'

// glTF (platform-neutral; Node's file loader is `loadAsset` from 'ecs-anim/node')
export type { AnimationAsset, AssetNode, Skeleton } from './gltf/asset.ts'

// Fixed step and state hash
export { createFixedStepper, type FixedStepper, type FixedStepperOptions } from './sim/fixedStep.ts'
export { createHasher, type Hasher } from './sim/stateHash.ts'

// ECS layer
export {
  createAnimationPlugin,
  type AnimationPlugin,
  type AnimationPluginOptions,
  type AssetHandle,
  type PlayOptions,
} from '../systems/plugin.ts'
export { applyPoseToSceneGraph } from '../systems/blendPoses.ts'
// Snapshots: `plugin.snapshot()` / `plugin.restore(bytes)`; the format version they write and accept.
export { SNAPSHOT_VERSION } from '../systems/snapshot.ts'
export {
  addSceneNode,
  removeSceneNode,
  setSceneNodeParent,
  type SceneGraph,
  type SceneNodeStore,
} from '../components/SceneNode.ts'
export { readAsset, assetFromDocument, type ReadAssetOptions } from './gltf/read.ts'
