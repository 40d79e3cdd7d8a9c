/** setIK's options (plugin/ik.ts checks them and makes the solvers). */

/** Where an IK solver reaches or points: a world point [x, y, z], or a scene node it follows ({ entity }). */
export type IKTarget =
  | readonly [number, number, number]
  | {
      /** A scene node's entity: the solver follows its world position. */
      readonly entity: number
    }

/** What every solver takes: its weight (in [0, 1], default 1) and how long the weight takes to get there. */
export interface IKWeightOptions {
  /** How much of the solver's correction shows, in [0, 1] (default 1). */
  weight?: number
  /**
   * Seconds the weight ramps from where it is (0 for a new solver) to `weight`, as a layer's weight ramps
   * (default 0: at once).
   */
  fadeSeconds?: number
}

/** Two-bone IK: `joint` (a hand, a foot) reaches `target`; its parent and grandparent bend. */
export interface TwoBoneIKOptions extends IKWeightOptions {
  /** The kind of solver. */
  kind: 'two-bone'
  /** The end of the chain (node name or glTF node index); its parent is the middle joint, the grandparent the start. */
  joint: string | number
  /** The point the end joint reaches for. */
  target: IKTarget
  /** The point the middle joint (knee, elbow) points towards; default: it bends as the animation bends it. */
  pole?: IKTarget
  /** In [0, 1] (default 1: none): the chain falls behind a target further than this share of its length. */
  soften?: number
  /** Radians about the start-to-target line (default 0). */
  twist?: number
}

/** Aim: `joint` (a head) turns its `axis` towards `target`, helped by a chain of its ancestors. */
export interface AimIKOptions extends IKWeightOptions {
  /** The kind of solver. */
  kind: 'aim'
  /** The joint that aims (node name or glTF node index). */
  joint: string | number
  /** The point it aims at. */
  target: IKTarget
  /** The joint-local direction that aims (e.g. [0, 0, 1] for a glTF head facing +z). */
  axis: readonly [number, number, number]
  /** A joint-local direction kept towards world +y (no roll); default: none (the shortest turn). */
  up?: readonly [number, number, number]
  /** Radians in [0, π] the aim may turn from the animated direction: about world +y (yaw), and up or down (pitch). */
  limits?: {
    /** About world +y, radians in [0, π] (default: none). */
    yaw?: number
    /** Up and down, radians in [0, π] (default: none). */
    pitch?: number
  }
  /** Ancestors that share the turn (a spine, a neck), each by `weight` in [0, 1] of what is left, parents first. */
  chain?: readonly {
    /** An ancestor of `joint` (node name or glTF node index). */
    joint: string | number
    /** Its share of what is left of the turn, in [0, 1]. */
    weight: number
  }[]
}

/** Chain IK: the last of `joints` reaches `target`. */
export interface ChainIKOptions extends IKWeightOptions {
  /** The kind of solver. */
  kind: 'chain'
  /** The chain, root first, each joint the parent of the next (at least 2). */
  joints: readonly (string | number)[]
  /** The point the last joint reaches for. */
  target: IKTarget
  /** Passes at most, an integer in [1, 1000] (default 10). */
  iterations?: number
  /** World units: closer ends the solve (default 1e-4 × the chain's length). */
  tolerance?: number
  /** 'fabrik' (default) or 'ccd' (three.js's CCDIKSolver's method). */
  method?: 'fabrik' | 'ccd'
}

/** Foot placement: each foot on the ground under it, aligned to its slope, the pelvis lowered so both reach. */
export interface FeetIKOptions extends IKWeightOptions {
  /** The kind of solver. */
  kind: 'feet'
  /** The left foot (ankle joint); its parent (knee) and grandparent (hip) bend. */
  left: string | number
  /** The right foot (ankle joint). */
  right: string | number
  /**
   * 'physics': a ray down the plugin's cannon-es world; or the game's height of the ground at (x, z), a
   * deterministic function (it is called in the fixed step, and it is not in snapshots).
   */
  ground: 'physics' | ((x: number, z: number) => number)
  /** The joint that lowers (default the nearest common ancestor of the two hips). */
  pelvis?: string | number
}

/** setIK's options: one solver of one kind. */
export type IKOptions = TwoBoneIKOptions | AimIKOptions | ChainIKOptions | FeetIKOptions
