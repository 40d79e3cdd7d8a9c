/**
 * useCharacter: a character of a glTF file, shown by its own clone of GLTFLoader's objects.
 *
 * @module
 */
import { useEffect, useState } from 'react'
import { Group, Matrix4, Quaternion, Vector3, type Object3D } from 'three'
import type { AnimationPlugin, PlayOptions } from '../../entry/index.ts'
import { cloneSceneView, type ThreeBinding } from '../three.ts'
import { useAnimationRuntime } from './provider.tsx'
import { loadSource, type CharacterSource } from './sources.ts'

/** Options of useCharacter. */
export interface UseCharacterOptions {
  /** A clip (name or index) to play as soon as the character exists; changing it plays the new one. */
  clip?: string | number
  /** How to play `clip` (loop, speed, …). */
  play?: Omit<PlayOptions, 'layer'>
}

/** What useCharacter returns. */
export interface CharacterHandle {
  /** The character entity, or null until the file is read and the character made (always null on a server). */
  readonly character: number | null
  /**
   * The object to put in the scene (`<primitive object={object} />`), the same for the component's life: a
   * Group that holds the character's clone of the file's objects while the character lives.
   */
  readonly object: Group
}

const position = new Vector3()
const rotation = new Quaternion()
const scale = new Vector3()

/**
 * A character of `source` (GLTFLoader's result, e.g. drei's useGLTF, or a URL) for as long as the component is
 * mounted: every use gets its own clone of the file's objects (SkeletonUtils.clone, so skinned meshes get
 * their own skeletons) bound to its own character; on unmount the clone is removed, unbound, and the character
 * and its entities are freed (removeCharacter). The character starts where `object` is in three's scene when it
 * is made (its world transform then); after that the plugin places it (`plugin.setTransform`), and three's
 * transforms of `object`'s parents are not followed (the adapter writes world matrices). Everything that
 * touches the plugin runs in effects, so rendering (on a server too) does none of it. A file that fails to
 * load throws its error from the component's next render, for an error boundary.
 */
export function useCharacter(source: CharacterSource, options: UseCharacterOptions = {}): CharacterHandle {
  const runtime = useAnimationRuntime('useCharacter')
  const [object] = useState(() => new Group())
  const [character, setCharacter] = useState<number | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  if (failure !== null) throw failure

  useEffect(() => {
    let live = true
    let made: { character: number; binding: ThreeBinding } | null = null
    loadSource(source).then(
      ({ asset, view }) => {
        if (!live || runtime.disposed) return
        const { plugin, adapter } = runtime
        const copy = cloneSceneView(view)
        const c = plugin.addCharacter(plugin.addAsset(asset))
        placeAt(plugin, c, object)
        made = { character: c, binding: adapter.bind(c, copy) }
        object.add(copy.scene)
        setCharacter(c)
      },
      (error: unknown) => {
        if (live) setFailure(error)
      },
    )
    return () => {
      live = false
      if (made === null) return
      object.remove(made.binding.view.scene)
      if (!runtime.disposed) {
        runtime.adapter.unbind(made.binding)
        runtime.plugin.removeCharacter(made.character)
      }
      setCharacter(null)
    }
  }, [runtime, source, object])

  const { clip, play } = options
  useEffect(() => {
    if (character !== null && clip !== undefined && !runtime.disposed)
      runtime.plugin.play(character, clip, play)
    // `play` is read with the clip: a new options object each render must not replay it.
  }, [runtime, character, clip])

  return { character, object }
}

/** Places a new character where `object` is in three's scene, unless that is the origin. */
export function placeAt(plugin: AnimationPlugin, character: number, object: Object3D): void {
  object.updateWorldMatrix(true, false)
  object.matrixWorld.decompose(position, rotation, scale)
  if (object.matrixWorld.equals(IDENTITY)) return
  plugin.setTransform(character, {
    position: [position.x, position.y, position.z],
    rotation: [rotation.x, rotation.y, rotation.z, rotation.w],
    scale: [scale.x, scale.y, scale.z],
  })
}

const IDENTITY = new Matrix4()
