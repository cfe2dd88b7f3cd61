/**
 * A one-page PDF summary of a Group, from a minimal PDF 1.4 writer: one Helvetica page of
 * text lines, WinAnsi (Latin-1) text, a correct cross-reference table. Lines that do not
 * fit are cut; characters outside Latin-1 become '?'.
 */
import type { GroupRecord } from '../../domain/groups/groups.js'
import type { AttributeView } from '../../domain/metadata/item-metadata.js'
import type { Tag } from '../../domain/metadata/tags.js'
import { toApiTime } from '../../core/time.js'

const PAGE_WIDTH = 612
const PAGE_HEIGHT = 792
const MARGIN = 56
const LINE_HEIGHT = 14
const WRAP_AT = 92
const MAX_LINES = Math.floor((PAGE_HEIGHT - 2 * MARGIN - 30) / LINE_HEIGHT)

function pdfText(text: string): string {
  const latin1 = [...text].map((ch) => (ch.charCodeAt(0) < 256 && ch.length === 1 ? ch : '?')).join('')
  return latin1.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[\r\n\t]/g, ' ')
}

function wrap(line: string): string[] {
  const out: string[] = []
  let rest = line
  while (rest.length > WRAP_AT) {
    const cut = rest.lastIndexOf(' ', WRAP_AT) > WRAP_AT / 2 ? rest.lastIndexOf(' ', WRAP_AT) : WRAP_AT
    out.push(rest.slice(0, cut))
    rest = `    ${rest.slice(cut).trimStart()}`
  }
  out.push(rest)
  return out
}

/**
 * Renders a title and text lines as a single-page PDF.
 * @example renderTextPdf('Group summary', ['Name: APT1']).subarray(0, 5).toString() === '%PDF-'
 */
export function renderTextPdf(title: string, lines: string[]): Buffer {
  let body = wrapAll(lines)
  if (body.length > MAX_LINES) body = [...body.slice(0, MAX_LINES - 1), '... (truncated)']
  const ops = [
    `BT /F1 16 Tf ${MARGIN} ${PAGE_HEIGHT - MARGIN} Td (${pdfText(title)}) Tj /F1 10 Tf 0 -${LINE_HEIGHT * 2} Td`,
  ]
  for (const line of body) ops.push(`(${pdfText(line)}) Tj 0 -${LINE_HEIGHT} Td`)
  ops.push('ET')
  const content = Buffer.from(ops.join('\n'), 'latin1')
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${content.length} >>\nstream\n${content.toString('latin1')}\nendstream`,
    `<< /Producer (Bulwark) /Title (${pdfText(title)}) >>`,
  ]
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')]
  let offset = chunks[0].length
  const offsets: number[] = []
  objects.forEach((object, i) => {
    const chunk = Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1')
    offsets.push(offset)
    offset += chunk.length
    chunks.push(chunk)
  })
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('')
  chunks.push(
    Buffer.from(
      `${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${offset}\n%%EOF\n`,
      'latin1',
    ),
  )
  return Buffer.concat(chunks)
}

function wrapAll(lines: string[]): string[] {
  return lines.flatMap(wrap)
}

/** The summary lines of a Group: its fields, tags and attributes. */
export function groupPdfLines(g: GroupRecord, tags: Tag[], attributes: AttributeView[]): string[] {
  const fields: [string, unknown][] = [
    ['Type', g.type],
    ['Name', g.name],
    ['ID', g.id],
    ['Owner', g.ownerName],
    ['XID', g.xid],
    ['Date Added', toApiTime(g.dateAdded)],
    ['Last Modified', toApiTime(g.lastModified)],
    ['Event Date', toApiTime(g.eventDate)],
    ['Status', g.status],
    ['First Seen', toApiTime(g.firstSeen)],
    ['Publish Date', toApiTime(g.publishDate)],
    ['File Name', g.fileName],
    ['File Type', g.fileType],
    ['File Size', g.fileSize],
    ['Subject', g.emailSubject],
    ['From', g.emailFrom],
    ['To', g.emailTo],
  ]
  const lines = fields
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${String(v)}`)
  if (tags.length) lines.push('', `Tags: ${tags.map((t) => t.name).join(', ')}`)
  if (attributes.length) {
    lines.push('', 'Attributes:')
    for (const a of attributes)
      lines.push(`  ${a.type}: ${a.value.length > 400 ? `${a.value.slice(0, 400)}...` : a.value}`)
  }
  return lines
}
