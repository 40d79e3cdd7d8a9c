import { readFileSync } from 'node:fs'

/** The README and the guides (docs/guides/*.md): the Markdown whose code blocks the tests run or check. */
export const README = 'README.md'
export const guide = (name: string): string => `docs/guides/${name}.md`

/** A Markdown file's sections by `## ` heading: heading → its text up to the next `## `. */
export function sections(file: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of readFileSync(file, 'utf8').split(/^## /m).slice(1)) {
    const end = part.indexOf('\n')
    out.set(part.slice(0, end), part.slice(end + 1))
  }
  return out
}

/** The fenced blocks of `lang` in a text, in order, without their fences. */
export function codeBlocks(text: string, lang = 'ts'): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!)
}

/** The one ```ts block under `## heading` of a Markdown file; throws naming both when there is none. */
export function codeBlock(file: string, heading: string): string {
  const code = codeBlocks(sections(file).get(heading) ?? '')[0]
  if (code === undefined) throw new Error(`${file} has no \`\`\`ts block under "## ${heading}"`)
  return code
}
