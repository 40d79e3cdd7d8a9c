/**
 * What generator edits (generators.ts) do to a file: each expands into mutate.ts `Mutation`s on one subject
 * (`expandEdit`), which applyCase writes back in the subject's own container. JSON nesting cannot go through
 * applyCase (its writer recurses, as JSON.stringify does), so `json.deep` and `json.wide` are text edits of the
 * written file (`applyTextEdits`). `buildFile` makes a case's file.
 */
import {
  applyCase,
  type JsonValue,
  type MutatedFile,
  type Mutation,
  type Subject,
  loadSubjects,
} from '../../test/helpers/mutate.ts'
import { nodeCount, type FileCase, type GenEdit } from './generators.ts'

type Json = { [key: string]: JsonValue }
const set = (kind: string, path: (string | number)[], value: JsonValue): Mutation => ({
  kind,
  op: 'set',
  path,
  value,
})

/** The float32 values of a plain FLOAT accessor of the subject, as in its file. */
function readFloats(subject: Subject, accessor: number): number[] {
  const layout = subject.floatLayout[accessor]!
  const bytes = subject.buffers[layout.buffer]!
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: number[] = []
  for (let e = 0; e < layout.count; e++) {
    for (let c = 0; c < layout.components; c++) {
      const at = layout.offset + e * layout.stride + 4 * c
      out.push(at + 4 <= bytes.length ? view.getFloat32(at, true) : NaN)
    }
  }
  return out
}

const floats = (
  kind: string,
  accessor: number,
  element: number,
  component: number,
  values: number[],
): Mutation => ({
  kind,
  op: 'floats',
  accessor,
  element,
  component,
  values,
})

/**
 * Mutations that append nodes to the subject's node list. Each new node's `parent` is the index of an earlier
 * new node, or -1 for `parent` (an existing node, or -1: a root of the default scene). With `skin`, skin 0
 * also gets them as joints, and loses its inverse bind matrices (identity then), whose count would not match.
 */
function addNodes(
  kind: string,
  subject: Subject,
  parent: number,
  added: { parent: number; translation: number[]; scale: number }[],
  skin: boolean,
): { mutations: Mutation[]; indices: number[] } {
  const json = subject.json
  const base = nodeCount(subject)
  const nodes: Json[] = structuredClone(json.nodes ?? [])
  const indices = added.map((_, k) => base + k)
  const childLists = new Map<number, number[]>()
  const roots: number[] = []
  added.forEach((a, k) => {
    const node: Json = { name: `fuzz${k}`, translation: a.translation }
    if (a.scale !== 1) node['scale'] = [a.scale, a.scale, a.scale]
    nodes.push(node)
    const p = a.parent >= 0 ? base + a.parent : parent
    if (p === -1) roots.push(base + k)
    else {
      let list = childLists.get(p)
      if (!list) childLists.set(p, (list = []))
      list.push(base + k)
    }
  })
  for (const [p, list] of childLists) {
    const node = nodes[p]!
    node['children'] = [...((node['children'] as number[] | undefined) ?? []), ...list]
  }
  const mutations = [set(kind, ['nodes'], nodes)]
  if (roots.length > 0) {
    const scene = json.scenes?.[json.scene ?? 0] !== undefined ? (json.scene ?? 0) : 0
    const existing: JsonValue[] = json.scenes?.[scene]?.nodes ?? []
    mutations.push(set(kind, ['scenes', scene, 'nodes'], [...existing, ...roots]))
  }
  if (skin && (json.skins?.length ?? 0) > 0) {
    mutations.push(set(kind, ['skins', 0, 'joints'], [...json.skins[0].joints, ...indices]))
    mutations.push({ kind, op: 'delete', path: ['skins', 0, 'inverseBindMatrices'] })
  }
  return { mutations, indices }
}

/** Channels of animation 0 that make `targets` follow samplers of animation 0 animating `path`. */
function animateNodes(kind: string, subject: Subject, targets: number[], path?: string): Mutation[] {
  const animation = subject.json.animations?.[0]
  if (!animation) return []
  const usable = (animation.channels as Json[]).filter(
    (c) =>
      (path === undefined || (c['target'] as Json)['path'] === path) &&
      (c['target'] as Json)['path'] !== 'weights',
  )
  if (usable.length === 0) return []
  const channels = structuredClone(animation.channels as JsonValue[])
  targets.forEach((node, k) => {
    const model = usable[k % usable.length]!
    channels.push({ sampler: model['sampler']!, target: { node, path: (model['target'] as Json)['path']! } })
  })
  return [set(kind, ['animations', 0, 'channels'], channels)]
}

