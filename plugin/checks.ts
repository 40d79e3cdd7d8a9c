import { AnimationError, showValue } from '../src/errors.ts'

/**
 * Checks shared by the public calls: each turns any JavaScript value into either a checked value or an
 * AnimationError('argument') naming the call, the parameter and the value.
 */

/** An options argument: undefined means none; anything but a plain object is refused. */
export function optionsObject<T extends object>(o: unknown, what: string, name = 'options'): Partial<T> {
  if (o === undefined) return {}
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    throw new AnimationError('argument', `${what}: ${name} must be an object, got ${showValue(o)}`)
  }
  return o as Partial<T>
}

/** A finite number (any sign). */
export function finiteNumber(v: unknown, what: string, name: string, unit = ''): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new AnimationError('argument', `${what}: ${name} ${showValue(v)}${unit} is not a finite number`)
  }
  return v
}

/** Three finite numbers (a vector or an impulse), copied first and then checked: each element is read once. */
export function vector3(v: unknown, what: string, name: string): readonly [number, number, number] {
  const copy = Array.isArray(v) && v.length === 3 ? [v[0] as unknown, v[1] as unknown, v[2] as unknown] : null
  if (!copy || !copy.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new AnimationError(
      'argument',
      `${what}: ${name} ${showValue(copy ?? v)} must be three finite numbers`,
    )
  }
  return copy as [number, number, number]
}
