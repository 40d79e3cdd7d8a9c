/**
 * A state machine graph as setGraph takes it (plain JSON: AnimationGraph), checked and put in a canonical form.
 * Everything that does not need the character's asset is checked here (plugin/graphCompile.ts resolves clips and
 * mask joints); each mistake is an AnimationError naming its path, e.g.
 * `layers[0].transitions[3].when[0]: no parameter "sped"`.
 */
import { AnimationError, showValue } from '../src/errors.ts'
import { LOOP_MODES, type LoopMode } from '../src/clip/phase.ts'
import type { RotationMode } from '../src/clip/clip.ts'
import {
  CONDITION_OPERATORS,
  FROM_ANY,
  INTERRUPTIONS,
  OP_EQ,
  OP_NE,
  OP_SET,
  PARAM_BOOL,
  PARAM_FLOAT,
  PARAM_INT,
  PARAM_TRIGGER,
  PARAMETER_TYPES,
  STATE_BLEND_SPACE,
  STATE_CLIP,
  STATE_EMPTY,
} from '../systems/graphState.ts'
import { LAYER_MODES, MAX_LAYERS, type LayerMode } from '../systems/layerState.ts'
import type { MaskEntry } from './layers.ts'
import { MAX_BLEND_POINTS } from './blendSpaces.ts'

/** A checked graph, with names resolved to indices; clips and masks are as written (the asset resolves them). */
export interface CheckedGraph {
  /** Canonical JSON of the graph (fixed key order, -0 as 0): its identity. */
  readonly text: string
  readonly params: readonly { name: string; type: number; value: number }[]
  readonly layers: readonly CheckedLayer[]
}

export interface CheckedLayer {
  readonly name: string
  readonly path: string
  readonly entry: number
  readonly states: readonly CheckedState[]
  readonly transitions: readonly CheckedTransition[]
  readonly mode: LayerMode | undefined
  readonly mask: readonly MaskEntry[] | null | undefined
  readonly weight: number
  readonly weightGiven: boolean
}

export interface CheckedState {
  readonly name: string
  readonly path: string
  readonly kind: number
  /** A clip state's clip and play options (as play takes them). */
  readonly clip: string | number
  readonly options: { speed?: number; loop?: LoopMode; time?: number; rotation?: RotationMode }
  /** A blend space's points ([x, y], y 0 in 1D), dimensions, parameters (y -1 in 1D), sync and rate. */
  readonly points: readonly { clip: string | number; at: readonly [number, number] }[]
  readonly dims: number
  readonly paramX: number
  readonly paramY: number
  readonly sync: boolean
  readonly speed: number
}

export interface CheckedTransition {
  readonly from: number
  readonly to: number
  readonly conditions: readonly { param: number; op: number; value: number }[]
  readonly fade: number
  readonly exitTime: number
  readonly interruption: number
  readonly toSelf: boolean
}

const GRAPH_KEYS = ['parameters', 'layers']
const PARAMETER_KEYS = ['type', 'default']
const LAYER_KEYS = ['name', 'entry', 'states', 'transitions', 'mode', 'mask', 'weight']
const CLIP_KEYS = ['clip', 'speed', 'loop', 'time', 'rotation']
const BLEND_KEYS = ['points', 'parameter', 'sync', 'speed']
const POINT_KEYS = ['clip', 'at']
const TRANSITION_KEYS = ['from', 'to', 'when', 'duration', 'exitTime', 'interruption', 'canTransitionToSelf']

