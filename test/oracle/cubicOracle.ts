/**
 * The glTF 2.0 animation sampler, straight from the specification (§3.11 and Appendix C, "Interpolation"), in
 * float64, on the raw accessor data as @gltf-transform/core reads it. No project code and no three.js: this is the
 * third, plain-arithmetic side that settles who is right when the project and three disagree.
 *
 * CUBICSPLINE is its reason to exist (three's cubic interpolant is internal to GLTFLoader); STEP and LINEAR are
 * here too so that every path of every asset has a float64 reference.
 *
 * For key times t_0 < ... < t_{n-1} and a sample time t_c:
 *   before t_0 → key 0's value; at or after t_{n-1} → the last key's value; else the segment k with
 *   t_k ≤ t_c < t_{k+1}, td = t_{k+1} − t_k, t = (t_c − t_k) / td, and
 *   STEP         v_k
 *   LINEAR       (1 − t)·v_k + t·v_{k+1};  rotations: slerp on the short arc
 *                  a = acos(|q_k · q_{k+1}|), s = sign(q_k · q_{k+1}),
 *                  q = sin(a(1 − t))/sin(a) · q_k + s · sin(a t)/sin(a) · q_{k+1}
 *   CUBICSPLINE  outputs are triplets [a_k (in-tangent), v_k (value), b_k (out-tangent)] per key;
 *                  p0 = v_k, m0 = td·b_k, p1 = v_{k+1}, m1 = td·a_{k+1}
 *                  p(t) = (2t³ − 3t² + 1)p0 + (t³ − 2t² + t)m0 + (−2t³ + 3t²)p1 + (t³ − t²)m1
 *                rotations: the result is normalized.
 * Rotation keys in a file are unit quaternions rounded to float32; they are renormalized in float64 first (the
 * formulas assume unit length).
 */
import { NodeIO, type Accessor } from '@gltf-transform/core'

export type ReferencePath = 'translation' | 'rotation' | 'scale' | 'weights'
export type ReferenceInterpolation = 'STEP' | 'LINEAR' | 'CUBICSPLINE'

/** One glTF animation channel with its sampler's data, as stored in the file (float32 or dequantized). */
export interface ReferenceChannel {
  node: number
  path: ReferencePath
  interpolation: ReferenceInterpolation
  /** Floats per element: 3, 4, or the morph target count. */
  components: number
  times: Float64Array
  /** n·components (STEP, LINEAR) or 3·n·components (CUBICSPLINE, [a, v, b] per key). */
  values: Float64Array
}

export interface ReferenceClip {
  /** Name from the file, '' when unnamed. */
  name: string
  /** Latest key time over the channels, seconds. */
  duration: number
  channels: ReferenceChannel[]
}

export interface ReferenceNode {
  name: string
  translation: number[]
  rotation: number[]
  scale: number[]
  /** Node weights, else its mesh's, else zeros per morph target; empty without morph targets. */
  weights: number[]
}

export interface ReferenceAsset {
  nodes: ReferenceNode[]
  clips: ReferenceClip[]
}

export interface ReferenceTransform {
  node: number
  translation: number[]
  rotation: number[]
  scale: number[]
  weights?: number[]
}

export async function readReferenceAsset(path: string): Promise<ReferenceAsset> {
  const root = (await new NodeIO().read(path)).getRoot()
  const fileNodes = root.listNodes()
  const nodes = fileNodes.map((n): ReferenceNode => {
    const mesh = n.getMesh()
    const targets = mesh ? Math.max(0, ...mesh.listPrimitives().map((p) => p.listTargets().length)) : 0
    const own = n.getWeights()
    const meshWeights = mesh?.getWeights() ?? []
    const weights =
      own.length > 0 ? own : meshWeights.length > 0 ? meshWeights : new Array<number>(targets).fill(0)
    return {
      name: n.getName(),
      translation: [...n.getTranslation()],
      rotation: [...n.getRotation()],
      scale: [...n.getScale()],
      weights: [...weights],
    }
  })
  const clips = root.listAnimations().map((a): ReferenceClip => {
    const channels: ReferenceChannel[] = []
    for (const c of a.listChannels()) {
      const target = c.getTargetNode()
      const sampler = c.getSampler()
      const input = sampler?.getInput()
      const output = sampler?.getOutput()
      if (!target || !sampler || !input || !output) continue
      const path = c.getTargetPath() as ReferencePath
      const interpolation = sampler.getInterpolation() as ReferenceInterpolation
      const times = readAccessor(input)
      const values = readAccessor(output)
      const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1
      const components = values.length / (times.length * perKey)
      const channel = { node: fileNodes.indexOf(target), path, interpolation, components, times, values }
      if (path === 'rotation') normalizeRotationValues(channel)
      channels.push(channel)
    }
    const duration = Math.max(0, ...channels.map((ch) => ch.times[ch.times.length - 1]!))
    return { name: a.getName(), duration, channels }
  })
  return { nodes, clips }
}

/** Every element of the accessor, dequantized when the accessor is normalized, as doubles. */
function readAccessor(accessor: Accessor): Float64Array {
  const size = accessor.getElementSize()
  const out = new Float64Array(accessor.getCount() * size)
  const element: number[] = []
  for (let i = 0; i < accessor.getCount(); i++) {
    accessor.getElement(i, element)
    for (let j = 0; j < size; j++) out[i * size + j] = element[j]!
  }
  return out
}

