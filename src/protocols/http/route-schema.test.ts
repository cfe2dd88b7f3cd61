/**
 * Route schemas describe and never act: with the app's compilers Fastify compiles no validator
 * (so it runs no validation step, as for a route without a schema) and no serializer that would
 * drop undeclared fields, so requests reach the domain, and answers leave, exactly as sent.
 */
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { type RouteSchema, integer, object, schemaCompilers, string, withPathParams } from './route-schema.js'

const STRICT: RouteSchema = {
  params: object({ id: integer() }, ['id']),
  querystring: object({ resultLimit: { type: 'integer', maximum: 5 } }, ['resultLimit']),
  body: object({ name: string() }, ['name']),
  response: {
    200: { description: 'x', content: { 'application/json': { schema: object({ kept: integer() }, ['kept']) } } },
  },
}

describe('route schemas', () => {
  it('compile into no validator and no filtering serializer', async () => {
    const app = Fastify()
    app.setValidatorCompiler(schemaCompilers.validator)
    app.setSerializerCompiler(schemaCompilers.serializer)
    app.post('/things/:id', { schema: STRICT }, async (req) => {
      const validators = (['params', 'querystring', 'body', 'headers'] as const).map((part) =>
        req.getValidationFunction(part),
      )
      return {
        validators: validators.map((v) => typeof v),
        params: req.params,
        query: req.query,
        body: req.body,
        extra: 'not in the schema',
      }
    })
    const res = await app.inject({
      method: 'POST',
      url: '/things/abc?resultLimit=99&other=1',
      payload: { name: 7, more: true },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      validators: ['undefined', 'undefined', 'undefined', 'undefined'],
      // Nothing refused, nothing coerced: the domain reads the values as the client sent them.
      params: { id: 'abc' },
      query: { resultLimit: '99', other: '1' },
      body: { name: 7, more: true },
      extra: 'not in the schema',
    })
    await app.close()
  })

  it('name every path parameter of the URL', () => {
    expect(withPathParams('/api/v2/groups/:groupType/:groupId', { summary: 's' })).toEqual({
      summary: 's',
      params: {
        type: 'object',
        properties: {
          groupType: { type: 'string', description: 'Group type apiBranch (adversaries, incidents…)' },
          groupId: { type: 'string', description: 'Group id' },
        },
        required: ['groupType', 'groupId'],
      },
    })
    const plain = { summary: 'no parameters' }
    expect(withPathParams('/api/v2/owners', plain)).toBe(plain)
  })
})
