/** See abRounds.mjs. */
export interface AbRunSide {
  run(steps: number): void
  hash(): string
}
export interface AbResult {
  /** CPU ms per step of each round (the mean of the side's instances), per side. */
  ms: number[][]
  medians: number[]
  /** Per round: side 0's time ÷ side 1's. */
  ratios: number[]
  ratio: number
  /** Per side: its state hash, or its instances' hashes joined by ≠ when they differ. */
  hashes: string[]
}
/** `sides`: two lists of instances, of the same length, made in ABBA order (see abRounds.mjs). */
export function runAb(
  sides: readonly (readonly AbRunSide[])[],
  settings: { rounds: number; steps: number; warmup: number },
): AbResult
export function median(values: readonly number[]): number
export function formatAb(result: AbResult, names: readonly string[], what: string, unit?: string): string
