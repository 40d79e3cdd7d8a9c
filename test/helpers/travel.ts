/**
 * Travelling clips for the root motion tests, made as a game would: a shipped clip's channels with a node's
 * translation moved and its rotation turned linearly over each loop, rebuilt with the public buildClip and added
 * to a copy of the asset. Math.* on purpose (the test's side, not the step's).
 */
import { buildClip, type RawChannel } from '../../src/clip/clip.ts'
import type { AnimationAsset } from '../../src/gltf/asset.ts'
import { loadAsset } from '../../src/gltf/load.ts'

export const FOX = 'assets/Fox/glTF-Binary/Fox.glb'
export const ROBOT = 'assets/RobotExpressive/RobotExpressive.glb'
/** The Fox's hips, the node its clips walk (glTF index 4, under b_Root_00, a −90° turn about x). */
export const FOX_HIPS = 'b_Hip_01'

export interface Travel {
  /** The new clip's name. */
  name: string
  /** The clip it copies. */
  from: string
  /** The node moved. */
  node: string
  /** Translation added over one loop, in the node's parent's space. */
  move?: readonly [number, number, number]
  /** Turn added over one loop (radians) about `axis`, in the node's parent's space (pre-multiplied). */
  turn?: number
  axis?: readonly [number, number, number]
}

/** `asset` with one more clip per travel (the originals untouched); nodes get channels they lacked at rest. */
export function withTravel(asset: AnimationAsset, ...travels: readonly Travel[]): AnimationAsset {
  const clips = travels.map((t) => travellingClip(asset, t))
  return { ...asset, clips: [...asset.clips, ...clips] }
}

function travellingClip(asset: AnimationAsset, travel: Travel): ReturnType<typeof buildClip> {
  const base = asset.clips.find((c) => c.name === travel.from)!
  const node = asset.nodes.find((n) => n.name === travel.node)!.index
  const d = base.duration
  const channels: RawChannel[] = base.channels.map((ch) => ({
    node: ch.node,
    nodeName: asset.nodes[ch.node]!.name,
    path: ch.path,
    interpolation: ch.interpolation,
    times: ch.times,
    values: Array.from(ch.values),
    components: ch.components,
  }))
  const times = base.channels[0]!.times
  const find = (path: string): RawChannel => {
    let ch = channels.find((c) => c.node === node && c.path === path)
    if (!ch) {
      const n = asset.nodes[node]!
      const rest = path === 'translation' ? n.translation : n.rotation
      const values: number[] = []
      for (let k = 0; k < times.length; k++) values.push(...rest)
      ch = { node, nodeName: n.name, path, interpolation: 'LINEAR', times, values }
      channels.push(ch)
    }
    if (ch.interpolation === 'CUBICSPLINE') throw new Error('travellingClip: LINEAR or STEP channels only')
    return ch
  }
  if (travel.move) {
    const ch = find('translation')
    const v = ch.values as number[]
    for (let k = 0; k < ch.times.length; k++) {
      for (let c = 0; c < 3; c++) v[k * 3 + c]! += (travel.move[c]! * ch.times[k]!) / d
    }
  }
  if (travel.turn) {
    const ch = find('rotation')
    const v = ch.values as number[]
    const [ax, ay, az] = travel.axis ?? [0, 1, 0]
    for (let k = 0; k < ch.times.length; k++) {
      const half = (travel.turn * ch.times[k]!) / d / 2
      const s = Math.sin(half)
      const q = [ax * s, ay * s, az * s, Math.cos(half)]
      const r = v.slice(k * 4, k * 4 + 4)
      // q·r
      v[k * 4] = q[3]! * r[0]! + q[0]! * r[3]! + q[1]! * r[2]! - q[2]! * r[1]!
      v[k * 4 + 1] = q[3]! * r[1]! - q[0]! * r[2]! + q[1]! * r[3]! + q[2]! * r[0]!
      v[k * 4 + 2] = q[3]! * r[2]! + q[0]! * r[1]! - q[1]! * r[0]! + q[2]! * r[3]!
      v[k * 4 + 3] = q[3]! * r[3]! - q[0]! * r[0]! - q[1]! * r[1]! - q[2]! * r[2]!
    }
  }
  return buildClip({ name: travel.name, channels }, { nodeCount: asset.nodes.length })
}

/** The Fox with travelling walks: 'WalkForward' 70 cm forward (+z) a loop, and the others the tests use. */
export async function travellingFox(): Promise<AnimationAsset> {
  const fox = await loadAsset(FOX)
  // b_Root_00 turns −90° about x: its −y is the character's +z (forward), its +z the character's up.
  return withTravel(
    fox,
    { name: 'WalkForward', from: 'Walk', node: FOX_HIPS, move: [0, -70, 0] },
    { name: 'WalkFast', from: 'Walk', node: FOX_HIPS, move: [0, -140, 0] },
    { name: 'RunForward', from: 'Run', node: FOX_HIPS, move: [0, -150, 0] },
    { name: 'WalkTurning', from: 'Walk', node: FOX_HIPS, turn: Math.PI / 2, axis: [0, 0, 1] },
    { name: 'WalkBobbing', from: 'Walk', node: FOX_HIPS, move: [0, -70, 0] },
  )
}
