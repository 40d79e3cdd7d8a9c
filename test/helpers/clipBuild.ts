/** Shared by the buildClip tests (test/clip/clip.*.test.ts). */
import type { RawChannel } from '../../src/clip/clip.ts'

/** A channel that passes validation; tests override one field at a time. */
export function translation(overrides: Partial<RawChannel> = {}): RawChannel {
  return {
    node: 1,
    nodeName: 'hips',
    path: 'translation',
    interpolation: 'LINEAR',
    times: [0, 0.5, 1],
    values: [0, 0, 0, 1, 2, 3, 4, 5, 6],
    ...overrides,
  }
}