/** Checks `graph` (any value) for setGraph (`what` names the call). Throws AnimationError('argument'). */
export function checkGraph(graph: unknown, what: string): CheckedGraph {
  const fail: Fail = (path, message) => {
    throw new AnimationError('argument', `${what}: ${path}: ${message}`)
  }
  const g = fields(graph, 'graph', GRAPH_KEYS, fail)
  const paramObject = g.parameters === undefined ? {} : fields(g.parameters, 'parameters', null, fail)
  const params: { name: string; type: number; value: number }[] = []
  const canonicalParams: Record<string, unknown> = Object.create(null)
  for (const name of Object.keys(paramObject)) {
    const path = `parameters${key(name)}`
    if (name === '') fail(path, 'a parameter needs a name')
    const p = fields(paramObject[name], path, PARAMETER_KEYS, fail)
    const type = (PARAMETER_TYPES as readonly unknown[]).indexOf(p.type)
    if (type < 0) fail(`${path}.type`, `${showValue(p.type)} is not one of ${PARAMETER_TYPES.join(', ')}`)
    const value = parameterDefault(p.default, type, `${path}.default`, fail)
    params.push({ name, type, value })
    canonicalParams[name] =
      p.default === undefined ? { type: p.type } : { type: p.type, default: plain(p.default) }
  }
  if (!Array.isArray(g.layers) || g.layers.length < 1 || g.layers.length > MAX_LAYERS) {
    fail('layers', `${showValue(g.layers)} must be an array of 1 to ${MAX_LAYERS} layers`)
  }
  const list = Array.from(g.layers as unknown[])
  const layers: CheckedLayer[] = []
  const canonicalLayers: unknown[] = []
  for (let k = 0; k < list.length; k++) {
    const { layer, canonical } = checkLayer(list[k], k, params, fail)
    const twin = layers.findIndex((l) => l.name === layer.name)
    if (twin >= 0) fail(`layers[${k}].name`, `"${layer.name}" names layers[${twin}] too`)
    layers.push(layer)
    canonicalLayers.push(canonical)
  }
  const text = JSON.stringify({ parameters: canonicalParams, layers: canonicalLayers })
  return { text, params, layers }
}

type Fail = (path: string, message: string) => never

function checkLayer(
  value: unknown,
  k: number,
  params: readonly { name: string; type: number }[],
  fail: Fail,
): { layer: CheckedLayer; canonical: unknown } {
  const path = `layers[${k}]`
  const o = fields(value, path, LAYER_KEYS, fail)
  if (typeof o.name !== 'string' || o.name === '')
    fail(`${path}.name`, `${showValue(o.name)} is not a non-empty string`)
  const stateObject = fields(o.states, `${path}.states`, null, fail)
  const names = Object.keys(stateObject)
  if (names.length === 0) fail(`${path}.states`, 'a layer needs at least one state')
  const states: CheckedState[] = []
  const canonicalStates: Record<string, unknown> = Object.create(null)
  for (const name of names) {
    const statePath = `${path}.states${key(name)}`
    if (name === 'any') fail(statePath, '"any" is reserved for transitions from every state')
    if (name === '') fail(statePath, 'a state needs a name')
    const { state, canonical } = checkState(stateObject[name], name, statePath, params, fail)
    if (k === 0 && state.kind === STATE_EMPTY) {
      fail(statePath, 'layer 0 (the base layer) always shows a pose: its states play a clip or a blend space')
    }
    states.push(state)
    canonicalStates[name] = canonical
  }
  const stateIndex = (v: unknown, at: string, any: boolean): number => {
    if (any && v === 'any') return FROM_ANY
    const s = typeof v === 'string' ? names.indexOf(v) : -1
    if (s < 0) fail(at, `no state ${showValue(v)} (the layer has ${names.map((n) => `"${n}"`).join(', ')})`)
    return s
  }
  const entry = stateIndex(o.entry, `${path}.entry`, false)
  if (o.transitions !== undefined && !Array.isArray(o.transitions)) {
    fail(`${path}.transitions`, `${showValue(o.transitions)} must be an array of transitions`)
  }
  const transitions: CheckedTransition[] = []
  const canonicalTransitions: unknown[] = []
  const list = Array.from((o.transitions ?? []) as unknown[])
  for (let t = 0; t < list.length; t++) {
    const at = `${path}.transitions[${t}]`
    const { transition, canonical } = checkTransition(list[t], at, params, stateIndex, fail)
    transitions.push(transition)
    canonicalTransitions.push(canonical)
  }
  let mode: LayerMode | undefined
  if (o.mode !== undefined) {
    if (!(LAYER_MODES as readonly unknown[]).includes(o.mode)) {
      fail(`${path}.mode`, `${showValue(o.mode)} is not one of ${LAYER_MODES.join(', ')}`)
    }
    mode = o.mode as LayerMode
    if (k === 0 && mode === 'additive') {
      fail(`${path}.mode`, 'layer 0 is the base layer; an additive layer needs one below it')
    }
  }
  if (o.mask !== undefined && o.mask !== null && !Array.isArray(o.mask)) {
    fail(`${path}.mask`, `${showValue(o.mask)} must be an array of joints or null`)
  }
  const mask = o.mask === undefined ? undefined : o.mask === null ? null : (plain(o.mask) as MaskEntry[])
  const weight = o.weight === undefined ? 1 : number(o.weight, `${path}.weight`, fail)
  if (!(weight >= 0 && weight <= 1)) fail(`${path}.weight`, `${weight} must be in [0, 1]`)
  const canonical: Record<string, unknown> = { name: o.name, entry: o.entry, states: canonicalStates }
  canonical.transitions = canonicalTransitions
  if (mode !== undefined) canonical.mode = mode
  if (mask !== undefined) canonical.mask = mask
  if (o.weight !== undefined) canonical.weight = weight
  const weightGiven = o.weight !== undefined
  const layer = { name: o.name as string, path, entry, states, transitions, mode, mask, weight, weightGiven }
  return { layer, canonical }
}

