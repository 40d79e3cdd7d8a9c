/**
 * The fuzzer's judges are not the library: gltf-validator's own failures are kept apart from the library's.
 * Its scene walk recurses once per level of node children and its stack overflow escapes its promise, so a
 * deep chain once killed a fuzz worker in the validate stage, which the report counted as a library error
 * (the loader had refused the file, over MAX_NODES). Now such a file is not given to it, and a worker that
 * dies inside it counts as the judge broken.
 */
import { describe, expect, it } from 'vitest'
import type { FuzzCaseSpec } from '../../scripts/fuzz/cases.ts'
import type { CaseOutcome } from '../../scripts/fuzz/pool.ts'
import { Tally } from '../../scripts/fuzz/report.ts'
import { buildFile } from '../../scripts/fuzz/expand.ts'
import { nodeDepth, runLoader, runValidator, VALIDATOR_MAX_NODE_DEPTH } from '../helpers/fuzzJudges.ts'
import type { Json } from '../helpers/gltfFiles.ts'
import { loadSubjects, type MutatedFile } from '../helpers/mutate.ts'

function chainJson(n: number, reversed = false): Json {
  const nodes: Json[] = Array.from({ length: n }, () => ({}))
  for (let i = 0; i + 1 < n; i++) {
    if (reversed) nodes[i + 1].children = [i]
    else nodes[i].children = [i + 1]
  }
  return { asset: { version: '2.0' }, nodes, scenes: [{ nodes: [reversed ? n - 1 : 0] }], scene: 0 }
}

function fileOf(json: Json, keepJson: boolean): MutatedFile {
  return {
    source: 'chain.gltf',
    bytes: new TextEncoder().encode(JSON.stringify(json)),
    resources: {},
    json: keepJson ? json : null,
    buffers: [],
  }
}

describe('nodeDepth', () => {
  it('counts the nodes on the longest path down, whichever way the indices run', () => {
    expect(nodeDepth(chainJson(20_000))).toBe(20_000)
    expect(nodeDepth(chainJson(20_000, true))).toBe(20_000)
    const wide = { nodes: [{ children: [1, 2, 3] }, {}, {}, { children: [4] }, {}] }
    expect(nodeDepth(wide)).toBe(3)
  })

  it('walks cycles and malformed entries without failing', () => {
    expect(nodeDepth({ nodes: [{ children: [1] }, { children: [0] }] })).toBe(2)
    expect(nodeDepth({ nodes: [null, 5, { children: 'x' }, { children: [-1, 1.5, 99, 2] }] })).toBe(2)
    expect(nodeDepth({ nodes: 'none' })).toBe(0)
    expect(nodeDepth(null)).toBe(0)
  })
})

describe('runValidator on a node chain deeper than its recursion takes', () => {
  const subject = loadSubjects().find((s) => s.container !== 'glb')!
  it.each([
    ['the JSON at hand', true],
    ['the JSON read back from the bytes (after a byte edit)', false],
  ])('does not give it a 16,000-node chain (%s): it cannot judge it', async (_, keepJson) => {
    expect(16_000).toBeGreaterThan(VALIDATOR_MAX_NODE_DEPTH)
    expect(await runValidator(fileOf(chainJson(16_000), keepJson), subject)).toBeNull()
  })
})

describe('the report', () => {
  const spec: FuzzCaseSpec = {
    index: 0,
    file: { subject: 0, mutations: [] },
    seed: 1,
    forgeries: 0,
    calls: 0,
    validate: true,
  }
  const died = (stage: string): CaseOutcome => ({
    spec,
    wallMs: 1,
    killed: { run: 'validate', reason: 'died', detail: ': Stack Overflow', ms: 1, stage },
  })

  it('counts a worker that died inside gltf-validator as the judge broken, not a library error', () => {
    const tally = new Tally(2000, 256)
    tally.record(died('gltf-validator'))
    expect(tally.targets.get('errors')).toEqual([])
    expect(tally.validation.validatorBroken).toBe(1)
    expect(tally.extras.map((f) => f.target)).toEqual(['validator'])
  })

  it('still counts a worker that died in the loader judge (the library runs there) as an error', () => {
    const tally = new Tally(2000, 256)
    tally.record(died('loader judge'))
    expect(tally.targets.get('errors')).toHaveLength(1)
    expect(tally.validation.validatorBroken).toBe(0)
  })
})

describe('the loader judge', () => {
  it('counts a CUBICSPLINE sample that overflows float32 on values of 3.4e38 as overflow, not broken', async () => {
    // Seed 2031: InterpolationTest's "CubicSpline Scale" output set to 3.4e38 everywhere. The file is valid
    // glTF; the Hermite curve between keys passes the float32 limit.
    const file = buildFile({
      subject: loadSubjects().findIndex((s) => s.file === 'InterpolationTest/glTF/InterpolationTest.gltf'),
      mutations: [],
      gen: [{ gen: 'values.nonfinite', output: 45, element: 8, what: 'all', value: 3.4e38 }],
    })
    const outcome = await runLoader(file)
    expect(outcome.status).toBe('accepted')
    if (outcome.status !== 'accepted') return
    expect(outcome.overflow).toMatch(/^clip "CubicSpline Scale" at .*: node \d+ transform not finite; /)
  })
})
