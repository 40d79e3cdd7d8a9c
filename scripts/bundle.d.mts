/** See bundle.mjs. */
export function bundleForNode(entry: string, outfile: string): Promise<void>