function checkState(
  value: unknown,
  name: string,
  path: string,
  params: readonly { name: string; type: number }[],
  fail: Fail,
): { state: CheckedState; canonical: unknown } {
  const o = fields(value, path, [...CLIP_KEYS, 'blendSpace'], fail)
  const base = { name, path, clip: '', options: {}, points: [], dims: 0, paramX: -1, paramY: -1, sync: true }
  if (o.blendSpace !== undefined) {
    if (Object.keys(o).length > 1) fail(path, 'a state plays a clip or a blend space, not both')
    return checkBlendSpace(o.blendSpace, `${path}.blendSpace`, params, base, fail)
  }
  if (o.clip === undefined) {
    if (Object.keys(o).length > 0) fail(path, `play options need a clip (an empty state is {})`)
    return { state: { ...base, kind: STATE_EMPTY, speed: 1 }, canonical: {} }
  }
  if (typeof o.clip !== 'string' && typeof o.clip !== 'number') {
    fail(`${path}.clip`, `${showValue(o.clip)} is not a clip name or index`)
  }
  const options: CheckedState['options'] = {}
  if (o.speed !== undefined) options.speed = number(o.speed, `${path}.speed`, fail)
  if (o.time !== undefined) options.time = number(o.time, `${path}.time`, fail)
  if (o.loop !== undefined) {
    if (!(LOOP_MODES as readonly unknown[]).includes(o.loop)) {
      fail(`${path}.loop`, `${showValue(o.loop)} is not one of ${LOOP_MODES.join(', ')}`)
    }
    options.loop = o.loop as LoopMode
  }
  if (o.rotation !== undefined) {
    if (o.rotation !== 'slerp' && o.rotation !== 'squad') {
      fail(`${path}.rotation`, `${showValue(o.rotation)} is not slerp or squad`)
    }
    options.rotation = o.rotation as RotationMode
  }
  const clip = o.clip as string | number
  const state = { ...base, kind: STATE_CLIP, clip, options, speed: options.speed ?? 1 }
  return { state, canonical: { clip: plain(clip), ...options } }
}

