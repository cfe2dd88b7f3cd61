/**
 * MISP events, read: an event as MISP publishes it (`{"Event": …}`, the bare event, a
 * `{"response": [{"Event": …}, …]}` search result, or a JSON array of events), and MISP feed
 * directories (`manifest.json` and one `<uuid>.json` file per event, what MISP's feed export
 * writes). Each event becomes an Event Group (its uuid the xid, `info` the name), each attribute
 * the Indicators of its type (attributes.ts), associated with the Group. Documents are walked as
 * they stream (json-walk.ts): an attribute is held only until its event's tags are known (MISP
 * writes them after the attributes), so memory holds one event's attributes at most, and no more
 * than HOLD_CHARS of them. docs/import.md, section MISP.
 */
import { invalid } from '../../core/errors.js'
import { readJson } from '../../core/input.js'
import type { DirectoryFiles, Format, ReadEvent, ReadItem, ReadOptions, TextChunks } from '../format.js'
import { MalformedJsonFile } from '../json-array-stream.js'
import { type PathStep, type WalkEvent, walkJson } from '../json-walk.js'
import { messageOf } from '../read-json-array.js'
import { STIX_EXTRA_ATTRIBUTE } from '../stix2/stix.js'
import {
  type EventContext,
  type MispReading,
  mispTime,
  readAttribute,
  readObject,
  tagLabel,
  tagNames,
  tagsAndLabel,
} from './attributes.js'

/** The Group type of an event (docs/decisions.md). */
export const EVENT_GROUP_TYPE = 'Event'

/**
 * How much of one event's attributes (JSON text) is held while its tags are unknown. Past it, the
 * attributes go on without the event's TLP, and the event says so.
 */
export const HOLD_CHARS = 16_000_000

/** The members of an event the reader keeps; the others (Galaxy, RelatedEvent, EventReport …) are read past. */
const EVENT_MEMBERS = new Set(['uuid', 'info', 'date', 'timestamp', 'threat_level_id', 'analysis', 'Orgc', 'Tag'])
/** Members only an event has: an object with one of them is an event, not a wrapper. */
const EVENT_MARKS = new Set(['Attribute', 'Object', 'info', 'uuid', 'date', 'threat_level_id', 'analysis', 'Orgc'])

const THREAT_LEVELS: Record<string, string> = { '1': 'High', '2': 'Medium', '3': 'Low', '4': 'Undefined' }
const ANALYSIS: Record<string, string> = { '0': 'Initial', '1': 'Ongoing', '2': 'Completed' }

/** A feed manifest's entry: what it says of an event before its file is read. */
type Seed = Record<string, unknown>

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The events of one JSON document, holding at most `holdChars` of an event's attributes while its tags are unknown. */
export function readMispDocument(input: TextChunks, options: ReadOptions, holdChars = HOLD_CHARS) {
  return readEvents(input, options, '', undefined, true, holdChars)
}

export const mispEvents: Format = {
  name: 'misp',
  detect: (fileName, head) =>
    (/\.json$/i.test(fileName) || !/\.[^./\\]+$/.test(fileName)) && !!head && looksLikeMisp(head()),
  reader: {
    sourceVersions: true,
    read: (input, options) => readMispDocument(input, options),
    directory: {
      index: 'manifest.json',
      async *read(files, options) {
        yield* readFeed(files, options)
      },
    },
  },
}

