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

  it("sends the v2 API's legacy links on to the console's pages", async () => {
    const cases: [string, string][] = [
      [
        '/auth/indicators/details/host.xhtml?host=evil.example&owner=Test%20Organization',
        '/#/lookup/indicators?entity=host&value=evil.example&owner=Test+Organization',
      ],
      ['/auth/adversary/adversary.xhtml?adversary=12', '/#/details/groups/12/overview'],
      ['/auth/task/task.xhtml?task=7', '/#/details/tasks/7/overview'],
      ['/auth/victim/victim.xhtml?victim=3', '/#/details/victims/3/overview'],
      ['/auth/tags/tag.xhtml?tag=APT%2028&owner=X', '/#/search?q=tag+%3D+%22APT+28%22'],
    ]
    for (const [from, to] of cases) {
      const res = await built.request({ as: null, url: from })
      expect(res.statusCode, from).toBe(302)
      expect(res.headers.location, from).toBe(to)
    }
    for (const url of ['/auth/adversary/adversary.xhtml?adversary=javascript:x', '/auth/task/other.xhtml?task=1'])
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