function checkBlendSpace(
  value: unknown,
  path: string,
  params: readonly { name: string; type: number }[],
  base: Omit<CheckedState, 'kind' | 'speed'>,
  fail: Fail,
): { state: CheckedState; canonical: unknown } {
  const o = fields(value, path, BLEND_KEYS, fail)
  if (!Array.isArray(o.points) || o.points.length < 1 || o.points.length > MAX_BLEND_POINTS) {
    fail(
      `${path}.points`,
      `${showValue(o.points)} must be an array of 1 to ${MAX_BLEND_POINTS} { clip, at } points`,
    )
  }
  const list = Array.from(o.points as unknown[])
  const points: { clip: string | number; at: readonly [number, number] }[] = []
  let dims = 0
  for (let p = 0; p < list.length; p++) {
    const at = `${path}.points[${p}]`
    const pt = fields(list[p], at, POINT_KEYS, fail)
    if (typeof pt.clip !== 'string' && typeof pt.clip !== 'number') {
      fail(`${at}.clip`, `${showValue(pt.clip)} is not a clip name or index`)
    }
    const xy = coordinate(pt.at, `${at}.at`, fail)
    if (dims !== 0 && xy.length !== dims) fail(`${at}.at`, 'mixes 1D and 2D coordinates')
    dims = xy.length
    const where: [number, number] = [xy[0]!, xy[1] ?? 0]
    if (points.some((q) => q.at[0] === where[0] && q.at[1] === where[1])) {
      fail(`${at}.at`, `${showValue(pt.at)} repeats another point`)
    }
    points.push({ clip: pt.clip as string | number, at: where })
  }
  const names =
    typeof o.parameter === 'string' ? [o.parameter] : Array.isArray(o.parameter) ? [...o.parameter] : []
  if (names.length !== dims || !names.every((n) => typeof n === 'string')) {
    fail(
      `${path}.parameter`,
      `${showValue(o.parameter)} must name ${dims === 1 ? 'a parameter' : 'two parameters [x, y]'}`,
    )
  }
  const index = names.map((n) => {
    const i = params.findIndex((p) => p.name === n)
    if (i < 0) fail(`${path}.parameter`, `no parameter "${n}"`)
    if (params[i]!.type !== PARAM_FLOAT && params[i]!.type !== PARAM_INT) {
      fail(
        `${path}.parameter`,
        `parameter "${n}" is a ${PARAMETER_TYPES[params[i]!.type]}; a blend space needs a float or int`,
      )
    }
    return i
  })
  if (o.sync !== undefined && typeof o.sync !== 'boolean')
    fail(`${path}.sync`, `${showValue(o.sync)} must be true or false`)
  const speed = o.speed === undefined ? 1 : number(o.speed, `${path}.speed`, fail)
  const state: CheckedState = {
    ...base,
    kind: STATE_BLEND_SPACE,
    points,
    dims,
    paramX: index[0]!,
    paramY: index[1] ?? -1,
    sync: o.sync !== false,
    speed,
  }
  const canonical: Record<string, unknown> = {
    points: points.map((q) => ({ clip: plain(q.clip), at: dims === 1 ? q.at[0] : [...q.at] })),
    parameter: dims === 1 ? names[0] : names,
  }
  if (o.sync !== undefined) canonical.sync = o.sync
  if (o.speed !== undefined) canonical.speed = speed
  return { state, canonical: { blendSpace: canonical } }
}

function checkTransition(
  value: unknown,
  path: string,
  params: readonly { name: string; type: number }[],
  stateIndex: (v: unknown, at: string, any: boolean) => number,
  fail: Fail,
): { transition: CheckedTransition; canonical: unknown } {
  const o = fields(value, path, TRANSITION_KEYS, fail)
  const from = stateIndex(o.from, `${path}.from`, true)
  const to = stateIndex(o.to, `${path}.to`, false)
  if (o.when !== undefined && !Array.isArray(o.when))
    fail(`${path}.when`, `${showValue(o.when)} must be an array of conditions`)
  const when = Array.from((o.when ?? []) as unknown[])
  const conditions = when.map((c, i) => condition(c, `${path}.when[${i}]`, params, fail))
  const fade = o.duration === undefined ? 0 : number(o.duration, `${path}.duration`, fail)
  if (fade < 0) fail(`${path}.duration`, `${fade} s must be ≥ 0`)
  const exitTime = o.exitTime === undefined ? NaN : number(o.exitTime, `${path}.exitTime`, fail)
  if (exitTime < 0) fail(`${path}.exitTime`, `${exitTime} must be ≥ 0`)
  const interruption =
    o.interruption === undefined ? 0 : (INTERRUPTIONS as readonly unknown[]).indexOf(o.interruption)
  if (interruption < 0) {
    fail(`${path}.interruption`, `${showValue(o.interruption)} is not one of ${INTERRUPTIONS.join(', ')}`)
  }
  if (o.canTransitionToSelf !== undefined && typeof o.canTransitionToSelf !== 'boolean') {
    fail(`${path}.canTransitionToSelf`, `${showValue(o.canTransitionToSelf)} must be true or false`)
  }
  const toSelf = o.canTransitionToSelf === true
  const canonical: Record<string, unknown> = { from: o.from, to: o.to, when: when.map((c) => plain(c)) }
  canonical.duration = fade
  if (o.exitTime !== undefined) canonical.exitTime = exitTime
  if (o.interruption !== undefined) canonical.interruption = o.interruption
  if (o.canTransitionToSelf !== undefined) canonical.canTransitionToSelf = toSelf
  return { transition: { from, to, conditions, fade, exitTime, interruption, toSelf }, canonical }
}

