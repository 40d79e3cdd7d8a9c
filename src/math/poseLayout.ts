/**
 * The joint transform layout every pose buffer uses, 10 floats per joint:
 *
 *   | tx ty tz | rx ry rz rw | sx sy sz |
 *     0          3             7        10
 *
 * Rotation is a unit quaternion [x, y, z, w].
 */
export const JOINT_STRIDE = 10
/** Offset of the translation (x, y, z) in a joint's 10 floats. */
export const T_OFFSET = 0
/** Offset of the rotation, a unit quaternion [x, y, z, w], in a joint's 10 floats. */
export const R_OFFSET = 3
/** Offset of the scale (x, y, z) in a joint's 10 floats. */
export const S_OFFSET = 7

/** Float offset of a channel path inside a joint's 10 floats (weights are not part of a pose: -1). */
export function pathOffset(path: 'translation' | 'rotation' | 'scale' | 'weights'): number {
  return path === 'translation' ? T_OFFSET : path === 'rotation' ? R_OFFSET : path === 'scale' ? S_OFFSET : -1
}
