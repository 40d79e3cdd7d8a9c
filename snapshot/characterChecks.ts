import { SAMPLER_HOLD, SAMPLER_RESET_REST } from '../components/Sampler.ts'
import type { Reader } from '../src/sim/byteStream.ts'
import {
  checkChoice,
  checkFlags,
  checkNumber,
  checkPositive,
  checkRange,
  invalidValue,
} from '../src/sim/valueChecks.ts'
import type { Field } from './format.ts'

/** The value checks of restore's characters section (readCharacters.ts): a column's elements, one store each. */

export const FLAGS = [0, 1]
const LOOPS = [0, 1, 2] // LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG
const ROTATIONS = [0, 1] // ROTATION_SLERP, ROTATION_SQUAD

/** A store field's column in the snapshot: the field and the column's byte offset. */
export interface Column {
  readonly f: Field
  readonly at: number
}

/** Element `k` of character `i` in a column, as its store's element type reads. */
export function element(r: Reader, { f, at }: Column, i: number, k = 0): number {
  const e = i * f.stride + k
  switch (f.data.constructor) {
    case Float64Array:
      return r.doubles[(at >>> 3) + e]!
    case Float32Array:
      return r.floats[(at >>> 2) + e]!
    case Int32Array:
      return r.ints[(at >>> 2) + e]!
    case Uint32Array:
      return r.words[(at >>> 2) + e]!
    case Uint16Array:
      return r.halves[(at >>> 1) + e]!
    case Uint8Array:
      return r.bytes[at + e]!
  }
  throw new Error(`snapshot/characterChecks.ts cannot read a ${f.data.constructor.name} column (${f.name})`)
}

export function checkClip(where: string, field: string, c: number, clips: number): void {
  if (!(c === -1 || (Number.isInteger(c) && c >= 0 && c < clips))) {
    throw invalidValue(where, field, c, `this plugin has clips 0..${clips - 1}`)
  }
}

const SAMPLER_FIELDS = ['paused', 'reset', 'lastTime'] as const
const FADE_FIELDS = ['blend', 'duration', 'active', 'fromClip'] as const

/** The columns of `fields` of one store, by field name (`c` finds a column by "Store.field"). */
function columnsOf<K extends string>(
  c: (name: string) => Column,
  store: string,
  fields: readonly K[],
): Record<K, Column> {
  const out = {} as Record<K, Column>
  for (const f of fields) out[f] = c(`${store}.${f}`)
  return out
}

/** The fields a sampler and a fade's source share, in checkPlayback's order: their names and columns. */
interface Playback {
  readonly names: readonly string[]
  readonly columns: readonly Column[]
}

function playbackOf(c: (name: string) => Column, store: string, fields: readonly string[]): Playback {
  const names = fields.map((f) => `${store}.${f}`)
  return { names, columns: names.map(c) }
}

/** time, speed: numbers; loop, rotation: one of theirs; finished: a flag. */
function checkPlayback(r: Reader, where: string, { names, columns }: Playback, i: number): void {
  checkNumber(where, names[0]!, element(r, columns[0]!, i))
  checkNumber(where, names[1]!, element(r, columns[1]!, i))
  checkChoice(where, names[2]!, element(r, columns[2]!, i), LOOPS)
  checkChoice(where, names[3]!, element(r, columns[3]!, i), ROTATIONS)
  checkChoice(where, names[4]!, element(r, columns[4]!, i), FLAGS)
}

export function samplerColumns(c: (name: string) => Column) {
  const playback = playbackOf(c, 'Sampler', ['time', 'speed', 'loop', 'rotation', 'finished'])
  return { ...columnsOf(c, 'Sampler', SAMPLER_FIELDS), playback }
}

export function checkSampler(
  r: Reader,
  where: string,
  s: ReturnType<typeof samplerColumns>,
  i: number,
): void {
  checkPlayback(r, where, s.playback, i)
  checkChoice(where, 'Sampler.paused', element(r, s.paused, i), FLAGS)
  checkFlags(where, 'Sampler.reset', element(r, s.reset, i), SAMPLER_RESET_REST | SAMPLER_HOLD)
  // NaN means "not sampled yet" (it forces a sample).
  const last = element(r, s.lastTime, i)
  if (!Number.isNaN(last)) checkNumber(where, 'Sampler.lastTime', last)
}

export function fadeColumns(c: (name: string) => Column) {
  const playback = playbackOf(c, 'CrossFade', [
    'fromTime',
    'fromSpeed',
    'fromLoop',
    'fromRotation',
    'fromFinished',
  ])
  return { ...columnsOf(c, 'CrossFade', FADE_FIELDS), playback }
}

export function checkCrossFade(
  r: Reader,
  where: string,
  f: ReturnType<typeof fadeColumns>,
  i: number,
  clip: number,
): void {
  checkPlayback(r, where, f.playback, i)
  checkRange(where, 'CrossFade.blend', element(r, f.blend, i), 0, 1)
  const duration = element(r, f.duration, i)
  checkRange(where, 'CrossFade.duration', duration, 0, Number.MAX_VALUE)
  // steps: any count (advanceCrossFades ends a fade once steps·dt reaches its duration).
  const active = element(r, f.active, i)
  checkChoice(where, 'CrossFade.active', active, FLAGS)
  if (active === 1) {
    checkPositive(where, 'CrossFade.duration', duration)
    if (clip < 0)
      throw invalidValue(where, 'CrossFade.active', 1, 'a fade needs a clip to fade to (Sampler.clip is -1)')
  } else if (element(r, f.fromClip, i) !== -1) {
    throw invalidValue(
      where,
      'CrossFade.fromClip',
      element(r, f.fromClip, i),
      'must be -1 when no fade is active',
    )
  }
}

export function invalidFadePaths(where: string, j: number, paths: number): never {
  throw invalidValue(`${where}, joint ${j}`, 'fade paths', paths, 'has bits outside 0x3 (BLEND_T | BLEND_S)')
}
