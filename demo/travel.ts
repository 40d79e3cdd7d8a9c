import { buildClip, type AnimationAsset, type Clip, type RawChannel } from '../entry/index.ts'

/**
 * Travelling clips, made at load from clips that walk in place: a copy of a clip with one node's translation
 * moved and its rotation turned linearly over each loop, built with the public buildClip and added to a copy of
 * the asset. The Fox's shipped Walk walks in place; its travelling copy (demo/shipped.ts) is what root motion
 * shows moving the character. The root motion tests make theirs with it too (test/helpers/travel.ts).
 */
export interface Travel {
  /** The new clip's name. */
  readonly name: string
  /** The clip it copies. */
  readonly from: string
  /** The node moved (its name). */
  readonly node: string
  /** Translation added over one loop, in the node's parent's space. */
  readonly move?: readonly [number, number, number]
  /** Turn added over one loop (radians) about `axis`, in the node's parent's space (applied after its own). */
  readonly turn?: number
  readonly axis?: readonly [number, number, number]
}

/** `asset` with one more clip per travel (the asset itself untouched). LINEAR and STEP channels only. */
export function withTravel(asset: AnimationAsset, ...travels: readonly Travel[]): AnimationAsset {
  return { ...asset, clips: [...asset.clips, ...travels.map((t) => travellingClip(asset, t))] }
}

function travellingClip(asset: AnimationAsset, travel: Travel): Clip {
  const base = asset.clips.find((c) => c.name === travel.from)
  const node = asset.nodes.find((n) => n.name === travel.node)
  if (!base || !node) throw new Error(`withTravel: no clip "${travel.from}" or node "${travel.node}"`)
  const channels: RawChannel[] = base.channels.map((ch) => ({
    node: ch.node,
    nodeName: ch.nodeName,
    path: ch.path,
    interpolation: ch.interpolation,
    times: ch.times,
    values: Array.from(ch.values),
    components: ch.components,
  }))
  // The node's channel of `path`, made from its rest value on the clip's first track when it has none.
  const channel = (path: 'translation' | 'rotation'): RawChannel & { values: number[] } => {
    let ch = channels.find((c) => c.node === node.index && c.path === path)
    if (!ch) {
      const times = base.channels[0]!.times
      const rest = path === 'translation' ? node.translation : node.rotation
      ch = {
        node: node.index,
        nodeName: node.name,
        path,
        times,
        values: Array.from(times, () => rest).flat(),
      }
      channels.push(ch)
    }
    if (ch.interpolation === 'CUBICSPLINE') throw new Error('withTravel: LINEAR or STEP channels only')
    return ch as RawChannel & { values: number[] }
  }
  const part = (t: number): number => t / base.duration
  if (travel.move) {
    const { times, values } = channel('translation')
    for (let k = 0; k < times.length; k++) {
      for (let c = 0; c < 3; c++) values[k * 3 + c]! += travel.move[c]! * part(times[k]!)
    }
  }
  if (travel.turn) {
    const { times, values } = channel('rotation')
    const [ax, ay, az] = travel.axis ?? [0, 1, 0]
    for (let k = 0; k < times.length; k++) {
      const half = (travel.turn * part(times[k]!)) / 2
      const s = Math.sin(half)
      const [qx, qy, qz, qw] = [ax * s, ay * s, az * s, Math.cos(half)]
      const [rx, ry, rz, rw] = values.slice(k * 4, k * 4 + 4) as [number, number, number, number]
      // The turn after the key's own rotation: q·r.
      values[k * 4] = qw * rx + qx * rw + qy * rz - qz * ry
      values[k * 4 + 1] = qw * ry - qx * rz + qy * rw + qz * rx
      values[k * 4 + 2] = qw * rz + qx * ry - qy * rx + qz * rw
      values[k * 4 + 3] = qw * rw - qx * rx - qy * ry - qz * rz
    }
  }
  return buildClip({ name: travel.name, channels }, { nodeCount: asset.nodes.length })
}