/** A MISP event's marks in the first 4 KB: an `Event` member, a search response of events, or a bare event's members. */
function looksLikeMisp(head: string): boolean {
  if (!/^\uFEFF?\s*[[{]/.test(head)) return false
  if (/"Event"\s*:\s*\{/.test(head)) return true
  return /"info"\s*:/.test(head) && /"(threat_level_id|orgc_id|Attribute|analysis)"\s*:/.test(head)
}

interface EventMeta {
  uuid?: string
  info?: string
  date?: string
  timestamp?: string
  orgc?: string
  tags?: string[]
  threatLevel?: string
  analysis?: string
}

/** An attribute or object waiting for its event's tags: its JSON as UTF-8 bytes, which hold none of the input's chunks. */
interface Held {
  where: string
  text: string | Buffer
  object: boolean
}

/** One event being read: what is known of it, and its attributes held until its tags are. */
class EventReading {
  readonly meta: EventMeta = {}
  held: Held[] = []
  heldChars = 0
  ready = false
  /** The hold overflowed before the event's tags were read, at this many characters. */
  tagsLate = false
  heldLimit = 0
  groupGiven = false
  /** The Group was given before the event's tags were read (the hold overflowed): given again, whole, at its end. */
  groupProvisional = false
  readonly skipped = new Map<string, number>()
  readonly errors: string[] = []
  /** Attributes given before the Group could be: not associated with it. */
  unassociated = 0
  marked = false
  /** The event's TLP label known when its attributes were read. */
  ctx: EventContext = {}

  constructor(
    readonly path: readonly PathStep[],
    readonly where: string,
    seed: Seed | undefined,
  ) {
    if (seed) {
      // A feed's manifest says the event's uuid, info, date, timestamp, Orgc and tags before its file does.
      for (const [key, value] of Object.entries(seed)) this.member(key, value)
      if (Array.isArray(seed.Tag)) this.meta.tags = tagNames(seed.Tag)
    }
  }

  member(key: string, value: unknown) {
    const m = this.meta
    const str = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined
    switch (key) {
      case 'uuid':
        if (str) m.uuid = str
        break
      case 'info':
        if (str !== undefined) m.info = str
        break
      case 'date':
        if (str) m.date = str
        break
      case 'timestamp':
        if (str) m.timestamp = str
        break
      case 'threat_level_id':
        if (str) m.threatLevel = str
        break
      case 'analysis':
        if (str) m.analysis = str
        break
      case 'Orgc': {
        const name = value && typeof value === 'object' ? (value as Record<string, unknown>).name : undefined
        if (typeof name === 'string' && name.trim()) m.orgc = name.trim()
        break
      }
      case 'Tag':
        m.tags = tagNames(value)
        break
    }
  }

  /** Enough is known to name the Group and label the attributes. */
  get complete(): boolean {
    return !!this.meta.uuid && this.meta.tags !== undefined
  }
}

const whereOf = (path: readonly PathStep[]) =>
  path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('')

/**
 * The events of one JSON document. `prefix` names the file in a feed (`<uuid>.json `), `seed` is
 * the manifest's entry for it; `wholeInput` refuses a document with no event in it at all.
 */
async function* readEvents(
  input: TextChunks,
  options: ReadOptions,
  prefix: string,
  seed: Seed | undefined,
  wholeInput: boolean,
  holdChars = HOLD_CHARS,
): AsyncGenerator<ReadEvent> {
  const events = new Map<string, EventReading>()
  let current: EventReading | undefined
  let eventsSeen = 0
  let elements = 0
  const key = (path: readonly PathStep[]) => path.join('\u0000')
  /** Containers that may be an event or hold one: the document, an array's element, `response`'s, an `Event`. */
  const candidate = (path: readonly PathStep[]) =>
    path.length === 0 ||
    (path.length === 1 && typeof path[0] === 'number') ||
    (path.length === 1 && path[0] === 'response') ||
    (path.length === 2 && path[0] === 'response' && typeof path[1] === 'number') ||
    path[path.length - 1] === 'Event'
  const decide = (path: readonly PathStep[]) => {
    if (candidate(path)) return 'descend' as const
    const parent = path.slice(0, -1)
    const last = path[path.length - 1]
    if (candidate(parent)) {
      if (last === 'Event' || (parent.length === 0 && last === 'response')) return 'descend' as const
      // A member of a candidate that is not `Event`: the candidate is an event.
      let event = events.get(key(parent))
      if (!event) {
        event = new EventReading(parent, prefix + (whereOf(parent) || 'Event'), seed)
        events.set(key(parent), event)
        current = event
      }
      if (typeof last === 'string' && EVENT_MARKS.has(last) && !event.marked) {
        event.marked = true
        eventsSeen++
      }
      if (last === 'Attribute' || last === 'Object') return 'descend' as const
      return typeof last === 'string' && EVENT_MEMBERS.has(last) ? ('whole' as const) : ('skip' as const)
    }
    const grand = path.slice(0, -2)
    const list = path[path.length - 2]
    if ((list === 'Attribute' || list === 'Object') && typeof last === 'number' && events.has(key(grand)))
      return 'whole' as const
    return 'skip' as const
  }

  try {
    for await (const step of walkJson(input, decide)) {
      elements++
      const out = onStep(step, events, key, holdChars)
      for await (const e of out) yield e
      if (step.kind === 'close' && current && key(step.path) === key(current.path)) {
        yield* finish(current)
        events.delete(key(current.path))
        current = undefined
      }
    }
  } catch (error) {
    if (!(error instanceof MalformedJsonFile)) throw error
    const name = prefix ? prefix.trim() : options.name
    if (elements === 0 && wholeInput) throw invalid(`${name}: ${error.message}`)
    if (current) {
      // What was read of the event is kept: its held attributes, and its Group with what is known.
      yield* finish(current)
    }
    if (prefix) yield { kind: 'element', where: prefix.trim(), indicators: [], error: error.message }
    else yield { kind: 'input', error: error.message }
    return
  }
  if (eventsSeen === 0) {
    const name = prefix ? prefix.trim() : options.name
    if (wholeInput) throw invalid(`${name} holds no MISP event (no Event, no event members such as info or Attribute)`)
    yield { kind: 'element', where: name, indicators: [], error: 'the file holds no MISP event' }
  }
}

async function* onStep(
  step: WalkEvent,
  events: Map<string, EventReading>,
  key: (path: readonly PathStep[]) => string,
  holdChars: number,
): AsyncGenerator<ReadEvent> {
  if (step.kind !== 'value') return
  const path = step.path
  const last = path[path.length - 1]
  const parentEvent = events.get(key(path.slice(0, -1)))
  if (parentEvent && typeof last === 'string') {
    if ('error' in step) return
    let value: unknown
    try {
      value = readJson(step.text)
    } catch {
      return
    }
    parentEvent.member(last, value)
    if (!parentEvent.ready && parentEvent.complete) yield* becomeReady(parentEvent)
    return
  }
  const event = events.get(key(path.slice(0, -2)))
  if (!event) return
  const where = `${event.where}.${whereOf(path.slice(-2))}`
  const object = path[path.length - 2] === 'Object'
  if ('error' in step) {
    yield { kind: 'element', where, indicators: [], error: step.error }
    return
  }
  if (!event.ready && event.complete) yield* becomeReady(event)
  if (event.ready) {
    yield readHeld(event, { where, text: step.text, object })
    return
  }
  event.held.push({ where, text: Buffer.from(step.text), object })
  event.heldChars += step.text.length
  if (event.heldChars > holdChars) {
    event.tagsLate = true
    event.heldLimit = holdChars
    yield* becomeReady(event)
  }
}

/**
 * The event's Group item, from what is known of it; undefined without a uuid to name it by. A
 * provisional one (given before the event's tags) is a millisecond older than the event's
 * timestamp, so the whole one given at the event's end is a newer version (sourceVersions) and
 * a second import finds both held already.
 */
function groupItem(event: EventReading, provisional = false): ReadItem | undefined {
  const m = event.meta
  if (!m.uuid) return undefined
  const errors: string[] = []
  const item: Record<string, unknown> = {
    type: EVENT_GROUP_TYPE,
    xid: m.uuid,
    name: m.info?.trim() ? m.info : `MISP event ${m.uuid}`,
  }
  const date = mispTime(m.date)
  const stamped = mispTime(m.timestamp)
  const modified = stamped && provisional ? new Date(Date.parse(stamped) - 1).toISOString() : stamped
  // An Event needs its date: MISP's date, else the day of its last change.
  const eventDate = date ?? stamped
  if (eventDate) item.eventDate = eventDate
  if (date) item.externalDateAdded = date
  if (modified) item.externalLastModified = modified
  const attributes: { type: string; value: string }[] = []
  if (m.orgc) attributes.push({ type: 'Source', value: m.orgc })
  const about = [
    m.threatLevel ? `threat level ${THREAT_LEVELS[m.threatLevel] ?? m.threatLevel}` : '',
    m.analysis ? `analysis ${ANALYSIS[m.analysis] ?? m.analysis}` : '',
  ].filter(Boolean)
  if (about.length) attributes.push({ type: STIX_EXTRA_ATTRIBUTE, value: `MISP ${about.join(', ')}` })
  if (attributes.length) item.attribute = attributes
  Object.assign(item, tagsAndLabel(m.tags ?? [], undefined, errors))
  event.errors.push(...errors)
  return { where: event.where, item }
}

/** The event's tags are known (or will not be): its Group first, then its held attributes. */
async function* becomeReady(event: EventReading): AsyncGenerator<ReadEvent> {
  event.ready = true
  const group = groupItem(event, event.tagsLate)
  event.ctx = {
    groupXid: group ? event.meta.uuid : undefined,
    dateAdded: mispTime(event.meta.date),
    source: event.meta.orgc,
    tlp: tagsAndLabel(event.meta.tags ?? [], undefined, []).securityLabel?.[0],
  }
  if (group) {
    event.groupGiven = true
    event.groupProvisional = event.tagsLate
    yield { kind: 'element', where: event.where, indicators: [], groups: [group] }
  }
  const held = event.held
  event.held = []
  event.heldChars = 0
  // Each held attribute let go of as it is read.
  for (let i = 0; i < held.length; i++) {
    const h = held[i]
    held[i] = undefined as never
    yield readHeld(event, h)
  }
}

/** One attribute or object as its element: its Indicators, and its refusals. */
function readHeld(event: EventReading, held: Held): ReadEvent {
  let value: unknown
  try {
    value = readJson(typeof held.text === 'string' ? held.text : held.text.toString('utf8'))
  } catch (error) {
    return { kind: 'element', where: held.where, indicators: [], error: messageOf(error) }
  }
  const reading: MispReading = held.object ? readObject(value, event.ctx) : readAttribute(value, event.ctx)
  if (!event.ctx.groupXid) event.unassociated += reading.indicators.length
  for (const type of reading.skipped) event.skipped.set(type, (event.skipped.get(type) ?? 0) + 1)
  return {
    kind: 'element',
    where: held.where,
    indicators: reading.indicators.map((r) => ({ where: held.where + r.suffix, indicator: r.indicator })),
    ...(reading.errors.length ? { error: reading.errors.join('; ') } : {}),
  }
}

/** The event ended (or its file did): anything held, its Group if not given yet, and what was left out. */
async function* finish(event: EventReading): AsyncGenerator<ReadEvent> {
  if (!event.marked) return
  const lateTags = event.tagsLate && event.meta.tags?.some((t) => tagLabel(t))
  if (!event.ready) yield* becomeReady(event)
  else if (!event.groupGiven || event.groupProvisional) {
    const group = groupItem(event)
    if (group) {
      event.groupGiven = true
      event.groupProvisional = false
      yield { kind: 'element', where: event.where, indicators: [], groups: [group] }
    }
  }
  const problems = [...event.errors]
  if (!event.meta.uuid)
    problems.push('the event has no uuid: no Group is made for it, and its Indicators are not associated with one')
  else if (event.unassociated)
    problems.push(`${event.unassociated} Indicators read before the event's uuid are not associated with its Group`)
  if (lateTags)
    problems.push(
      `the event's TLP tag came after ${event.heldLimit} characters of its attributes: those read before it do not carry it`,
    )
  if (event.skipped.size) {
    const counts = [...event.skipped.entries()].sort((a, b) => b[1] - a[1]).map(([type, n]) => `${type} ${n}`)
    const total = [...event.skipped.values()].reduce((a, b) => a + b, 0)
    problems.push(`${total} attributes of types no Indicator holds were not imported: ${counts.join(', ')}`)
  }
  if (problems.length) yield { kind: 'element', where: event.where, indicators: [], error: problems.join('; ') }
}

/**
 * A MISP feed: its manifest's events in order, each `<uuid>.json` read as one event (the
 * manifest's entry says its uuid, info, date, timestamp, Orgc and tags first). A missing or
 * broken event file is that event's refusal; the others are read.
 */
async function* readFeed(files: DirectoryFiles, options: ReadOptions): AsyncGenerator<ReadEvent> {
  let text = ''
  try {
    for await (const chunk of files.open('manifest.json')) text += chunk
  } catch (error) {
    throw invalid(`${options.name}: manifest.json cannot be read: ${messageOf(error)}`)
  }
  let manifest: unknown
  try {
    manifest = readJson(text)
  } catch (error) {
    throw invalid(`${options.name}: manifest.json is not JSON: ${messageOf(error)}`)
  }
  text = ''
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest))
    throw invalid(`${options.name}: manifest.json is not a MISP feed manifest (an object of events by uuid)`)
  for (const [uuid, entry] of Object.entries(manifest as Record<string, unknown>)) {
    const file = `${uuid}.json`
    if (!UUID.test(uuid)) {
      yield { kind: 'element', where: `manifest.json ${uuid}`, indicators: [], error: 'not an event uuid' }
      continue
    }
    const seed: Seed = { ...(entry && typeof entry === 'object' ? (entry as Seed) : {}), uuid }
    try {
      yield* readEvents(files.open(file), options, `${file} `, seed, false)
    } catch (error) {
      yield { kind: 'element', where: file, indicators: [], error: `cannot be read: ${messageOf(error)}` }
    }
  }
}
