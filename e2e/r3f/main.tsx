// The e2e harness of ecs-anim/r3f: the example's components under an AnimationProvider in a Canvas whose frames
// the test drives (frameloop "never", r3f's advance with exact 1/60 s steps), plus what the test reads through
// `window.harness`: the plugin's counts (entities, pose slots, layer slots, bodies, the adapter's bindings), the
// characters the components made, and bone matrices relative to their roots.
import { advance, Canvas, useLoader } from '@react-three/fiber'
import { getAllEntities } from 'bitecs'
import { useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import type { Object3D } from 'three'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import {
  AnimationProvider,
  InstancedCrowd,
  useAnimationPlugin,
  useAnimationRuntime,
  useCharacter,
} from 'ecs-anim/r3f'
import { contextOf } from '../../entry/plugin.ts'
import { FOX_URL } from '../../examples/r3f/Fox.tsx'
import { PortedFox } from '../../examples/r3f/PortedFox.tsx'
import { DreiFox } from './DreiFox.tsx'

interface Harness {
  ready: boolean
  time: number
  /** Runs `frames` frames of 1/60 s. */
  advance(frames: number): void
  counts(): Record<string, number>
  setMounted(on: boolean): void
  mounted: { fox: number | null; ported: number | null; crowd: number }
  /** Two Foxes of one file (useCharacter): their characters and bones' matrices relative to their roots. */
  twins: { a: number | null; b: number | null; objects: Object3D[] }
  setClip(clip: string): void
  /** Per bone name, 16 numbers of root⁻¹ × matrixWorld, for a root's subtree. */
  bones(root: 'drei' | 'ported' | 'a' | 'b'): Record<string, number[]>
  roots: Record<string, Object3D | null>
  /** The largest difference between a twin's bones' matrixWorld and its joints' world matrices in the plugin. */
  drift(name: 'a' | 'b'): number
}

const harness = {
  ready: false,
  time: 0,
  mounted: { fox: null, ported: null, crowd: 0 },
  twins: { a: null, b: null, objects: [] },
  roots: {},
} as unknown as Harness
Object.assign(window, { harness })
harness.advance = (frames) => {
  for (let i = 0; i < frames; i++) {
    harness.time += 1 / 60
    advance(harness.time)
  }
}
harness.bones = (name) => {
  const root = harness.roots[name]!
  root.updateWorldMatrix(true, false)
  const inverse = root.matrixWorld.clone().invert()
  const out: Record<string, number[]> = {}
  root.traverse((o) => {
    if (o.type === 'Bone') out[o.name] = inverse.clone().multiply(o.matrixWorld).toArray()
  })
  return out
}

function Counts() {
  const runtime = useAnimationRuntime()
  harness.drift = (name) => {
    const { plugin } = runtime
    const world = plugin.stores.SceneNode.world
    let worst = 0
    harness.roots[name]!.traverse((o) => {
      if (o.type !== 'Bone') return
      const e = plugin.jointEntity(harness.twins[name]!, o.name)
      o.matrixWorld.elements.forEach((x, k) => (worst = Math.max(worst, Math.abs(x - world[16 * e + k]!))))
    })
    return worst
  }
  harness.counts = () => {
    const { plugin, adapter } = runtime
    const ctx = contextOf(plugin)
    return {
      entities: getAllEntities(plugin.world).length,
      poseSlots: ctx.pool.used,
      layerSlots: ctx.layerSlots.used.reduce((n, u) => n + u, 0),
      bodies: plugin.physics.bodies.length,
      constraints: plugin.physics.constraints.length,
      bound: adapter.stats.bound,
    }
  }
  return null
}

/** What mounts and unmounts: a Fox that ragdolls, the drei-style Fox, and a crowd of 3. */
function Mounted() {
  const gltf = useLoader(GLTFLoader, FOX_URL)
  const plugin = useAnimationPlugin()
  const { character, object } = useCharacter(gltf, { clip: 'Run' })
  useEffect(() => {
    if (character === null) return
    plugin.setTransform(character, { scale: [0.01, 0.01, 0.01] })
    plugin.ragdoll(character, { impulse: { joint: 'b_Spine02_03', impulse: [2, 0, 0] } })
    harness.mounted.fox = character
    return () => void (harness.mounted.fox = null)
  }, [plugin, character])
  return (
    <>
      <primitive object={object} />
      <PortedFox gltf={gltf} position={[1, 0, 0]} />
      <InstancedCrowd
        asset={gltf}
        count={3}
        clip="Walk"
        place={(i) => ({ position: [i, 0, -2], scale: [0.01, 0.01, 0.01] })}
        onCharacters={(c) => (harness.mounted.crowd = c.length)}
      />
    </>
  )
}

function Twin({ name, clip, x }: { name: 'a' | 'b'; clip: string; x: number }) {
  const gltf = useLoader(GLTFLoader, FOX_URL)
  const plugin = useAnimationPlugin()
  const { character, object } = useCharacter(gltf, { clip })
  useEffect(() => {
    if (character === null) return
    plugin.setTransform(character, { position: [x, 0, 0], scale: [0.01, 0.01, 0.01] })
    harness.twins[name] = character
    harness.roots[name] = object.children[0] ?? null
    harness.twins.objects = [gltf.scene]
  }, [plugin, character])
  return <primitive object={object} />
}

function Scene() {
  const gltf = useLoader(GLTFLoader, FOX_URL)
  const [mounted, setMounted] = useState(false)
  const [clip, setClip] = useState('Survey')
  harness.setMounted = setMounted
  harness.setClip = setClip
  useEffect(() => void (harness.ready = true), [])
  return (
    <>
      <Counts />
      {mounted && <Mounted />}
      <Twin name="a" clip="Walk" x={-1} />
      <Twin name="b" clip="Run" x={-2} />
      <group ref={(g) => void (harness.roots.drei = g)}>
        <DreiFox gltf={gltf} position={[2, 0, 0]} clip={clip} />
      </group>
      <group ref={(g) => void (harness.roots.ported = g)}>
        <PortedFox gltf={gltf} position={[2, 0, 0]} clip={clip} />
      </group>
    </>
  )
}

createRoot(document.getElementById('root')!).render(
  <Canvas frameloop="never" gl={{ preserveDrawingBuffer: true }} camera={{ position: [0, 1.5, 5] }}>
    <hemisphereLight args={[0xffffff, 0x445533, 3]} />
    <AnimationProvider interpolate={false}>
      <Scene />
    </AnimationProvider>
  </Canvas>,
)
