/**
 * The data directory holds the SQLite database, the server key, first-start credentials and the
 * TLS key: only the user running Bulwark may read it. At start it is created 0700, or a looser
 * one is tightened (when this user owns it) or refused (when it cannot be); every file in it that
 * holds data or keys becomes 0600. Certificates (*.crt) are public and keep their mode.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

export interface DataDirReport {
  /** Paths whose mode was tightened, with the mode they had. */
  tightened: { path: string; from: string }[]
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0')

/**
 * Makes `dir` private before anything is written to it. Throws an Error whose message says what
 * to do when the directory cannot be made private.
 * @example secureDataDir('/var/lib/bulwark')   // { tightened: [{ path: '/var/lib/bulwark/bulwark.db', from: '0644' }] }
 */
export function secureDataDir(dir: string): DataDirReport {
  const report: DataDirReport = { tightened: [] }
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
    chmodSync(dir, PRIVATE_DIR_MODE)
    return report
  }
  tighten(dir, report, true)
  return report
}

function tighten(path: string, report: DataDirReport, top = false): void {
  const stat = statSync(path)
  if (top && !stat.isDirectory()) throw new Error(`The data directory ${path} is not a directory`)
  if (!stat.isDirectory() && !stat.isFile()) return
  if (stat.isFile() && path.endsWith('.crt')) return
  const wanted = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE
  if ((stat.mode & 0o077) !== 0) {
    const uid = process.getuid?.()
    if (uid !== undefined && uid !== 0 && stat.uid !== uid) {
      throw new Error(
        `${path} is readable by other users (mode ${octal(stat.mode)}) and belongs to another user (uid ${stat.uid}), ` +
          `so Bulwark cannot make it private; run Bulwark as its owner, or run: chmod ${octal(wanted)} ${path}`,
      )
    }
    chmodSync(path, wanted)
    report.tightened.push({ path, from: octal(stat.mode) })
  }
  if (stat.isDirectory()) for (const name of readdirSync(path)) tighten(join(path, name), report)
}
