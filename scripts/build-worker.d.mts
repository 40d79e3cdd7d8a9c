/** See build-worker.mjs. */
export const WORKER_ENTRY: string
export const WORKER_MODULE: string
export const WORKER_GLOBAL: string
export function bundleWorker(): Promise<string>
export function workerModuleText(script: string): string
