/**
 * Run by test/plugin/characters.test.ts in a process of its own (`node --allow-natives-syntax --import tsx`):
 * prints, as JSON, which of the context's arrays V8 keeps as a hash table (dictionary elements) after a crowd
 * of characters was added on ids that lie a character's nodes apart, some with layers and root motion, some
 * removed and added again.
 */
import { createWorld } from 'bitecs'
import { contextOf, createAnimationPlugin } from '../../entry/plugin.ts'
import { makeTestAsset } from './ecs.ts'

const plugin = createAnimationPlugin(createWorld(), { capacity: 1 << 14, physics: { ground: false } })
const handle = plugin.addAsset(makeTestAsset())
const chars = Array.from({ length: 300 }, () => plugin.addCharacter(handle))
chars.forEach((c, i) => {
  plugin.play(c, 'Wag')
  if (i % 7 === 0) plugin.setLayer(c, 1, { weight: 0.5 })
  if (i % 11 === 0) plugin.setRootMotion(c, { mode: 'full' })
})
for (const c of chars.slice(0, 40)) plugin.removeCharacter(c)
for (let i = 0; i < 40; i++) plugin.addCharacter(handle)
plugin.step()
const isDictionary = new Function('a', 'return %HasDictionaryElements(a)') as (a: unknown) => boolean
const slow = Object.entries(contextOf(plugin))
  .filter(([, v]) => Array.isArray(v) && isDictionary(v))
  .map(([k]) => k)
console.log(JSON.stringify(slow))
