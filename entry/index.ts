/**
 * ecs-anim: the public entry. The plugin and what its signatures use, glTF reading, the fixed stepper and the
 * scene graph. Lower-level kernels (sampling one channel, blending pose layers) are in 'ecs-anim/kernels';
 * Node's file loader is `loadAsset` from 'ecs-anim/node'; the three.js adapter is 'ecs-anim/three'.
 *
 * @module
 */
export { AnimationError, type AnimationErrorKind } from '../src/errors.ts'

// The plugin
export { createAnimationPlugin } from './plugin.ts'
export type * from './api.ts' // AnimationPlugin and the option and result types of its calls
export {
  ANIMATION_EVENT_KINDS,
  CLIP_EVENT_KINDS,
  GRAPH_EVENT_KINDS,
  MAX_QUEUED_EVENTS,
  PROBLEM_EVENT_KINDS,
  isClipEvent,
  isGraphEvent,
  type AnimationEvent,
  type AnimationEventFields,
  type AnimationEventKind,
  type AnimationStores,
  type ClipEvent,
  type ClipEventKind,
  type GetUpEvent,
  type GetUpFacing,
  type GraphEvent,
  type GraphEventKind,
  type ProblemEvent,
  type ProblemEventKind,
} from '../systems/state.ts'
export type { LoopMode } from '../components/Sampler.ts'
export { MAX_LAYERS } from '../systems/layerState.ts'
export { RAGDOLL_SPAWN_BODIES } from '../systems/stepRagdolls.ts'
export type { RotationMode } from '../src/clip/clip.ts'
export type { PoseStore } from '../components/Pose.ts'
export type { SamplerStore } from '../components/Sampler.ts'
export type { CrossFadeStore } from '../components/CrossFade.ts'
export type { RagdollStore } from '../components/Ragdoll.ts'
// Snapshots: `plugin.snapshot()` / `plugin.restore(bytes)`; the format version they write and accept.
export { SNAPSHOT_VERSION } from '../snapshot/format.ts'

// Ragdoll descriptions
export { generateRagdollDescription, type GenerateRagdollOptions } from '../src/physics/generate.ts'
export type { RagdollBodySpec, RagdollDescription, RagdollSkeletonView } from '../src/physics/description.ts'

// glTF (platform-neutral)
export type { AnimationAsset, AssetNode, Skeleton } from '../src/gltf/asset.ts'
export {
  readAsset,
  assetFromDocument,
  type LoadAssetOptions,
  type ReadAssetOptions,
} from '../src/gltf/read.ts'
export {
  MAX_ACCESSOR_ELEMENTS,
  MAX_CHANNELS,
  MAX_CLIPS,
  MAX_DECODED_BYTES,
  MAX_KEYS,
  MAX_NODES,
} from '../src/gltf/limits.ts'
export {
  buildClip,
  type BuildClipOptions,
  type Clip,
  type ClipCompression,
  type ClipMarker,
  type RawChannel,
  type RawClip,
} from '../src/clip/clip.ts'
export { compressClip, type CompressNode, type CompressOptions } from '../src/clip/compress.ts'

// Fixed step and state hash
export { createFixedStepper, type FixedStepper, type FixedStepperOptions } from '../src/sim/fixedStep.ts'
export { createHasher, type Hasher, type TypedArray } from '../src/sim/hasher.ts'

// Scene graph
export {
  addSceneNode,
  removeSceneNode,
  setSceneNodeParent,
  type SceneGraph,
  type SceneKernels,
  type SceneNodeStore,
} from '../components/SceneNode.ts'
export { applyPoseToSceneGraph } from '../systems/blendPoses.ts'
