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

/**
 * A layer's row as checked: its fields' values in LAYER_FIELDS order (a blend-space point's, its track's in
 * TRACK_FIELDS order), read by readRow from the row's columns, which layerColumns finds once. Checks read fields
 * by index, not by name: a restore checks some forty fields a character, and a lookup by name was a tenth of it.
 */
export type RowValues = Float64Array

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

/** A layer's row's fields, "Store.field" (LAYER_CHECKED's, in its order): the order of a layer's RowValues. */
export const LAYER_FIELDS: readonly string[] = Object.entries(LAYER_CHECKED).flatMap(([store, fields]) =>
  fields.map((f) => `${store}.${f}`),
)
/** Where each of a track's fields is in its values, from the track's first. */
const T = Object.fromEntries(TRACK_FIELDS.map((f, k) => [f, k])) as Record<
  (typeof TRACK_FIELDS)[number],
  number
>
/** Where each of a layer's fields is in its values. */
const L = Object.fromEntries(LAYER_FIELDS.map((f, k) => [f, k])) as Record<string, number>
/** Where a layer's two tracks start in its values. */
export const SAMPLER_TRACK = L['Sampler.clip']!
export const FROM_TRACK = L['CrossFade.from.clip']!
/** Where a layer's fields that its readers use are. */
export const LAYER_SOURCE = L['AnimLayer.source']!
/** The other fields checkLayerRows reads, by their names after the store's. */
const F = {
  active: L['CrossFade.active']!,
  blend: L['CrossFade.blend']!,
  duration: L['CrossFade.duration']!,
  steps: L['CrossFade.steps']!,
  mode: L['AnimLayer.mode']!,
  paused: L['AnimLayer.paused']!,
  phase: L['AnimLayer.phase']!,
  refClip: L['AnimLayer.refClip']!,
  refTime: L['AnimLayer.refTime']!,
  stopping: L['AnimLayer.stopping']!,
  weight: L['AnimLayer.weight']!,
  weightDuration: L['AnimLayer.weightDuration']!,
  weightFrom: L['AnimLayer.weightFrom']!,
  weightSteps: L['AnimLayer.weightSteps']!,
  weightTo: L['AnimLayer.weightTo']!,
}
const LAYER_0_MODES = [0]

/** The columns of `fields` (LAYER_FIELDS or TRACK_FIELDS), found once; throws when a layout lacks one. */
export function layerColumns(
  fields: readonly string[],
  byName: (name: string) => Column | undefined,
): Column[] {
  return fields.map((name) => {
    const column = byName(name)
    if (column === undefined)
      throw new Error(`snapshot/characterChecks.ts: the snapshot layout has no ${name}`)
    return column
  })
}

/** Row `i` of `columns` into `out` (the first `columns.length` values). */
export function readRow(r: Reader, columns: readonly Column[], i: number, out: RowValues): RowValues {
  for (let k = 0; k < columns.length; k++) out[k] = element(r, columns[k]!, i)
  return out
}

/**
 * A track (`prefix` "Sampler.", "CrossFade.from." or a blend space's points' "", its values from `at`): its clip
 * one of the plugin's (or -1), time and speed numbers, loop and rotation one of theirs, its flags, its clip-local
 * times numbers (the last sampled NaN when none was).
 */
export function checkTrack(where: string, prefix: string, v: RowValues, at: number, clips: number): void {
  const n = trackNames(prefix)
  checkClip(where, n.clip, v[at + T.clip]!, clips)
  checkNumber(where, n.time, v[at + T.time]!)
  checkNumber(where, n.speed, v[at + T.speed]!)
  checkNumber(where, n.local, v[at + T.local]!)
  checkChoice(where, n.loop, v[at + T.loop]!, LOOPS)
  checkChoice(where, n.rotation, v[at + T.rotation]!, ROTATIONS)
  checkChoice(where, n.finished, v[at + T.finished]!, FLAGS)
  checkFlags(where, n.reset, v[at + T.reset]!, SAMPLER_RESET_REST | SAMPLER_HOLD)
  // NaN means "not sampled yet" (it forces a sample).
  const last = v[at + T.lastTime]!
  if (!Number.isNaN(last)) checkNumber(where, n.lastTime, last)
}

