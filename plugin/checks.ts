import { AnimationError, showValue } from '../src/errors.ts'

/**
 * Checks shared by the public calls: each turns any JavaScript value into either a checked value or an
 * AnimationError('argument') naming the call, the parameter and the value.
 */

/** Every option name of T, each `true`: what optionsObject accepts (TypeScript checks the list is whole). */
export type OptionNames<T> = { readonly [K in keyof Required<T>]: true }

/**
 * `o` as T's options: undefined is none; anything but a plain object, or an object with an own key `names` does
 * not list (a misspelt `fade` for `fadeSeconds` would otherwise be ignored), is an AnimationError 'argument'.
 */
export function optionsObject<T extends object>(
  o: unknown,
  what: string,
  names: OptionNames<T>,
  name = 'options',
): Partial<T> {
  if (o === undefined) return {}
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    throw new AnimationError('argument', `${what}: ${name} must be an object, got ${showValue(o)}`)
  }
  // for-in rather than Object.keys: a game may pass options every frame, and this allocates nothing.
  for (const key in o) {
    if (Object.hasOwn(o, key) && !Object.hasOwn(names, key)) {
      const known = Object.keys(names).join(', ')
      throw new AnimationError(
        'argument',
        `${what}: ${name} has no option ${showValue(key)} (it takes ${known})`,
      )
    }
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
