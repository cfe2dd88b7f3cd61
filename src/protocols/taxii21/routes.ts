/**
 * The endpoints of one TAXII server application version: discovery, API root, collections,
 * objects, one object, its versions, and (application 1.0) the manifest. Each parses its
 * parameters, calls content.ts once and writes the resource; authentication, negotiation
 * and errors are the plugin's hooks.
 */
import { Readable } from 'node:stream'
import { backgroundTurn } from '../../core/foreground.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Services } from '../../domain/services.js'
import type { Store } from '../../store/connect.js'
import {
  type Collection,
  type Item,
  type TaxiiEnv,
  findCollection,
  listCollections,
  openItemPage,
  readObject,
} from './content.js'
import { TaxiiHttpError } from './errors.js'
import { JsonListWriter } from './json-chunks.js'
import { STIX_MEDIA_TYPE, TAXII_MEDIA_TYPE } from './negotiate.js'
import { encodePosition, parseFilters, taxiiTimestamp } from './params.js'
import type { AppVersion, StixIds } from '../../formats/stix2/stix.js'
import type { StixIdIndex } from './stix-id-index.js'

export interface AppOptions {
  store: Store
  services: Services
  ids: StixIds
  index: StixIdIndex
  version: AppVersion
  /** The path of this application under the public URL, e.g. `/api/services/taxii/v2/taxii`. */
  servicePath: string
  bodyLimit: number
}

/** The spec's path word and the platform's own, both serving the one API root. */
export const ROOT_WORDS = ['svc_taxii', 'tc_taxii'] as const

type Params = { collection?: string; object?: string }
type Query = Record<string, string | string[] | undefined>

function dateHeaders(reply: FastifyReply, first: string | undefined, last: string | undefined): void {
  if (first === undefined || last === undefined) return
  reply.header('X-TAXII-Date-Added-First', taxiiTimestamp(first))
  reply.header('X-TAXII-Date-Added-Last', taxiiTimestamp(last))
}

/** The date headers of items already read (one object's versions). */
const itemDateHeaders = (reply: FastifyReply, items: Item[]) =>
  dateHeaders(reply, items[0]?.dateAdded, items.at(-1)?.dateAdded)

/** Bytes, so Fastify leaves the Content-Type exactly as the plugin set it (errors.ts says why). */
function send(reply: FastifyReply, body: unknown, items?: Item[]): Buffer {
  if (items) itemDateHeaders(reply, items)
  return Buffer.from(JSON.stringify(body))
}

/**
 * An envelope with items, sent as each batch is written (json-chunks.ts): the client takes in
 * the first part of a large page while the server reads the rest, and the page never waits
 * whole in memory. Its headers and `more`/`next` are settled before the first batch (a page
 * plans them; one object's versions are read at once). A failure in the middle can only cut
 * the response short: the status has gone.
 */
export function streamList(
  head: Record<string, unknown>,
  batches: AsyncIterable<Item[]> | Iterable<Item[]>,
  entry: (item: Item) => string,
): Readable {
  async function* chunks() {
    const list = new JsonListWriter(JSON.stringify(head), 'objects')
    let first = true
    for await (const batch of batches) {
      // On SQLite a batch's read is synchronous and a loopback client takes every chunk at once, so a
      // 10,000-object page would hold the event loop for its whole 80-100 ms; between batches interactive
      // requests (a TQL search, say) go first (issue 28, reads while writing).
      if (!first) await backgroundTurn()
      first = false
      for (const item of batch) list.add(entry(item))
      yield* list.takeFilled()
    }
    yield* list.finish()
  }
  return Readable.from(chunks(), { objectMode: false })
}

const stixObject = (item: Item) => item.json()

const manifestRecord = (item: Item) =>
  JSON.stringify({
    id: item.stixId(),
    date_added: taxiiTimestamp(item.dateAdded),
    version: item.version,
    media_type: STIX_MEDIA_TYPE,
    media_types: STIX_MEDIA_TYPE,
  })

