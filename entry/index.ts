/**
 * ecs-anim: the public entry. Everything a game or tool needs is re-exported from here.
 */
export { AnimationError, type AnimationErrorKind } from '../src/errors.ts'

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
} from '../src/clip/clip.ts'
export { sampleChannel, findSegment } from '../src/clip/sample.ts'
export { sampleNodeTransforms, type NodeTransform } from '../src/clip/nodeTransforms.ts'
export { catmullRomTangents, bezierToHermite, toCubicSplineValues } from '../src/clip/tangents.ts'
export { BLEND_S, BLEND_T, blendJointLayers, blendPaths } from '../src/clip/blendLayers.ts'
export { JOINT_STRIDE, T_OFFSET, R_OFFSET, S_OFFSET } from '../src/math/poseLayout.ts'

// glTF (platform-neutral; Node's file loader is `loadAsset` from 'ecs-anim/node')
export type { AnimationAsset, AssetNode, Skeleton } from '../src/gltf/asset.ts'

// Fixed step and state hash
export { createFixedStepper, type FixedStepper, type FixedStepperOptions } from '../src/sim/fixedStep.ts'
export { createHasher, type Hasher } from '../src/sim/hasher.ts'

// ECS layer
export {
  createAnimationPlugin,
  type AnimationPlugin,
  type AnimationPluginOptions,
  type AssetHandle,
  type PlayOptions,
} from './plugin.ts'
export { applyPoseToSceneGraph } from '../systems/blendPoses.ts'
// Snapshots: `plugin.snapshot()` / `plugin.restore(bytes)`; the format version they write and accept.
export { SNAPSHOT_VERSION } from '../snapshot/snapshot.ts'
export {
  addSceneNode,
  removeSceneNode,
  setSceneNodeParent,
  type SceneGraph,
  type SceneNodeStore,
} from '../components/SceneNode.ts'
export { readAsset, assetFromDocument, type ReadAssetOptions } from '../src/gltf/read.ts'
