/**
 * A node forest laid out for linear-time questions, built once per file and shared by the cycle checks and
 * every skeleton. No recursion anywhere: a file may nest its nodes as deep as it has nodes.
 *
 * Nodes are numbered in depth-first pre-order (roots in ascending index, each node's children in ascending
 * index), so a node's descendants are the contiguous run of positions after its own:
 *
 *   j is a descendant-or-self of i   ⇔   enter[i] ≤ enter[j] < exit[i]
 */
export interface NodeTree {
  /** Parent of node i, or -1 for a root. */
  readonly parents: ArrayLike<number>
  /** Position of node i in pre-order. */
  readonly enter: Int32Array
  /** One past the position of node i's last descendant. */
  readonly exit: Int32Array
  /**
   * An ancestor of node i (itself for a root), spaced so that a search up the tree for the first ancestor with
   * a property that holds from some ancestor upwards takes O(log depth) steps (skew-binary jump pointers).
   */
  readonly jump: Int32Array
}

/**
 * Builds the tree of `parents` (each an index in [-1, n)) in O(n). When the parents have a cycle, calls
 * `onCycle` with the lowest-index node on one (a node that is its own ancestor), which must throw.
 */
export function buildNodeTree(parents: ArrayLike<number>, onCycle: (node: number) => never): NodeTree {
  const n = parents.length
  // Children in ascending index, as one flat array: node p's are kids[start[p] .. start[p + 1]).
  const start = new Int32Array(n + 1)
  for (let i = 0; i < n; i++) {
    const p = parents[i]!
    if (!Number.isInteger(p) || p < -1 || p >= n)
      throw new Error(`node ${i}: parent ${p} is not in [-1, ${n})`)
    if (p !== -1) start[p + 1]!++
  }
  for (let p = 0; p < n; p++) start[p + 1]! += start[p]!
  const kids = new Int32Array(start[n]!)
  const filled = start.slice(0, n)
  for (let i = 0; i < n; i++) {
    const p = parents[i]!
    if (p !== -1) kids[filled[p]!++] = i
  }

  // Pre-order with an explicit stack; children pushed last-first so they come out in ascending index.
  const order = new Int32Array(n)
  const enter = new Int32Array(n).fill(-1)
  const depth = new Int32Array(n)
  const jump = new Int32Array(n)
  const stack = new Int32Array(n)
  let visited = 0
  for (let root = 0; root < n; root++) {
    if (parents[root] !== -1) continue
    let top = 0
    stack[top++] = root
    while (top > 0) {
      const node = stack[--top]!
      enter[node] = visited
      order[visited++] = node
      const p = parents[node]!
      if (p === -1) {
        jump[node] = node
      } else {
        // Jump twice as far as the parent's jump when the parent's two jumps are equally long, else to the parent.
        depth[node] = depth[p]! + 1
        const j = jump[p]!
        jump[node] = depth[p]! - depth[j]! === depth[j]! - depth[jump[j]!]! ? jump[j]! : p
      }
      for (let k = start[node + 1]! - 1; k >= start[node]!; k--) stack[top++] = kids[k]!
    }
  }

  if (visited < n) {
    // An unvisited node never reaches a root going up, so n steps up from one land on a cycle.
    let node = enter.indexOf(-1)
    for (let k = 0; k < n; k++) node = parents[node]!
    let lowest = node
    for (let p = parents[node]!; p !== node; p = parents[p]!) lowest = Math.min(lowest, p)
    onCycle(lowest)
  }

  // Subtree sizes, children before parents (reverse pre-order).
  const exit = new Int32Array(n)
  for (let k = n - 1; k >= 0; k--) {
    const node = order[k]!
    exit[node]! += enter[node]! + 1
    const p = parents[node]!
    if (p !== -1) exit[p]! += exit[node]! - enter[node]!
  }
  return { parents, enter, exit, jump }
}

/** True when `node` is `ancestor` or one of its descendants. */
export function isAncestorOrSelf(tree: NodeTree, ancestor: number, node: number): boolean {
  const at = tree.enter[node]!
  return tree.enter[ancestor]! <= at && at < tree.exit[ancestor]!
}

/** The deepest node that is an ancestor-or-self of both `a` and `b`, or -1 when they are in different trees. */
export function commonAncestor(tree: NodeTree, a: number, b: number): number {
  // Ancestors of `a` that hold `b` are those from the answer upwards: skip by jump pointer while the jump
  // target does not hold `b` either, else step to the parent.
  let node = a
  while (!isAncestorOrSelf(tree, node, b)) {
    const j = tree.jump[node]!
    node = j !== node && !isAncestorOrSelf(tree, j, b) ? j : tree.parents[node]!
    if (node === -1) return -1
  }
  return node
}
