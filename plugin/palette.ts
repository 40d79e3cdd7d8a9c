import { AnimationError, showValue } from '../src/errors.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { AnimationContext, AssetHandle, RegisteredAsset } from './context.ts'
import { checkCharacter } from './characters.ts'
import { checkLive } from './options.ts'

/**
 * The skinning palette: per character, for every skin of its asset, each skin joint's world matrix times its
 * inverse bind matrix, the matrix a GPU skinning shader multiplies a vertex by. Written by `writePalette`, a
 * call the renderer makes after the step (not a system: the palette follows from the world matrices alone, so
 * it needs no state in hash() or snapshots, costs nothing in steps no frame draws, and lands straight in the
 * renderer's own buffer at any offset).
 *
 * Layout of one character's palette (16 floats per matrix, column-major, `layout.matrices` matrices):
 *
 *   | skin 0: its joints in the file's `skin.joints` order | skin 1: … | …      skins in `asset.skeletons` order
 *
 * The file's joint order is three.js's `Skeleton.bones` order, so skin s's slice is what three's
 * `Skeleton.update()` puts in `boneMatrices` for that skin (world × boneInverse), and a shader indexes it with the
 * mesh's own JOINTS_0 (`skinIndex`). World matrices include the character's placement: the palette is in
 * world space, so the mesh is drawn with an identity model matrix.
 */
export interface PaletteLayout {
  /** Matrices in one character's palette: the joints of all its asset's skins (16 floats each). */
  readonly matrices: number
  /** Per skin, in `asset.skeletons` order: where its matrices start (in matrices) and how many there are. */
  readonly skins: readonly PaletteSkin[]
}

/** One skin's slice of a palette (PaletteLayout). */
export interface PaletteSkin {
  /** The skin's name from the file ('' when unnamed). */
  readonly name: string
  /** Its first matrix in the palette (floats: 16 × start). */
  readonly start: number
  /** Its joint count: matrices in the slice, in the file's `skin.joints` order. */
  readonly count: number
}

/** How one asset's palette is made: per palette matrix its rig joint (-1: not in the scene) and inverse bind. */
export interface PalettePlan {
  readonly layout: PaletteLayout
  /** Rig joint of each palette matrix, -1 for a skin joint outside the scene (its world is taken as identity). */
  readonly joints: Int32Array
  /** Inverse bind matrices in palette order, 16 floats each. */
  readonly inverseBinds: Float32Array
}

/** The asset's palette plan, made on first use and kept in the context. */
export function palettePlan(ctx: AnimationContext, asset: RegisteredAsset): PalettePlan {
  const known = ctx.palettes[asset.id]
  if (known !== undefined) return known
  const skins: PaletteSkin[] = []
  let matrices = 0
  for (const skin of asset.asset.skeletons) {
    skins.push({ name: skin.name, start: matrices, count: skin.joints.length })
    matrices += skin.joints.length
  }
  const joints = new Int32Array(matrices)
  const inverseBinds = new Float32Array(16 * matrices)
  asset.asset.skeletons.forEach((skin, s) => {
    const start = skins[s]!.start
    for (let j = 0; j < skin.joints.length; j++) {
      // The skeleton keeps its joints parents first; skinJointOrder maps each back to its place in the file.
      const m = start + skin.skinJointOrder[j]!
      const node = skin.joints[j]!
      joints[m] = node >= 0 && node < asset.nodeJoint.length ? asset.nodeJoint[node]! : -1
      inverseBinds.set(skin.inverseBindMatrices.subarray(16 * j, 16 * j + 16), 16 * m)
    }
  })
  const plan: PalettePlan = {
    layout: Object.freeze({ matrices, skins: Object.freeze(skins) }),
    joints,
    inverseBinds,
  }
  ctx.palettes[asset.id] = plan
  return plan
}

/**
 * The palette layout of a character's asset, or of an asset already added (or its handle). Throws
 * AnimationError 'argument' for anything else.
 */
export function paletteLayout(
  ctx: AnimationContext,
  owner: number | AnimationAsset | AssetHandle,
): PaletteLayout {
  checkLive(ctx, 'paletteLayout')
  return palettePlan(ctx, ownerAsset(ctx, owner)).layout
}

function ownerAsset(ctx: AnimationContext, owner: unknown): RegisteredAsset {
  if (typeof owner === 'number') {
    return ctx.assets[ctx.stores.Pose.asset[checkCharacter(ctx, owner, 'paletteLayout')]!]!
  }
  const asset = typeof owner === 'object' && owner !== null ? (owner as { asset?: unknown }).asset : undefined
  const handle = ctx.handles.get(owner as never) ?? ctx.handles.get(asset as never)
  if (!handle) {
    throw new AnimationError(
      'argument',
      `paletteLayout: ${showValue(owner)} is not a character or an asset added to this plugin`,
    )
  }
  return ctx.assets[handle.id]!
}

/**
 * Writes character `eid`'s palette (PaletteLayout) into `out` from float `offset` on: 16 × matrices floats, each
 * matrix the joint's current world matrix (SceneNode.world, the last step's) times its inverse bind matrix,
 * multiplied in double in three.js's order and rounded once to float32. Allocation-free. Throws AnimationError
 * 'argument' for an `out` that is not a Float32Array, an offset that is not an integer ≥ 0, too little room, or
 * an entity that is not a character, writing nothing.
 */
export function writePalette(ctx: AnimationContext, out: Float32Array, eid: number, offset = 0): void {
  checkCharacter(ctx, eid, 'writePalette')
  if (!(out instanceof Float32Array)) {
    throw new AnimationError('argument', `writePalette(${eid}): out ${showValue(out)} is not a Float32Array`)
  }
  const { Pose } = ctx.stores
  const plan = palettePlan(ctx, ctx.assets[Pose.asset[eid]!]!)
  const floats = 16 * plan.layout.matrices
  if (!(Number.isInteger(offset) && offset >= 0 && offset + floats <= out.length)) {
    throw new AnimationError(
      'argument',
      `writePalette(${eid}): offset ${showValue(offset)} must be an integer ≥ 0 with ${floats} floats of room ` +
        `in out (length ${out.length})`,
    )
  }
  const joints = plan.joints
  const ibm = plan.inverseBinds
  const world = ctx.sceneGraph.store.world
  const entities = ctx.pool.joints
  const base = Pose.base[eid]!
  for (let m = 0; m < joints.length; m++) {
    const j = joints[m]!
    const e = j < 0 ? 0 : entities[base + j]!
    const b = 16 * m
    const o = offset + b
    if (e === 0) {
      // Not a scene node of the character (outside the scene, or removed by the game): identity × inverse bind.
      for (let k = 0; k < 16; k++) out[o + k] = ibm[b + k]!
      continue
    }
    const w = 16 * e
    // out = world × ibm, column-major: element (row r, column c) = Σk world[k·4 + r] · ibm[c·4 + k], summed in
    // k order as three's Matrix4.multiplyMatrices does.
    for (let c = 0; c < 4; c++) {
      const b0 = ibm[b + 4 * c]!
      const b1 = ibm[b + 4 * c + 1]!
      const b2 = ibm[b + 4 * c + 2]!
      const b3 = ibm[b + 4 * c + 3]!
      for (let r = 0; r < 4; r++) {
        out[o + 4 * c + r] =
          world[w + r]! * b0 + world[w + 4 + r]! * b1 + world[w + 8 + r]! * b2 + world[w + 12 + r]! * b3
      }
    }
  }
}
