// A component written for drei's useAnimations (as drei's docs show it), ported to ecs-anim by its import alone:
// `import { useAnimations } from '@react-three/drei'` became the line below. e2e/r3f/ compares it with the same
// file importing drei's (e2e/r3f/DreiFox.tsx).
import { useAnimations } from 'ecs-anim/r3f'
import { useEffect, useMemo, useRef } from 'react'
import type { AnimationClip, Group, Object3D } from 'three'
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js'

export interface FoxProps {
  gltf: { scene: Object3D; animations: AnimationClip[] }
  position?: [number, number, number]
  clip?: string
}

export function PortedFox({ gltf, position = [0, 0, 0], clip = 'Survey' }: FoxProps) {
  const group = useRef<Group>(null)
  const scene = useMemo(() => clone(gltf.scene), [gltf])
  const { actions } = useAnimations(gltf.animations, group)
  useEffect(() => {
    actions[clip]?.reset().fadeIn(0.5).play()
    return () => void actions[clip]?.fadeOut(0.5)
  }, [actions, clip])
  return (
    <group ref={group} position={position} scale={0.01}>
      <primitive object={scene} />
    </group>
  )
}
