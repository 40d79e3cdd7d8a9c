/**
 * Restore remembers the structure it last read and the last plan that found the plugin's structure to be the
 * snapshot's (snapshot/memo.ts). With that memory warm, a snapshot whose structure differs in any way is still
 * read, checked and planned in full: a forged one is refused with nothing changed, a real change is made; and a
 * plugin whose own structure changed since plans again.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { entityExists, removeEntity } from 'bitecs'
import { setSceneNodeParent } from '../../components/SceneNode.ts'
import { contextOf } from '../../entry/plugin.ts'
import { layoutsOf } from '../../snapshot/format.ts'
import { forge, mapSnapshot, type Edit } from '../helpers/forge.ts'
import { build, fox, loadAssets, rejects, run, sectionBody, type Scene } from '../helpers/snapshot.ts'

beforeAll(loadAssets)

/** A scene at step 80 (b ragdolling), its snapshot, and the scene run on to 90 then restored to it twice. */
function warm(): { s: Scene; bytes: Uint8Array; hash: string } {
  const s = build()
  run(s, 0, 80)
  const bytes = s.plugin.snapshot()
  const hash = s.plugin.hash()
  run(s, 80, 90)
  s.plugin.restore(bytes) // read, checked and remembered
  run(s, 80, 85)
  s.plugin.restore(bytes) // the same structure: the kept plan
  expect(s.plugin.hash()).toBe(hash)
  return { s, bytes, hash }
}

describe('restore with the structure of the last one remembered', () => {
  it('refuses a snapshot whose structure was forged, changing nothing', () => {
    const { s, bytes } = warm()
    const map = mapSnapshot(bytes, layoutsOf(contextOf(s.plugin)))
    const ents = sectionBody(bytes, 'ENTS')
    const chars = sectionBody(bytes, 'CHAR')
    const root = map.nodes.get(s.a + 1)!
    const cases: [Edit[], RegExp][] = [
      [[{ offset: ents + 4, kind: 'u32', value: 5000 }], /section "entities": 5000 alive ids of/],
      [
        [{ offset: ents + 16, kind: 'u32', value: 1 }],
        /section "entities": (run 1|the index is not|the runs spell)/,
      ],
      [[{ offset: root.parent, kind: 'i32', value: s.a + 1 }], /the parent links make a cycle/],
      [[{ offset: root.parent, kind: 'i32', value: 1000 }], /parent.*is not a scene node/],
      [[{ offset: chars + 8, kind: 'u32', value: s.a }], new RegExp(`character ${s.a}: listed twice`)],
    ]
    for (const [edits, message] of cases) {
      const hash = s.plugin.hash()
      const before = s.plugin.snapshot()
      rejects(() => s.plugin.restore(forge(bytes, edits)), message)
      expect(s.plugin.hash()).toBe(hash)
      expect(s.plugin.snapshot()).toEqual(before)
    }
  })

  it('checks in full the joints of a character that differ from the remembered ones', () => {
    const { s } = warm()
    // c's joints then listed one by one (one of them 0), not as a run.
    removeEntity(s.world, s.plugin.jointEntity(s.c, 'b_Tail03_014'))
    s.plugin.step()
    const gone = s.plugin.snapshot()
    const hash = s.plugin.hash()
    s.plugin.restore(gone)
    expect(s.plugin.hash()).toBe(hash)
    const at = mapSnapshot(gone, layoutsOf(contextOf(s.plugin))).characters.get(s.c)!.joints
    expect(at).toBeGreaterThan(0)
    // a and b are the remembered ones; c's second joint is a's.
    const before = s.plugin.snapshot()
    const forged = forge(gone, [{ offset: at + 4, kind: 'i32', value: s.a + 2 }])
    rejects(
      () => s.plugin.restore(forged),
      new RegExp(`joint 1: entity ${s.a + 2} is already a joint of character ${s.a}`),
    )
    expect(s.plugin.hash()).toBe(hash)
    expect(s.plugin.snapshot()).toEqual(before)
    run(s, 81, 84)
    s.plugin.restore(gone)
    expect(s.plugin.hash()).toBe(hash)
  })

  it('makes a structure that differs, then the remembered one again', () => {
    const { s, bytes, hash } = warm()
    const map = mapSnapshot(bytes, layoutsOf(contextOf(s.plugin)))
    // a's root joint hung from character b: a real change of the hierarchy, which the restore relinks.
    const moved = forge(bytes, [{ offset: map.nodes.get(s.a + 1)!.parent, kind: 'i32', value: s.b }])
    s.plugin.restore(moved)
    expect(s.plugin.stores.SceneNode.parent[s.a + 1]).toBe(s.b)
    s.plugin.restore(bytes)
    expect(s.plugin.stores.SceneNode.parent[s.a + 1]).toBe(s.a)
    expect(s.plugin.hash()).toBe(hash)
  })

  it('plans again when the plugin made, removed or relinked its entities since', () => {
    const { s, bytes, hash } = warm()
    const added = s.plugin.addCharacter(fox)
    s.plugin.restore(bytes)
    expect(entityExists(s.world, added)).toBe(false)
    expect(s.plugin.hash()).toBe(hash)
    s.plugin.removeCharacter(s.c)
    s.plugin.restore(bytes)
    expect(s.plugin.hash()).toBe(hash)
    setSceneNodeParent(s.plugin.sceneGraph, s.a + 1, 0)
    s.plugin.restore(bytes)
    expect(s.plugin.stores.SceneNode.parent[s.a + 1]).toBe(s.a)
    expect(s.plugin.hash()).toBe(hash)
    // And once more with the plan kept.
    run(s, 80, 84)
    s.plugin.restore(bytes)
    expect(s.plugin.hash()).toBe(hash)
  })
})