function collectionResource(c: Collection, version: AppVersion) {
  const { ownerName: name, ownerType: type } = c.owner
  const description = `Indicators of ${name} (${type})`
  const resource = {
    id: c.id,
    title: name,
    description,
    alias: name,
    type,
    can_read: true,
    can_write: false,
    media_types: [STIX_MEDIA_TYPE],
  }
  if (version === '1.0') return resource
  return {
    ...resource,
    x_custom_mappings: {},
    x_custom_ttl: {},
    x_custom: false,
    x_tql: `ownerName = "${name.replace(/["\\]/g, '\\$&')}"`,
  }
}

export async function registerApplication(app: FastifyInstance, o: AppOptions): Promise<void> {
  const env = (req: FastifyRequest): TaxiiEnv => ({
    store: req.workStore ?? o.store,
    caller: req.caller,
    ids: o.ids,
    index: o.index,
    version: o.version,
  })
  const apiRoot = `${o.services.publicUrl}${o.servicePath}/${ROOT_WORDS[0]}/`
  const get = (
    url: string,
    handler: (
      req: FastifyRequest<{ Params: Params; Querystring: Query }>,
      reply: FastifyReply,
    ) => Promise<Buffer | Readable>,
    /** A collection's pages: long work, which waits for interactive requests between its batches. */
    background = false,
  ) => {
    app.get(url, { config: { background } }, handler)
    app.route({
      method: ['POST', 'PUT', 'PATCH', 'DELETE'],
      url,
      handler: async () => {
        throw new TaxiiHttpError(405, 'This TAXII server is read-only: only GET is allowed')
      },
    })
  }

  get('/taxii2', async (_req, reply) =>
    send(reply, {
      title: 'Bulwark TAXII 2.1 server',
      description: `Read-only TAXII 2.1 server, application version ${o.version}: one collection per owner the account may read`,
      contact: o.services.publicUrl,
      default: apiRoot,
      api_roots: [apiRoot],
    }),
  )

  for (const word of ROOT_WORDS) {
    const root = `/${word}`
    get(root, async (_req, reply) =>
      send(reply, {
        title: 'Bulwark',
        description: 'Indicators of the owners this account may read, as STIX 2.1',
        versions: [TAXII_MEDIA_TYPE],
        max_content_length: o.bodyLimit,
      }),
    )

    get(`${root}/collections`, async (req, reply) => {
      const collections = listCollections(env(req)).map((c) => collectionResource(c, o.version))
      return send(reply, collections.length ? { collections } : {})
    })

    get(`${root}/collections/:collection`, async (req, reply) =>
      send(reply, collectionResource(findCollection(env(req), req.params.collection!), o.version)),
    )

    /** A page of the collection (objects, or the 1.0 manifest), each item's JSON written by `entry`. */
    const collectionPage =
      (entry: (item: Item) => string) =>
      async (req: FastifyRequest<{ Params: Params; Querystring: Query }>, reply: FastifyReply) => {
        const e = env(req)
        const filters = parseFilters(req.query, { id: true, type: true, version: true })
        const page = await openItemPage(e, findCollection(e, req.params.collection!), filters)
        const head: Record<string, unknown> = { more: page.more }
        if (page.next) head.next = encodePosition(page.next)
        dateHeaders(reply, page.firstAdded, page.lastAdded)
        return streamList(head, page.batches, entry)
      }

    get(`${root}/collections/:collection/objects`, collectionPage(stixObject), true)

    get(`${root}/collections/:collection/objects/:object`, async (req, reply) => {
      const e = env(req)
      const filters = parseFilters(req.query, { version: true })
      const items = await readObject(e, findCollection(e, req.params.collection!), req.params.object!, filters)
      itemDateHeaders(reply, items)
      return streamList({ more: false }, [items], stixObject)
    })

    get(`${root}/collections/:collection/objects/:object/versions`, async (req, reply) => {
      const e = env(req)
      const filters = parseFilters(req.query, {})
      const items = await readObject(e, findCollection(e, req.params.collection!), req.params.object!, filters)
      return send(reply, items.length ? { more: false, versions: items.map((i) => i.version) } : { more: false }, items)
    })

    if (o.version === '1.0') {
      get(`${root}/collections/:collection/manifest`, collectionPage(manifestRecord), true)
    }
  }
}
