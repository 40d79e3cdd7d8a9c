import { AnimationError } from '../errors.ts'
import { buildClip, type Clip, type ClipMarker, type RawChannel } from '../clip/clip.ts'
import { expandCompactClip } from '../clip/compactClip.ts'
import { conjugateQuat, multiplyQuat, normalizeQuat } from '../math/quat.ts'
import { JOINT_STRIDE } from '../math/poseLayout.ts'
import { COPY, DIRECT, GENERAL, NONE, targetNode, type RetargetPlan } from './plan.ts'
import { toLocalPoint } from './pose.ts'
import { solveAtKeys, solvedChannel } from './solve.ts'

/**
 * A clip of the plan's source baked into a clip of its target, by the rule and the two paths plan.ts
 * describes: direct channels (one source channel's keys through constant products) and solved ones
 * (solve.ts).
 */

/** Per source joint, its first rotation, translation and scale channels (-1) and whether any drives it. */
function sourceChannels(plan: RetargetPlan, clip: Clip) {
  const rig = plan.source.rig
  const n = rig.jointNodes.length
  const rotation = new Int32Array(n).fill(-1)
  const translation = new Int32Array(n).fill(-1)
  const scale = new Int32Array(n).fill(-1)
  const driven = new Uint8Array(n)
  clip.channels.forEach((ch, c) => {
    const j = ch.node < rig.nodeJoint.length ? rig.nodeJoint[ch.node]! : -1
    if (j < 0 || ch.path === 'weights') return
    driven[j] = 1
    if (ch.path === 'rotation' && rotation[j]! < 0) rotation[j] = c
    if (ch.path === 'translation' && translation[j]! < 0) translation[j] = c
    if (ch.path === 'scale' && scale[j]! < 0) scale[j] = c
  })
  return { rotation, translation, scale, driven }
}

/**
 * Bakes `clip` (of the plan's source) into a clip of the target named `name` carrying `markers`. A compact
 * clip (src/clip/compactClip.ts) is decoded first: the baked clip is exact.
 */
export function bakeClip(
  plan: RetargetPlan,
  given: Clip,
  name: string,
  markers: readonly ClipMarker[],
): Clip {
  const clip = expandCompactClip(given)
  const { source, target, map, anchor } = plan
  const sParents = source.rig.jointParents
  const n = target.rig.jointNodes.length
  const ch = sourceChannels(plan, clip)
  const rotKind = new Uint8Array(n)
  const trKind = new Uint8Array(n)
  for (let j = 0; j < n; j++) {
    const s = map[j]!
    if (s < 0) continue
    const sa = anchor[j]! >= 0 ? map[anchor[j]!]! : -1
    if (s !== sa) {
      rotKind[j] = ch.rotation[s]! >= 0 ? DIRECT : NONE
      for (let p = sParents[s]!; p !== sa; p = sParents[p]!) {
        if (p < 0 || ch.rotation[p]! >= 0) {
          rotKind[j] = GENERAL
          break
        }
      }
    }
    if (plan.pin[j]! >= 0) trKind[j] = GENERAL
    else if (plan.translation === 'all') trKind[j] = ch.translation[s]! >= 0 ? COPY : NONE
    else if (plan.translation === 'hips-scaled' && j === plan.hips) {
      trKind[j] = ch.translation[s]! >= 0 ? DIRECT : NONE
      let moves = anchor[j]! >= 0
      for (let p = sParents[s]!; p >= 0 && !moves; p = sParents[p]!) moves = ch.driven[p] === 1
      if (moves) trKind[j] = GENERAL
    }
  }
  const channels: RawChannel[] = []
  const general = rotKind.includes(GENERAL) || trKind.includes(GENERAL)
  const solved = general ? solveAtKeys(plan, clip, rotKind, trKind) : null
  for (let j = 0; j < n; j++) {
    const rc = ch.rotation[map[j]!] ?? -1
    const tc = ch.translation[map[j]!] ?? -1
    if (rotKind[j] === DIRECT) channels.push(directRotation(plan, j, clip.channels[rc]!))
    else if (rotKind[j] === GENERAL) channels.push(solvedChannel(plan, solved!, j, 'rotation'))
    if (trKind[j] === COPY) channels.push({ ...copyOf(clip.channels[tc]!), ...targetNode(plan, j) })
    const sc = ch.scale[map[j]!] ?? -1
    if (plan.translation === 'all' && sc >= 0)
      channels.push({ ...copyOf(clip.channels[sc]!), ...targetNode(plan, j) })
    else if (trKind[j] === DIRECT) channels.push(directTranslation(plan, j, clip.channels[tc]!))
    else if (trKind[j] === GENERAL) channels.push(solvedChannel(plan, solved!, j, 'translation'))
  }
  padToDuration(plan, channels, clip.duration)
  for (const c of channels) {
    for (let i = 0; i < c.values.length; i++) {
      if (Number.isFinite(Math.fround(c.values[i]!))) continue
      throw new AnimationError(
        'argument',
        `retarget: clip "${clip.name}" baked onto ${target.asset.source} gives ${c.values[i]} on ${c.nodeName}.${c.path} (a joint scaled to zero?)`,
      )
    }
  }
  return buildClip(
    { name, channels, markers },
    { nodeCount: target.asset.nodes.length, keepUnitRotations: true },
  )
}

