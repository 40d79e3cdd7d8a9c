import { JOINT_STRIDE } from '../components/Pose.ts'
import type { Writer } from '../src/sim/byteWriter.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import { checkFinite, checkUnit, invalidValue } from '../src/sim/valueChecks.ts'

/**
 * A stored pose layer in the characters section (characters.ts): only the paths of its joints that are not the
 * asset's rest pose.
 *
 *   u8[n]  per joint, the paths stored: POSE_PATH_T (translation), POSE_PATH_R (rotation), POSE_PATH_S (scale)
 *   zeros to 4
 *   f32[]  per joint in order, its stored paths' floats: T ×3, R ×4, S ×3 (the others are the rest pose's)
 *
 * A skinned clip drives rotations and few translations or scales, so most joints store 4 of their 10 floats
 * (the bench rig: 67 rotations and one translation, 1,140 bytes a layer instead of 2,680). A path equal to rest
 * in every bit is left out, so a restore writes back the same bits (NaN payloads and −0 included).
 */

/** Bits of a joint's stored paths (the hot loops below write them as literals). */
export const POSE_PATH_T = 1
export const POSE_PATH_R = 2
export const POSE_PATH_S = 4
export const POSE_PATHS = POSE_PATH_T | POSE_PATH_R | POSE_PATH_S
/** Floats stored for each mask of paths. */
export const PATH_FLOATS = new Uint8Array([0, 3, 4, 7, 3, 6, 7, 10])

/**
 * Per joint of the layer at word `at` of `data` (n joints), the paths that differ from `rest` (its first n
 * joints), into `masks[mo ..]`; returns the floats they take (0: the layer is the rest pose). Words, not
 * floats: every bit counts (±0, NaN payloads).
 */
export function pathMasks(
  data: Int32Array,
  at: number,
  rest: Int32Array,
  n: number,
  masks: Uint8Array,
  mo: number,
): number {
  // Literals, not the module's names: V8 reads a module binding from its context, with a check, at every use.
  let count = 0
  for (let j = 0; j < n; j++) {
    const p = at + j * 10
    const r = j * 10
    // Each path compared until a word differs (a clip's rotation differs at once, a rest translation in 3).
    const t = data[p] !== rest[r] || data[p + 1] !== rest[r + 1] || data[p + 2] !== rest[r + 2]
    const q =
      data[p + 3] !== rest[r + 3] ||
      data[p + 4] !== rest[r + 4] ||
      data[p + 5] !== rest[r + 5] ||
      data[p + 6] !== rest[r + 6]
    const s = data[p + 7] !== rest[r + 7] || data[p + 8] !== rest[r + 8] || data[p + 9] !== rest[r + 9]
    masks[mo + j] = (t ? 1 : 0) | (q ? 2 : 0) | (s ? 4 : 0)
    count += (t ? 3 : 0) + (q ? 4 : 0) + (s ? 3 : 0)
  }
  return count
}

/**
 * Writes the layer at word `at` of `data` (n joints) as stored: `masks[mo .. mo + n)` (from pathMasks, `count`
 * floats), zeros to 4, the floats. `whole`: the layer's bytes, copied natively when every path is stored (null:
 * gathered like the others).
 */
export function writePoseLayer(
  w: Writer,
  data: Int32Array,
  at: number,
  n: number,
  masks: Uint8Array,
  mo: number,
  count: number,
  whole: Uint8Array | null,
): void {
  w.raw(masks, mo, n)
  w.align(4)
  if (whole !== null && count === n * JOINT_STRIDE) {
    w.view(whole)
    return
  }
  // Reserved first: reserving may grow the writer's buffer.
  const k = w.reserve(4 * count) >>> 2
  gatherPaths(w.wordBuffer, k, data, at, n, masks, mo)
}

/** The stored paths' words of the layer at word `at` of `data` (n joints, masks from `mo`) into `out` from `k`. */
function gatherPaths(
  out: Int32Array,
  k: number,
  data: Int32Array,
  at: number,
  n: number,
  masks: Uint8Array,
  mo: number,
): void {
  // Literals for the path bits and stride (see pathMasks).
  for (let j = 0; j < n; j++) {
    const m = masks[mo + j]!
    const p = at + j * 10
    if ((m & 1) !== 0) {
      out[k] = data[p]!
      out[k + 1] = data[p + 1]!
      out[k + 2] = data[p + 2]!
      k += 3
    }
    if ((m & 2) !== 0) {
      out[k] = data[p + 3]!
      out[k + 1] = data[p + 4]!
      out[k + 2] = data[p + 5]!
      out[k + 3] = data[p + 6]!
      k += 4
    }
    if ((m & 4) !== 0) {
      out[k] = data[p + 7]!
      out[k + 1] = data[p + 8]!
      out[k + 2] = data[p + 9]!
      k += 3
    }
  }
}

