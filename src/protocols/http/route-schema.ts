/**
 * The vocabulary of route schemas: each REST route carries its parameters, query string, body
 * and responses as JSON Schema in Fastify's own `schema` route option, and the OpenAPI documents
 * are generated from what the routes carry (openapi.ts).
 *
 * Fastify compiles neither validators nor serializers from them (see `schemaCompilers`): the
 * domain reads every value and answers bad input in the platform's words and status codes, which
 * the SDKs depend on, and the presenters write their own JSON (fields= changes a v3 record's
 * shape, and a serializer would drop what a schema does not name). So a schema costs a request
 * nothing; the OpenAPI tests prove it true by validating real responses against it.
 */
import type { FastifySchema, FastifySchemaCompiler } from 'fastify'

export type JsonSchema = { [key: string]: unknown }

export interface ResponseDoc {
  description: string
  content?: Record<string, { schema: JsonSchema }>
}

/** Fastify's route schema with the OpenAPI words an operation adds. */
export interface RouteSchema extends FastifySchema {
  summary?: string
  tags?: string[]
  params?: JsonSchema
  querystring?: JsonSchema
  body?: JsonSchema
  /** Media types the body may come in (JSON when absent). */
  consumes?: string[]
  response?: Record<string, ResponseDoc>
}

export const string = (description?: string): JsonSchema => ({
  type: 'string',
  ...(description ? { description } : {}),
})
export const integer = (description?: string): JsonSchema => ({
  type: 'integer',
  ...(description ? { description } : {}),
})
export const number = (description?: string): JsonSchema => ({
  type: 'number',
  ...(description ? { description } : {}),
})
export const boolean = (description?: string): JsonSchema => ({
  type: 'boolean',
  ...(description ? { description } : {}),
})
export const dateTime = (description?: string): JsonSchema => ({
  type: 'string',
  format: 'date-time',
  ...(description ? { description } : {}),
})
export const arrayOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items })
export const anyObject: JsonSchema = { type: 'object' }

/** An object with these properties; others may appear (records grow with includes and fields=). */
export function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required } : {}) }
}

/** Path parameters, all text on the wire. */
export function pathParams(names: Record<string, string>): JsonSchema {
  return object(
    Object.fromEntries(Object.entries(names).map(([name, description]) => [name, string(description)])),
    Object.keys(names),
  )
}

export function jsonResponse(description: string, schema: JsonSchema, mediaType = 'application/json'): ResponseDoc {
  return { description, content: { [mediaType]: { schema } } }
}

/**
 * Compilers that compile nothing: Fastify then runs no validation for a route (its validation
 * step returns at once when no validator exists) and, since every REST reply is sent as text or
 * bytes, no serializer either; an object reply gets plain JSON.stringify, as without a schema.
 */
export const schemaCompilers = {
  validator: (() => undefined) as unknown as FastifySchemaCompiler<unknown>,
  serializer: () => (data: unknown) => JSON.stringify(data),
}

const PARAM_WORDS: Record<string, string> = {
  id: 'Id (v3 Indicators also take their summary)',
  type: 'Type: apiBranch of an Indicator or Group type (addresses, incidents…)',
  indicator: 'The Indicator\'s summary (its value fields joined by " : "), URL-encoded',
  groupType: 'Group type apiBranch (adversaries, incidents…)',
  groupId: 'Group id',
  taskId: 'Task id',
  victimId: 'Victim id',
  assetType: 'Asset type branch',
  assetId: 'Asset id',
  name: 'Name',
  tag: 'Tag name',
  label: 'Security Label name',
  attributeId: 'Attribute id',
  metric: 'Custom metric id or name',
  user: 'User name',
  assocType: 'Type branch of the associated item',
  assocId: 'Id of the associated item',
  summary: 'Summary of the associated Indicator',
  targetType: 'Indicator type branch of the other Indicator',
  target: 'Summary of the other Indicator',
  associationType: 'Custom association type name',
  occurrenceId: 'File occurrence id',
  format: '`json` or `csv`',
}

/**
 * The route's schema with its path parameters, read from its URL (every one is text on the
 * wire; the domain parses and refuses): applied to every REST route as it is registered, so no
 * route can have a parameter its schema does not name.
 */
export function withPathParams(url: string, schema: RouteSchema | undefined): RouteSchema | undefined {
  const names = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1])
  if (!names.length || schema?.params) return schema
  return { ...schema, params: pathParams(Object.fromEntries(names.map((n) => [n, PARAM_WORDS[n] ?? n]))) }
}
