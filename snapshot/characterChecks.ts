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

/**
 * The value checks of a layer's rows on restore — Sampler (its track), CrossFade (its fade and the track that
 * leaves) and AnimLayer — the same for a character's layer 0 (the characters section's columns: readCharacters.ts)
 * and its other layers (the layers section: layers.ts), and for a blend space's points (tracks).
 */

export const FLAGS = [0, 1]
const LOOPS = [0, 1, 2] // LOOP_ONCE, LOOP_REPEAT, LOOP_PINGPONG
const ROTATIONS = [0, 1] // ROTATION_SLERP, ROTATION_SQUAD
const SOURCES = [0, 1, 2] // SOURCE_NONE, SOURCE_CLIP, SOURCE_BLEND_SPACE

/** A store field's column in the snapshot: the field and the column's byte offset. */
export interface Column {
  readonly f: Field
  readonly at: number
}

/** Element `k` of row `i` in a column, as its store's element type reads. */
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

/** A row's fields by name ("Sampler.clip", "CrossFade.from.time", …): a column's element, or a layer's. */
export type Row = (field: string) => number

/** The fields of each store row that restore checks (reading refuses a layout with any other: add its check). */
export const TRACK_FIELDS = [
  'clip',
  'finished',
  'lastTime',
  'local',
  'loop',
  'reset',
  'rotation',
  'speed',
  'time',
] as const
export const LAYER_CHECKED: Readonly<Record<string, readonly string[]>> = {
  Sampler: TRACK_FIELDS,
  CrossFade: ['active', 'blend', 'duration', 'steps', ...TRACK_FIELDS.map((f) => `from.${f}`)],
  AnimLayer: [
    'mode',
    'paused',
    'phase',
    'refClip',
    'refTime',
    'source',
    'stopping',
    'weight',
    'weightDuration',
    'weightFrom',
    'weightSteps',
    'weightTo',
  ],
}

/**
 * A track (`prefix` "Sampler.", "CrossFade.from." or a blend space's points'): its clip one of the plugin's (or
 * -1), time and speed numbers, loop and rotation one of theirs, its flags, its clip-local times numbers (the
 * last sampled NaN when none was).
 */
export function checkTrack(where: string, prefix: string, row: Row, clips: number): void {
  const n = trackNames(prefix)
  checkClip(where, n.clip, row(n.clip), clips)
  checkNumber(where, n.time, row(n.time))
  checkNumber(where, n.speed, row(n.speed))
  checkNumber(where, n.local, row(n.local))
  checkChoice(where, n.loop, row(n.loop), LOOPS)
  checkChoice(where, n.rotation, row(n.rotation), ROTATIONS)
  checkChoice(where, n.finished, row(n.finished), FLAGS)
  checkFlags(where, n.reset, row(n.reset), SAMPLER_RESET_REST | SAMPLER_HOLD)
  // NaN means "not sampled yet" (it forces a sample).
  const last = row(n.lastTime)
  if (!Number.isNaN(last)) checkNumber(where, n.lastTime, last)
}

/**
 * A track's field names under `prefix`, made once per prefix: a name built at each call is a new string, which a
 * Map hashes again at each lookup (a restore looks up some forty a character).
 */
function trackNames(prefix: string): Readonly<Record<(typeof TRACK_FIELDS)[number], string>> {
  let names = trackNameCache.get(prefix)
  if (names === undefined) {
    names = Object.fromEntries(TRACK_FIELDS.map((f) => [f, `${prefix}${f}`])) as Record<
      (typeof TRACK_FIELDS)[number],
      string
    >
    trackNameCache.set(prefix, names)
  }
  return names
}
const trackNameCache = new Map<string, Readonly<Record<(typeof TRACK_FIELDS)[number], string>>>()

/**
 * A layer's rows: its track, its fade (active only towards a clip or a blend space, with a duration > 0; the
 * track it leaves -1 otherwise) and its AnimLayer entry (weights in [0, 1], durations ≥ 0, flags and choices;
 * layer 0 never additive).
 */
export function checkLayerRows(where: string, row: Row, clips: number, index: number): void {
  checkTrack(where, 'Sampler.', row, clips)
  checkTrack(where, 'CrossFade.from.', row, clips)
  checkRange(where, 'CrossFade.blend', row('CrossFade.blend'), 0, 1)
  const duration = row('CrossFade.duration')
  checkRange(where, 'CrossFade.duration', duration, 0, Number.MAX_VALUE)
  // steps: any count ≥ 0 (the fade ends once steps·dt reaches its duration).
  checkRange(where, 'CrossFade.steps', row('CrossFade.steps'), 0, Number.MAX_VALUE)
  const active = row('CrossFade.active')
  checkChoice(where, 'CrossFade.active', active, FLAGS)
  const source = row('AnimLayer.source')
  checkChoice(where, 'AnimLayer.source', source, SOURCES)
  const clip = row('Sampler.clip')
  if ((source === 1) !== clip >= 0) {
    throw invalidValue(where, 'AnimLayer.source', source, `does not match Sampler.clip ${clip}`)
  }
  if (active === 1) {
    checkPositive(where, 'CrossFade.duration', duration)
    if (source === 0)
      throw invalidValue(where, 'CrossFade.active', 1, 'a fade needs a clip or blend space to fade to')
    if (source === 2 && row('CrossFade.from.clip') !== -1) {
      throw invalidValue(
        where,
        'CrossFade.from.clip',
        row('CrossFade.from.clip'),
        'a blend space fades in from a pose',
      )
    }
  } else if (row('CrossFade.from.clip') !== -1) {
    throw invalidValue(
      where,
      'CrossFade.from.clip',
      row('CrossFade.from.clip'),
      'must be -1 when no fade is active',
    )
  }
  for (const f of ['AnimLayer.weight', 'AnimLayer.weightFrom', 'AnimLayer.weightTo']) {
    checkRange(where, f, row(f), 0, 1)
  }
  checkRange(where, 'AnimLayer.weightDuration', row('AnimLayer.weightDuration'), 0, Number.MAX_VALUE)
  checkRange(where, 'AnimLayer.weightSteps', row('AnimLayer.weightSteps'), 0, Number.MAX_VALUE)
  checkChoice(where, 'AnimLayer.stopping', row('AnimLayer.stopping'), FLAGS)
  checkChoice(where, 'AnimLayer.mode', row('AnimLayer.mode'), index === 0 ? [0] : FLAGS)
  checkChoice(where, 'AnimLayer.paused', row('AnimLayer.paused'), FLAGS)
  checkClip(where, 'AnimLayer.refClip', row('AnimLayer.refClip'), clips)
  checkNumber(where, 'AnimLayer.refTime', row('AnimLayer.refTime'))
  const phase = row('AnimLayer.phase')
  if (!(phase >= 0 && phase < 1)) throw invalidValue(where, 'AnimLayer.phase', phase, 'must be in [0, 1)')
}

export function invalidFadePaths(where: string, j: number, paths: number): never {
  throw invalidValue(`${where}, joint ${j}`, 'fade paths', paths, 'has bits outside 0x3 (BLEND_T | BLEND_S)')
}
