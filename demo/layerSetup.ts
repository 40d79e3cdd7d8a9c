import type { Mesh, Object3D } from 'three'
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js'
import type { AnimationAsset } from '../entry/index.ts'
import type { LayerDemo } from './shipped.ts'

/**
 * The Layers panel's set-up for a file the demo knows nothing about (a dropped Mixamo export, the Fox), made
 * from its clip names and its skeleton:
 *
 * - blend: the locomotion clips by speed, the first of each kind its names match (idle, walk, run; a jump or
 *   an emote of one of them is not locomotion): a 1D blend space when there are two or three;
 * - emotes: the clips whose names say a gesture (wave, yes, no, thumbs up, punch, clap, salute, …), played
 *   once on the upper-body layer;
 * - states: every other clip, offered on the base layer;
 * - upperBody: the shallowest joint (skin joint, or node of a file without a skin) named like a spine (spine,
 *   abdomen, chest, torso); failing that, the biggest child of the first joint where the body branches three
 *   ways (the hips: two legs and the spine); none (an unmasked layer) when there is no such joint;
 * - face: the first node with morph targets, its targets named by `targetNames` (e.g. from three's
 *   morphTargetDictionary) or numbered;
 * - additive: none (which clip makes a good additive layer the names do not say).
 *
 * Null when the file has no clip.
 */
export function layerDemoFor(
  asset: AnimationAsset,
  targetNames: (node: number) => readonly string[] | null = () => null,
): LayerDemo | null {
  const names = asset.clips.map((c) => c.name)
  if (names.length === 0) return null
  const emotes = names.filter(isEmote)
  const locomotion = LOCOMOTION.map((kind) => names.find((n) => kind.test(n) && !isEmote(n) && !JUMP.test(n)))
  const blend = locomotion.filter((n): n is string => n !== undefined)
  return {
    states: names.filter((n) => !isEmote(n)),
    emotes,
    upperBody: upperBody(asset),
    additive: null,
    blend: blend.length >= 2 ? blend : null,
    face: face(asset, targetNames),
  }
}

/** Idle, walk, run: the blend space's points in order of speed. */
const LOCOMOTION = [/idle|breath|stand(ing)? ?still/i, /walk/i, /run|jog|sprint/i]
const JUMP = /jump/i
/** Words of a gesture clip: what the upper body can play over the legs' locomotion. */
const EMOTE =
  /wav(e|ing)|\byes\b|\bno\b|\bnod|shak(e|ing) ?head|thumbs?|punch|clap|cheer|salut|\bbow|point|taunt|emote|gesture|greet|hello|victory|celebrat|shrug/i

function isEmote(name: string): boolean {
  // Split camel case (ThumbsUp, HeadShake) and separators so the word boundaries above see words.
  return EMOTE.test(name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_|:.-]/g, ' '))
}

/** The upper body's mask: one joint whose subtree is the spine and all above it (see layerDemoFor). */
function upperBody(asset: AnimationAsset): string[] {
  // The skin's joints; a file without a skin animates its nodes (a hierarchy of plain nodes is one too).
  const skin = asset.skeletons[0]
  const joints = skin ? Array.from(skin.joints) : asset.nodes.map((n) => n.index)
  const depth = (node: number): number => {
    let d = 0
    for (let p = asset.nodes[node]!.parent; p >= 0; p = asset.nodes[p]!.parent) d++
    return d
  }
  const spines = joints.filter((j) => /spine|abdomen|chest|torso/i.test(asset.nodes[j]!.name))
  if (spines.length > 0) {
    const top = spines.reduce((a, b) => (depth(b) < depth(a) ? b : a))
    return [asset.nodes[top]!.name]
  }
  const inSkin = new Set(joints)
  const hips = joints.find((j) => asset.nodes[j]!.children.filter((c) => inSkin.has(c)).length >= 3)
  if (hips === undefined) return []
  const size = (node: number): number =>
    1 + asset.nodes[node]!.children.reduce((s, c) => s + (inSkin.has(c) ? size(c) : 0), 0)
  const children = asset.nodes[hips]!.children.filter((c) => inSkin.has(c))
  const biggest = children.reduce((a, b) => (size(b) > size(a) ? b : a))
  return [asset.nodes[biggest]!.name]
}

function face(
  asset: AnimationAsset,
  targetNames: (node: number) => readonly string[] | null,
): LayerDemo['face'] {
  const node = asset.nodes.find((n) => n.weights.length > 0)
  if (!node) return null
  const named = targetNames(node.index)
  const targets =
    named && named.length === node.weights.length ? [...named] : node.weights.map((_, k) => `target ${k}`)
  return { node: node.name, targets }
}

/** The morph target names three's GLTFLoader read for glTF node `node`'s mesh (morphTargetDictionary), or null. */
export function morphTargetNames(gltf: GLTF, node: number): string[] | null {
  let names: string[] | null = null
  gltf.scene.traverse((o: Object3D) => {
    if (names !== null || gltf.parser.associations.get(o)?.nodes !== node) return
    o.traverse((m) => {
      const dictionary = (m as Mesh).morphTargetDictionary
      if (names === null && dictionary) {
        names = Object.keys(dictionary).sort((a, b) => dictionary[a]! - dictionary[b]!)
      }
    })
  })
  return names
}
