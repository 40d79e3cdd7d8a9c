import { AnimationError, showValue } from '../src/errors.ts'
import type { Clip } from '../src/clip/clip.ts'
import type { AnimationAsset } from '../src/gltf/asset.ts'
import type { AnimationContext, AssetHandle } from './context.ts'
import { addedHandle, clipRegistration, registerClip } from './assets.ts'
import { isBuiltClip } from '../src/clip/clip.ts'
import { checkClipFits } from './clipRig.ts'
import { checkLive } from './options.ts'

/**
 * Adds a clip made in code or converted (buildClip, clipFromThree in 'ecs-anim/three') to an asset's clips,
 * after the file's: characters of the asset (and of assets with the same node names) play it by name like the
 * file's own, and it belongs to the asset as they do (snapshots check it: restore needs the same clips added
 * in the same order). Its channels target the asset's nodes by index, each named as that node when named at
 * all. The asset must have been added (addAsset, addCharacter). Returns its clip id. Throws AnimationError 'argument',
 * changing nothing, for a value that is not a built clip, a clip added before, a name one of the asset's clips
 * has, a channel whose node is not the asset's, or a clip that drives none of the asset's joints and morph
 * weights.
 */
export function addClip(ctx: AnimationContext, owner: AnimationAsset | AssetHandle, clip: Clip): number {
  checkLive(ctx, 'addClip')
  const name = typeof clip === 'object' && clip !== null ? (clip as { name?: unknown }).name : undefined
  const what = `addClip(${typeof name === 'string' ? `"${name}"` : showValue(clip)})`
  if (!isBuiltClip(clip)) {
    throw new AnimationError('argument', `${what}: ${showValue(clip)} is not a clip made by buildClip`)
  }
  const handle = addedHandle(ctx, owner)
  if (handle === undefined) {
    throw new AnimationError(
      'argument',
      `${what}: ${showValue(owner)} is not an asset or asset handle of this plugin (add the asset first)`,
    )
  }
  const registered = ctx.assets[handle.id]!
  const asset = registered.asset
  for (const id of registered.clipIds) {
    const other = ctx.clips[id]!.clip
    if (other === clip)
      throw new AnimationError('argument', `${what}: the clip was added to ${asset.source} before`)
    if (other.name === clip.name) {
      throw new AnimationError('argument', `${what}: ${asset.source} already has a clip named "${clip.name}"`)
    }
  }
  clip.channels.forEach((ch, c) => {
    const node = asset.nodes[ch.node]
    if (!node || (ch.nodeName !== '' && ch.nodeName !== node.name)) {
      const where = node
        ? `node ${ch.node} of ${asset.source} is "${node.name}"`
        : `${asset.source} has ${asset.nodes.length} nodes`
      throw new AnimationError(
        'argument',
        `${what}: channel ${c} targets node ${ch.node}${ch.nodeName ? ` "${ch.nodeName}"` : ''}, but ${where}: ` +
          'was the clip made for another asset?',
      )
    }
  })
  // Its fit on its own asset, checked on the registration it would get, before anything holds it.
  checkClipFits(ctx, clipRegistration(ctx, registered, clip), registered.id, what, true)
  return registerClip(ctx, registered, clip).id
}
