import type { AnimationAsset } from '../gltf/asset.ts'
import type { Clip, RotationMode } from '../clip/clip.ts'
import { AnimationError } from '../errors.ts'
import { sampleChannel } from '../clip/sample.ts'

/** A node's local transform at one time, as plain arrays (for tools, tests and the CLI, not the frame loop). */
export interface NodeTransform {
  /** glTF node index. */
  node: number
  /** The node's name in the asset. */
  name: string
  /** Local translation `[x, y, z]`. */
  translation: number[]
  /** Unit quaternion `[x, y, z, w]`. */
  rotation: number[]
  /** Local scale `[x, y, z]`. */
  scale: number[]
  /** Present only when the clip animates this node's morph weights. */
  weights?: number[]
}

/**
 * The local transform of every node `clip` animates, at clip-local `time` seconds (clamped to [0, duration], no
 * wrap), in ascending node index. Paths the clip does not animate come from the node's rest transform.
 * Allocates its result: this is the convenience form; systems use `sampleChannel` on pose buffers.
 */
export function sampleNodeTransforms(
  asset: AnimationAsset,
  clip: Clip,
  time: number,
  options: { rotationMode?: RotationMode } = {},
): NodeTransform[] {
  if (!Number.isFinite(time)) {
    throw new AnimationError('argument', `clip "${clip.name}": sample time ${time} is not a finite number`)
  }
  const t = Math.min(Math.max(time, 0), clip.duration)
  const byNode = new Map<number, NodeTransform>()
  const cursors = new Uint32Array(clip.channels.length)
  const scratch = new Float32Array(
    Math.max(4, ...clip.channels.map((ch) => (ch.path === 'weights' ? ch.components : 4))),
  )
  clip.channels.forEach((channel, i) => {
    const node = asset.nodes[channel.node]
    if (!node) {
      throw new AnimationError(
        'argument',
        `clip "${clip.name}" channel ${i} targets node ${channel.node}, but ${asset.source} has ${asset.nodes.length} nodes`,
      )
    }
    let entry = byNode.get(channel.node)
    if (!entry) {
      entry = {
        node: node.index,
        name: node.name,
        translation: [...node.translation],
        rotation: [...node.rotation],
        scale: [...node.scale],
      }
      byNode.set(channel.node, entry)
    }
    sampleChannel(scratch, 0, channel, t, cursors, i, options.rotationMode)
    const sampled = Array.from(scratch.subarray(0, channel.components))
    if (channel.path === 'weights') entry.weights = sampled
    else entry[channel.path] = sampled
  })
  return [...byNode.values()].sort((a, b) => a.node - b.node)
}
