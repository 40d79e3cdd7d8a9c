/**
 * buildClip (src/clip/clip.ts): bad input is refused with a message naming the clip, channel, node,
 * key and numbers.
 */
import { describe, expect, it } from 'vitest'
import { buildClip, type RawChannel, type RawClip } from '../../src/clip/clip.ts'
import { AnimationError } from '../../src/errors.ts'
import { translation } from '../helpers/clipBuild.ts'

/**
 * Builds a clip "Walk" whose channel 2 is `bad` (channels 0 and 1 are valid), expects an AnimationError of kind
 * 'clip' and returns its message, so each test states the whole message.
 */
function messageFor(bad: RawChannel, options?: { nodeCount?: number }): string {
  const raw: RawClip = {
    name: 'Walk',
    channels: [translation(), translation({ node: 0, nodeName: '' }), bad],
  }
  try {
    buildClip(raw, options)
  } catch (e) {
    expect(e).toBeInstanceOf(AnimationError)
    expect((e as AnimationError).kind).toBe('clip')
    return (e as Error).message
  }
  return expect.fail('buildClip accepted bad input')
}

const WHERE = 'clip "Walk" channel 2 (hips.translation)'

describe('buildClip: bad input names clip, channel, node, key and numbers', () => {
  it('rejects channels that are not an array', () => {
    expect(() => buildClip({ name: 'Walk', channels: null as unknown as RawChannel[] })).toThrow(
      new AnimationError('clip', 'clip "Walk": channels must be an array'),
    )
  })

  it('rejects a channel with no keys', () => {
    expect(messageFor(translation({ times: [], values: [] }))).toBe(`${WHERE}: has no keys`)
  })

  it('rejects an unknown interpolation', () => {
    expect(messageFor(translation({ interpolation: 'BEZIER' }))).toBe(
      `${WHERE}: unknown interpolation "BEZIER" (expected STEP, LINEAR or CUBICSPLINE)`,
    )
  })

  it('rejects an unknown path', () => {
    expect(messageFor(translation({ path: 'position' }))).toBe(
      'clip "Walk" channel 2 (hips.position): unknown path "position" ' +
        '(expected one of translation, rotation, scale, weights)',
    )
  })

  it('rejects a target node out of range, naming the node count', () => {
    expect(messageFor(translation({ node: 7, nodeName: undefined }), { nodeCount: 7 })).toBe(
      'clip "Walk" channel 2 (node 7.translation): target node 7 does not exist (the asset has 7 nodes)',
    )
    expect(messageFor(translation({ node: -1 }))).toBe(`${WHERE}: target node -1 is not a node index`)
    expect(messageFor(translation({ node: 1.5 }))).toBe(`${WHERE}: target node 1.5 is not a node index`)
    // In range: the last node.
    expect(() =>
      buildClip({ name: 'W', channels: [translation({ node: 6 })] }, { nodeCount: 7 }),
    ).not.toThrow()
  })

  it('rejects LINEAR and STEP output counts that differ from the key count', () => {
    expect(messageFor(translation({ values: [0, 0, 0, 1, 1, 1] }))).toBe(
      `${WHERE}: LINEAR needs 3 keys = 3 output elements, got 2`,
    )
    expect(messageFor(translation({ interpolation: 'STEP', values: new Array(12).fill(0) }))).toBe(
      `${WHERE}: STEP needs 3 keys = 3 output elements, got 4`,
    )
    // A count that is not even a whole number of elements.
    expect(messageFor(translation({ values: new Array(8).fill(0) }))).toBe(
      `${WHERE}: LINEAR needs 3 keys = 3 output elements, got 8 floats, not a whole number of 3-float elements`,
    )
  })

  it('rejects a CUBICSPLINE output count that is not 3 × the key count', () => {
    // LINEAR-sized data marked CUBICSPLINE: the classic exporter mistake.
    expect(messageFor(translation({ interpolation: 'CUBICSPLINE' }))).toBe(
      `${WHERE}: CUBICSPLINE needs 3 × 3 keys = 9 output elements, got 3`,
    )
  })

  it('rejects key times that are equal or decreasing, naming both keys', () => {
    expect(messageFor(translation({ times: [0, 0.5, 0.5] }))).toBe(
      `${WHERE}: key 2 time 0.5 is not after key 1 time 0.5`,
    )
    expect(messageFor(translation({ times: [0, 0.7, 0.6] }))).toBe(
      `${WHERE}: key 2 time 0.6 is not after key 1 time 0.7`,
    )
  })

  it('rejects times that are distinct doubles but the same float32, and says so', () => {
    expect(messageFor(translation({ times: [0, 0.1, 0.1 + 1e-9] }))).toBe(
      `${WHERE}: key 2 time 0.100000001 is not after key 1 time 0.1 (both round to the float32 0.10000000149011612)`,
    )
  })

  it('rejects negative and non-finite times, including ones that overflow float32', () => {
    expect(messageFor(translation({ times: [-0.25, 0.5, 1] }))).toBe(`${WHERE}: key 0 time -0.25 is negative`)
    expect(messageFor(translation({ times: [0, NaN, 1] }))).toBe(`${WHERE}: key 1 time NaN is not finite`)
    expect(messageFor(translation({ times: [0, 1, Infinity] }))).toBe(
      `${WHERE}: key 2 time Infinity is not finite`,
    )
    expect(messageFor(translation({ times: [0, 1, 1e39] }))).toBe(
      `${WHERE}: key 2 time 1e+39 is not finite as a float32`,
    )
  })

  it('accepts -0 as a first time', () => {
    expect(() => buildClip({ name: 'W', channels: [translation({ times: [-0, 0.5, 1] })] })).not.toThrow()
  })

  it('rejects NaN and infinite values, naming key, element kind and component', () => {
    expect(messageFor(translation({ values: [0, 0, 0, 1, 2, NaN, 4, 5, 6] }))).toBe(
      `${WHERE}: key 1 value component 2 is NaN`,
    )
    expect(messageFor(translation({ values: [0, 0, 0, 1, 2, 3, 4, -Infinity, 6] }))).toBe(
      `${WHERE}: key 2 value component 1 is -Infinity`,
    )
    expect(messageFor(translation({ values: [0, 0, 0, 1, 2, 3, 4, 5, -1e39] }))).toBe(
      `${WHERE}: key 2 value component 2 is -1e+39, not finite as a float32`,
    )
  })

  it('rejects non-finite tangents, even the never-used first in-tangent and last out-tangent', () => {
    const cubic = (values: number[]) => translation({ interpolation: 'CUBICSPLINE', times: [0, 1], values })
    const ok = [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0, 0]
    expect(() => buildClip({ name: 'W', channels: [cubic(ok)] })).not.toThrow()
    const at = (i: number, v: number) => ok.map((x, j) => (j === i ? v : x))
    expect(messageFor(cubic(at(1, Infinity)))).toBe(`${WHERE}: key 0 in-tangent component 1 is Infinity`)
    expect(messageFor(cubic(at(8, NaN)))).toBe(`${WHERE}: key 0 out-tangent component 2 is NaN`)
    expect(messageFor(cubic(at(13, NaN)))).toBe(`${WHERE}: key 1 value component 1 is NaN`)
    expect(messageFor(cubic(at(15, -Infinity)))).toBe(`${WHERE}: key 1 out-tangent component 0 is -Infinity`)
  })

  it('rejects zero-length rotation keys (but not zero tangents)', () => {
    const rot = (interpolation: string, values: number[]) =>
      ({ node: 1, nodeName: 'hips', path: 'rotation', interpolation, times: [0, 1], values }) as RawChannel
    const where = 'clip "Walk" channel 2 (hips.rotation)'
    expect(messageFor(rot('LINEAR', [0, 0, 0, 1, 0, 0, 0, 0]))).toBe(
      `${where}: key 1 value is a zero-length quaternion (length 0)`,
    )
    expect(messageFor(rot('STEP', [0, 0, 0, 1e-9, 0, 0, 0, 1]))).toBe(
      `${where}: key 0 value is a zero-length quaternion (length ${Math.fround(1e-9)})`,
    )
    const cubic = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    expect(messageFor(rot('CUBICSPLINE', cubic))).toBe(
      `${where}: key 1 value is a zero-length quaternion (length 0)`,
    )
    cubic[19] = 1 // key 1 value = identity; all tangents stay zero
    expect(() => buildClip({ name: 'W', channels: [rot('CUBICSPLINE', cubic)] })).not.toThrow()
  })

  it('rejects weights whose count does not divide into the keys, or a bad explicit component count', () => {
    const weights = (overrides: Partial<RawChannel>) =>
      translation({ path: 'weights', times: [0, 1], ...overrides }) as RawChannel
    const where = 'clip "Walk" channel 2 (hips.weights)'
    expect(messageFor(weights({ values: [0, 1, 2, 3, 4] }))).toBe(
      `${where}: 5 weight values do not divide into 2 keys`,
    )
    expect(messageFor(weights({ interpolation: 'CUBICSPLINE', values: new Array(8).fill(0) }))).toBe(
      `${where}: 8 weight values do not divide into 2 keys × 3 (in-tangent, value, out-tangent)`,
    )
    expect(messageFor(weights({ values: [0, 1, 2, 3], components: 0 }))).toBe(
      `${where}: weights component count 0 is invalid`,
    )
    expect(messageFor(weights({ values: [0, 1, 2, 3, 4, 5], components: 2 }))).toBe(
      `${where}: LINEAR needs 2 keys = 2 output elements, got 3`,
    )
    // An explicit count that agrees is accepted.
    const clip = buildClip({ name: 'W', channels: [weights({ values: [0, 1, 2, 3, 4, 5], components: 3 })] })
    expect(clip.channels[0]!.components).toBe(3)
  })
})