/**
 * Writes the layer at word `at` of `data` (n joints) as stored into room reserved for every path (the writer
 * must fit 44·n bytes more: Writer.fits); returns its floats. A layer that is the rest pose (0) is left out
 * unless `keep` (then its masks are written, all 0). The same bytes as pathMasks then writePoseLayer.
 *
 * Compared and copied in one pass; but a layer whose first joint differs from rest in every path (a rig whose
 * clips drive every channel), given `whole` (its bytes), is compared first and, when every path of every joint
 * differs, copied natively.
 */
export function writePoseLayerOnce(
  w: Writer,
  data: Int32Array,
  at: number,
  rest: Int32Array,
  n: number,
  keep: boolean,
  whole: Uint8Array | null,
): number {
  if (whole !== null && n > 0 && differsEverywhere(data, at, rest)) {
    const from = w.at()
    const mo = w.reserve(n + 3 + 40 * n)
    const bytes = w.buffer
    // The floats start at a multiple of 4 from the snapshot's start, a multiple of 8 in the buffer.
    const k0 = (mo + n + 3) >>> 2
    for (let b = mo + n; b < 4 * k0; b++) bytes[b] = 0
    const count = pathMasks(data, at, rest, n, bytes, mo)
    if (count === 10 * n) bytes.set(whole, 4 * k0)
    else gatherPaths(w.wordBuffer, k0, data, at, n, bytes, mo)
    w.truncate(from + (4 * (k0 + count) - mo))
    return count
  }
  const from = w.at()
  const mo = w.reserve(n + 3 + 40 * n)
  const bytes = w.buffer
  const out = w.wordBuffer
  // The floats start at a multiple of 4 from the snapshot's start, which is a multiple of 8 in the buffer.
  const k0 = (mo + n + 3) >>> 2
  for (let b = mo + n; b < 4 * k0; b++) bytes[b] = 0
  let k = k0
  // Literals for the path bits and stride (see pathMasks); each path compared until a word differs.
  for (let j = 0; j < n; j++) {
    const p = at + j * 10
    const r = j * 10
    let m = 0
    const t0 = data[p]!
    const t1 = data[p + 1]!
    const t2 = data[p + 2]!
    if (t0 !== rest[r] || t1 !== rest[r + 1] || t2 !== rest[r + 2]) {
      out[k] = t0
      out[k + 1] = t1
      out[k + 2] = t2
      k += 3
      m = 1
    }
    const q0 = data[p + 3]!
    const q1 = data[p + 4]!
    const q2 = data[p + 5]!
    const q3 = data[p + 6]!
    if (q0 !== rest[r + 3] || q1 !== rest[r + 4] || q2 !== rest[r + 5] || q3 !== rest[r + 6]) {
      out[k] = q0
      out[k + 1] = q1
      out[k + 2] = q2
      out[k + 3] = q3
      k += 4
      m |= 2
    }
    const s0 = data[p + 7]!
    const s1 = data[p + 8]!
    const s2 = data[p + 9]!
    if (s0 !== rest[r + 7] || s1 !== rest[r + 8] || s2 !== rest[r + 9]) {
      out[k] = s0
      out[k + 1] = s1
      out[k + 2] = s2
      k += 3
      m |= 4
    }
    bytes[mo + j] = m
  }
  const count = k - k0
  w.truncate(count === 0 && !keep ? from : from + (4 * k - mo))
  return count
}

/** Whether the joint at word `at` differs from the rest's first joint in each of its three paths. */
function differsEverywhere(data: Int32Array, at: number, rest: Int32Array): boolean {
  return (
    (data[at] !== rest[0] || data[at + 1] !== rest[1] || data[at + 2] !== rest[2]) &&
    (data[at + 3] !== rest[3] ||
      data[at + 4] !== rest[4] ||
      data[at + 5] !== rest[5] ||
      data[at + 6] !== rest[6]) &&
    (data[at + 7] !== rest[7] || data[at + 8] !== rest[8] || data[at + 9] !== rest[9])
  )
}

/**
 * Writes a layer as stored (writePoseLayerOnce where the writer has room for every path, else pathMasks into
 * `scratch` (n bytes at least) then writePoseLayer); returns its floats.
 */
export function writeLayerPaths(
  w: Writer,
  data: Int32Array,
  at: number,
  rest: Int32Array,
  n: number,
  keep: boolean,
  scratch: Uint8Array,
  whole: Uint8Array | null,
): number {
  if (w.fits(44 * n + 3)) return writePoseLayerOnce(w, data, at, rest, n, keep, whole)
  const count = pathMasks(data, at, rest, n, scratch, 0)
  if (count > 0 || keep) writePoseLayer(w, data, at, n, scratch, 0, count, whole)
  return count
}

/**
 * Reads a stored layer's path masks (n bytes), the zeros to 4 and its floats, refusing a mask with bits outside
 * POSE_PATHS (naming `where` and the joint); returns the masks' byte offset (its floats: pathFloatsAt).
 */
