/**
 * useAnimations: drei's hook of the same name and shape, on the plugin (a drei component changes its import and
 * sits under an <AnimationProvider>).
 *
 * @module
 */
import { useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react'
import { Object3D, type AnimationClip } from 'three'
import { assetFromObject } from '../threeAsset.ts'
import { createAnimationActions, type ActionMixer, type AnimationAction } from './actions.ts'
import { useAnimationRuntime } from './provider.tsx'
import { placeAt } from './useCharacter.ts'

/** What useAnimations returns: drei's fields, the actions on the plugin, and the character. */
export interface AnimationsApi<T extends AnimationClip = AnimationClip> {
  /** The root's ref: `root` when given, else a ref to put on the root (`<group ref={ref}>`). */
  readonly ref: RefObject<Object3D | null | undefined>
  /** The clips given. */
  readonly clips: readonly T[]
  /** The clips' names. */
  readonly names: T['name'][]
  /** Clip name → its action (three's AnimationAction calls); see adapters/r3f/actions.ts for the mapping. */
  readonly actions: { [key in T['name']]: AnimationAction | null }
  /** 'finished' and 'loop' events, stopAllAction(), as three's mixer. */
  readonly mixer: ActionMixer
  /** The character the root became, or null until it is bound (always null on a server). */
  readonly character: number | null
}

/**
 * drei's useAnimations on the plugin: `clips` (three AnimationClips, e.g. useGLTF's `animations`) animate the
 * objects under `root` (a ref or an object; without one, put the returned `ref` on the root), bound by name as
 * three's mixer binds them. When the root is mounted (a layout effect) its subtree becomes a character
 * (assetFromObject: its objects are the nodes, at the transforms they have then) placed where the root is, and
 * the adapter drives the objects; the actions, made once per `clips` and usable before that, then play on it.
 * On unmount (or new clips) the objects are unbound and the character removed. The animation runs one fixed
 * step behind drei's mixer (a clip played now shows its time 0 at the next step).
 */
export function useAnimations<T extends AnimationClip>(
  clips: T[],
  root?: RefObject<Object3D | null | undefined> | Object3D,
): AnimationsApi<T> {
  const runtime = useAnimationRuntime('useAnimations')
  const own = useRef<Object3D | null | undefined>(null)
  const [ref] = useState<RefObject<Object3D | null | undefined>>(() =>
    root instanceof Object3D ? { current: root } : (root ?? own),
  )
  if (root instanceof Object3D) ref.current = root
  const [character, setCharacter] = useState<number | null>(null)
  const set = useMemo(
    () =>
      createAnimationActions(
        runtime,
        clips.map((c) => c.name),
      ),
    [runtime, clips],
  )

  // Bound at every commit where the root (or the clips) changed, unbound on unmount.
  const bound = useRef<{ object: Object3D; set: typeof set; unbind: () => void } | null>(null)
  useLayoutEffect(() => {
    const object = ref.current ?? null
    if (bound.current?.object === object && bound.current.set === set) return
    bound.current?.unbind()
    bound.current = null
    if (object === null || runtime.disposed) return
    const { plugin, adapter } = runtime
    const { asset, view } = assetFromObject(object, clips, object.name || 'useAnimations')
    const c = plugin.addCharacter(plugin.addAsset(asset))
    placeAt(plugin, c, object)
    const binding = adapter.bind(c, view)
    const unhook = runtime.addStepHook(set)
    set.attach(c)
    setCharacter(c)
    bound.current = {
      object,
      set,
      unbind() {
        set.detach()
        unhook()
        if (!runtime.disposed) {
          adapter.unbind(binding)
          plugin.removeCharacter(c)
        }
        setCharacter(null)
      },
    }
  })
  useLayoutEffect(
    () => () => {
      bound.current?.unbind()
      bound.current = null
    },
    [],
  )

  return useMemo(
    () => ({
      ref,
      clips,
      names: clips.map((c) => c.name),
      actions: set.actions as AnimationsApi<T>['actions'],
      mixer: set.mixer,
      character,
    }),
    [ref, clips, set, character],
  )
}
