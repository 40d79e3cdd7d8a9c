/** The snapshot writer: every kind of write lands in the buffer it grows into, at a growth boundary too. */
import { describe, expect, it } from 'vitest'
import { Writer } from '../../src/sim/byteWriter.ts'

describe('Writer', () => {
  it('keeps the byte that makes it grow (u8, u16, u32, f64 and utf8 at every offset of a full buffer)', () => {
    for (const [kind, size] of [
      ['u8', 1],
      ['u16', 2],
      ['u32', 4],
      ['f64', 8],
      ['utf8', 7],
    ] as const) {
      for (let fill = 0; fill < 16; fill++) {
        const w = new Writer().target(new Uint8Array(16), true)
        for (let i = 0; i < fill; i++) w.u8(i + 1)
        // Writes that run past the 16 bytes: the first of them grows the buffer (to 16 KiB).
        for (let k = 0; k < 4; k++) {
          if (kind === 'u8') w.u8(200 + k)
          else if (kind === 'u16') w.u16(0xbeef)
          else if (kind === 'u32') w.u32(0xdeadbeef)
          else if (kind === 'f64') w.f64(Math.PI)
          else w.utf8('abc')
        }
        const bytes = w.bytes().subarray(0, w.at())
        expect(bytes.length).toBe(fill + 4 * size)
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        for (let i = 0; i < fill; i++) expect(bytes[i]).toBe(i + 1)
        for (let k = 0; k < 4; k++) {
          const o = fill + k * size
          if (kind === 'u8') expect(bytes[o]).toBe(200 + k)
          else if (kind === 'u16') expect(view.getUint16(o, true)).toBe(0xbeef)
          else if (kind === 'u32') expect(view.getUint32(o, true)).toBe(0xdeadbeef)
          else if (kind === 'f64') expect(view.getFloat64(o, true)).toBe(Math.PI)
          else expect([view.getUint32(o, true), ...bytes.subarray(o + 4, o + 7)]).toEqual([3, 97, 98, 99])
        }
      }
    }
  })
})