/** The mutations one generator edit stands for (text edits expand to none: see applyTextEdits). */
export function expandEdit(subject: Subject, edit: GenEdit): Mutation[] {
  const kind = `gen.${edit.gen}`
  const json = subject.json
  switch (edit.gen) {
    case 'tree.deep': {
      const added = Array.from({ length: edit.depth }, (_, k) => ({
        parent: k - 1,
        translation: [0, edit.length, 0],
        scale: edit.scale,
      }))
      const { mutations, indices } = addNodes(kind, subject, edit.parent, added, edit.skin)
      if (!edit.animate) return mutations
      const picks = [0, indices.length >> 1, indices.length - 1].map((k) => indices[k]!)
      return [...mutations, ...animateNodes(kind, subject, [...new Set(picks)])]
    }
    case 'tree.wide': {
      const added = Array.from({ length: edit.width }, (_, k) => ({
        parent: -1,
        translation: [Math.cos(k) * edit.length, edit.length, Math.sin(k) * edit.length],
        scale: 1,
      }))
      const { mutations, indices } = addNodes(kind, subject, edit.parent, added, edit.skin)
      if (!edit.animate) return mutations
      return [...mutations, ...animateNodes(kind, subject, indices.slice(0, 64))]
    }
    case 'tree.bushy': {
      const added: { parent: number; translation: number[]; scale: number }[] = []
      let level = [-1]
      for (let l = 0; l < edit.levels; l++) {
        const next: number[] = []
        for (const p of level) {
          for (let b = 0; b < edit.branching; b++) {
            const angle = (2 * Math.PI * b) / edit.branching
            added.push({
              parent: p,
              translation: [Math.cos(angle) * edit.length, edit.length, Math.sin(angle) * edit.length],
              scale: 1,
            })
            next.push(added.length - 1)
          }
        }
        level = next
      }
      return addNodes(kind, subject, edit.parent, added, edit.skin).mutations
    }
    case 'scale.nested': {
      const v = [edit.value, edit.value, edit.value]
      const parent = subject.parents[edit.child]!
      return [set(kind, ['nodes', edit.child, 'scale'], v), set(kind, ['nodes', parent, 'scale'], v)]
    }
    case 'translation.huge-keys': {
      const layout = subject.floatLayout[edit.output]!
      const keys = edit.key === -1 ? Array.from({ length: layout.count }, (_, k) => k) : [edit.key]
      const out = keys.map((k) => floats(kind, edit.output, k, 0, [edit.value, -edit.value, edit.value]))
      // The nodes this output animates get a parent scaled by parentScale: their own if they have one, else a
      // new root above them.
      const targets = new Set<number>()
      for (const a of (json.animations ?? []) as Json[]) {
        for (const c of a['channels'] as Json[]) {
          const sampler = (a['samplers'] as Json[])[c['sampler'] as number]
          if (sampler?.['output'] === edit.output) targets.add((c['target'] as Json)['node'] as number)
        }
      }
      const s = [edit.parentScale, edit.parentScale, edit.parentScale]
      const nodes: Json[] = structuredClone(json.nodes)
      const scenes: Json[] = structuredClone(json.scenes ?? [])
      for (const t of targets) {
        const p = subject.parents[t]
        if (p === undefined) continue
        if (p >= 0) nodes[p]!['scale'] = s
        else {
          nodes.push({ name: `fuzz-scale-${t}`, scale: s, children: [t] })
          for (const scene of scenes)
            scene['nodes'] = ((scene['nodes'] as number[]) ?? []).map((r) => (r === t ? nodes.length - 1 : r))
        }
      }
      return [...out, set(kind, ['nodes'], nodes), set(kind, ['scenes'], scenes)]
    }
    case 'node.huge': {
      const v = edit.value
      if (edit.field === 'translation') return [set(kind, ['nodes', edit.node, 'translation'], [v, -v, v])]
      if (edit.field === 'scale') return [set(kind, ['nodes', edit.node, 'scale'], [v, v, -v])]
      const node = json.nodes[edit.node] as Json
      const rest: Mutation[] = ['translation', 'rotation', 'scale']
        .filter((f) => node[f] !== undefined)
        .map((f) => ({ kind, op: 'delete', path: ['nodes', edit.node, f] }))
      return [
        ...rest,
        set(kind, ['nodes', edit.node, 'matrix'], [v, 0, 0, 0, 0, v, 0, 0, 0, 0, v, 0, v, v, v, 1]),
      ]
    }
    case 'values.nonfinite': {
      const layout = subject.floatLayout[edit.output]!
      const element = Array.from({ length: layout.components }, () => edit.value)
      if (edit.what === 'component') return [floats(kind, edit.output, edit.element, 0, [edit.value])]
      if (edit.what === 'element') return [floats(kind, edit.output, edit.element, 0, element)]
      return Array.from({ length: layout.count }, (_, e) => floats(kind, edit.output, e, 0, element))
    }
    case 'ibm.values': {
      const v = edit.value
      const at = (component: number, value = v): Mutation =>
        floats(kind, edit.accessor, edit.element, component, [value])
      if (edit.where === 'translation') return [at(12), at(13, -v), at(14)]
      if (edit.where === 'diagonal') return [at(0), at(5), at(10)]
      if (edit.where === 'last-row') return [at(3), at(15)]
      return [at(edit.component)]
    }
    case 'times.scaled': {
      const times = readFloats(subject, edit.input)
      return times.map((t, k) => floats(kind, edit.input, k, 0, [Math.fround(t * edit.factor)]))
    }
    case 'anims.copies': {
      const accessors: JsonValue[] = structuredClone(json.accessors ?? [])
      const first = json.animations[0] as Json
      const animations = Array.from({ length: edit.copies }, (_, k) => {
        const copy: Json = { ...structuredClone(first), name: `copy${k}` }
        if (edit.alias) {
          copy['samplers'] = (copy['samplers'] as Json[]).map((sampler) => {
            const aliased = { ...sampler }
            for (const key of ['input', 'output']) {
              accessors.push(structuredClone(accessors[sampler[key] as number]!))
              aliased[key] = accessors.length - 1
            }
            return aliased
          })
        }
        return copy
      })
      const out = [set(kind, ['animations'], animations)]
      return edit.alias ? [set(kind, ['accessors'], accessors), ...out] : out
    }
    case 'json.deep':
    case 'json.wide':
      return []
  }
}

