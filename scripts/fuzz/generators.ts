/**
 * File mutations test/helpers/mutate.ts does not make, aimed at the step rather than the reader: node trees
 * thousands of nodes deep or wide (and bushy ones a generated ragdoll gives hundreds of bodies), huge and
 * negative scales and translations that overflow float32 down a chain, non-finite and huge floats in
 * animation outputs and inverse bind matrices, key times scaled to the edges of float32, and JSON nested or
 * widened past what a recursive reader survives, and a file's animations copied thousands of times.
 *
 * Each edit is small plain data (`GenEdit`, so a case prints and replays as a line of JSON) and expands into
 * mutate.ts `Mutation`s on one subject (expand.ts: expandEdit, and buildFile, which writes a case's file).
 */
import fc from 'fast-check'
import type { FuzzCase, Subject } from '../../test/helpers/mutate.ts'

export type GenEdit =
  /**
   * A chain of `depth` new nodes under `parent` (-1: a new root of the default scene), each `length` up its
   * parent and scaled by `scale`; `animate`: channels drive some of them; `skin`: they join skin 0.
   */
  | {
      gen: 'tree.deep'
      parent: number
      depth: number
      length: number
      scale: number
      animate: boolean
      skin: boolean
    }
  /** `width` new leaf nodes under `parent`. */
  | { gen: 'tree.wide'; parent: number; width: number; length: number; animate: boolean; skin: boolean }
  /** A complete tree of `levels` levels with `branching` children per node, bones `length` long. */
  | { gen: 'tree.bushy'; parent: number; branching: number; levels: number; length: number; skin: boolean }
  /** Scale `value` on a node and on its child: nested, so the world matrix gets value². */
  | { gen: 'scale.nested'; child: number; value: number }
  /** Translation keys (`key`, or every key for -1) set to ±`value`, the animated nodes' parent scaled by `parentScale`. */
  | { gen: 'translation.huge-keys'; output: number; key: number; value: number; parentScale: number }
  /** A node's rest translation, scale or matrix made of `value` (huge, tiny or negative). */
  | { gen: 'node.huge'; node: number; field: 'translation' | 'scale' | 'matrix'; value: number }
  /** Animation output floats: one component, one whole element, or every element. */
  | {
      gen: 'values.nonfinite'
      output: number
      element: number
      what: 'component' | 'element' | 'all'
      value: number
    }
  /** Inverse bind matrix floats. */
  | {
      gen: 'ibm.values'
      accessor: number
      element: number
      where: 'translation' | 'diagonal' | 'last-row' | 'one'
      component: number
      value: number
    }
  /** Every key time of an input multiplied by `factor` (the order kept while float32 can keep it). */
  | { gen: 'times.scaled'; input: number; factor: number }
  /** `depth` nested arrays or objects in an extras field of the root or of node 0. */
  | { gen: 'json.deep'; depth: number; open: '[' | '{"a":'; at: 'root' | 'node' }
  /** An extras array of `width` numbers. */
  | { gen: 'json.wide'; width: number; at: 'root' | 'node' }
  /**
   * The animations replaced by `copies` copies of the first (issue 33: load time grew faster than the file);
   * `alias`: each copy's samplers read accessors of their own over the same bytes, so nothing is shared.
   */
  | { gen: 'anims.copies'; copies: number; alias: boolean }

/** A case of this fuzzer's own: a subject, mutate.ts mutations (maybe none) and generator edits. */
export interface FileCase extends FuzzCase {
  gen?: GenEdit[]
}

/**
 * Node counts of the generated trees: mostly hundreds to thousands; rarely (each such run takes seconds)
 * tens of thousands, or past what a character may hold (65,535 nodes), which must be refused, and quickly.
 */
const size: fc.Arbitrary<number> = fc.oneof(
  { weight: 15, arbitrary: fc.constantFrom(50, 300) },
  { weight: 20, arbitrary: fc.constantFrom(1000, 2000) },
  { weight: 10, arbitrary: fc.constant(4000) },
  { weight: 1, arbitrary: fc.constantFrom(16000, 65600) },
)

/** The subject's node count (new nodes are appended after it). */
export const nodeCount = (s: Subject): number => s.json.nodes?.length ?? 0

