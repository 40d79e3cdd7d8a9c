import type { TypedArray } from './hasher.ts'

/** A store's field as snapshots and hashes walk it: its name, its array, and its elements per row. */
export interface Field {
  readonly name: string
  readonly data: TypedArray
  /** Elements per row. */
  readonly stride: number
}

export interface StoreLayout {
  readonly name: string
  readonly fields: readonly Field[]
}

/**
 * A store's typed-array fields in name order, a nested store's (CrossFade.from) in its place as `from.<field>`;
 * `rows` is the store's length in rows (its capacity, or its layer slots for Sampler, CrossFade and AnimLayer).
 */
export function storeLayout(name: string, store: object, rows: number): StoreLayout {
  return { name, fields: layoutFields(store, rows, '') }
}

function layoutFields(store: object, rows: number, prefix: string): Field[] {
  const fields: Field[] = []
  for (const key of Object.keys(store).sort()) {
    const data = (store as Record<string, unknown>)[key]
    if (ArrayBuffer.isView(data) && !(data instanceof DataView)) {
      const typed = data as TypedArray
      fields.push({ name: prefix + key, data: typed, stride: typed.length / rows })
    } else if (typeof data === 'object' && data !== null) {
      fields.push(...layoutFields(data, rows, `${prefix}${key}.`))
    }
  }
  return fields
}