/** Nested JSON text: `depth` openings, a 0, and the closings. */
function deepText(depth: number, open: string): string {
  const close = open === '[' ? ']' : '}'
  return `${open.repeat(depth)}0${close.repeat(depth)}`
}

/** The JSON text edits of a case applied to a written file (GLB chunk lengths fixed). */
export function applyTextEdits(file: MutatedFile, edits: readonly GenEdit[]): MutatedFile {
  const texts = edits.flatMap((e) =>
    e.gen === 'json.deep'
      ? [{ at: e.at, text: deepText(e.depth, e.open) }]
      : e.gen === 'json.wide'
        ? [{ at: e.at, text: `[${'0,'.repeat(e.width - 1)}0]` }]
        : [],
  )
  if (texts.length === 0) return file
  const bytes = file.bytes
  const glb =
    bytes.length >= 20 && new DataView(bytes.buffer, bytes.byteOffset).getUint32(0, true) === 0x46546c67
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const jsonLength = glb ? view.getUint32(12, true) : bytes.length
  const textStart = glb ? 20 : 0
  let text = new TextDecoder().decode(bytes.subarray(textStart, textStart + jsonLength))
  for (const t of texts) {
    // After the root's `{`, or after the first node's `{` (a file without nodes gets it at the root).
    const node = t.at === 'node' ? text.indexOf('"nodes":[{') : -1
    const at = node === -1 ? text.indexOf('{') + 1 : node + '"nodes":[{'.length
    if (at <= 0) continue
    text = `${text.slice(0, at)}"extras":${t.text},${text.slice(at)}`
  }
  const encoded = new TextEncoder().encode(text)
  if (!glb) return { ...file, bytes: encoded, json: null }
  const padded = Math.ceil(encoded.length / 4) * 4
  const rest = bytes.subarray(20 + jsonLength)
  const out = new Uint8Array(20 + padded + rest.length)
  const w = new DataView(out.buffer)
  out.set(bytes.subarray(0, 20))
  out.fill(0x20, 20, 20 + padded)
  out.set(encoded, 20)
  out.set(rest, 20 + padded)
  w.setUint32(8, out.length, true)
  w.setUint32(12, padded, true)
  return { ...file, bytes: out, json: null }
}

/** The file of a case: mutations, then generator edits expanded, written, then text edits. */
export function buildFile(fileCase: FileCase): MutatedFile {
  const subject = loadSubjects()[fileCase.subject]!
  const edits = fileCase.gen ?? []
  const mutations = [...fileCase.mutations, ...edits.flatMap((e) => expandEdit(subject, e))]
  return applyTextEdits(applyCase({ subject: fileCase.subject, mutations }), edits)
}
