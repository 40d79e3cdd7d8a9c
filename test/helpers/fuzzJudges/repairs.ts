/**
 * DELIBERATE_REPAIRS: the validator errors the loader accepts on purpose, and what it does instead. Part of
 * judge 2 (validator.ts).
 */
import type { Json } from '../gltfFiles.ts'
import type { ValidatorError } from './validator.ts'

/**
 * A validator error the loader accepts on purpose: the codes, where the pointer must match, an optional finer
 * test on the error and the mutated JSON, and why.
 */
export interface Repair {
  /** The validator codes it explains; absent: any code (then `pointer` and `when` decide). */
  codes?: readonly string[]
  pointer?: RegExp
  when?: (error: ValidatorError, json: Json | null) => boolean
  why: string
}

/**
 * True when the error is about data the loader never reads: a sampler (`/animations/a/samplers/s...`) that no
 * channel with a target node uses, or an accessor (`/accessors/i...`) used only by such samplers.
 */
function unusedAnimationData(error: ValidatorError, json: Json | null): boolean {
  if (!json || !Array.isArray(json.animations)) return false
  const used = (a: number, s: number): boolean => {
    const channels: unknown = json.animations[a]?.channels
    return (
      Array.isArray(channels) && channels.some((c: Json) => c?.sampler === s && c?.target?.node !== undefined)
    )
  }
  const sampler = /^\/animations\/(\d+)\/samplers\/(\d+)/.exec(error.pointer)
  if (sampler) return !used(Number(sampler[1]), Number(sampler[2]))
  const channel = /^\/animations\/(\d+)\/channels\/(\d+)/.exec(error.pointer)
  if (channel)
    return json.animations[Number(channel[1])]?.channels?.[Number(channel[2])]?.target?.node === undefined
  const accessor = /^\/accessors\/(\d+)/.exec(error.pointer)
  if (!accessor) return false
  const i = Number(accessor[1])
  let users = 0
  for (const [a, animation] of (json.animations as Json[]).entries()) {
    if (!Array.isArray(animation?.samplers)) continue
    for (const [s, sampler] of (animation.samplers as Json[]).entries()) {
      if (sampler?.input !== i && sampler?.output !== i) continue
      users++
      if (used(a, s)) return false
    }
  }
  return users > 0
}

/**
 * True for an ACCESSOR_INVALID_IBM whose last-row element is within 1e-5 of what it should be (0, or 1 at
 * 15).
 */
function ibmNoise(error: ValidatorError): boolean {
  const at = /component index (\d+)\) contains invalid value: (\S+)\.?$/.exec(error.message)
  if (!at) return false
  const value = Number(at[2]!.replace(/\.$/, ''))
  return Math.abs(value - (at[1] === '15' ? 1 : 0)) <= 1e-5
}

/**
 * Validator errors the loader accepts on purpose, and what it does instead. A case where the validator
 * reports an error of a LOADER_CATEGORIES category and the loader returns an asset must be explained here
 * (else it is a missing check, and the fuzz test fails).
 */
export const DELIBERATE_REPAIRS: readonly Repair[] = [
  {
    codes: ['ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION'],
    why: 'rotation keys are normalized (buildClip); only a zero-length key is rejected',
  },
  {
    codes: [
      'ACCESSOR_MIN_MISMATCH',
      'ACCESSOR_MAX_MISMATCH',
      'ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND',
      'ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND',
      'ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS',
      'TYPE_MISMATCH',
      'ARRAY_TYPE_MISMATCH',
      'ARRAY_LENGTH_NOT_IN_LIST',
      'EMPTY_ENTITY',
    ],
    pointer: /^\/(accessors\/\d+\/(min|max)|animations\/\d+\/samplers\/\d+\/input$)/,
    why: 'accessor min/max are never read: the key times and values themselves are checked',
  },
  {
    pointer: /^\/(animations\/\d+\/(samplers|channels)|accessors)\/\d+/,
    when: unusedAnimationData,
    why: 'channels without a target node are skipped (§5.6); samplers/accessors only they use are unread',
  },
  {
    codes: ['ACCESSOR_INVALID_IBM'],
    when: ibmNoise,
    why: 'an inverse bind matrix whose last row is within 1e-5 of [0, 0, 0, 1] is accepted (float noise)',
  },
  {
    codes: ['ANIMATION_CHANNEL_TARGET_NODE_MATRIX'],
    why: "the node's matrix is decomposed into T/R/S, which the channel animates (as three.js's loader does)",
  },
  {
    codes: ['NODE_MATRIX_TRS'],
    why: 'a node with both matrix and T/R/S: the matrix wins (gltf-transform and three.js read it so)',
  },
  {
    codes: ['ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE', 'SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE'],
    why: 'an animation or inverse-bind-matrix accessor in a strided buffer view is read with that stride',
  },
  {
    codes: ['BUFFER_VIEW_TARGET_OVERRIDE', 'ACCESSOR_USAGE_OVERRIDE'],
    why: 'an accessor shared by mesh data and an animation is read as animation data; its usage is not used',
  },
  {
    codes: ['SKIN_NO_COMMON_ROOT'],
    why: 'joints in separate trees: the skeleton is still built, with Skeleton.root = -1 (as asset.ts says)',
  },
  {
    codes: ['NODE_SKIN_NO_SCENE'],
    why: 'skeletons are built from the node tree, whether or not their joints are in the scene',
  },
  {
    codes: ['VALUE_NOT_IN_RANGE', 'ROTATION_NON_UNIT'],
    pointer: /^\/nodes\/\d+\/rotation/,
    why: 'a non-unit rest rotation is normalized; only a zero-length one is rejected',
  },
  {
    codes: ['UNSATISFIED_DEPENDENCY', 'NODE_SKIN_WITH_NON_SKINNED_MESH'],
    pointer: /^\/nodes\/\d+(\/skin)?$/,
    why: 'mesh attributes are not read: a skin on a node without a (skinned) mesh is kept as AssetNode.skin',
  },
  {
    codes: ['ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT'],
    when: (error) => /for path '(translation|scale)'/.test(error.message) && /BYTE|SHORT/.test(error.message),
    why: 'translation/scale keys stored as (U)BYTE/(U)SHORT, normalized or not, are decoded (clips.ts)',
  },
  {
    codes: ['EMPTY_ENTITY'],
    pointer: /^\/(nodes\/\d+\/children|animations\/\d+\/(channels|samplers))$/,
    why: 'an empty children, channels or samplers list is read as none (no channels: an empty clip)',
  },
  {
    codes: ['DUPLICATE_ELEMENTS'],
    pointer: /^\/scenes\/\d+\/nodes/,
    why: 'a scene root listed twice counts once',
  },
]

/** The documented repair that explains a validator error on the (mutated) JSON, if any. */
export function repairFor(error: ValidatorError, json: Json | null): Repair | undefined {
  return DELIBERATE_REPAIRS.find(
    (r) =>
      (!r.codes || r.codes.includes(error.code)) &&
      (!r.pointer || r.pointer.test(error.pointer)) &&
      (!r.when || r.when(error, json)),
  )
}
