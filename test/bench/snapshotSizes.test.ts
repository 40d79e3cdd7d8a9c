/**
 * Keeps scripts/snapshotSizes.ts (the rollback guide's table of snapshot bytes per feature) from rotting: on a few
 * characters, every feature's crowd builds and snapshots, and what each adds is in the order its state
 * implies.
 */
import { describe, expect, it } from 'vitest'
import { FEATURES, formatSnapshotSizes, snapshotSizes } from '../../scripts/snapshotSizes.ts'

describe('scripts/snapshotSizes.ts', () => {
  it('measures every feature and prints the guide table', () => {
    const rows = snapshotSizes(4, 5)
    expect(rows.map((r) => r.feature)).toEqual(FEATURES.map((f) => f.feature))
    const bytes = Object.fromEntries(rows.map((r) => [r.feature, r.perCharacter]))
    expect(bytes['playing a clip']).toBeGreaterThan(0)
    // A fade keeps two clips' state, a layer its own pose slots, two layers more than one, both more still.
    expect(bytes['cross-fading']).toBeGreaterThan(bytes['playing a clip']!)
    expect(bytes['two layers (override + additive)']).toBeGreaterThan(bytes['an additive layer']!)
    expect(bytes['a blend space and two layers']).toBeGreaterThan(bytes['a 3-point blend space']!)
    expect(rows[0]!.overPlaying).toBe(0)
    const table = formatSnapshotSizes(rows, 4).split('\n')
    expect(table[0]).toBe('| every character (4 of 67 joints) | snapshot | per character | over playing |')
    expect(table).toHaveLength(2 + FEATURES.length)
  })
})
