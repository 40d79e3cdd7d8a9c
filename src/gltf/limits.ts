/**
 * What the loader accepts at most. A file over a limit is rejected with an AnimationError (kind 'gltf') naming
 * the count and the limit, before any work proportional to it is done.
 */

/**
 * The most nodes a file may have: as many as one character holds (systems/plugin.ts), so the asset of any
 * file that loads can become a character as a whole.
 */
export const MAX_NODES = 65535

/**
 * The most elements one accessor may have (its `count`), whatever uses it: a track at 60 keys per second for
 * 77 hours. Checked before anything is read, so a file naming a huge count (an accessor without a bufferView
 * is that many zeros) costs nothing.
 */
export const MAX_ACCESSOR_ELEMENTS = 2 ** 24

/**
 * The most bytes of arrays the loader may make from one file's data (256 MiB), summed from the JSON before
 * any is made:
 *
 *   - every accessor the asset uses (animation samplers', skins' inverse bind matrices) as gltf-transform
 *     reads it: count × element size, twice for a sparse accessor over a bufferView, plus its sparse indices
 *     and values
 *   - every animation channel's float32 copy of its key times and values, once per channel, even when
 *     channels share accessors (but for the channels of an animation that copies an earlier one's, which
 *     share that one's: animationCopies.ts), and a rotation channel's segments for the sampler: 80 bytes
 *     a key (LINEAR's slerp) or 64 (CUBICSPLINE's Hermite)
 *   - 8 bytes per default morph weight of every node with a mesh
 *
 * Accessors nothing in the asset uses (meshes') and images are not decoded at all. Each size is also checked
 * against the file's real bytes; this limit bounds what references can multiply those into (many accessors
 * or channels over the same bytes, zero-filled accessors).
 */
export const MAX_DECODED_BYTES = 2 ** 28

/**
 * The most animations a file may have: each becomes a clip every character of the asset can play, registered
 * and fingerprinted by the plugin. A copy of an earlier animation (animationCopies.ts) counts too.
 */
export const MAX_CLIPS = 4096

/**
 * The most animation channels a file may have, summed over its animations (a copy's included: each costs a
 * channel object, a binding entry per character asset and key cursors).
 */
export const MAX_CHANNELS = 2 ** 18

/**
 * The most keys the loader may build clips of, summed over the channels of every animation that is not a copy
 * of an earlier one (a copy shares that one's channels and builds nothing). Each key is checked, copied and, for
 * a rotation, given its slerp segment: with MAX_CLIPS and MAX_CHANNELS this keeps the largest file the loader
 * accepts to a load of about a second (README, What it guarantees).
 */
export const MAX_KEYS = 2 ** 21
