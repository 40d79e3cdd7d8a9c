/** See abRounds.mjs. */
export interface AbRunSide {
  run(steps: number): void
  hash(): string
}
export interface AbResult {
  /** CPU ms per step of each round, per side. */
  ms: number[][]
  medians: number[]
  /** Per round: side 0's time ÷ side 1's. */
  ratios: number[]
  ratio: number
  hashes: string[]
}
export function runAb(
  sides: readonly AbRunSide[],
  settings: { rounds: number; steps: number; warmup: number },
): AbResult
export function median(values: readonly number[]): number
export function formatAb(result: AbResult, names: readonly string[], what: string): string
