/**
 * The first place where two values differ, as a path (`clips[2].channels[5].values`), or null when they are
 * equal: what vitest's toEqual checks (own enumerable keys, an undefined property the same as none, NaN equal
 * to NaN, +0 and −0 different), with typed arrays compared as bytes of the same type. toEqual walks a typed
 * array element by element through its generic equality: on two Fox assets (their clips' keys and per-segment
 * caches) it took 11–15 s a comparison under load; this takes milliseconds.
 */
export function deepDifference(a: unknown, b: unknown, path = ''): string | null {
  if (Object.is(a, b)) return null
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return `${path || 'value'}: ${String(a)} ≠ ${String(b)}`
  }
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.constructor !== b.constructor) {
      return `${path}: ${a.constructor.name} ≠ ${b.constructor.name}`
    }
    const x = Buffer.from(a.buffer, a.byteOffset, a.byteLength)
    const y = Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    return x.equals(y) ? null : `${path}: ${a.constructor.name} contents differ`
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: an array and an object`
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: length ${a.length} ≠ ${b.length}`
    for (let i = 0; i < a.length; i++) {
      const d = deepDifference(a[i], b[i], `${path}[${i}]`)
      if (d !== null) return d
    }
    return null
  }
  const keys = (o: object): string[] =>
    Object.keys(o)
      .filter((k) => (o as Record<string, unknown>)[k] !== undefined)
      .sort()
  const ka = keys(a)
  const kb = keys(b)
  if (ka.join() !== kb.join()) return `${path}: keys [${ka.join()}] ≠ [${kb.join()}]`
  for (const k of ka) {
    const d = deepDifference(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
      path ? `${path}.${k}` : k,
    )
    if (d !== null) return d
  }
  return null
}
