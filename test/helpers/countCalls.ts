/** How many times `owner[name]` is called while `f` runs (the method is wrapped for the call, then restored). */
export function countCalls<T extends object>(owner: T, name: keyof T & string, f: () => void): number {
  const original = owner[name] as (...args: unknown[]) => unknown
  let calls = 0
  ;(owner as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
    calls++
    return original.apply(this, args)
  }
  try {
    f()
  } finally {
    ;(owner as Record<string, unknown>)[name] = original
  }
  return calls
}