function copyOf(c: Clip['channels'][number]): Omit<RawChannel, 'node'> {
  return { path: c.path, interpolation: c.interpolation, times: c.times, values: c.values }
}

const C = new Float64Array(4)
const R = new Float64Array(4)
const q = new Float64Array(8)

function isIdentity(x: Float64Array): boolean {
  return x[0] === 0 && x[1] === 0 && x[2] === 0 && x[3] === 1
}

/** Normalized, and exactly the identity when the vector part came out exactly zero (a frame onto itself). */
function settle(x: Float64Array): void {
  if (x[0] === 0 && x[1] === 0 && x[2] === 0) x[3] = 1
  else normalizeQuat(x, 0)
}

/** Target joint j's node, its source joint s, and the parents of both (-1 for a root). */
function jointPair(plan: RetargetPlan, j: number) {
  const s = plan.map[j]!
  const tp = plan.target.rig.jointParents[j]!
  return { ...targetNode(plan, j), s, tp, sp: plan.source.rig.jointParents[s]! }
}

/** The direct rotation channel of target joint j: C · q · R of the source channel's keys (and tangents). */
function directRotation(plan: RetargetPlan, j: number, src: Clip['channels'][number]): RawChannel {
  const { source, target } = plan
  const { node, nodeName, s, tp, sp } = jointPair(plan, j)
  // C = targetParentRest⁻¹ · sourceParentRest; R = sourceRest⁻¹ · C⁻¹ · targetRest (local rests).
  q.set(tp < 0 ? [0, 0, 0, 1] : plan.targetRest.rot.subarray(4 * tp, 4 * tp + 4), 0)
  conjugateQuat(q, 0, q, 0)
  q.set(sp < 0 ? [0, 0, 0, 1] : plan.sourceRest.rot.subarray(4 * sp, 4 * sp + 4), 4)
  multiplyQuat(C, 0, q, 0, q, 4)
  settle(C)
  q.set(source.rig.rest.subarray(s * JOINT_STRIDE + 3, s * JOINT_STRIDE + 7), 0)
  conjugateQuat(q, 0, q, 0)
  conjugateQuat(q, 4, C, 0)
  multiplyQuat(R, 0, q, 0, q, 4)
  q.set(target.rig.rest.subarray(j * JOINT_STRIDE + 3, j * JOINT_STRIDE + 7), 4)
  multiplyQuat(R, 0, R, 0, q, 4)
  settle(R)
  if (isIdentity(C) && isIdentity(R)) return { ...copyOf(src), node, nodeName }
  const values = new Float64Array(src.values.length)
  for (let o = 0; o < values.length; o += 4) {
    for (let k = 0; k < 4; k++) q[k] = src.values[o + k]!
    multiplyQuat(q, 4, C, 0, q, 0)
    multiplyQuat(q, 0, q, 4, R, 0)
    values.set(q.subarray(0, 4), o)
  }
  return { node, nodeName, path: 'rotation', interpolation: src.interpolation, times: src.times, values }
}

