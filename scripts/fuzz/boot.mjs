// A worker's entry: registers tsx's loader in this thread, then imports the TypeScript module named by
// workerData.entry. Node 20 does not apply `execArgv: ['--import', 'tsx']` to a worker's own entry module (it
// fails with ERR_UNKNOWN_FILE_EXTENSION), so the loader is registered here instead.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
