// examples/r3f: a react-three-fiber app animated by ecs-anim/r3f. Two Foxes from one file (each its own clone and
// character), a drei-style component ported by its import, and a herd of 48 drawn instanced; buttons mount and
// unmount a Fox and make the second one run.
import { Canvas, useLoader } from '@react-three/fiber'
import { StrictMode, Suspense, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js'
import { AnimationProvider, InstancedCrowd, useAnimationPlugin } from 'ecs-anim/r3f'
import { DreiStyleFox, Fox, FOX_URL } from './Fox.tsx'

function Herd() {
  const gltf = useLoader(GLTFLoader, FOX_URL)
  return (
    <InstancedCrowd
      asset={gltf}
      count={48}
      clip="Walk"
      play={(i) => ({ time: i * 0.05 })}
      place={(i) => ({
        position: [((i % 12) - 5.5) * 0.9, 0, -3 - Math.floor(i / 12) * 1.2],
        scale: [0.01, 0.01, 0.01],
      })}
    />
  )
}

/** Leaves the plugin on `window.example` for the console (and e2e/r3f.e2e.test.ts). */
function Expose() {
  const plugin = useAnimationPlugin()
  Object.assign(window, { example: { plugin } })
  return null
}

function App() {
  const [shown, setShown] = useState(true)
  const [running, setRunning] = useState(false)
  return (
    <>
      <Canvas camera={{ position: [0, 1.8, 4.5], fov: 45 }} gl={{ preserveDrawingBuffer: true }}>
        <color attach="background" args={[0xa9c4dc]} />
        <hemisphereLight args={[0xffffff, 0x445533, 3]} />
        <mesh rotation-x={-Math.PI / 2}>
          <circleGeometry args={[30, 64]} />
          <meshLambertMaterial color={0x6f8f5a} />
        </mesh>
        <AnimationProvider options={{ capacity: 8192 }}>
          <Expose />
          <Suspense fallback={null}>
            {shown && <Fox x={-0.8} />}
            <Fox x={0.8} running={running} />
            <DreiStyleFox />
            <Herd />
          </Suspense>
        </AnimationProvider>
      </Canvas>
      <nav>
        <button onClick={() => setShown((s) => !s)}>{shown ? 'remove' : 'add'} the left Fox</button>
        <button onClick={() => setRunning((r) => !r)}>{running ? 'walk' : 'run'}</button>
      </nav>
    </>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
