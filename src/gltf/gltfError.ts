import { AnimationError } from '../errors.ts'

/** A loading error (kind 'gltf') whose message starts with the file it is about: `Fox.glb: node 3 ...`. */
export function gltfError(source: string, what: string, cause?: unknown): AnimationError {
  return new AnimationError('gltf', `${source}: ${what}`, cause === undefined ? undefined : { cause })
}

/** The message of anything thrown, on one line. */
export function describeThrown(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return text.replace(/\s*\n\s*/g, ' ')
}

/** Levels of a JSON value `shown` writes out; deeper arrays and objects are shown as …. */
const SHOWN_DEPTH = 3
const ELIDED = '\u0000…'

/**
 * A value from the file as a message shows it: its JSON text, arrays and objects nested deeper than
 * SHOWN_DEPTH levels shown as …. A file's values nest as deep as JSON.parse allows, deeper than the stack of
 * a plain JSON.stringify.
 */
export function shown(value: unknown): string {
  const levels = new Map<unknown, number>()
  const text = JSON.stringify(value, function (this: unknown, _key: string, v: unknown): unknown {
    if (typeof v !== 'object' || v === null) return v
    const level = (levels.get(this) ?? 0) + 1
    if (level > SHOWN_DEPTH) return ELIDED
    levels.set(v, level)
    return v
  }) as string | undefined
  return text === undefined ? String(value) : text.replaceAll(JSON.stringify(ELIDED), '…')
}

/**
 * The reference and number checks the JSON checks share (checkJson.ts, checkAccessors.ts), each failing with
 * a gltfError of `source`.
 */
export interface JsonCheck {
  fail(what: string): never
  /** An index into a list of `count` items (`plural` names them in the message). */
  ref(value: unknown, count: number, what: string, where: string, plural: string): number
  /** A non-negative integer, `fallback` when absent. */
  natural(value: unknown, fallback: number, what: string, where: string): number
}

export function jsonCheck(source: string): JsonCheck {
  const fail = (what: string): never => {
    throw gltfError(source, what)
  }
  const ref = (value: unknown, count: number, what: string, where: string, plural: string): number => {
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= count) {
      fail(`${where}: ${what} ${shown(value)} does not exist (the file has ${count} ${plural})`)
    }
    return value as number
  }
  const natural = (value: unknown, fallback: number, what: string, where: string): number => {
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || (value as number) < 0) {
      fail(`${where}: ${what} ${shown(value)} is not a non-negative integer`)
    }
    return value as number
  }

  return { fail, ref, natural }
}

/** ` "name"` of a named glTF item, for messages; '' without a name. */
export function nameOf(item: Record<string, unknown>): string {
  return typeof item['name'] === 'string' && item['name'] !== '' ? ` "${item['name']}"` : ''
}

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
