/**
 * How long a test, a hook or a child process a test waits on may run before it counts as hung: a guard against a
 * hang, not a speed check. Ten minutes, so a machine busy with other work (a 2-core laptop at load 12 ran the
 * suite ~10× slower) does not fail a test; how fast things are is the benchmarks' business (npm run bench).
 * vitest.config.ts gives it to every project as testTimeout and hookTimeout.
 */
export const HANG_MS = 600_000
