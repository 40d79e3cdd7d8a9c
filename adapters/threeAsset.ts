/**
 * An AnimationAsset made from three.js objects and AnimationClips instead of a file: what a drei user's
 * component has in hand (`useGLTF`'s scene or a gltfjsx tree, and `animations`), so `useAnimations` (ecs-anim/r3f)
 * can animate it without the glTF bytes.
 *
 * Every object under `root` (not `root` itself) is a node, in `traverse` order (parents first); `root` stands for
 * the character entity, as GLTFLoader's scene does in a view. A node's rest transform is its object's
 * position, quaternion and scale when the asset is made. A track binds as three's PropertyBinding binds it (the
 * object `PropertyBinding.findNode(root, nodeName)` finds, by name or uuid); position, quaternion, scale and a
 * whole morphTargetInfluences array are read, other properties (materials, one morph target by name) are left
 * out, as are tracks whose object is not under `root`. Interpolation: three's discrete is glTF STEP, linear is
 * LINEAR, GLTFLoader's cubic-spline interpolant is CUBICSPLINE (its values are the file's: in-tangent, value,
 * out-tangent per key); three's smooth (Catmull-Rom) has no glTF form and throws. Each SkinnedMesh whose bones are
 * all nodes is a skin (its bones in order, their boneInverses as inverse bind matrices).
 *
 * @module
 */
import { PropertyBinding, SkinnedMesh, type AnimationClip, type KeyframeTrack, type Object3D } from 'three'
import { AnimationError } from '../src/errors.ts'
import { buildClip, type Clip, type RawChannel } from '../src/clip/clip.ts'
import type { AnimationAsset, AssetNode, Skeleton } from '../src/gltf/asset.ts'
import { buildNodeTree } from '../src/gltf/nodeTree.ts'
import { buildSkeleton } from '../src/gltf/skeleton.ts'
import type { ThreeSceneView } from './three.ts'

/** The asset, and the view of `root` that shows it (bind it with ThreeAdapter.bind). */
export interface ThreeAsset {
  /** The asset: `root`'s descendants as nodes, the clips, the skins. */
  readonly asset: AnimationAsset
  /** `root` as the scene, every descendant as its node. */
  readonly view: ThreeSceneView
}

const PATHS: Record<string, string> = {
  position: 'translation',
  quaternion: 'rotation',
  scale: 'scale',
  morphTargetInfluences: 'weights',
}

// three's interpolation constants (InterpolateDiscrete, InterpolateLinear), by value: importing them would be
// the same numbers.
const DISCRETE = 2300
const LINEAR = 2301

/**
 * The asset of `root`'s subtree and `clips` (see the module comment), named `source` in messages. Throws
 * AnimationError 'argument' for a track three cannot express in glTF, and as buildClip does for bad keys.
 */
export function assetFromObject(
  root: Object3D,
  clips: readonly AnimationClip[],
  source = 'three objects',
): ThreeAsset {
  const objects: Object3D[] = []
  root.traverse((o) => {
    if (o !== root) objects.push(o)
  })
  const index = new Map<Object3D, number>(objects.map((o, i) => [o, i]))
  const parents = Int32Array.from(objects, (o) => (o.parent ? (index.get(o.parent) ?? -1) : -1))
  let meshes = 0
  const nodes: AssetNode[] = objects.map((o, i) => {
    const q = o.quaternion
    const length = Math.hypot(q.x, q.y, q.z, q.w) || 1
    const influences = (o as { morphTargetInfluences?: number[] }).morphTargetInfluences
    return Object.freeze({
      index: i,
      name: o.name || `node${i}`,
      parent: parents[i]!,
      children: Object.freeze(o.children.map((c) => index.get(c)!)),
      translation: [o.position.x, o.position.y, o.position.z] as const,
      rotation: [q.x / length, q.y / length, q.z / length, q.w / length] as const,
      scale: [o.scale.x, o.scale.y, o.scale.z] as const,
      weights: Object.freeze(influences ? [...influences] : []),
      skin: -1,
      mesh: (o as { isMesh?: boolean }).isMesh ? meshes++ : -1,
    })
  })
  const tree = buildNodeTree(parents, (node) => {
    throw new AnimationError('argument', `${source}: node ${node} is its own ancestor`)
  })
  const skeletons: Skeleton[] = []
  objects.forEach((o, i) => {
    if (!(o instanceof SkinnedMesh) || !o.skeleton) return
    const joints = o.skeleton.bones.map((bone) => index.get(bone) ?? -1)
    if (joints.length === 0 || joints.includes(-1)) return
    const inverseBindMatrices = new Float32Array(16 * joints.length)
    o.skeleton.boneInverses.forEach((m, j) => inverseBindMatrices.set(m.elements, 16 * j))
    const where = `${source}: skin of "${o.name}"`
    skeletons.push(
      Object.freeze(
        buildSkeleton({ name: '', joints, inverseBindMatrices, skeleton: -1 }, parents, where, tree),
      ),
    )
    nodes[i] = Object.freeze({ ...nodes[i]!, skin: skeletons.length - 1 })
  })
  const names = nodes.map((n) => n.name)
  const built = clips.map((clip) => clipOf(clip, root, index, names, source))
  const asset: AnimationAsset = Object.freeze({
    source,
    nodes: Object.freeze(nodes),
    roots: Object.freeze(root.children.map((c) => index.get(c)!)),
    skeletons: Object.freeze(skeletons),
    clips: Object.freeze(built),
  })
  return { asset, view: { scene: root, nodes: index } }
}

function clipOf(
  clip: AnimationClip,
  root: Object3D,
  index: ReadonlyMap<Object3D, number>,
  names: readonly string[],
  source: string,
): Clip {
  const channels: RawChannel[] = []
  for (const track of clip.tracks) {
    const parsed = PropertyBinding.parseTrackName(track.name)
    if (parsed.objectName || parsed.propertyIndex !== undefined) continue
    const path = PATHS[parsed.propertyName]
    const target = PropertyBinding.findNode(root, parsed.nodeName) as Object3D | undefined
    const node = target ? index.get(target) : undefined
    if (path === undefined || node === undefined) continue
    const components =
      path === 'weights'
        ? ((target as { morphTargetInfluences?: number[] }).morphTargetInfluences?.length ?? 0)
        : undefined
    if (components === 0) continue
    channels.push({
      node,
      nodeName: names[node],
      path,
      interpolation: interpolationOf(track, `${source}: clip "${clip.name}", track "${track.name}"`),
      times: track.times,
      values: track.values,
      components,
    })
  }
  return buildClip({ name: clip.name, channels }, { nodeCount: names.length })
}

function interpolationOf(track: KeyframeTrack, where: string): string {
  // GLTFLoader marks its cubic-spline tracks by their interpolant factory (not in three's types).
  const factory = (track as { createInterpolant?: { isInterpolantFactoryMethodGLTFCubicSpline?: boolean } })
    .createInterpolant
  if (factory?.isInterpolantFactoryMethodGLTFCubicSpline) return 'CUBICSPLINE'
  const mode = track.getInterpolation() as number
  if (mode === DISCRETE) return 'STEP'
  if (mode === LINEAR) return 'LINEAR'
  throw new AnimationError(
    'argument',
    `${where}: interpolation ${mode} (three's smooth) has no glTF form; use discrete, linear or GLTFLoader's cubic`,
  )
}
