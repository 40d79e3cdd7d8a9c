import { AnimationError } from '../errors.ts'

/** The error every refused restore throws: `restore: snapshot <message>`. */
export function snapshotError(message: string): AnimationError {
  return new AnimationError('snapshot', `restore: snapshot ${message}`)
}

/*
 * The checks restore makes of every value it reads (snapshot/read.ts, src/physics/snapshot.ts). The checksum
 * only catches accidents: whoever edits a snapshot can recompute it, so each value is checked against what the
 * simulation and cannon-es can take before anything is changed. A number is bounded only by what its own type
 * holds, because that is all the plugin bounds it by: a float32 (node transforms, pose layers, world matrices)
 * must be finite, which keeps it within ±3.4e38; a float64 (clip times and speeds, fade durations, ramp
 * rates, queued hits, ragdoll descriptions, every value of cannon-es's bodies and constraints) must be finite.
 * The public calls take any finite number for the float64s, and cannon-es computes in float64: a character
 * scaled 1e20 under a parent scaled 1e20 has its ragdoll bodies 1e40 from the origin. Whatever the plugin
 * itself can hold must restore; products that leave float32's range are refused by propagateTransforms (a
 * node keeps its last world matrix), and bodies that leave float64's by stepRagdolls (an explosion), not here.
 *
 * Every failed check is an AnimationError('snapshot') naming the section, the entity, the field and the value:
 * `where` is the section and the entity ("section "nodes", scene node 57"), `field` the field ("scale[1]").
 */

/**
 * A rotation may be off unit length by float rounding, or by cannon-es's drift between renormalizations; a
 * length outside this range is no rotation (a zero one gives NaN where it is normalized).
 */
export const QUATERNION_LENGTH = [0.5, 2] as const

/**
 * A value as people read it: -0 and NaN as such, vectors in parentheses, the elements of a Float32Array as the
 * shortest decimal that is the same float32 (1e+38, not 9.999999680285692e+37).
 */
export function formatValue(x: number | ArrayLike<number>, float32 = false): string {
  if (typeof x !== 'number') {
    const f32 = float32 || x instanceof Float32Array
    return `(${Array.from(x, (v) => formatValue(v, f32)).join(', ')})`
  }
  if (Object.is(x, -0)) return '-0'
  if (float32 && Number.isFinite(x)) {
    for (let digits = 1; digits < 9; digits++) {
      const short = Number(x.toPrecision(digits))
      if (Math.fround(short) === x) return String(short)
    }
  }
  return String(x)
}

/** `restore: snapshot <where>: <field> is <value>; <rule>` (`float32`: see formatValue). */
export function invalidValue(
  where: string,
  field: string,
  value: number | ArrayLike<number>,
  rule: string,
  float32 = false,
): AnimationError {
  return snapshotError(`${where}: ${field} is ${formatValue(value, float32)}; ${rule}`)
}

/** `values[from .. from + count)` finite; element k is named `field[k]`. */
export function checkFinite(
  where: string,
  field: string,
  values: ArrayLike<number>,
  from = 0,
  count = values.length - from,
): void {
  for (let k = 0; k < count; k++) {
    const x = values[from + k]!
    if (!(x >= -Number.MAX_VALUE && x <= Number.MAX_VALUE)) {
      const name = count === 1 ? field : `${field}[${k}]`
      throw invalidValue(where, name, x, 'must be a finite number', values instanceof Float32Array)
    }
  }
}

/** One finite number (`checkFinite` for a scalar, without an array). */
export function checkNumber(where: string, field: string, x: number): void {
  if (!(x >= -Number.MAX_VALUE && x <= Number.MAX_VALUE))
    throw invalidValue(where, field, x, 'must be a finite number')
}

/** `min <= x <= max` (or `min < x` when `above`), which NaN never is. */
export function checkRange(
  where: string,
  field: string,
  x: number,
  min: number,
  max: number,
  above = false,
): void {
  if (!((above ? x > min : x >= min) && x <= max)) {
    const low = above ? `(${formatValue(min)}` : `[${formatValue(min)}`
    throw invalidValue(where, field, x, `must be in ${low}, ${formatValue(max)}]`)
  }
}

/** A finite number > 0. */
export function checkPositive(where: string, field: string, x: number): void {
  if (!(x > 0 && x <= Number.MAX_VALUE)) throw invalidValue(where, field, x, 'must be a finite number > 0')
}

/** A finite number ≥ 0. */
export function checkNonNegative(where: string, field: string, x: number): void {
  if (!(x >= 0 && x <= Number.MAX_VALUE)) throw invalidValue(where, field, x, 'must be a finite number ≥ 0')
}

/** One of `allowed` (an enum or a flag). */
export function checkChoice(where: string, field: string, x: number, allowed: readonly number[]): void {
  if (!allowed.includes(x)) throw invalidValue(where, field, x, `must be one of ${allowed.join(', ')}`)
}

/** Flags with no bits outside `mask`. */
export function checkFlags(where: string, field: string, x: number, mask: number): void {
  if ((x & ~mask) !== 0) throw invalidValue(where, field, x, `has bits outside 0x${mask.toString(16)}`)
}

/**
 * `values[from .. from + n)` (n = 4 for a quaternion, 3 for a direction) finite and of a length within
 * QUATERNION_LENGTH.
 */
export function checkUnit(where: string, field: string, values: ArrayLike<number>, from = 0, n = 4): void {
  let sum = 0
  for (let k = 0; k < n; k++) sum += values[from + k]! ** 2
  const length = Math.sqrt(sum)
  if (!(length >= QUATERNION_LENGTH[0] && length <= QUATERNION_LENGTH[1])) {
    const v = Array.from({ length: n }, (_, k) => values[from + k]!)
    const f32 = values instanceof Float32Array
    throw invalidValue(
      where,
      field,
      v,
      `its length ${formatValue(length)} is not within [${QUATERNION_LENGTH.join(', ')}] (must be a unit ` +
        `${n === 4 ? 'quaternion' : 'vector'})`,
      f32,
    )
  }
}
