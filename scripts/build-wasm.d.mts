/** See build-wasm.mjs. */
export const KERNELS: readonly { source: string; module: string }[]
export function assembleWat(name: string, text: string): Promise<Uint8Array>
export function moduleText(source: string, bytes: Uint8Array): string
export function watText(source: string): Promise<string>
