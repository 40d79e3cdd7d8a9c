/**
 * <AnimationProvider>: one plugin, its fixed stepper and a three.js adapter for the components under it, stepped
 * in r3f's frame loop. Put it inside the <Canvas> (useFrame needs r3f's store).
 *
 * Server-side rendering never touches the plugin: it is made in an effect (effects do not run on the server),
 * and the provider renders its children only once it exists, so no hook below ever sees a missing plugin and
 * no component does plugin work while rendering.
 *
 * @module
 */
import { useFrame } from '@react-three/fiber'
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react'
import { AnimationError } from '../../src/errors.ts'
import type { AnimationPlugin } from '../../entry/index.ts'
import { createAnimationRuntime, type AnimationRuntime, type AnimationRuntimeOptions } from './runtime.ts'

/** The runtime components find (AnimationProvider provides it; a test may provide its own). */
export const RuntimeContext = createContext<AnimationRuntime | null>(null)

/** Props of <AnimationProvider>: the runtime's options (read once, when it mounts) and its children. */
export interface AnimationProviderProps extends AnimationRuntimeOptions {
  /** The components that use the plugin. */
  children?: ReactNode
}

/**
 * Owns one animation plugin (made when it mounts, disposed when it unmounts) and advances it in `useFrame`:
 * whole fixed steps of r3f's frame time, the adapter's and the crowds' capture() after every step, render(alpha)
 * once per frame, before r3f draws (its useFrame runs at priority -1, before the default 0, and takes nothing
 * over: r3f still renders). `plugin.events` holds the frame's events until the next frame. Props are read once:
 * changing them later does not make a new plugin (remount it with a new `key` for that).
 */
export function AnimationProvider(props: AnimationProviderProps): ReactNode {
  const [runtime, setRuntime] = useState<AnimationRuntime | null>(null)
  useEffect(() => {
    const made = createAnimationRuntime(props)
    setRuntime(made)
    return () => {
      setRuntime(null)
      made.dispose()
    }
    // Read once, on mount (see the doc comment).
  }, [])
  if (runtime === null) return null
  return (
    <RuntimeContext.Provider value={runtime}>
      <FrameLoop runtime={runtime} />
      {props.children}
    </RuntimeContext.Provider>
  )
}

function FrameLoop({ runtime }: { runtime: AnimationRuntime }): null {
  useFrame((_, delta) => runtime.frame(delta), -1)
  return null
}

/** The nearest provider's runtime; throws AnimationError 'argument' naming `who` without one. */
export function useAnimationRuntime(who = 'useAnimationRuntime'): AnimationRuntime {
  const runtime = useContext(RuntimeContext)
  if (runtime === null) {
    throw new AnimationError(
      'argument',
      `${who}: no <AnimationProvider> above this component (put one inside the <Canvas>, around it)`,
    )
  }
  return runtime
}

/** The nearest <AnimationProvider>'s plugin. Throws AnimationError 'argument' outside one. */
export function useAnimationPlugin(): AnimationPlugin {
  return useAnimationRuntime('useAnimationPlugin').plugin
}
