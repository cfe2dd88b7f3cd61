import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

describe('domain messages', () => {
  it('name no REST path: the same error reaches v2, v3, TAXII and the batch', () => {
    const offending: string[] = []
    for (const file of sources(new URL('.', import.meta.url).pathname)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const code = line.trim()
        if (code.startsWith('*') || code.startsWith('/**') || code.startsWith('//')) continue
        if (/(invalid|notFound|conflict|forbidden|DomainError)\(.*\/(v2|v3|api)\//.test(code))
          offending.push(`${file}: ${code}`)
      }
    }
    expect(offending).toEqual([])
  })
})
