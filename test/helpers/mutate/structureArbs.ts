/**
 * Mutations of the glTF structure: animation samplers and channels, nodes, skins, scenes, buffer views and
 * buffers, then untargeted edits, deletions, unknown fields and extensions (the second part of one subject's
 * arbitraries, in makeMutationArb's order).
 */
import fc from 'fast-check'
import type { JsonValue, Mutation } from '../mutate.ts'
import { set, indexValue, oddValue, pick, type MutationArbContext } from './values.ts'

export function addStructureMutations(c: MutationArbContext): void {
  const { subject, j, nAccessors, nViews, nBuffers, nNodes, nSkins, nScenes, animations, add } = c
  // Animations: samplers and channels.
  if (animations.length > 0) {
    const animation = fc.nat(animations.length - 1)
    const sampler = animation.chain((a) =>
      fc.tuple(fc.constant(a), fc.nat(animations[a].samplers.length - 1)),
    )
    const channel = animation.chain((a) =>
      fc.tuple(fc.constant(a), fc.nat(animations[a].channels.length - 1)),
    )
    add(
      3,
      fc
        .tuple(
          sampler,
          fc.constantFrom<JsonValue | undefined>(
            'STEP',
            'LINEAR',
            'CUBICSPLINE',
            'linear',
            'Step',
            'CUBIC',
            'SMOOTH',
            '',
            ' LINEAR',
            0,
            null,
            undefined,
          ),
        )
        .map(([[a, s], value]): Mutation => {
          const path = ['animations', a, 'samplers', s, 'interpolation']
          return value === undefined
            ? { kind: 'sampler.interpolation', op: 'delete', path }
            : set('sampler.interpolation', path, value)
        }),
    )
    add(
      2,
      fc
        .tuple(sampler, fc.constantFrom('input', 'output'), indexValue(nAccessors))
        .map(([[a, s], which, value]) =>
          set(`sampler.${which}`, ['animations', a, 'samplers', s, which], value),
        ),
    )
    add(
      2,
      fc
        .tuple(channel, indexValue(nNodes))
        .map(([[a, c], value]) =>
          set('channel.node', ['animations', a, 'channels', c, 'target', 'node'], value),
        ),
    )
    add(
      1,
      fc
        .tuple(
          channel,
          fc.constantFrom<JsonValue>(
            'translation',
            'rotation',
            'scale',
            'weights',
            'Rotation',
            'pointer',
            '',
            3,
          ),
        )
        .map(([[a, c], value]) =>
          set('channel.path', ['animations', a, 'channels', c, 'target', 'path'], value),
        ),
    )
    add(
      1,
      fc
        .tuple(channel, fc.nat(20))
        .map(([[a, c], s]) => set('channel.sampler', ['animations', a, 'channels', c, 'sampler'], s)),
    )
    add(
      2,
      fc
        .tuple(channel, fc.constantFrom('duplicate', 'retarget', 'drop', 'drop-sampler', 'no-node', 'empty'))
        .map(([[a, c], how]): Mutation => {
          const anim = structuredClone(animations[a])
          const copy = anim.channels[c]
          if (how === 'duplicate') anim.channels.push(structuredClone(copy))
          else if (how === 'retarget')
            anim.channels.push({ ...copy, target: { ...copy.target, node: (copy.target.node + 1) % nNodes } })
          else if (how === 'drop') anim.channels.splice(c, 1)
          else if (how === 'drop-sampler') anim.samplers.splice(copy.sampler, 1)
          else if (how === 'no-node') delete copy.target.node
          else anim.channels = []
          return set(`animation.${how}`, ['animations', a], anim)
        }),
    )
  }

  // Nodes, skins, scenes.
  if (nNodes > 0) {
    const node = fc.nat(nNodes - 1)
    add(
      3,
      fc
        .tuple(
          node,
          fc.constantFrom('ancestor', 'self', 'any', 'duplicate', 'out-of-range', 'negative', 'none', 'drop'),
          fc.nat(nNodes - 1),
        )
        .map(([i, how, other]) => {
          const children: JsonValue[] = [...(j.nodes[i].children ?? [])]
          const ancestors: number[] = []
          for (let p = subject.parents[i]!; p !== -1; p = subject.parents[p]!) ancestors.push(p)
          if (how === 'ancestor')
            children.push(ancestors.length > 0 ? ancestors[other % ancestors.length]! : i)
          else if (how === 'self') children.push(i)
          else if (how === 'any') children.push(other)
          else if (how === 'duplicate') children.push(children.length > 0 ? children[0]! : other)
          else if (how === 'out-of-range') children.push(nNodes)
          else if (how === 'negative') children.push(-1)
          else if (how === 'none') return set('node.children', ['nodes', i, 'children'], [])
          else children.splice(other % Math.max(1, children.length), 1)
          return set(`node.children`, ['nodes', i, 'children'], children)
        }),
    )
    add(
      2,
      fc
        .tuple(
          node,
          fc.constantFrom<[string, JsonValue]>(
            ['rotation', [0, 0, 0, 0]],
            ['rotation', [0, 0, 0, 2]],
            ['rotation', [0, 0, 1e-9, 0]],
            ['rotation', [1, 0, 0]],
            ['translation', [1e999, 0, 0]],
            ['translation', [3e38, 3e38, 3e38]],
            ['scale', [0, 0, 0]],
            ['scale', [-1, 1, 1]],
            ['matrix', [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]],
            ['matrix', [1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]],
            ['matrix', [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
            ['matrix', [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0]],
            ['weights', [0.5]],
            ['mesh', 0],
            ['skin', 0],
          ),
        )
        .map(([i, [name, value]]) => set(`node.${name}`, ['nodes', i, name], value)),
    )
  }
  if (nSkins > 0) {
    const skin = fc.nat(nSkins - 1)
    add(
      3,
      fc
        .tuple(
          skin,
          fc.constantFrom('duplicate', 'out-of-range', 'negative', 'drop', 'add', 'reverse', 'empty'),
          fc.nat(nNodes - 1),
        )
        .map(([s, how, other]) => {
          const joints: JsonValue[] = [...j.skins[s].joints]
          if (how === 'duplicate') joints.push(joints[other % joints.length]!)
          else if (how === 'out-of-range') joints[other % joints.length] = nNodes
          else if (how === 'negative') joints[other % joints.length] = -1
          else if (how === 'drop') joints.splice(other % joints.length, 1)
          else if (how === 'add') joints.push(other)
          else if (how === 'reverse') joints.reverse()
          else joints.length = 0
          return set('skin.joints', ['skins', s, 'joints'], joints)
        }),
    )
    add(
      1,
      fc
        .tuple(skin, fc.oneof(indexValue(nNodes), fc.constant(undefined)))
        .map(([s, value]): Mutation =>
          value === undefined
            ? { kind: 'skin.skeleton', op: 'delete', path: ['skins', s, 'skeleton'] }
            : set('skin.skeleton', ['skins', s, 'skeleton'], value),
        ),
    )
    add(
      1,
      fc
        .tuple(skin, fc.oneof(indexValue(nAccessors), fc.constant(undefined)))
        .map(([s, value]): Mutation =>
          value === undefined
            ? { kind: 'skin.ibm', op: 'delete', path: ['skins', s, 'inverseBindMatrices'] }
            : set('skin.ibm', ['skins', s, 'inverseBindMatrices'], value),
        ),
    )
  }
  if (nScenes > 0) {
    add(
      1,
      fc
        .tuple(
          fc.nat(nScenes - 1),
          fc.constantFrom('non-root', 'duplicate', 'out-of-range', 'empty'),
          fc.nat(nNodes - 1),
        )
        .map(([s, how, other]) => {
          const roots: JsonValue[] = [...(j.scenes[s].nodes ?? [])]
          const nonRoot = subject.parents.findIndex((p) => p !== -1)
          if (how === 'non-root') roots.push(nonRoot === -1 ? other : nonRoot)
          else if (how === 'duplicate') roots.push(roots[0] ?? other)
          else if (how === 'out-of-range') roots.push(nNodes)
          else roots.length = 0
          return set('scene.nodes', ['scenes', s, 'nodes'], roots)
        }),
    )
    add(
      1,
      indexValue(nScenes).map((value) => set('scene.default', ['scene'], value)),
    )
  }

  // Buffer views and buffers.
  if (nViews > 0) {
    add(
      2,
      fc
        .tuple(fc.nat(nViews - 1), fc.constantFrom('byteLength', 'byteOffset', 'byteStride', 'buffer'))
        .chain(([v, name]) => {
          const view = j.bufferViews[v]
          const values: Record<string, JsonValue[]> = {
            byteLength: [view.byteLength - 1, view.byteLength - 4, view.byteLength + 4, 0, -1, 2 ** 32, 1.5],
            byteOffset: [
              (view.byteOffset ?? 0) + 4,
              (view.byteOffset ?? 0) + 1,
              (view.byteOffset ?? 0) - 4,
              -1,
              2 ** 32,
            ],
            byteStride: [4, 8, 12, 16, 3, 5, 64, 252, 256, 0],
            buffer: [nBuffers, -1, 0, '0'],
          }
          return pick(values[name]!).map((value) =>
            set(`bufferView.${name}`, ['bufferViews', v, name], value),
          )
        }),
    )
  }
  if (nBuffers > 0) {
    add(
      1,
      fc
        .tuple(fc.nat(nBuffers - 1), fc.constantFrom(-4, -1, 1, 4, 1e6))
        .map(([b, delta]) =>
          set(
            'buffer.byteLength',
            ['buffers', b, 'byteLength'],
            Math.max(0, j.buffers[b].byteLength + delta),
          ),
        ),
    )
    add(
      1,
      fc
        .tuple(
          fc.nat(nBuffers - 1),
          fc.constantFrom<JsonValue>(
            'missing.bin',
            'data:,abc',
            'data:application/octet-stream;base64,!!',
            'http://x/y.bin',
            7,
          ),
        )
        .map(([b, value]) => set('buffer.uri', ['buffers', b, 'uri'], value)),
    )
  }

  // Untargeted JSON edits, deletions, unknown fields, extensions.
  add(
    2,
    pick(subject.requiredPaths).map((path): Mutation => ({ kind: 'delete.required', op: 'delete', path })),
  )
  add(
    1,
    pick(subject.paths.slice(1)).map((path): Mutation => ({ kind: 'delete.any', op: 'delete', path })),
  )
  add(
    2,
    fc.tuple(pick(subject.paths.slice(1)), oddValue).map(([path, value]) => set('set.any', path, value)),
  )
  add(
    1,
    fc
      .tuple(
        pick(subject.objectPaths),
        fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom('extras', 'extensions')),
        oddValue,
      )
      .map(([path, key, value]) =>
        set('unknown.field', [...path, key], key === 'extensions' ? { EXT_unknown: value } : value),
      ),
  )
  add(
    2,
    fc
      .tuple(
        fc.constantFrom('extensionsRequired', 'extensionsUsed'),
        fc.constantFrom<JsonValue>(
          ['EXT_unknown_thing'],
          ['KHR_draco_mesh_compression'],
          ['KHR_mesh_quantization'],
          ['KHR_animation_pointer'],
          ['KHR_texture_transform'],
          [],
          'KHR_mesh_quantization',
          [3],
        ),
      )
      .map(([key, value]) => set('extensions', [key], value)),
  )
}
