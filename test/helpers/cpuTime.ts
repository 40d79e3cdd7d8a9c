/**
 * CPU time for the tests that a walk stays linear: what this process spends (user + system,
 * process.cpuUsage), which other processes' load does not inflate, unlike the wall clock. Budgets are set far
 * below what the quadratic walk they guard against costs (seconds to minutes) and far above the linear one,
 * so a busy or slow machine does not fail them. Timing itself belongs to the benchmarks (npm run bench).
 */

/** CPU milliseconds `run` takes, and its result. */
export function cpuMs<T>(run: () => T): { ms: number; value: T } {
  const start = process.cpuUsage()
  const value = run()
  const used = process.cpuUsage(start)
  return { ms: (used.user + used.system) / 1000, value }
}

/** CPU milliseconds an async `run` takes until it settles, and its result (nothing else may run meanwhile). */
export async function cpuMsAsync<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.cpuUsage()
  const value = await run()
  const used = process.cpuUsage(start)
  return { ms: (used.user + used.system) / 1000, value }
}
