/**
 * <InstancedCrowd>: `count` characters of one file drawn instanced (createInstancedCrowd: one draw call per mesh
 * of the file for all of them).
 *
 * @module
 */
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { Group } from 'three'
import type { AssetHandle, CharacterTransform, PlayOptions } from '../../entry/index.ts'
import { createInstancedCrowd, type InstancedCrowd as Crowd } from '../three.ts'
import { useAnimationRuntime } from './provider.tsx'
import { loadSource, type CharacterSource } from './sources.ts'

/** Props of <InstancedCrowd>. */
export interface InstancedCrowdProps {
  /** The file: GLTFLoader's result (drei's useGLTF) or a URL. */
  asset: CharacterSource
  /** How many characters; changing it adds or removes characters at the end. */
  count: number
  /** A clip (name or index) each new character plays. */
  clip?: string | number
  /** How new character `index` plays `clip` (e.g. `{ time: index * 0.1 }`); default the clip from its start. */
  play?: (index: number) => Omit<PlayOptions, 'layer'>
  /** Where new character `index` stands (plugin.setTransform); default the origin. */
  place?: (index: number) => Partial<CharacterTransform>
  /** Most characters the crowd can show (read once). Default max(1024, count). */
  capacity?: number
  /**
   * The crowd's maker: createInstancedCrowd from 'ecs-anim/three' (the default, WebGL) or from
   * 'ecs-anim/three/webgpu' (WebGL and WebGPURenderer).
   */
  create?: typeof createInstancedCrowd
  /** Called with the crowd's characters each time they change (read it to drive them). */
  onCharacters?: (characters: readonly number[]) => void
}

/**
 * Shows `count` characters of `asset` as one instanced crowd, under an object of its own in the scene; on
 * unmount the characters are removed and the crowd's GPU resources freed. As with useCharacter, the plugin is
 * touched only in effects.
 */
export function InstancedCrowd(props: InstancedCrowdProps): ReactNode {
  const runtime = useAnimationRuntime('InstancedCrowd')
  const [object] = useState(() => new Group())
  const [made, setMade] = useState<{ crowd: Crowd; handle: AssetHandle } | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  if (failure !== null) throw failure
  const members = useRef<number[]>([])
  const latest = useRef(props)
  latest.current = props
  const { asset, count, clip } = props

  useEffect(() => {
    let live = true
    let mine: { crowd: Crowd; stop: () => void } | null = null
    loadSource(asset).then(
      ({ asset: file, view }) => {
        if (!live || runtime.disposed) return
        const { create = createInstancedCrowd, capacity = Math.max(1024, latest.current.count) } =
          latest.current
        const handle = runtime.plugin.addAsset(file)
        const crowd = create(runtime.plugin, handle, view, { capacity })
        mine = { crowd, stop: runtime.addCrowd(crowd) }
        object.add(crowd.object)
        setMade({ crowd, handle })
      },
      (error: unknown) => {
        if (live) setFailure(error)
      },
    )
    return () => {
      live = false
      if (mine === null) return
      mine.stop()
      object.remove(mine.crowd.object)
      if (!runtime.disposed) for (const c of members.current) runtime.plugin.removeCharacter(c)
      members.current = []
      mine.crowd.dispose()
      setMade(null)
    }
  }, [runtime, asset, object])

  useEffect(() => {
    if (made === null || runtime.disposed) return
    const { plugin } = runtime
    const { place, play, onCharacters } = latest.current
    const list = members.current
    while (list.length > count) {
      const c = list.pop()!
      made.crowd.remove(c)
      plugin.removeCharacter(c)
    }
    while (list.length < count) {
      const c = plugin.addCharacter(made.handle)
      const i = list.length
      list.push(c)
      const where = place?.(i)
      if (where) plugin.setTransform(c, where)
      if (clip !== undefined) plugin.play(c, clip, play?.(i))
      made.crowd.add(c)
    }
    onCharacters?.(list.slice())
  }, [runtime, made, count, clip])

  return <primitive object={object} />
}