export function readPathMasks(r: Reader, n: number, where: string): number {
  const masksAt = r.span(n)
  const bytes = r.bytes
  let bits = 0
  let floats = 0
  for (let j = 0; j < n; j++) {
    const m = bytes[masksAt + j]!
    bits |= m
    floats += PATH_FLOATS[m & 7]!
  }
  if ((bits & ~POSE_PATHS) !== 0) invalidPaths(bytes, masksAt, n, where)
  r.align(4)
  r.span(4 * floats)
  return masksAt
}

/** Throws for the first joint of a stored layer whose masks (`n` from byte `at`) have bits outside POSE_PATHS. */
function invalidPaths(bytes: Uint8Array, at: number, n: number, where: string): never {
  let j = 0
  while (j < n - 1 && (bytes[at + j]! & ~POSE_PATHS) === 0) j++
  throw invalidValue(`${where} joint ${j}`, 'stored paths', bytes[at + j]!, 'has bits outside 0x7 (T, R, S)')
}

/**
 * Byte offset of a stored layer's floats, from its masks' offset (`masksAt`, in a snapshot that starts at a
 * multiple of 8) and its joints.
 */
export function pathFloatsAt(masksAt: number, n: number): number {
  return (masksAt + n + 3) & ~3
}

/**
 * Checks a stored layer's floats (from float `o` of `f`, its masks from byte `masksAt` of `bytes`, already
 * checked to hold only POSE_PATHS bits): finite translations and scales, rotations near unit length.
 */
export function checkPoseLayerPaths(
  bytes: Uint8Array,
  masksAt: number,
  f: Float32Array,
  o: number,
  n: number,
  where: string,
): void {
  let p = o
  for (let j = 0; j < n; j++) {
    const m = bytes[masksAt + j]!
    // A sum of float32s cannot overflow a double, so it is finite exactly when they all are (s - s is then 0,
    // NaN otherwise); a rotation whose squared length is in range is finite.
    if ((m & 1) !== 0) {
      const s = f[p]! + f[p + 1]! + f[p + 2]!
      if (s - s !== 0) checkFinite(`${where} joint ${j}`, 'translation', f, p, 3)
      p += 3
    }
    if ((m & 2) !== 0) {
      const x = f[p]!
      const y = f[p + 1]!
      const z = f[p + 2]!
      const w = f[p + 3]!
      const length2 = x * x + y * y + z * z + w * w
      if (!(length2 >= 0.25 && length2 <= 4)) checkUnit(`${where} joint ${j}`, 'rotation', f, p)
      p += 4
    }
    if ((m & 4) !== 0) {
      const s = f[p]! + f[p + 1]! + f[p + 2]!
      if (s - s !== 0) checkFinite(`${where} joint ${j}`, 'scale', f, p, 3)
      p += 3
    }
  }
}

/**
 * Writes a stored layer into the pose pool's words at `o` (n joints): each joint's stored paths from `src`
 * (words from `k`, masks from byte `masksAt` of `bytes`), the others from `rest`. Bits as they are.
 */
export function scatterPoseLayer(
  dst: Int32Array,
  o: number,
  bytes: Uint8Array,
  masksAt: number,
  src: Int32Array,
  k: number,
  rest: Int32Array,
  n: number,
): void {
  // Every path stored (a rig whose clips drive every channel): the floats are the layer as the pool lays it out.
  let all = 7
  for (let j = 0; j < n; j++) all &= bytes[masksAt + j]!
  if (all === 7) {
    dst.set(src.subarray(k, k + 10 * n), o)
    return
  }
  // Literals for the path bits and stride (see pathMasks).
  for (let j = 0; j < n; j++) {
    const m = bytes[masksAt + j]!
    const p = o + j * 10
    const r = j * 10
    if ((m & 1) !== 0) {
      dst[p] = src[k]!
      dst[p + 1] = src[k + 1]!
      dst[p + 2] = src[k + 2]!
      k += 3
    } else {
      dst[p] = rest[r]!
      dst[p + 1] = rest[r + 1]!
      dst[p + 2] = rest[r + 2]!
    }
    if ((m & 2) !== 0) {
      dst[p + 3] = src[k]!
      dst[p + 4] = src[k + 1]!
      dst[p + 5] = src[k + 2]!
      dst[p + 6] = src[k + 3]!
      k += 4
    } else {
      dst[p + 3] = rest[r + 3]!
      dst[p + 4] = rest[r + 4]!
      dst[p + 5] = rest[r + 5]!
      dst[p + 6] = rest[r + 6]!
    }
    if ((m & 4) !== 0) {
      dst[p + 7] = src[k]!
      dst[p + 8] = src[k + 1]!
      dst[p + 9] = src[k + 2]!
      k += 3
    } else {
      dst[p + 7] = rest[r + 7]!
      dst[p + 8] = rest[r + 8]!
      dst[p + 9] = rest[r + 9]!
    }
  }
}
