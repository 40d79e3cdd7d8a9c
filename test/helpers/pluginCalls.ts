/** Shared by the plugin facade tests (test/entry/plugin.*.test.ts). */
import { expect } from 'vitest'
import { AnimationError } from '../../src/errors.ts'
import { REST } from './ecs.ts'

export const NODES = REST.length

/** Runs `call`, expects an AnimationError of `kind` whose message contains every part, returns the message. */
export function expectError(call: () => unknown, kind: AnimationError['kind'], ...parts: string[]): string {
  let error: unknown
  try {
    call()
  } catch (e) {
    error = e
  }
  expect(error, `expected ${parts.join(' … ')}`).toBeInstanceOf(AnimationError)
  const { message } = error as AnimationError
  expect((error as AnimationError).kind, message).toBe(kind)
  for (const part of parts) expect(message).toContain(part)
  return message
}