/** A track field's value by its name (TRACK_FIELDS) in a track's values from `at`. */
export function trackValue(v: RowValues, at: number, field: (typeof TRACK_FIELDS)[number]): number {
  return v[at + T[field]]!
}

/**
 * A track's field names under `prefix`, made once per prefix: a name built at each call is a new string (the
 * messages of a failed check name them).
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
 * A layer's rows (`v`, in LAYER_FIELDS order): its track, its fade (active only towards a clip or a blend space,
 * with a duration > 0; the track it leaves -1 otherwise) and its AnimLayer entry (weights in [0, 1], durations
 * ≥ 0, flags and choices; layer 0 never additive).
 */
export function checkLayerRows(where: string, v: RowValues, clips: number, index: number): void {
  const row = (k: number): number => v[k]!
  checkTrack(where, 'Sampler.', v, SAMPLER_TRACK, clips)
  checkTrack(where, 'CrossFade.from.', v, FROM_TRACK, clips)
  checkRange(where, 'CrossFade.blend', row(F.blend), 0, 1)
  const duration = row(F.duration)
  checkRange(where, 'CrossFade.duration', duration, 0, Number.MAX_VALUE)
  // steps: any count ≥ 0 (the fade ends once steps·dt reaches its duration).
  checkRange(where, 'CrossFade.steps', row(F.steps), 0, Number.MAX_VALUE)
  const active = row(F.active)
  checkChoice(where, 'CrossFade.active', active, FLAGS)
  const source = row(LAYER_SOURCE)
  checkChoice(where, 'AnimLayer.source', source, SOURCES)
  const clip = row(SAMPLER_TRACK + T.clip)
  const fromClip = row(FROM_TRACK + T.clip)
  if ((source === 1) !== clip >= 0) {
    throw invalidValue(where, 'AnimLayer.source', source, `does not match Sampler.clip ${clip}`)
  }
  if (active === 1) {
    checkPositive(where, 'CrossFade.duration', duration)
    if (source === 0)
      throw invalidValue(where, 'CrossFade.active', 1, 'a fade needs a clip or blend space to fade to')
    if (source === 2 && fromClip !== -1) {
      throw invalidValue(where, 'CrossFade.from.clip', fromClip, 'a blend space fades in from a pose')
    }
  } else if (fromClip !== -1) {
    throw invalidValue(where, 'CrossFade.from.clip', fromClip, 'must be -1 when no fade is active')
  }
  checkRange(where, 'AnimLayer.weight', row(F.weight), 0, 1)
  checkRange(where, 'AnimLayer.weightFrom', row(F.weightFrom), 0, 1)
  checkRange(where, 'AnimLayer.weightTo', row(F.weightTo), 0, 1)
  checkRange(where, 'AnimLayer.weightDuration', row(F.weightDuration), 0, Number.MAX_VALUE)
  checkRange(where, 'AnimLayer.weightSteps', row(F.weightSteps), 0, Number.MAX_VALUE)
  checkChoice(where, 'AnimLayer.stopping', row(F.stopping), FLAGS)
  checkChoice(where, 'AnimLayer.mode', row(F.mode), index === 0 ? LAYER_0_MODES : FLAGS)
  checkChoice(where, 'AnimLayer.paused', row(F.paused), FLAGS)
  checkClip(where, 'AnimLayer.refClip', row(F.refClip), clips)
  checkNumber(where, 'AnimLayer.refTime', row(F.refTime))
  const phase = row(F.phase)
  if (!(phase >= 0 && phase < 1)) throw invalidValue(where, 'AnimLayer.phase', phase, 'must be in [0, 1)')
}

export function invalidFadePaths(where: string, j: number, paths: number): never {
  throw invalidValue(`${where}, joint ${j}`, 'fade paths', paths, 'has bits outside 0x3 (BLEND_T | BLEND_S)')
}
