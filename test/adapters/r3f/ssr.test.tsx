/**
 * Server-side rendering of ecs-anim/r3f (react-dom/server in Node): rendering never touches the plugin. The
 * provider makes its plugin in an effect, which a server never runs, and renders nothing until then; the hooks
 * and components under a runtime do their plugin work in effects too.
 */
import { createWorld, getAllEntities, getWorldComponents } from 'bitecs'
import { renderToString } from 'react-dom/server'
import { Group } from 'three'
import { describe, expect, it } from 'vitest'
import { AnimationProvider, RuntimeContext } from '../../../adapters/r3f/provider.tsx'
import { createAnimationRuntime } from '../../../adapters/r3f/runtime.ts'
import { InstancedCrowd, useAnimations, useCharacter } from '../../../adapters/r3f/index.ts'
import { loadGltf } from '../../helpers/threeScene.ts'

describe('ecs-anim/r3f on a server', () => {
  it('AnimationProvider makes no plugin and renders nothing of its children', () => {
    const world = createWorld()
    let rendered = 0
    function Child() {
      rendered++
      return null
    }
    const html = renderToString(
      <AnimationProvider world={world}>
        <Child />
      </AnimationProvider>,
    )
    expect(html).toBe('')
    expect(rendered).toBe(0)
    // createAnimationPlugin registers its components on the world (5 of them); none is.
    expect(getWorldComponents(world)).toEqual([])
    expect(getAllEntities(world)).toEqual([])
  })

  it('useCharacter, useAnimations and InstancedCrowd render without a plugin call', async () => {
    const fox = await loadGltf('assets/Fox/glTF-Binary/Fox.glb')
    const runtime = createAnimationRuntime()
    const root = new Group()
    function Scene() {
      const { character } = useCharacter(fox, { clip: 'Walk' })
      const { actions } = useAnimations(fox.animations, root)
      expect(character).toBe(null)
      expect(Object.keys(actions)).toEqual(fox.animations.map((c) => c.name))
      return <InstancedCrowd asset={fox} count={4} clip="Walk" />
    }
    renderToString(
      <RuntimeContext.Provider value={runtime}>
        <Scene />
      </RuntimeContext.Provider>,
    )
    expect(getAllEntities(runtime.plugin.world)).toEqual([])
    expect(runtime.adapter.stats.bound).toBe(0)
    expect(runtime.steps).toBe(0)
  })
})
