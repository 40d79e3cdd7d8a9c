/**
 * The models the picker offers: files shipped in assets/ (served at the site root), with what the files do not
 * say themselves: their unit, the clip to show first, which clips are one-shots, and the credit their
 * licences ask for (from each folder's README.md / LICENSE.md / SOURCE.md).
 */
export interface ShippedModel {
  /** The picker's label and its button's `data-model`. */
  readonly name: string
  /** The file, relative to the site root. */
  readonly path: string
  /** Metres per file unit. */
  readonly scale: number
  /** The clip shown when the model loads. */
  readonly firstClip: string
  /** Clips that play once and hand back to the looping clip before them; every other clip loops. */
  readonly once: readonly string[]
  /** The credit line shown while the model is on stage, and the licence file it points to (site root). */
  readonly credit: string
  readonly license: string
}

export const SHIPPED: readonly ShippedModel[] = [
  {
    name: 'Fox',
    path: 'Fox/glTF-Binary/Fox.glb',
    scale: 0.01, // centimetres
    firstClip: 'Survey',
    once: [],
    credit:
      'Fox: low poly fox by PixelMannen (CC0), rigging and animation by @tomkranis (CC BY 4.0), glTF ' +
      'conversion by @AsoboStudio and @scurest (CC BY 4.0)',
    license: 'Fox/LICENSE.md',
  },
  {
    name: 'RobotExpressive',
    path: 'RobotExpressive/RobotExpressive.glb',
    scale: 1, // metres: 4.8 m tall
    firstClip: 'Idle',
    // Looping: Idle, Walking, Running, Dance, Death, Sitting, Standing.
    once: ['Jump', 'Yes', 'No', 'Wave', 'Punch', 'ThumbsUp', 'WalkJump'],
    credit: 'RobotExpressive (CC0 1.0): model by Tomás Laulhé, morph-target expressions by Don McCurdy',
    license: 'RobotExpressive/LICENSE.md',
  },
]

/** The file name at the end of a path ('Fox.glb'). */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}
