/**
 * ecs-anim/three/webgpu: the instanced crowd for three's WebGPURenderer (its WebGPU and WebGL 2 backends) as
 * well as WebGLRenderer. WebGPURenderer draws with node materials, which never run the onBeforeCompile patch the
 * crowd skins with under WebGL; this entry's createInstancedCrowd also gives each skinned material copy a
 * `positionNode` (TSL, three/tsl) that skins per instance from the same palette texture, row instanceIndex,
 * and sets normalLocal to the skinned normal, as three's own skinning node does. Needs a three with three/tsl
 * (r168 or later); 'ecs-anim/three' does not import it.
 *
 * @module
 */
import type { DataTexture, Material, Matrix4 } from 'three'
import {
  attribute,
  Fn,
  instanceIndex,
  int,
  ivec2,
  mat3,
  mat4,
  normalLocal,
  positionLocal,
  texture,
  uniform,
  vec4,
} from 'three/tsl'
import type { AnimationAsset, AnimationPlugin, AssetHandle } from '../entry/index.ts'
import type { ThreeSceneView } from './three.ts'
import {
  createInstancedCrowd as createCrowd,
  type CrowdNodeSkinning,
  type InstancedCrowd,
  type InstancedCrowdOptions,
} from './threeCrowd.ts'

/**
 * The skinning of a crowd material copy for node materials: vertex = Σ wᵢ · palette[start + jointᵢ] × bind ×
 * position, the palette matrix read as four texels from row instanceIndex (the layout of adapters/threeCrowd.ts).
 */
export const crowdNodeSkinning: CrowdNodeSkinning = (
  material: Material,
  palette: DataTexture,
  start: number,
  bindMatrix: Matrix4,
) => {
  const paletteNode = texture(palette)
  const bind = uniform(bindMatrix)
  const row = int(instanceIndex)
  const bone = (joint: ReturnType<typeof int>) => {
    const x = int(start).add(joint).mul(4)
    return mat4(
      paletteNode.load(ivec2(x, row)),
      paletteNode.load(ivec2(x.add(1), row)),
      paletteNode.load(ivec2(x.add(2), row)),
      paletteNode.load(ivec2(x.add(3), row)),
    )
  }
  ;(material as Material & { positionNode: unknown }).positionNode = Fn(() => {
    const index = attribute('skinIndex', 'uvec4')
    const weight = attribute('skinWeight', 'vec4')
    const skin = bone(int(index.x))
      .mul(weight.x)
      .add(bone(int(index.y)).mul(weight.y))
      .add(bone(int(index.z)).mul(weight.z))
      .add(bone(int(index.w)).mul(weight.w))
      .mul(bind)
    normalLocal.assign(mat3(skin).mul(normalLocal))
    return skin.mul(vec4(positionLocal, 1)).xyz
  })()
}

/**
 * createInstancedCrowd of 'ecs-anim/three' (same arguments and result) whose skinned meshes skin under
 * WebGPURenderer too (crowdNodeSkinning).
 */
export function createInstancedCrowd(
  plugin: AnimationPlugin,
  asset: AnimationAsset | AssetHandle,
  view: ThreeSceneView,
  options: InstancedCrowdOptions = {},
): InstancedCrowd {
  return createCrowd(plugin, asset, view, {
    ...options,
    nodeSkinning: options.nodeSkinning ?? crowdNodeSkinning,
  })
}

export type { InstancedCrowd, InstancedCrowdOptions } from './threeCrowd.ts'
