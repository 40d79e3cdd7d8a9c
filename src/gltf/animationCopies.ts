import type { GLTF } from '@gltf-transform/core'

/**
 * For each animation of a file, the index of the first animation whose channels are the same: the same target
 * nodes and paths, sampled from the same input and output accessors with the same interpolation, in the same
 * order (channels without a target node, which the loader skips, left out); its own index when none before
 * it is. Such a copy gives the same clip but for its name and markers, so the loader builds, and the size
 * checks count, only the first (a file of N copies of one clip is then read in time linear in its size, not
 * in N times the clip's keys). Linear in the number of channels. Expects JSON that passed checkGltfJson.
 */
export function animationCopies(json: GLTF.IGLTF): Int32Array {
  const animations = json.animations ?? []
  const firstOf = new Int32Array(animations.length)
  const seen = new Map<string, number>()
  // Paths and interpolations as numbers, one per distinct string: keys of numbers only, so no two lists of
  // channels make the same key whatever the strings hold.
  const strings = new Map<string, number>()
  const id = (text: string): number => {
    let n = strings.get(text)
    if (n === undefined) strings.set(text, (n = strings.size))
    return n
  }
  animations.forEach((animation, a) => {
    let key = ''
    for (const channel of animation.channels) {
      const node = channel.target.node
      if (node === undefined) continue
      const sampler = animation.samplers[channel.sampler]!
      const words = `${id(channel.target.path)} ${id(sampler.interpolation ?? 'LINEAR')}`
      key += `${node} ${sampler.input} ${sampler.output} ${words};`
    }
    const first = seen.get(key)
    if (first === undefined) seen.set(key, a)
    firstOf[a] = first ?? a
  })
  return firstOf
}
