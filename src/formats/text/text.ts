/**
 * A plain list as `bulwark import` reads it: one value a line, every one of the type the caller
 * names (a list does not say its own), the line trimmed and taken as the Indicator's summary.
 * Any text is a list, so it is the format a file no other format claims falls to.
 */
import { invalid } from '../../core/errors.js'
import type { Format } from '../format.js'
import { readLines } from '../text-lines.js'

export const plainList: Format = {
  name: 'list',
  detect: () => true,
  reader: {
    check({ type }) {
      if (!type) throw invalid('A plain list needs --type, the Indicator type of every line (e.g. Host, Address, URL)')
    },
    async *read(input, { type }) {
      let count = 0
      for await (const line of readLines(input)) {
        const where = `indicator[${count++}]`
        yield { kind: 'element', where, indicators: [{ where, indicator: { type, summary: line.trim() } }] }
      }
    },
  },
}
