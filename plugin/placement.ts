import { AnimationError, showValue } from '../src/errors.ts'
import type { AnimationContext } from './context.ts'
import { checkCharacter } from './characters.ts'
import { optionsObject, type OptionNames, vector3 } from './checks.ts'

/** A character's placement: its entity's local transform under its parent (a root: the world). */
export interface CharacterTransform {
  /** World units. */
  position: [number, number, number]
  /** Unit quaternion `[x, y, z, w]`. */
  rotation: [number, number, number, number]
  /** Per-axis scale (no component 0). */
  scale: [number, number, number]
}

const TRANSFORM_OPTIONS: OptionNames<CharacterTransform> = { position: true, rotation: true, scale: true }

/**
 * Places a character: writes the given parts of its entity's local transform (the rest stay) and marks the node
 * dirty, so the next step moves its whole skeleton; renderers that interpolate show that step without sliding
 * across the jump (SceneGraph.placements). A rotation is normalized; a zero or non-finite one, a scale
 * component of 0, or anything not finite in float32 (the scene graph's precision) is refused with
 * AnimationError, changing nothing.
 */
export function setTransform(
  ctx: AnimationContext,
  eid: number,
  transform: Partial<CharacterTransform> | undefined,
): void {
  checkCharacter(ctx, eid, 'setTransform')
  const what = `setTransform(${eid})`
  const o = optionsObject<CharacterTransform>(transform, what, TRANSFORM_OPTIONS, 'transform')
  const position =
    o.position === undefined ? null : float32Vector(vector3(o.position, what, 'position'), what, 'position')
  const scale = o.scale === undefined ? null : float32Vector(vector3(o.scale, what, 'scale'), what, 'scale')
  // As the store holds it: 1e-50 is a scale of 0 in float32.
  if (scale && scale.some((x) => Math.fround(x) === 0)) {
    throw new AnimationError('argument', `${what}: scale ${showValue([...scale])} has a zero component`)
  }
  let rotation: number[] | null = null
  if (o.rotation !== undefined) {
    const r = o.rotation as unknown
    if (!Array.isArray(r) || r.length !== 4 || !r.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new AnimationError('argument', `${what}: rotation ${showValue(r)} must be four finite numbers`)
    }
    const length = Math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3])
    if (!(length > 1e-12 && Number.isFinite(length))) {
      throw new AnimationError(
        'argument',
        `${what}: rotation ${showValue(r)} has no direction (length ${length})`,
      )
    }
    rotation = r.map((x: number) => x / length)
  }
  const nodes = ctx.sceneGraph.store
  if (position) nodes.translation.set(position, eid * 3)
  if (rotation) nodes.rotation.set(rotation, eid * 4)
  if (scale) nodes.scale.set(scale, eid * 3)
  nodes.dirty[eid] = 1
  ctx.sceneGraph.placements++
}

/**
 * A vector the scene graph can hold: its stores are float32, where a number past ±3.4e38 becomes ±∞ (a local
 * transform no snapshot restores, and no world matrix can use).
 */
function float32Vector(
  v: readonly [number, number, number],
  what: string,
  name: string,
): readonly [number, number, number] {
  if (!v.every((x) => Number.isFinite(Math.fround(x)))) {
    throw new AnimationError(
      'argument',
      `${what}: ${name} ${showValue([...v])} is past float32's range (±3.4e38)`,
    )
  }
  return v
}

/** A character's placement as setTransform takes it (copies; the local transform of its entity). */
export function getTransform(ctx: AnimationContext, eid: number): CharacterTransform {
  checkCharacter(ctx, eid, 'getTransform')
  const { translation, rotation, scale } = ctx.sceneGraph.store
  return {
    position: [translation[eid * 3]!, translation[eid * 3 + 1]!, translation[eid * 3 + 2]!],
    rotation: [rotation[eid * 4]!, rotation[eid * 4 + 1]!, rotation[eid * 4 + 2]!, rotation[eid * 4 + 3]!],
    scale: [scale[eid * 3]!, scale[eid * 3 + 1]!, scale[eid * 3 + 2]!],
  }
}