/** The hips' direct translation channel: targetRest + A·(v − sourceRest), A = scale · Mt⁻¹ · Ms (see header). */
function directTranslation(plan: RetargetPlan, j: number, src: Clip['channels'][number]): RawChannel {
  const { source, target } = plan
  const { node, nodeName, s, tp, sp } = jointPair(plan, j)
  const ts = target.rig.rest.subarray(j * JOINT_STRIDE, j * JOINT_STRIDE + 3)
  const ss = source.rig.rest.subarray(s * JOINT_STRIDE, s * JOINT_STRIDE + 3)
  const tm = plan.targetRest.mat
  const sm = plan.sourceRest.mat
  let same = plan.scale === 1 && ts.every((v, k) => v === ss[k])
  for (let k = 0; k < 12 && same; k++)
    same =
      (tp < 0 ? (k % 5 === 0 ? 1 : 0) : tm[16 * tp + k]) ===
      (sp < 0 ? (k % 5 === 0 ? 1 : 0) : sm[16 * sp + k])
  if (same) return { ...copyOf(src), node, nodeName }
  // Column c of A: Mt⁻¹ applied to scale · (column c of Ms), as a point through a frame at the origin.
  const A = new Float64Array(9)
  const frame = new Float64Array(16)
  if (tp >= 0) frame.set(tm.subarray(16 * tp, 16 * tp + 12))
  else frame.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0])
  for (let c = 0; c < 3; c++) {
    const col = (r: number): number => plan.scale * (sp < 0 ? (c === r ? 1 : 0) : sm[16 * sp + 4 * c + r]!)
    toLocalPoint(A, 3 * c, frame, 0, col(0), col(1), col(2))
  }
  const cubic = src.interpolation === 'CUBICSPLINE'
  const values = new Float64Array(src.values.length)
  for (let o = 0; o < values.length; o += 3) {
    // A CUBICSPLINE tangent (elements 0 and 2 of each triple) is a direction: A alone, no offsets.
    const point = !cubic || (o / 3) % 3 === 1
    const dx = src.values[o]! - (point ? ss[0]! : 0)
    const dy = src.values[o + 1]! - (point ? ss[1]! : 0)
    const dz = src.values[o + 2]! - (point ? ss[2]! : 0)
    for (let r = 0; r < 3; r++)
      values[o + r] = (point ? ts[r]! : 0) + A[r]! * dx + A[3 + r]! * dy + A[6 + r]! * dz
  }
  return { node, nodeName, path: 'translation', interpolation: src.interpolation, times: src.times, values }
}

/**
 * Makes the baked clip as long as the source clip: its last key is the source's duration. When no channel
 * reaches it, the first channel holds its last value to the end (a CUBICSPLINE one with zero tangents); a clip
 * with no channels at all gets the first mapped joint's rest rotation over [0, duration].
 */
function padToDuration(plan: RetargetPlan, channels: RawChannel[], duration: number): void {
  if (duration <= 0 || channels.some((c) => c.times[c.times.length - 1] === Math.fround(duration))) return
  const first = channels[0]
  if (first === undefined) {
    const j = Math.max(
      0,
      plan.map.findIndex((s) => s >= 0),
    )
    const node = plan.target.rig.jointNodes[j]!
    const rest = Array.from(plan.target.rig.rest.subarray(j * JOINT_STRIDE + 3, j * JOINT_STRIDE + 7))
    channels.push({
      node,
      nodeName: plan.target.asset.nodes[node]!.name,
      path: 'rotation',
      times: [0, duration],
      values: [...rest, ...rest],
    })
    return
  }
  const width = first.path === 'rotation' ? 4 : 3
  const cubic = first.interpolation === 'CUBICSPLINE'
  const values = Array.from(first.values)
  const last = values.slice(values.length - (cubic ? 2 : 1) * width, values.length - (cubic ? width : 0))
  if (cubic) values.fill(0, values.length - width)
  values.push(
    ...(cubic ? [...new Array<number>(width).fill(0), ...last, ...new Array<number>(width).fill(0)] : last),
  )
  channels[0] = { ...first, times: [...Array.from(first.times), duration], values }
}
