import type { AnimationAsset } from '../src/gltf/asset.ts'
import { buildRig, findJoint } from '../src/skeleton/rig.ts'
import { argumentError } from './command.ts'

/** The simulate command's argument parsers: each returns the value or throws the one-line argument error. */

export function needs(
  option: string,
  value: string | undefined,
  required: string,
  present: string | undefined,
): void {
  if (value !== undefined && present === undefined)
    throw argumentError(`simulate: ${option} needs ${required}`)
}

export function parseCount(option: string, text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw argumentError(`simulate: ${option} "${text}" must be a whole number ≥ 1`)
  }
  return Number(text)
}

export const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i

export function parseNumber(option: string, text: string): number {
  const value = NUMBER.test(text.trim()) ? Number(text) : NaN
  if (!Number.isFinite(value)) throw argumentError(`simulate: ${option} "${text}" is not a finite number`)
  return value
}

/** Seconds ≥ 0, as a number or a fraction `A/B` (so 1/60 can be written exactly). */
export function parseSeconds(option: string, text: string): number {
  const parts = text.split('/')
  const value =
    parts.length === 2 && NUMBER.test(parts[0]!.trim()) && NUMBER.test(parts[1]!.trim())
      ? Number(parts[0]) / Number(parts[1])
      : NUMBER.test(text.trim())
        ? Number(text)
        : NaN
  if (!Number.isFinite(value) || value < 0) {
    throw argumentError(`simulate: ${option} "${text}" is not a finite number of seconds ≥ 0`)
  }
  return value
}

/**
 * The step an action at `text` seconds happens before: the first step starting at or after it (a time within
 * 1e-9 steps of a step start counts as that start, so 0.5 s at 1/60 s is step 30, not 31). Must be a step of
 * the run.
 */
export function actionStep(option: string, text: string, steps: number, dt: number): number {
  const seconds = parseSeconds(option, text)
  const x = seconds / dt
  const step = Math.abs(x - Math.round(x)) <= 1e-9 * Math.max(1, x) ? Math.round(x) : Math.ceil(x)
  if (step >= steps) {
    throw argumentError(
      `simulate: ${option} ${seconds} s is outside the run (${steps} steps of ${round6(dt)} s; ` +
        `the last step starts at ${round6((steps - 1) * dt)} s)`,
    )
  }
  return step
}

/** `JOINT:x,y,z`; the joint is everything before the last colon (node names may contain colons). */
export function parseImpulse(text: string): { joint: string; impulse: [number, number, number] } {
  const colon = text.lastIndexOf(':')
  const parts = text.slice(colon + 1).split(',')
  const impulse = parts.map((p) => (NUMBER.test(p.trim()) ? Number(p) : NaN))
  if (colon <= 0 || impulse.length !== 3 || !impulse.every(Number.isFinite)) {
    throw argumentError(
      `simulate: --impulse "${text}" must be JOINT:x,y,z (a node name or index, then three finite numbers, N·s)`,
    )
  }
  return { joint: text.slice(0, colon), impulse: [impulse[0]!, impulse[1]!, impulse[2]!] }
}

/**
 * A node by name (as the plugin resolves names: a skin joint wins over a mesh of the same name), else by index
 * when the argument is a whole number.
 */
export function nodeIndex(asset: AnimationAsset, wanted: string): number {
  if (asset.nodes.some((node) => node.name === wanted)) {
    const rig = buildRig(asset)
    return rig.jointNodes[findJoint(rig, asset, wanted, 'simulate: --impulse')]!
  }
  if (/^\d+$/.test(wanted) && Number(wanted) < asset.nodes.length) return Number(wanted)
  throw argumentError(
    `${asset.source} has no node "${wanted}" for --impulse (nodes are named, or numbered 0..${asset.nodes.length - 1})`,
  )
}

function round6(x: number): number {
  return Number(x.toPrecision(6))
}
