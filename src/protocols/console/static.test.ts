/** The console's files as the server hands them out (the browser test loads the real build). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, createTestApp } from '../../test/harness.js'
import { CONTENT_SECURITY_POLICY, IMMUTABLE } from './static.js'

let built: TestApp
let unbuilt: TestApp
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bulwark-console-'))
  mkdirSync(join(dir, 'assets'))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-AbC123_x.js"></script>',
  )
  writeFileSync(join(dir, 'assets', 'index-AbC123_x.js'), 'console.log(1)')
  built = await createTestApp({ console: { dir } })
  unbuilt = await createTestApp({ console: { dir: join(dir, 'missing') } })
})
afterAll(async () => {
  await built.close()
  await unbuilt.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the console files', () => {
  it('serves the page at / uncached, under a Content-Security-Policy that allows no inline script', async () => {
    const res = await built.request({ as: null, url: '/' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-cache')
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';")
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/)
    expect(res.headers['x-frame-options']).toBe('DENY')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it('serves hashed assets as immutable for a year, and nothing else from the folder', async () => {
    const res = await built.request({ as: null, url: '/assets/index-AbC123_x.js' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe(IMMUTABLE)
    expect(IMMUTABLE).toBe('public, max-age=31536000, immutable')
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(res.body).toBe('console.log(1)')
    for (const url of ['/assets/missing.js', '/assets/..%2Findex.html', '/assets/%2E%2E%2F%2E%2E%2Fpackage.json'])
      expect((await built.request({ as: null, url })).statusCode, url).toBe(404)
  })

  it('says how to build the console when it is not built', async () => {
    const res = await unbuilt.request({ as: null, url: '/' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({
      status: 'Error',
      message: 'The console is not built: run `npm install` (or `node scripts/build.mjs`) and restart Bulwark',
    })
  })
})
