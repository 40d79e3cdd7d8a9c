import type { FootstepMarkers } from './footsteps.ts'
import type { Travel } from './travel.ts'
import type { IKDemo } from './ik.ts'

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
  /** The Layers panel's set-up for this model (demo/layers.ts); none: one made from its clips (layerSetup.ts). */
  readonly layers?: LayerDemo
  /** A travelling copy of a clip, added at load (demo/travel.ts), and the Root motion panel's line on it. */
  readonly travel?: Travel & { readonly hint: string }
  /** Footstep markers put on its clips at load (demo/footsteps.ts). */
  readonly footsteps?: FootstepMarkers
  /** Clips to get up into, lying face-down and face-up (demo/ragdolls.ts); none: the looping clip chosen. */
  readonly getUp?: { readonly prone: string; readonly supine: string }
  /** The IK panel's joints (demo/ik.ts); none: the panel is hidden. */
  readonly ik?: IKDemo
}

/**
 * What the Layers panel plays on a model: its states on the base layer (0), one-shot emotes on an upper-body
 * override layer (1), a looping clip on an additive layer (2), and a 1D blend space of two or three clips on
 * layer 0. Joints are node names of the file; each mask entry takes its whole subtree. A part that is null (or
 * an empty list) is left out of the panel.
 */
export interface LayerDemo {
  /** Looping clips offered as the base layer's states. */
  readonly states: readonly string[]
  /** One-shots played once on layer 1, masked to `upperBody`. */
  readonly emotes: readonly string[]
  /** Layer 1's mask: the joints above the hips, so the legs keep the base layer's clip (empty: unmasked). */
  readonly upperBody: readonly string[]
  /** Layer 2: `clip` looped additively over the layers below, masked to `mask`. */
  readonly additive: {
    readonly label: string
    readonly clip: string
    readonly mask: readonly string[]
  } | null
  /** The blend space on layer 0: clip k at k (idle, walk, run by speed), the slider from 0 to the last. */
  readonly blend: readonly string[] | null
  /** Expression sliders: a mesh node with morph targets and the targets' names, in the file's order. */
  readonly face: { readonly node: string; readonly targets: readonly string[] } | null
}

/** When each of the Fox's paws touches down in its Walk (its lowest, sampled at 240 Hz): a trot, diagonal pairs. */
const FOX_WALK_STEPS = [
  [0.05, 'b_RightFoot02_022'],
  [0.1, 'b_LeftHand_011'],
  [0.45, 'b_RightHand_08'],
  [0.55, 'b_LeftFoot02_018'],
] as const

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
    // The Walk's hind paws slide back ~76–140 cm/s while planted (test measured at 240 Hz): 70 cm a 0.71 s loop.
    travel: {
      name: 'Walk (travels)',
      from: 'Walk',
      node: 'b_Hip_01',
      move: [0, -70, 0], // b_Root_00 turns −90° about x: the hips' −y is the Fox's forward
      hint:
        "The Fox's clips walk in place. 'Walk (travels)' is its Walk with 70 cm of forward travel a loop added " +
        'to its hips at load: with root motion on the Fox walks off; off, it snaps back at every loop.',
    },
    footsteps: {
      Walk: FOX_WALK_STEPS,
      'Walk (travels)': FOX_WALK_STEPS,
      // And in its Run, a gallop (measured the same way).
      Run: [
        [0.1, 'b_RightFoot02_022'],
        [0.47, 'b_RightHand_08'],
        [0.6, 'b_LeftHand_011'],
        [1.12, 'b_LeftFoot02_018'],
      ],
    },
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
    getUp: { prone: 'Standing', supine: 'Idle' },
    layers: {
      states: ['Idle', 'Walking', 'Running', 'Dance', 'Sitting', 'Standing'],
      emotes: ['Wave', 'Yes', 'No', 'ThumbsUp', 'Punch'],
      // Abdomen holds the torso, neck, head, shoulders and arms; Hips, the legs, the feet and their IK targets stay out.
      upperBody: ['Abdomen'],
      // Yes also bobs the body and bends the legs: only its neck and head are added, a nod.
      additive: { label: 'nod', clip: 'Yes', mask: ['Neck'] },
      blend: ['Walking', 'Running'],
      face: { node: 'Head', targets: ['Angry', 'Surprised', 'Sad'] }, // the mesh "Head", not the bone
    },
  },
  {
    name: 'Mannequin',
    path: 'Mannequin/Mannequin.glb',
    scale: 1, // metres (its joints are centimetres under a 0.01 armature, as Mixamo's FBX conversions are)
    firstClip: 'Idle',
    once: [],
    credit:
      'Mannequin (CC0 1.0): generated by this repository, with Mixamo joint names (scripts/make-mannequin.ts)',
    license: 'Mannequin/LICENSE.md',
  },
  {
    name: 'RiggedFigure',
    path: 'RiggedFigure/glTF-Binary/RiggedFigure.glb',
    scale: 1, // metres: 1.45 m tall
    firstClip: 'animation0',
    once: [],
    credit: 'Rigged Figure (CC BY 4.0), © 2017 Cesium, from the Khronos glTF sample assets',
    license: 'RiggedFigure/LICENSE.md',
    // A humanoid facing +z whose head's local −z looks forward; legs and arms are chains of three joints.
    ik: {
      head: 'neck_joint_2',
      axis: [0, 0, -1],
      up: [0, 1, 0],
      neck: 'neck_joint_1',
      hand: 'arm_joint_L_3',
      feet: ['leg_joint_L_3', 'leg_joint_R_3'],
    },
  },
]

/** The file name at the end of a path ('Fox.glb'). */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}
