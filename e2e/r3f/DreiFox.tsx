// examples/r3f/PortedFox.tsx with its one import back as drei's: the reference the port is compared with
import { useAnimations } from '@react-three/drei'
import { useEffect, useMemo, useRef } from 'react'
import type { AnimationClip, Group, Object3D } from 'three'
import { clone } from 'three/examples/jsm/utils/SkeletonUtils.js'

export interface FoxProps {
  gltf: { scene: Object3D; animations: AnimationClip[] }
  position?: [number, number, number]
  clip?: string
}

export function DreiFox({ gltf, position = [0, 0, 0], clip = 'Survey' }: FoxProps) {
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
