import { composeMatrix } from '../src/math/transform.ts'

/**
 * WorldSync: the renderer-neutral half of a renderer adapter. It copies SceneNode world matrices into a
 * renderer's own 16-element matrices ("targets", column-major, e.g. three's `matrixWorld.elements`), writing only
 * what changed, and optionally interpolating between the last two fixed steps. adapters/three.ts binds it to
 * three.js objects; another renderer needs only a target array per node.
 *
 * Per frame, in this order:
 *
 *   fixed step ─▶ capture()      once after EVERY fixed step
 *   display    ─▶ render(alpha)  once per drawn frame, before the renderer draws; alpha = stepper.alpha
 *
 * `SceneNode.changed` describes only the last propagation, so a frame that runs two steps would miss nodes that
 * moved in the first. capture() therefore folds every step into the sync's own state: per slot its world after
 * its last change and before it, the capture count of that change (`stamp`) and whether the target shows
 * something else (`pending`). capture() only copies matrices of changed nodes; render() writes a slot only when
 * it moved in the latest step and alpha < 1 (its in-between value follows alpha), or its target does not show
 * its latest world yet. A still node costs one comparison per capture and per render.
 *
 * Slots (i < count; arrays grow by doubling when slots are added, never in capture/render):
 *
 *   entity[i]          SceneNode entity id          target[i]   the 16 numbers it drives
 *   curr[16i..+16)     world matrix after its last change (written as is when no interpolation is due)
 *   prev[16i..+16)     world matrix before that change
 *   stamp[i]           capture count of its last change, prevStamp[i] of the one before (0 = none)
 *   trs[20i..+20)      | prev t(3) r(4) s(3) | curr t(3) r(4) s(3) |   prev and curr decomposed, on demand
 *   trsFor[i]          the stamp whose curr the second half of trs holds (0 = none)
 *   pending[i]         1 = what the target shows is not curr
 *
 * Interpolation (render(alpha), 0 ≤ alpha < 1, `interpolate` on) shows lerp(t), nlerp(r) (shortest arc,
 * normalized), lerp(s) of the two decomposed worlds. Decomposition is lazy: render() decomposes a moving node's
 * new world once (the old one's decomposition is shifted over when it is still there), so a frame costs one
 * decomposition per moving node however many steps it ran, and captures cost copies. nlerp instead of slerp:
 * for the few hundredths of a radian a bone turns in one step, nlerp's angle differs from slerp's by under
 * θ³/10 (2e-6 rad at θ = 0.03 rad); the rotation stays a true rotation (a plain matrix lerp would squash the
 * bone by ~θ²/8). The cost of decomposing: a world matrix with shear (non-uniform scale above a rotated node)
 * loses its shear while interpolated; alpha 1 (or a still node) always shows the exact matrix.
 * Display only: nothing here feeds the simulation, so determinism rules do not apply (it uses + - * /, sqrt).
 */

/** 16 numbers, column-major, that a renderer reads as a world matrix. */
export type MatrixTarget = number[] | Float32Array | Float64Array

/** Options of createWorldSync. */
export interface WorldSyncOptions {
  /** Interpolate between the last two captured steps in render(alpha). Default true. */
  interpolate?: boolean
  /**
   * A count that changes when something was placed (teleported) rather than moved, e.g. the plugin's
   * `sceneGraph.placements`: a capture that sees it changed takes that step's changes as jumps, so render(alpha)
   * shows them at once instead of interpolating across them.
   */
  placements?: () => number
}

/**
 * Copies SceneNode world matrices into a renderer's matrices (createWorldSync): slots of one entity and one
 * target each, `capture()` after every fixed step, `render(alpha)` once per drawn frame.
 */
export interface WorldSync {
  /** Slots in use. */
  readonly count: number
  /** Captures so far. */
  readonly captures: number
  /** Targets written by the last render. */
  readonly uploads: number
  /**
   * Appends one slot per entity (SceneNode ids, parallel to `targets`) at the end and returns the first slot's
   * index. New slots show the entities' current world on the next render, with nothing to interpolate from.
   */
  add(entities: ArrayLike<number>, targets: readonly MatrixTarget[]): number
  /** Removes slots `start .. start+length`; later slots move down by `length` (their state kept). */
  remove(start: number, length: number): void
  /** Call after every fixed step: records what the step changed. Allocation-free. */
  capture(): void
  /** Writes changed targets; `alpha` in [0, 1] (clamped), omitted = the last step. Allocation-free. */
  render(alpha?: number): void
}

/** Floats per slot in `trs`: previous and current t(3) r(4) s(3). */
const TRS = 20

/**
 * A sync with no slots, reading `nodes` (a SceneNode store, or anything with its `changed` and `world` arrays;
 * kept, never written). Its targets are written only by render().
 */
