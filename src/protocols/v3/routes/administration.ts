/**
 * /v3/admin/… (beyond the interface specification): owners, accounts, memberships, API tokens, access keys and
 * system settings, and every account's batch and import jobs (admin-jobs.ts), for system administrators (domain/access/administration.ts, the CLI's functions). A token or a
 * secret key is in the answer of the call that makes it and in no other. These routes are the installation's own,
 * not the platform's, so a refused caller gets HTTP's 403 rather than the spec's 401 for a missing permission.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { adminJobRoutes } from './admin-jobs.js'
import { textValue } from '../../../core/input.js'
import {
  adminCreateAccessKey,
  adminCreateAccount,
  adminCreateOwner,
  adminIssueToken,
  adminListAccounts,
  adminListMemberships,
  adminListOwners,
  adminListSettings,
  adminRemoveMembership,
  adminRevokeAccessKeys,
  adminRevokeTokens,
  adminSetMembership,
  adminSetSettings,
  adminUpdateAccount,
} from '../../../domain/access/administration.js'
import { OWNER_TYPES } from '../../../model/kinds.js'
import { ACCOUNT_KINDS, SYSTEM_ROLES } from '../../../model/roles.js'
import { REST_STATUS } from '../../http/errors.js'
import {
  type JsonSchema,
  type RouteSchema,
  anyObject,
  arrayOf,
  boolean,
  integer,
  jsonResponse,
  object,
  pathParams,
  string,
} from '../../http/route-schema.js'
import { sendV3Body, sendV3Created, sendV3Updated, v3ErrorHandler } from '../present.js'
import { V3_ERROR } from '../schemas.js'

const BEYOND = ' (system administrators) — beyond the interface specification'
const REFUSED = { '4XX': jsonResponse('Refused: `{errCode, message, status: "Error"}`', V3_ERROR) }
const SUCCESS = { const: 'Success' }
const nullable = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [schema.type as string, 'null'] })

const OWNER = object(
  {
    id: integer(),
    name: string(),
    type: { type: 'string', enum: [...OWNER_TYPES] },
    description: nullable(string()),
    dateAdded: string(),
  },
  ['id', 'name', 'type'],
)
const ACCOUNT = object(
  {
    id: integer(),
    userName: string(),
    kind: { type: 'string', enum: [...ACCOUNT_KINDS] },
    organization: nullable(string('Its home Organization')),
    role: nullable(string('Its role there')),
    systemRole: string(),
    firstName: nullable(string()),
    lastName: nullable(string()),
    pseudonym: nullable(string()),
    email: nullable(string()),
    disabled: boolean(),
    tokenLifetimeDays: nullable(integer('Days new API tokens live; null: they do not expire')),
    dateAdded: string(),
  },
  ['id', 'userName', 'kind', 'systemRole', 'disabled'],
)
const MEMBERSHIP = object(
  { userName: string(), owner: string(), ownerType: { type: 'string', enum: [...OWNER_TYPES] }, role: string() },
  ['userName', 'owner', 'ownerType', 'role'],
)
const SETTING = object(
  {
    name: string(),
    value: { type: ['boolean', 'integer'] },
    default: { type: ['boolean', 'integer'] },
    type: { type: 'string', enum: ['boolean', 'integer'] },
    description: string(),
  },
  ['name', 'value', 'default', 'type', 'description'],
)
const REVOKED = object({ userName: string(), revoked: integer('How many went') }, ['userName', 'revoked'])

const answer = (description: string, data: JsonSchema, message?: string) =>
  jsonResponse(
    description,
    object({ data, ...(message ? { message: { const: message } } : {}), status: SUCCESS }, ['data', 'status']),
  )
const list = (description: string, item: JsonSchema) =>
  jsonResponse(description, object({ data: arrayOf(item), count: integer(), status: SUCCESS }, ['data', 'status']))

const USER = pathParams({ userName: 'The account' })
const USER_IN_OWNER = pathParams({ userName: 'The account', ownerName: 'The owner' })

const SCHEMAS = {
  listOwners: {
    summary: `Every owner, oldest first${BEYOND}`,
    response: { 200: list('The owners', OWNER), ...REFUSED },
  },
  createOwner: {
    summary: `Create an Organization, Community or Source${BEYOND}`,
    body: object({ name: string(), type: { type: 'string', enum: [...OWNER_TYPES] }, description: string() }, [
      'name',
      'type',
    ]),
    response: { 201: answer('Created', OWNER, 'Created'), ...REFUSED },
  },
  listAccounts: {
    summary: `Accounts, never their credentials${BEYOND}`,
    querystring: object({
      kind: { type: 'string', enum: [...ACCOUNT_KINDS], description: 'Only this kind' },
      organization: string('Only this Organization'),
    }),
    response: { 200: list('The accounts', ACCOUNT), ...REFUSED },
  },
  createAccount: {
    summary: `Create a human, API or TAXII account in an Organization${BEYOND}`,
    body: object(
      {
        userName: string(),
        kind: { type: 'string', enum: [...ACCOUNT_KINDS], description: 'Default api' },
        organization: string('Its home; may be left out when there is one Organization'),
        role: string('Organization role, default Standard User'),
        systemRole: { type: 'string', enum: [...SYSTEM_ROLES], description: 'Default by kind' },
        firstName: string(),
        lastName: string(),
        pseudonym: string(),
        email: string(),
        password: string('At least 8 characters; required for TAXII accounts; never returned'),
        tokenLifetimeDays: integer('Days new API tokens live'),
      },
      ['userName'],
    ),
    response: { 201: answer('Created', ACCOUNT, 'Created'), ...REFUSED },
  },
  updateAccount: {
    summary: `Disable or enable an account, set its password or its token lifetime${BEYOND}`,
    params: USER,
    body: object({
      disabled: boolean(),
      password: string('At least 8 characters; ends its console sessions'),
      tokenLifetimeDays: nullable(integer('Days new API tokens live; null or 0: they do not expire')),
    }),
    response: { 200: answer('Changed', ACCOUNT, 'Updated'), ...REFUSED },
  },
  issueToken: {
    summary: `Issue an API token, answered this once${BEYOND}`,
    params: USER,
    body: object({
      lifetimeDays: integer("Default: the account's token lifetime, else none"),
      temporary: boolean('A 4-hour token instead'),
    }),
    response: {
      201: answer(
        'Issued: keep the token now, it is never shown again',
        object(
          {
            userName: string(),
            kind: { type: 'string', enum: ['api', 'temporary'] },
            token: string('Send as `Authorization: TC-Token <token>`'),
            expiresAt: nullable(string()),
          },
          ['userName', 'kind', 'token', 'expiresAt'],
        ),
        'Created',
      ),
      ...REFUSED,
    },
  },
  revokeTokens: {
    summary: `Revoke every API token of an account${BEYOND}`,
    params: USER,
    response: { 200: answer('Revoked', REVOKED, 'Deleted'), ...REFUSED },
  },
  createKey: {
    summary: `Create an access id and secret key for HMAC signatures (API accounts), answered this once${BEYOND}`,
    params: USER,
    response: {
      201: answer(
        'Created: keep the secret key now, it is never shown again',
        object({ userName: string(), accessId: string(), secretKey: string() }, ['userName', 'accessId', 'secretKey']),
        'Created',
      ),
      ...REFUSED,
    },
  },
  revokeKeys: {
    summary: `Revoke one access key of an account, or all of them${BEYOND}`,
    params: USER,
    querystring: object({ accessId: string('Only this one') }),
    response: { 200: answer('Revoked', REVOKED, 'Deleted'), ...REFUSED },
  },
  listMemberships: {
    summary: `Memberships of one account, one owner, or everyone${BEYOND}`,
    querystring: object({ userName: string('Only this account'), ownerName: string('Only this owner') }),
    response: { 200: list('The memberships', MEMBERSHIP), ...REFUSED },
  },
  setMembership: {
    summary: `Give an account a role in an owner (adds or changes the membership)${BEYOND}`,
    params: USER_IN_OWNER,
    body: object({ role: string('An Organization role in its own Organization, a Community role elsewhere') }, [
      'role',
    ]),
    response: { 200: answer('Set', MEMBERSHIP, 'Updated'), ...REFUSED },
  },
  removeMembership: {
    summary: `Take an account out of a Community or Source${BEYOND}`,
    params: USER_IN_OWNER,
    response: {
      200: answer(
        'Removed',
        object({ userName: string(), owner: string(), removed: { const: true } }, ['userName', 'owner', 'removed']),
        'Deleted',
      ),
      ...REFUSED,
    },
  },
  listSettings: {
    summary: `Every system setting with its value, default and description${BEYOND}`,
    response: { 200: list('The settings', SETTING), ...REFUSED },
  },
  setSettings: {
    summary: `Set one setting or several, all or none${BEYOND}`,
    body: { ...anyObject, description: '`{"<name>": <value>, …}`: true/false or whole numbers' },
    response: { 200: answer('Every setting, as now', arrayOf(SETTING), 'Updated'), ...REFUSED },
  },
} satisfies Record<string, RouteSchema>

const userName = (req: FastifyRequest) => (req.params as { userName: string }).userName
const ownerName = (req: FastifyRequest) => (req.params as { ownerName: string }).ownerName
const query = (req: FastifyRequest, name: string) =>
  textValue((req.query as Record<string, unknown>)[name], name) ?? undefined
const listed = (data: unknown[]) => ({ data, count: data.length, status: 'Success' })

/** Forbidden is 403 here (see the module comment); every other refusal as the rest of v3 answers it. */
const ADMIN_STATUS = { ...REST_STATUS, forbidden: 403 }