/** One condition: [trigger], [bool], or [parameter, operator, value] (a bool's value true or false). */
function condition(
  c: unknown,
  path: string,
  params: readonly { name: string; type: number }[],
  fail: Fail,
): { param: number; op: number; value: number } {
  const parts = Array.isArray(c) ? Array.from(c as unknown[]) : null
  if (parts === null || (parts.length !== 1 && parts.length !== 3)) {
    fail(path, `${showValue(c)} must be [parameter] or [parameter, operator, value]`)
  }
  const [name, op, value] = parts!
  const param = params.findIndex((p) => p.name === name)
  if (param < 0) fail(path, `no parameter ${showValue(name)}`)
  const type = params[param]!.type
  if (parts!.length === 1) {
    if (type === PARAM_TRIGGER) return { param, op: OP_SET, value: 1 }
    if (type === PARAM_BOOL) return { param, op: OP_EQ, value: 1 }
    fail(
      path,
      `parameter ${showValue(name)} is a ${PARAMETER_TYPES[type]}: compare it ([name, operator, value])`,
    )
  }
  if (type === PARAM_TRIGGER)
    fail(path, `parameter ${showValue(name)} is a trigger: write [${showValue(name)}]`)
  const operator = (CONDITION_OPERATORS as readonly unknown[]).indexOf(op)
  if (operator < 0) fail(`${path}[1]`, `${showValue(op)} is not one of ${CONDITION_OPERATORS.join(' ')}`)
  if (type === PARAM_BOOL) {
    if (operator !== OP_EQ && operator !== OP_NE)
      fail(`${path}[1]`, `a bool compares with == or !=, not ${op}`)
    if (typeof value !== 'boolean') fail(`${path}[2]`, `${showValue(value)} is not true or false`)
    return { param, op: operator, value: value ? 1 : 0 }
  }
  return { param, op: operator, value: number(value, `${path}[2]`, fail) }
}

function parameterDefault(v: unknown, type: number, path: string, fail: Fail): number {
  if (v === undefined) return 0
  if (type === PARAM_TRIGGER) fail(path, 'a trigger has no default')
  if (type === PARAM_BOOL) {
    if (typeof v !== 'boolean') fail(path, `${showValue(v)} is not true or false`)
    return v ? 1 : 0
  }
  const x = number(v, path, fail)
  if (type === PARAM_INT && !Number.isInteger(x)) fail(path, `${x} is not an integer`)
  return x
}

/** `v` as a plain object with only keys of `names` (null: any keys). */
function fields(
  v: unknown,
  path: string,
  names: readonly string[] | null,
  fail: Fail,
): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    fail(path, `must be an object, got ${showValue(v)}`)
  const o = v as Record<string, unknown>
  if (names !== null) {
    for (const k of Object.keys(o)) {
      if (!names.includes(k)) fail(path, `has no key ${showValue(k)} (it takes ${names.join(', ')})`)
    }
  }
  return o
}

/** A finite number, -0 read as 0 (the canonical text writes 0). */
function number(v: unknown, path: string, fail: Fail): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, `${showValue(v)} is not a finite number`)
  return (v as number) + 0
}

function coordinate(v: unknown, path: string, fail: Fail): number[] {
  if (typeof v === 'number' && Number.isFinite(v)) return [v + 0]
  const copy = Array.isArray(v) && v.length === 2 ? [v[0] as unknown, v[1] as unknown] : null
  if (copy && copy.every((x) => typeof x === 'number' && Number.isFinite(x)))
    return copy.map((x) => (x as number) + 0)
  return fail(path, `${showValue(v)} must be a finite number or [x, y]`)
}

/** A JSON value copied (numbers' -0 as 0); what cannot be JSON is left for the checks that read it. */
function plain(v: unknown): unknown {
  if (typeof v === 'number') return v + 0
  if (Array.isArray(v)) return Array.from(v as unknown[], plain)
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = Object.create(null)
    for (const k of Object.keys(v)) out[k] = plain((v as Record<string, unknown>)[k])
    return out
  }
  return v
}

/** A property path part: `.name`, or `["odd name"]`. */
function key(name: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`
}