/** The generator edits one subject can take. */
export function genArb(subject: Subject): fc.Arbitrary<GenEdit> {
  const n = nodeCount(subject)
  const parent = fc.integer({ min: -1, max: n - 1 })
  const layouts = subject.floatLayout
  const outputs = subject.animationOutputs.filter((o) => layouts[o.accessor] !== undefined)
  const translations = outputs.filter((o) => o.path === 'translation')
  const inputs = subject.animationInputs.filter((a) => layouts[a] !== undefined)
  const ibms = subject.ibmAccessors.filter((a) => layouts[a] !== undefined)
  const children = subject.parents.flatMap((p, i) => (p === -1 ? [] : [i]))
  const huge = fc.constantFrom(1e20, -1e20, 1e37, -1e37, 3.4e38, -3.4e38, 1e19, 1e-30, -1, 0)
  const nonFinite = fc.constantFrom(NaN, Infinity, -Infinity, 3.4e38, -3.4e38, 1e38, 1e-45, -0)
  const arbs: fc.Arbitrary<GenEdit>[] = [
    fc.record({
      gen: fc.constant('tree.deep' as const),
      parent,
      depth: size,
      length: fc.constantFrom(0.01, 1, 100, 0),
      scale: fc.constantFrom(1, 1, 1.5, 0.5, -1, 1e5),
      animate: fc.boolean(),
      skin: fc.boolean(),
    }),
    fc.record({
      gen: fc.constant('tree.wide' as const),
      parent,
      width: size,
      length: fc.constantFrom(0.01, 1, 100),
      animate: fc.boolean(),
      skin: fc.boolean(),
    }),
    fc.record({
      gen: fc.constant('tree.bushy' as const),
      parent,
      // Mostly tens to a hundred bodies for a generated ragdoll; now and then a thousand and more.
      branching: fc.integer({ min: 2, max: 10 }),
      levels: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(2, 3) },
        { weight: 1, arbitrary: fc.constant(4) },
      ),
      length: fc.constantFrom(0.3, 1, 10),
      skin: fc.boolean(),
    }),
    fc.record({
      gen: fc.constant('node.huge' as const),
      node: fc.nat(n - 1),
      field: fc.constantFrom('translation' as const, 'scale' as const, 'matrix' as const),
      value: huge,
    }),
    fc.record({
      gen: fc.constant('json.deep' as const),
      depth: fc.constantFrom(100, 3000, 20000, 200000),
      open: fc.constantFrom('[' as const, '{"a":' as const),
      at: fc.constantFrom('root' as const, 'node' as const),
    }),
    fc.record({
      gen: fc.constant('json.wide' as const),
      width: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(10000, 300000) },
        { weight: 1, arbitrary: fc.constant(2000000) },
      ),
      at: fc.constantFrom('root' as const, 'node' as const),
    }),
  ]
  if ((subject.json.animations?.length ?? 0) > 0) {
    arbs.push(
      fc.record({
        gen: fc.constant('anims.copies' as const),
        // Mostly tens to a thousand; now and then the most a file may have (MAX_CLIPS), or more.
        copies: fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom(10, 100, 1000) },
          { weight: 1, arbitrary: fc.constantFrom(4096, 5000) },
        ),
        alias: fc.boolean(),
      }),
    )
  }
  if (children.length > 0) {
    arbs.push(
      fc.record({
        gen: fc.constant('scale.nested' as const),
        child: fc.constantFrom(...children),
        value: fc.constantFrom(1e20, -1e20, 1e19, 1e10, 3.4e38, 1e-20, 1e-30, 0),
      }),
    )
  }
  if (translations.length > 0) {
    arbs.push(
      fc.constantFrom(...translations).chain((o) =>
        fc.record({
          gen: fc.constant('translation.huge-keys' as const),
          output: fc.constant(o.accessor),
          key: fc.integer({ min: -1, max: layouts[o.accessor]!.count - 1 }),
          value: fc.constantFrom(1e37, -1e37, 3.4e38, 1e30, 1e20),
          parentScale: fc.constantFrom(100, -100, 1e5, 1e20, 1),
        }),
      ),
    )
  }
  if (outputs.length > 0) {
    arbs.push(
      fc.constantFrom(...outputs).chain((o) =>
        fc.record({
          gen: fc.constant('values.nonfinite' as const),
          output: fc.constant(o.accessor),
          element: fc.nat(layouts[o.accessor]!.count - 1),
          what: fc.constantFrom('component' as const, 'element' as const, 'all' as const),
          value: nonFinite,
        }),
      ),
    )
  }
  if (ibms.length > 0) {
    arbs.push(
      fc.constantFrom(...ibms).chain((a) =>
        fc.record({
          gen: fc.constant('ibm.values' as const),
          accessor: fc.constant(a),
          element: fc.nat(layouts[a]!.count - 1),
          where: fc.constantFrom(
            'translation' as const,
            'diagonal' as const,
            'last-row' as const,
            'one' as const,
          ),
          component: fc.nat(15),
          value: fc.constantFrom(NaN, Infinity, -Infinity, 1e30, 3.4e38, 1e20, 0, 1e-30),
        }),
      ),
    )
  }
  if (inputs.length > 0) {
    arbs.push(
      fc.record({
        gen: fc.constant('times.scaled' as const),
        input: fc.constantFrom(...inputs),
        factor: fc.constantFrom(1e30, 1e36, 1e38, 1e-30, 1e-38, 1e-44, -1, 0),
      }),
    )
  }
  return fc.oneof(...arbs)
}

/** A generator edit as one line, for reports. */
export function describeEdit(edit: GenEdit): string {
  const { gen, ...rest } = edit
  return `gen.${gen} (${Object.entries(rest)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ')})`
}