export function createWorldSync(
  nodes: { readonly changed: Uint8Array; readonly world: Float32Array },
  options: WorldSyncOptions = {},
): WorldSync {
  const interpolate = options.interpolate ?? true
  const placementsOf = options.placements
  let lastPlacements = placementsOf?.() ?? 0
  const { changed, world } = nodes
  let count = 0
  let captures = 0
  let uploads = 0
  let entity = new Int32Array(0)
  let curr = new Float32Array(0)
  let prev = new Float32Array(0)
  let stamp = new Uint32Array(0)
  let prevStamp = new Uint32Array(0)
  let trs = new Float64Array(0)
  let trsFor = new Uint32Array(0)
  let pending = new Uint8Array(0)
  const target: MatrixTarget[] = []

  function reserve(n: number): void {
    if (n <= entity.length) return
    const size = Math.max(n, 2 * entity.length, 64)
    const grow = <T extends Int32Array | Uint32Array | Uint8Array | Float32Array | Float64Array>(
      old: T,
      make: (length: number) => T,
      width: number,
    ): T => {
      const next = make(size * width)
      next.set(old.subarray(0, count * width))
      return next
    }
    entity = grow(entity, (l) => new Int32Array(l), 1)
    curr = grow(curr, (l) => new Float32Array(l), 16)
    prev = grow(prev, (l) => new Float32Array(l), 16)
    stamp = grow(stamp, (l) => new Uint32Array(l), 1)
    prevStamp = grow(prevStamp, (l) => new Uint32Array(l), 1)
    trs = grow(trs, (l) => new Float64Array(l), TRS)
    trsFor = grow(trsFor, (l) => new Uint32Array(l), 1)
    pending = grow(pending, (l) => new Uint8Array(l), 1)
  }

  function add(entities: ArrayLike<number>, targets: readonly MatrixTarget[]): number {
    const start = count
    reserve(count + entities.length)
    for (let k = 0; k < entities.length; k++) {
      const i = count++
      const e = entities[k]!
      entity[i] = e
      target[i] = targets[k]!
      for (let c = 0; c < 16; c++) curr[16 * i + c] = prev[16 * i + c] = world[16 * e + c]!
      stamp[i] = prevStamp[i] = trsFor[i] = 0
      pending[i] = 1
    }
    return start
  }

  function remove(start: number, length: number): void {
    const end = start + length
    entity.copyWithin(start, end, count)
    curr.copyWithin(16 * start, 16 * end, 16 * count)
    prev.copyWithin(16 * start, 16 * end, 16 * count)
    stamp.copyWithin(start, end, count)
    prevStamp.copyWithin(start, end, count)
    trs.copyWithin(TRS * start, TRS * end, TRS * count)
    trsFor.copyWithin(start, end, count)
    pending.copyWithin(start, end, count)
    target.splice(start, length)
    count -= length
  }

  function capture(): void {
    const k = ++captures
    const placed = placementsOf !== undefined && placementsOf() !== lastPlacements
    if (placed) lastPlacements = placementsOf!()
    for (let i = 0; i < count; i++) {
      const e = entity[i]!
      if (changed[e] !== 1) continue
      for (let c = 16 * i, w = 16 * e, end = c + 16; c < end; c++, w++) {
        prev[c] = curr[c]!
        curr[c] = world[w]!
      }
      // After a placement the step is a jump: stamped as no change (0), render writes curr as it is.
      prevStamp[i] = placed ? 0 : stamp[i]!
      stamp[i] = placed ? 0 : k
      pending[i] = 1
    }
  }

  function render(alpha?: number): void {
    const a = !interpolate || alpha === undefined ? 1 : alpha < 0 ? 0 : alpha > 1 ? 1 : alpha
    const k = captures
    let written = 0
    for (let i = 0; i < count; i++) {
      const moving = a < 1 && stamp[i] === k && k > 0
      if (!moving && pending[i] === 0) continue
      const out = target[i]!
      if (moving) {
        const o = TRS * i
        if (trsFor[i] !== k) {
          // prev is the world of the change stamped prevStamp: reuse its decomposition when it is still held.
          if (trsFor[i] !== 0 && trsFor[i] === prevStamp[i]) trs.copyWithin(o, o + 10, o + 20)
          else decompose(trs, o, prev, 16 * i)
          decompose(trs, o + 10, curr, 16 * i)
          trsFor[i] = k
        }
        blendComposed(out, trs, o, a)
      } else {
        for (let c = 0, m = 16 * i; c < 16; c++) out[c] = curr[m + c]!
      }
      // An in-between value is not curr: a later render at alpha 1 (or after the node stops) must write curr.
      pending[i] = moving ? 1 : 0
      written++
    }
    uploads = written
  }

  return {
    get count() {
      return count
    },
    get captures() {
      return captures
    },
    get uploads() {
      return uploads
    },
    add,
    remove,
    capture,
    render,
  }
}

/**
 * Decomposes the column-major affine matrix `m[mo..mo+16)` into t(3) r(4: x y z w, unit) s(3) at `out[o..o+10)`.
 * Scale = basis column lengths (x negated for a mirroring matrix); rotation from the normalized columns by the
 * largest-diagonal branch (stable for every rotation), then normalized, so shear is dropped. A zero column
 * gives scale 0 and a finite rotation, never NaN.
 */
