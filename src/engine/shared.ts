/**
 * Shared memory for the `workers` option: the stores worker threads read and write live on SharedArrayBuffers,
 * so a worker sees the main thread's values without a copy and the main thread sees the workers' results.
 */

/** The typed arrays the stores use. */
type Store = Float32Array | Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array

/** True when this engine has shared memory (a browser page needs cross-origin isolation for it). */
export function sharedMemoryAvailable(): boolean {
  return typeof SharedArrayBuffer === 'function' && typeof Atomics === 'object'
}

/** A copy of `array` on a SharedArrayBuffer of its own. */
export function sharedCopy<T extends Store>(array: T): T {
  const Kind = array.constructor as new (buffer: ArrayBufferLike) => T
  const copy = new Kind(new SharedArrayBuffer(array.byteLength))
  copy.set(array as never)
  return copy
}

/** Replaces every typed-array field of `object` by its shared copy (the object itself is kept). */
export function shareFields(object: object): void {
  const fields = object as Record<string, unknown>
  for (const key of Object.keys(fields)) {
    const value = fields[key]
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) fields[key] = sharedCopy(value as Store)
  }
}

/** A zeroed buffer of `bytes`, shared when `like` is (so a grown array stays where workers can see it). */
export function bufferLike(like: ArrayBufferLike, bytes: number): ArrayBuffer | SharedArrayBuffer {
  return sharedMemoryAvailable() && like instanceof SharedArrayBuffer
    ? new SharedArrayBuffer(bytes)
    : new ArrayBuffer(bytes)
}