export async function administrationRoutes(app: FastifyInstance) {
  await app.register(async (admin) => {
    admin.setErrorHandler(v3ErrorHandler(ADMIN_STATUS))
    await adminJobRoutes(admin)
    admin.get('/admin/owners', { schema: SCHEMAS.listOwners }, async (req, reply) =>
      sendV3Body(reply, 200, listed(await adminListOwners(req.ctx))),
    )
    admin.post('/admin/owners', { schema: SCHEMAS.createOwner }, async (req, reply) =>
      sendV3Created(reply, await adminCreateOwner(req.ctx, req.body)),
    )
    admin.get('/admin/accounts', { schema: SCHEMAS.listAccounts }, async (req, reply) => {
      const filter = { kind: query(req, 'kind'), organization: query(req, 'organization') }
      return sendV3Body(reply, 200, listed(await adminListAccounts(req.ctx, filter)))
    })
    admin.post('/admin/accounts', { schema: SCHEMAS.createAccount }, async (req, reply) =>
      sendV3Created(reply, await adminCreateAccount(req.ctx, req.body)),
    )
    admin.put('/admin/accounts/:userName', { schema: SCHEMAS.updateAccount }, async (req, reply) =>
      sendV3Updated(reply, await adminUpdateAccount(req.ctx, userName(req), req.body)),
    )
    admin.post('/admin/accounts/:userName/tokens', { schema: SCHEMAS.issueToken }, async (req, reply) =>
      sendV3Created(reply, await adminIssueToken(req.ctx, userName(req), req.body)),
    )
    admin.delete('/admin/accounts/:userName/tokens', { schema: SCHEMAS.revokeTokens }, async (req, reply) =>
      sendV3Body(reply, 200, {
        data: await adminRevokeTokens(req.ctx, userName(req)),
        message: 'Deleted',
        status: 'Success',
      }),
    )
    admin.post('/admin/accounts/:userName/keys', { schema: SCHEMAS.createKey }, async (req, reply) =>
      sendV3Created(reply, await adminCreateAccessKey(req.ctx, userName(req))),
    )
    admin.delete('/admin/accounts/:userName/keys', { schema: SCHEMAS.revokeKeys }, async (req, reply) => {
      const revoked = await adminRevokeAccessKeys(req.ctx, userName(req), query(req, 'accessId'))
      return sendV3Body(reply, 200, { data: revoked, message: 'Deleted', status: 'Success' })
    })
    admin.get('/admin/memberships', { schema: SCHEMAS.listMemberships }, async (req, reply) => {
      const filter = { userName: query(req, 'userName'), ownerName: query(req, 'ownerName') }
      return sendV3Body(reply, 200, listed(await adminListMemberships(req.ctx, filter)))
    })
    admin.put('/admin/memberships/:userName/:ownerName', { schema: SCHEMAS.setMembership }, async (req, reply) =>
      sendV3Updated(reply, await adminSetMembership(req.ctx, userName(req), ownerName(req), req.body)),
    )
    admin.delete(
      '/admin/memberships/:userName/:ownerName',
      { schema: SCHEMAS.removeMembership },
      async (req, reply) => {
        const removed = await adminRemoveMembership(req.ctx, userName(req), ownerName(req))
        return sendV3Body(reply, 200, { data: removed, message: 'Deleted', status: 'Success' })
      },
    )
    admin.get('/admin/settings', { schema: SCHEMAS.listSettings }, async (req, reply) =>
      sendV3Body(reply, 200, listed(await adminListSettings(req.ctx))),
    )
    admin.put('/admin/settings', { schema: SCHEMAS.setSettings }, async (req, reply) =>
      sendV3Updated(reply, await adminSetSettings(req.ctx, req.body)),
    )
  })
}