export function decompose(out: Float64Array, o: number, m: Float32Array, mo: number): void {
  let sx = Math.sqrt(m[mo]! * m[mo]! + m[mo + 1]! * m[mo + 1]! + m[mo + 2]! * m[mo + 2]!)
  const sy = Math.sqrt(m[mo + 4]! * m[mo + 4]! + m[mo + 5]! * m[mo + 5]! + m[mo + 6]! * m[mo + 6]!)
  const sz = Math.sqrt(m[mo + 8]! * m[mo + 8]! + m[mo + 9]! * m[mo + 9]! + m[mo + 10]! * m[mo + 10]!)
  const det =
    m[mo]! * (m[mo + 5]! * m[mo + 10]! - m[mo + 6]! * m[mo + 9]!) -
    m[mo + 4]! * (m[mo + 1]! * m[mo + 10]! - m[mo + 2]! * m[mo + 9]!) +
    m[mo + 8]! * (m[mo + 1]! * m[mo + 6]! - m[mo + 2]! * m[mo + 5]!)
  if (det < 0) sx = -sx
  const ix = sx !== 0 ? 1 / sx : 0
  const iy = sy !== 0 ? 1 / sy : 0
  const iz = sz !== 0 ? 1 / sz : 0
  // r(row, col): column c of the rotation is column c of m divided by its scale.
  const r00 = m[mo]! * ix
  const r10 = m[mo + 1]! * ix
  const r20 = m[mo + 2]! * ix
  const r01 = m[mo + 4]! * iy
  const r11 = m[mo + 5]! * iy
  const r21 = m[mo + 6]! * iy
  const r02 = m[mo + 8]! * iz
  const r12 = m[mo + 9]! * iz
  const r22 = m[mo + 10]! * iz
  let x: number
  let y: number
  let z: number
  let w: number
  const trace = r00 + r11 + r22
  if (trace > 0) {
    const f = 0.5 / Math.sqrt(trace + 1)
    w = 0.25 / f
    x = (r21 - r12) * f
    y = (r02 - r20) * f
    z = (r10 - r01) * f
  } else if (r00 > r11 && r00 > r22) {
    const f = 2 * Math.sqrt(Math.max(0, 1 + r00 - r11 - r22)) || 1
    w = (r21 - r12) / f
    x = 0.25 * f
    y = (r01 + r10) / f
    z = (r02 + r20) / f
  } else if (r11 > r22) {
    const f = 2 * Math.sqrt(Math.max(0, 1 + r11 - r00 - r22)) || 1
    w = (r02 - r20) / f
    x = (r01 + r10) / f
    y = 0.25 * f
    z = (r12 + r21) / f
  } else {
    const f = 2 * Math.sqrt(Math.max(0, 1 + r22 - r00 - r11)) || 1
    w = (r10 - r01) / f
    x = (r02 + r20) / f
    y = (r12 + r21) / f
    z = 0.25 * f
  }
  const len = Math.sqrt(x * x + y * y + z * z + w * w)
  const il = len > 0 ? 1 / len : 0
  out[o] = m[mo + 12]!
  out[o + 1] = m[mo + 13]!
  out[o + 2] = m[mo + 14]!
  out[o + 3] = x * il
  out[o + 4] = y * il
  out[o + 5] = z * il
  out[o + 6] = len > 0 ? w * il : 1
  out[o + 7] = sx
  out[o + 8] = sy
  out[o + 9] = sz
}

/**
 * out = T·R·S of lerp(t), nlerp(r) (shortest arc), lerp(s) between the previous (`trs[o..o+10)`) and current
 * (`trs[o+10..o+20)`) decomposed worlds, at `a` in [0, 1].
 */
export function blendComposed(out: MatrixTarget, trs: Float64Array, o: number, a: number): void {
  const b = 1 - a
  const c = o + 10
  const dot =
    trs[o + 3]! * trs[c + 3]! +
    trs[o + 4]! * trs[c + 4]! +
    trs[o + 5]! * trs[c + 5]! +
    trs[o + 6]! * trs[c + 6]!
  const ac = dot < 0 ? -a : a
  let x = b * trs[o + 3]! + ac * trs[c + 3]!
  let y = b * trs[o + 4]! + ac * trs[c + 4]!
  let z = b * trs[o + 5]! + ac * trs[c + 5]!
  let w = b * trs[o + 6]! + ac * trs[c + 6]!
  const len = Math.sqrt(x * x + y * y + z * z + w * w)
  if (len > 0) {
    x /= len
    y /= len
    z /= len
    w /= len
  } else w = 1 // opposite rotations half way: any answer is as good; never NaN
  const m = blended
  m[0] = b * trs[o]! + a * trs[c]!
  m[1] = b * trs[o + 1]! + a * trs[c + 1]!
  m[2] = b * trs[o + 2]! + a * trs[c + 2]!
  m[3] = x
  m[4] = y
  m[5] = z
  m[6] = w
  m[7] = b * trs[o + 7]! + a * trs[c + 7]!
  m[8] = b * trs[o + 8]! + a * trs[c + 8]!
  m[9] = b * trs[o + 9]! + a * trs[c + 9]!
  composeMatrix(out, 0, m, 0, m, 3, m, 7)
}

/** blendComposed's blended t(3) r(4) s(3). */
const blended = new Float64Array(10)
