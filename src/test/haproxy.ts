/**
 * HAProxy (Debian's package) in front of test nodes, configured as docs/scale-out.md shows: round
 * robin, a health check on /api/ready every 200 ms, retries of failed connections on another node,
 * `X-Forwarded-Proto: https` set for the nodes (TLS would end here), and the answering node named in
 * `X-Served-By` so tests can see where requests went.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const HAPROXY = '/usr/sbin/haproxy'

/** Why HAProxy tests cannot run here, or undefined when they can. */
export const haproxyMissing = () =>
  existsSync(HAPROXY) ? undefined : `${HAPROXY} is missing (Debian's haproxy package; .ci/run installs it)`

export interface LoadBalancer {
  port: number
  /** Waits until HAProxy counts `n` nodes up. */
  waitForUp(n: number): Promise<void>
  stop(): Promise<void>
}

export function haproxyConfig(port: number, statsPort: number, nodePorts: number[]): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout http-request 10s
  retries 3
  option redispatch
  retry-on conn-failure empty-response

frontend bulwark
  bind 127.0.0.1:${port}
  http-request set-header X-Forwarded-Proto https
  default_backend nodes

frontend stats
  bind 127.0.0.1:${statsPort}
  http-request return status 200 content-type text/plain lf-string "%[nbsrv(nodes)]"

backend nodes
  balance roundrobin
  option httpchk GET /api/ready
  http-check expect status 200
  default-server inter 200ms fall 2 rise 2 on-marked-down shutdown-sessions
  http-response set-header X-Served-By %[srv_name]
${nodePorts.map((p, i) => `  server node${i + 1} 127.0.0.1:${p} check`).join('\n')}
`
}

export async function startHaproxy(port: number, statsPort: number, nodePorts: number[]): Promise<LoadBalancer> {
  const dir = mkdtempSync(join(tmpdir(), 'bulwark-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, haproxyConfig(port, statsPort, nodePorts))
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const upCount = () =>
    fetch(`http://127.0.0.1:${statsPort}/`).then(
      async (r) => Number(await r.text()),
      () => -1,
    )
  const balancer: LoadBalancer = {
    port,
    async waitForUp(n) {
      for (let i = 0; i < 300; i++) {
        if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`)
        if ((await upCount()) === n) return
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      throw new Error(`haproxy did not see ${n} nodes up (it sees ${await upCount()}): ${stderr}`)
    },
    async stop() {
      child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return balancer
}