/** Normalizes the rotations (not the cubic tangents) of a rotation channel in place. */
function normalizeRotationValues(ch: ReferenceChannel): void {
  const perKey = ch.interpolation === 'CUBICSPLINE' ? 3 : 1
  for (let e = 0; e < ch.times.length * perKey; e++) {
    if (perKey === 3 && e % 3 !== 1) continue
    normalize4(ch.values, e * 4)
  }
}

function normalize4(v: { [i: number]: number }, o: number): void {
  const len = Math.hypot(v[o]!, v[o + 1]!, v[o + 2]!, v[o + 3]!)
  for (let j = 0; j < 4; j++) v[o + j] = v[o + j]! / len
}

/** Index k of the segment [t_k, t_{k+1}) holding `time`, for t_0 ≤ time < t_{n-1}. */
function segmentOf(times: ArrayLike<number>, time: number): number {
  let k = 0
  while (k + 2 < times.length && times[k + 1]! <= time) k++
  return k
}

/**
 * The CUBICSPLINE sampler of the glTF spec (see the header), written into `out` (`components` numbers).
 * `values` holds `[in-tangent, value, out-tangent]` per key; tangents are per second.
 */
export function sampleCubicSpline(
  out: number[],
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  components: number,
  time: number,
  isRotation: boolean,
): number[] {
  const n = times.length
  const c = components
  const valueAt = (key: number, j: number): number => values[(key * 3 + 1) * c + j]!
  if (n === 1 || time <= times[0]!) {
    for (let j = 0; j < c; j++) out[j] = valueAt(0, j)
  } else if (time >= times[n - 1]!) {
    for (let j = 0; j < c; j++) out[j] = valueAt(n - 1, j)
  } else {
    const k = segmentOf(times, time)
    const td = times[k + 1]! - times[k]!
    const t = (time - times[k]!) / td
    const t2 = t * t
    const t3 = t2 * t
    for (let j = 0; j < c; j++) {
      const p0 = valueAt(k, j)
      const m0 = td * values[(k * 3 + 2) * c + j]!
      const p1 = valueAt(k + 1, j)
      const m1 = td * values[(k + 1) * 3 * c + j]!
      out[j] = (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * p1 + (t3 - t2) * m1
    }
  }
  if (isRotation) normalize4(out, 0)
  return out
}

/** Samples one channel at `time` seconds (no clamping to a clip: before/after its keys it holds the end keys). */
export function sampleReferenceChannel(out: number[], ch: ReferenceChannel, time: number): number[] {
  const c = ch.components
  const isRotation = ch.path === 'rotation'
  if (ch.interpolation === 'CUBICSPLINE')
    return sampleCubicSpline(out, ch.times, ch.values, c, time, isRotation)
  const n = ch.times.length
  const copyKey = (key: number): number[] => {
    for (let j = 0; j < c; j++) out[j] = ch.values[key * c + j]!
    return out
  }
  if (n === 1 || time <= ch.times[0]!) return copyKey(0)
  if (time >= ch.times[n - 1]!) return copyKey(n - 1)
  const k = segmentOf(ch.times, time)
  if (ch.interpolation === 'STEP') return copyKey(k)
  const t = (time - ch.times[k]!) / (ch.times[k + 1]! - ch.times[k]!)
  const a = k * c
  const b = a + c
  if (!isRotation) {
    for (let j = 0; j < c; j++) out[j] = (1 - t) * ch.values[a + j]! + t * ch.values[b + j]!
    return out
  }
  let dot = 0
  for (let j = 0; j < 4; j++) dot += ch.values[a + j]! * ch.values[b + j]!
  const s = dot < 0 ? -1 : 1
  const angle = Math.acos(Math.min(1, Math.abs(dot)))
  // Below 1e-6 rad sin(angle) loses digits; lerp differs from slerp there by ~angle³, far below float32.
  const [wa, wb] = angle < 1e-6 ? [1 - t, t] : [Math.sin(angle * (1 - t)), Math.sin(angle * t)]
  for (let j = 0; j < 4; j++) out[j] = wa * ch.values[a + j]! + s * wb * ch.values[b + j]!
  normalize4(out, 0)
  return out
}

/**
 * What `sampleNodeTransforms` should return: for every node the clip animates (ascending index) its local
 * transform at `time` clamped to [0, duration]; paths the clip does not animate keep the rest transform;
 * `weights` only for nodes whose weights are animated.
 */
export function referenceNodeTransforms(
  asset: ReferenceAsset,
  clipIndex: number,
  time: number,
): ReferenceTransform[] {
  const clip = asset.clips[clipIndex]
  if (!clip) throw new Error(`no clip ${clipIndex}`)
  const t = Math.min(clip.duration, Math.max(0, time))
  const byNode = new Map<number, ReferenceTransform>()
  for (const ch of [...clip.channels].sort((x, y) => x.node - y.node)) {
    let tr = byNode.get(ch.node)
    if (!tr) {
      const rest = asset.nodes[ch.node]!
      tr = {
        node: ch.node,
        translation: [...rest.translation],
        rotation: [...rest.rotation],
        scale: [...rest.scale],
      }
      byNode.set(ch.node, tr)
    }
    const out: number[] = []
    sampleReferenceChannel(out, ch, t)
    tr[ch.path] = out
  }
  return [...byNode.values()]
}
