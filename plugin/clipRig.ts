import { AnimationError } from '../src/errors.ts'
import type { AnimationContext, RegisteredClip } from './context.ts'
import { bindClip, bindMorphs } from './assets.ts'

/**
 * Whether a clip fits a rig: how many of its channels drive something on characters of an asset (a joint's
 * translation, rotation or scale, or a mesh node's morph weights), by the bindings playback uses (bindClip,
 * bindMorphs: node index on the clip's own asset, node name on another). A clip of another rig binds by name
 * and may bind nothing: played, it would leave the character in its rest pose without a word, so the calls
 * that start a clip refuse it (checkClipFits).
 */

/** The clip's channels that drive something on characters of asset `assetId`. Binds on first use. */
export function boundChannels(ctx: AnimationContext, clip: RegisteredClip, assetId: number): number {
  const joints = bindClip(ctx, clip, assetId)
  const morphs = bindMorphs(ctx, clip, assetId)
  let bound = 0
  for (let c = 0; c < joints.length; c++) if (joints[c]! >= 0 || (morphs !== null && morphs[c]! >= 0)) bound++
  return bound
}

/**
 * Refuses (AnimationError 'argument', prefixed with `what`) a clip of another asset with channels none of
 * which drives anything on characters of asset `assetId`, naming the clip, the asset it came from and that
 * asset. A clip of asset `assetId` itself is accepted unless `own` (addClip: a clip added to drive the asset),
 * as is a clip without channels (a rest pose, on purpose).
 */
export function checkClipFits(
  ctx: AnimationContext,
  clip: RegisteredClip,
  assetId: number,
  what: string,
  own = false,
): void {
  const channels = clip.clip.channels.length
  if (channels === 0 || (clip.asset === assetId && !own) || boundChannels(ctx, clip, assetId) > 0) return
  const from = ctx.assets[clip.asset]!.asset.source
  const to = ctx.assets[assetId]!.asset.source
  const nodes = [...new Set(clip.clip.channels.map((ch) => ch.nodeName).filter((n) => n !== ''))]
  const shown =
    nodes
      .slice(0, 4)
      .map((n) => `"${n}", `)
      .join('') + (nodes.length > 4 ? '…: ' : '')
  const why =
    clip.asset === assetId
      ? `none of the nodes it animates (${shown}${channels} channels) is a joint of ${to}'s characters, or has its morph targets`
      : `no node it animates (${shown}${channels} channels) is named as one of ${to}'s`
  throw new AnimationError(
    'argument',
    `${what}: clip "${clip.clip.name}" of ${from} drives none of the joints or morph weights of ${to}: ${why}`,
  )
}
