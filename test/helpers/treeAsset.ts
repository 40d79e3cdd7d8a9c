import { readAsset, type AnimationAsset } from '../../entry/index.ts'

/** A tree's shape: one chain of parent → child, or one root with every other node its child. */
export type TreeShape = 'chain' | 'wide'

/**
 * An asset of `n` nodes 0.01 apart in `shape`, read from glTF JSON: the deep-tree restore tests time a chain
 * against a wide tree of as many nodes, in one sitting, so a busy machine slows both alike.
 */
export async function treeAsset(shape: TreeShape, n: number): Promise<AnimationAsset> {
  const nodes: { translation: number[]; children?: number[] }[] = Array.from({ length: n }, () => ({
    translation: [0, 0.01, 0],
  }))
  if (shape === 'chain') for (let i = 0; i + 1 < n; i++) nodes[i]!.children = [i + 1]
  else nodes[0]!.children = Array.from({ length: n - 1 }, (_, i) => i + 1)
  const json = { asset: { version: '2.0' }, nodes, scenes: [{ nodes: [0] }], scene: 0 }
  return readAsset(new TextEncoder().encode(JSON.stringify(json)), `${shape}.gltf`)
}
