// Components of the example, each a way an r3f app animates a glTF character with ecs-anim/r3f.
import { useEffect, useRef } from 'react'
import { useLoader } from '@react-three/fiber'
import type { Group } from 'three'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { useAnimationPlugin, useCharacter } from 'ecs-anim/r3f'
import { PortedFox } from './PortedFox.tsx'

export const FOX_URL = '/Fox/glTF-Binary/Fox.glb'

/** A Fox of its own (a clone of the file, a character of its own), walking; it runs while `running`. */
export function Fox({ x, running = false }: { x: number; running?: boolean }) {
  const gltf = useLoader(GLTFLoader, FOX_URL)
  const group = useRef<Group>(null)
  const { character, object } = useCharacter(gltf, { clip: 'Walk' })
  const plugin = useAnimationPlugin()
  useEffect(() => {
    if (character === null) return
    // The Fox is in centimetres; place it by the plugin (three's transforms above `object` are not followed).
    plugin.setTransform(character, { position: [x, 0, 0], scale: [0.01, 0.01, 0.01] })
  }, [plugin, character, x])
  useEffect(() => {
    if (character !== null) plugin.crossFade(character, running ? 'Run' : 'Walk', 0.3)
  }, [plugin, character, running])
  return <primitive ref={group} object={object} />
}

/** The drei-style component, on its own clone of the file. */
export function DreiStyleFox() {
  const gltf = useLoader(GLTFLoader, FOX_URL)
  return <PortedFox gltf={gltf} position={[0, 0, -1.5]} />
}
