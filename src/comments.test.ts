/**
 * A comment that names a file must name one that exists: files move, and a stale path sends
 * the reader looking for nothing. Paths are looked up from the commenting file's folder, src/
 * and the repository root, or as the tail of any path in the tree (`taxii21/plugin.ts`), so a
 * moved file only needs its comments updated, not this test.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SHARED_DIR } from './test/real-clients.js'

const SRC = new URL('.', import.meta.url).pathname
const ROOT = resolve(SRC, '..')
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'data', '.git', 'coverage'])

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : files(join(dir, entry.name))
    return [join(dir, entry.name)]
  })
}

/**
 * The comments of a TypeScript source, each with its line. Strings, template literals and
 * regular expressions are stepped over so that `'https://…'` or `/\/\//` is no comment.
 */
export function commentsOf(text: string): { line: number; text: string }[] {
  const comments: { line: number; text: string }[] = []
  const lineAt = (index: number) => text.slice(0, index).split('\n').length
  let i = 0
  let previous = ''
  while (i < text.length) {
    const c = text[i]
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i)
      const stop = end < 0 ? text.length : end
      comments.push({ line: lineAt(i), text: text.slice(i + 2, stop) })
      i = stop
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      const stop = end < 0 ? text.length : end
      comments.push({ line: lineAt(i), text: text.slice(i + 2, stop) })
      i = stop + 2
    } else if (c === "'" || c === '"' || c === '`') {
      i = skipString(text, i)
      previous = c
    } else if (c === '/' && (previous === '' || '(,=:[!&|?{};+-*%<>~^'.includes(previous))) {
      i = skipRegex(text, i)
      previous = '/'
    } else {
      if (!/\s/.test(c)) previous = /[\w$)\]]/.test(c) ? 'x' : c
      i++
    }
  }
  return comments
}

/** The index after a string or template literal (a template's `${…}` may hold strings and braces of its own). */
function skipString(text: string, start: number): number {
  const quote = text[start]
  let i = start + 1
  while (i < text.length && text[i] !== quote) {
    if (text[i] === '\\') i += 2
    else if (quote === '`' && text[i] === '$' && text[i + 1] === '{') {
      let depth = 1
      i += 2
      while (i < text.length && depth > 0) {
        if (text[i] === "'" || text[i] === '"' || text[i] === '`') {
          i = skipString(text, i)
          continue
        }
        if (text[i] === '{') depth++
        else if (text[i] === '}') depth--
        i++
      }
    } else i++
  }
  return i + 1
}

function skipRegex(text: string, start: number): number {
  let i = start + 1
  let inClass = false
  while (i < text.length && text[i] !== '\n') {
    const c = text[i]
    if (c === '\\') {
      i += 2
      continue
    }
    if (c === '[') inClass = true
    else if (c === ']') inClass = false
    else if (c === '/' && !inClass) return i + 1
    i++
  }
  return i
}

/**
 * What reads as a file path in prose: a name with one of these extensions, with or without
 * folders. A name glued to something before it (`*.test.ts`, `<kind>.repository.ts`, a URL's
 * host) is a pattern or an address, not a file.
 */
const PATH =
  /(?<![\w.*/<>{}$@:-])((?:\.{1,2}\/)*(?:[\w-][\w.-]*\/)*[\w-][\w.-]*\.(?:ts|mjs|js|md|py|sh|json))(?![\w/-])/g

/**
 * Files no checkout holds that comments name on purpose: the build's output and the real clients'
 * sources and helpers (a machine's clients folder).
 */
const OUTSIDE = [
  /^dist\//,
  /^(threatconnect|tcex|taxii2client|cabby|libtaxii|medallion|stix2\w*)\//,
  /^(clients|py2src|medallion-tls)\.py$/,
  // The files of published formats, not of this tree: a MISP feed's index.
  /^manifest\.json$/,
]

/** `../shared/…` is the machine's shared folder beside the repository; a machine without it cannot tell. */
function inShared(path: string): boolean | undefined {
  const inside = /^\.\.\/shared\/(.*)$/.exec(path)?.[1]
  if (inside === undefined) return undefined
  return existsSync(SHARED_DIR) ? existsSync(join(SHARED_DIR, inside)) : true
}

export interface StaleMention {
  file: string
  line: number
  path: string
  comment: string
}

/** Every path named in the comments of `sources` that leads to no file of `tree`. */
export function staleMentions(sources: { file: string; text: string }[], tree: string[]): StaleMention[] {
  const known = new Set(tree)
  const basenames = new Set(tree.map((path) => basename(path)))
  const exists = (candidate: string) => known.has(candidate) || known.has(candidate.replace(/\.js$/, '.ts'))
  const found = (file: string, path: string): boolean => {
    const shared = inShared(path)
    if (shared !== undefined) return shared
    const bare = path.replace(/^\.\//, '')
    if (!bare.includes('/')) return basenames.has(bare) || basenames.has(bare.replace(/\.js$/, '.ts'))
    if ([dirname(file), SRC, ROOT].some((base) => exists(resolve(base, bare)))) return true
    // A path written from a folder the comment leaves implicit: `taxii21/plugin.ts` for src/protocols/taxii21/plugin.ts.
    if (bare.startsWith('../')) return false
    return tree.some(
      (candidate) => candidate.endsWith(`/${bare}`) || candidate.endsWith(`/${bare.replace(/\.js$/, '.ts')}`),
    )
  }
  return sources.flatMap(({ file, text }) =>
    commentsOf(text).flatMap((comment) =>
      [...comment.text.matchAll(PATH)]
        .filter((match) => !OUTSIDE.some((pattern) => pattern.test(match[1])) && !found(file, match[1]))
        .map((match) => ({
          file: relative(ROOT, file),
          line: comment.line + comment.text.slice(0, match.index).split('\n').length - 1,
          path: match[1],
          comment:
            comment.text
              .slice(0, match.index)
              .split('\n')
              .pop()!
              .replace(/^\s*\*?\s*/, '') + comment.text.slice(match.index).split('\n')[0],
        })),
    ),
  )
}

describe('comments', () => {
  const tree = files(ROOT)
  const sources = tree
    .filter((file) => /^(src|bench)\//.test(relative(ROOT, file)) && file.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(file, 'utf8') }))

  it('name only files that exist', () => {
    const stale = staleMentions(sources, tree).map((m) => `${m.file}:${m.line} names ${m.path}: ${m.comment.trim()}`)
    expect(stale, 'a comment names a file that is not in the tree: point it at where the file is now').toEqual([])
  })

  it('are told from strings and regular expressions, and a stale path in them is found', () => {
    const file = join(SRC, 'protocols', 'example.ts')
    const text = [
      "const url = 'https://example.org/docs/gone.md' // see protocols/taxii21/plugin.ts, not https://example.org/gone.md",
      'const re = /\\/\\/ docs\\/gone.md/',
      '/** Written by domain/no-such-module.ts, read by taxii21/plugin.ts and config.ts; docs/decisions.md says why. */',
      'const t = `${a + "// not/a-comment.ts"}` // bench/lib/dataset.ts, store/*.repository.ts',
    ].join('\n')
    expect(commentsOf(text).map((c) => c.line)).toEqual([1, 3, 4])
    const stale = staleMentions([{ file, text }], tree)
    expect(stale.map((m) => [m.line, m.path])).toEqual([[3, 'domain/no-such-module.ts']])
  })
})
