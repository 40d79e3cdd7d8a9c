/**
 * The generated rig (rig.ts) as a .glb file, written with gltf-transform: its nodes with their rest
 * transforms, one scene, and its clips as glTF animations (one key-time accessor per clip, shared by its
 * channels, as exporters write them). No mesh or skin: the loader and the plugin need neither. Reading the file
 * back (readAsset) gives the rig as the loader makes an asset of a file: what the snapshot bench measures
 * (a Mixamo-sized file: 67 joints, every channel animated) and the loader bench reads.
 *
 * writeRigFile.ts writes one from the command line.
 */
import { Document, NodeIO, type Node } from '@gltf-transform/core'
import type { AnimationAsset } from '../../src/gltf/asset.ts'

export async function writeRigFile(asset: AnimationAsset): Promise<Uint8Array> {
  const doc = new Document()
  const buffer = doc.createBuffer()
  const nodes: Node[] = asset.nodes.map((n) =>
    doc
      .createNode(n.name)
      .setTranslation([...n.translation])
      .setRotation([...n.rotation])
      .setScale([...n.scale]),
  )
  for (const n of asset.nodes) for (const c of n.children) nodes[n.index]!.addChild(nodes[c]!)
  const scene = doc.createScene('rig')
  for (const r of asset.roots) scene.addChild(nodes[r]!)
  doc.getRoot().setDefaultScene(scene)
  for (const clip of asset.clips) {
    const animation = doc.createAnimation(clip.name)
    const inputs = new Map<Float32Array, ReturnType<Document['createAccessor']>>()
    for (const ch of clip.channels) {
      let input = inputs.get(ch.times)
      if (!input) {
        input = doc.createAccessor().setType('SCALAR').setArray(new Float32Array(ch.times)).setBuffer(buffer)
        inputs.set(ch.times, input)
      }
      const type = ch.path === 'rotation' ? 'VEC4' : ch.path === 'weights' ? 'SCALAR' : 'VEC3'
      const output = doc
        .createAccessor()
        .setType(type)
        .setArray(new Float32Array(ch.values))
        .setBuffer(buffer)
      const sampler = doc
        .createAnimationSampler()
        .setInput(input)
        .setOutput(output)
        .setInterpolation(ch.interpolation)
      animation.addSampler(sampler)
      animation.addChannel(
        doc
          .createAnimationChannel()
          .setTargetNode(nodes[ch.node]!)
          .setTargetPath(ch.path)
          .setSampler(sampler),
      )
    }
  }
  return new NodeIO().writeBinary(doc)
}
