/**
 * ecs-anim/r3f: the plugin in react-three-fiber. An <AnimationProvider> inside the <Canvas> owns one plugin and
 * steps it in r3f's frame loop; under it, `useCharacter` makes a character of a glTF file with its own clone of
 * the file's objects, `<InstancedCrowd>` draws many of one file instanced, and `useAnimations` is drei's hook
 * of that name on the plugin. Needs react and @react-three/fiber (optional peer dependencies of the package:
 * nothing of this is in the other entries).
 *
 * @module
 */
export {
  AnimationProvider,
  useAnimationPlugin,
  useAnimationRuntime,
  type AnimationProviderProps,
} from './provider.tsx'
export type { AnimationRuntime, AnimationRuntimeOptions, StepHook } from './runtime.ts'
export { useCharacter, type CharacterHandle, type UseCharacterOptions } from './useCharacter.ts'
export { InstancedCrowd, type InstancedCrowdProps } from './InstancedCrowd.tsx'
export { useAnimations, type AnimationsApi } from './useAnimations.ts'
export { ActionMixer, type ActionMixerEvents, type AnimationAction } from './actions.ts'
export type { CharacterSource, GltfSource } from './sources.ts'
