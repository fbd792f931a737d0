import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import * as zm from 'zod/mini'
import { z as z3 } from 'zod/v3'

import { ToolRuntime, ToolwireError } from '../../dist/index.js'
import { textOf, untyped } from '../helpers.js'

const weather = z.object({
  city: z.string().describe('The city'),
  days: z.number().int().min(1).max(14).default(3),
  unit: z.enum(['c', 'f']).optional(),
})

describe('Zod 4 schemas as parameters', () => {
  it('register converts a Zod schema with z.toJSONSchema (input side) and dispatch validates against it', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'weather', parameters: weather, execute: untyped((_id: string, params: unknown) => params) })
    const [info] = runtime.list()
    expect(info.parameters).toEqual(z.toJSONSchema(weather, { io: 'input' }))
    expect(info.parameters).toMatchObject({ type: 'object', required: ['city'], properties: { city: { description: 'The city' } } })

    const [ok, tooMany, wrongEnum, missing] = await runtime.dispatch([
      { id: 'a', name: 'weather', arguments: '{"city":"Oslo"}' },
      { id: 'b', name: 'weather', arguments: '{"city":"Oslo","days":30}' },
      { id: 'c', name: 'weather', arguments: '{"city":"Oslo","unit":"k"}' },
      { id: 'd', name: 'weather', arguments: '{}' },
    ])
    expect(ok).toMatchObject({ ok: true, data: { city: 'Oslo' } })
    expect(tooMany.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(tooMany)).toContain('/days')
    expect(wrongEnum.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(wrongEnum)).toContain('/unit')
    expect(missing.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(missing)).toContain('city')
  })

  it('the converted schema reaches provider definitions', () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'weather', description: 'Forecast', parameters: weather, execute: () => 'ok' })
    const { tools } = runtime.definitions('anthropic')
    expect(tools[0]).toMatchObject({
      name: 'weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] } }, required: ['city'] },
    })
  })

  it('outputSchema may be a Zod schema too (output side)', async () => {
    const runtime = new ToolRuntime()
    // @ts-expect-error the value { n: 'one' } is not what outputSchema says (checked at run time too, below)
    runtime.register({
      name: 'count',
      parameters: z.object({ good: z.boolean() }),
      outputSchema: z.object({ n: z.number() }),
      execute: (_id: string, p: { good: boolean }) => (p.good ? { n: 1 } : { n: 'one' }),
    })
    expect(runtime.list()[0].outputSchema).toEqual(z.toJSONSchema(z.object({ n: z.number() })))
    const [good, bad] = await runtime.dispatch([
      { id: 'a', name: 'count', arguments: { good: true } },
      { id: 'b', name: 'count', arguments: { good: false } },
    ])
    expect(good).toMatchObject({ ok: true, data: { n: 1 } })
    expect(bad.ok).toBe(false)
    expect(JSON.stringify(bad.error)).toContain('/n')
  })

  it('accepts zod/mini schemas, which have no toJSONSchema method', async () => {
    const schema = zm.object({ q: zm.string() })
    expect((schema as unknown as { toJSONSchema?: unknown }).toJSONSchema).toBeUndefined()
    const runtime = new ToolRuntime()
    runtime.register({ name: 'search', parameters: schema, execute: (_id: string, p: { q: string }) => `found ${p.q}` })
    expect(runtime.list()[0].parameters).toEqual(zm.toJSONSchema(schema, { io: 'input' }))
    const [ok, bad] = await runtime.dispatch([
      { id: 'a', name: 'search', arguments: { q: 'x' } },
      { id: 'b', name: 'search', arguments: { q: 1 } },
    ])
    expect(textOf(ok)).toBe('found x')
    expect(bad.error?.code).toBe('VALIDATION_ERROR')
  })

  it('a Zod schema with no JSON Schema form is refused at register, naming the tool', () => {
    const runtime = new ToolRuntime()
    const tool = { name: 'when', parameters: z.object({ at: z.date() }), execute: () => 'x' }
    expect(() => runtime.register(tool)).toThrow(ToolwireError)
    expect(() => runtime.register(tool)).toThrow(/register: tool "when": parameters is a Zod schema with no JSON Schema form/)
    expect(runtime.list()).toEqual([])
  })

  it('a Zod 3 schema is converted by zod-to-json-schema (input side) and dispatch validates against it', async () => {
    const runtime = new ToolRuntime()
    const seen: unknown[] = []
    runtime.register({
      name: 'legacy',
      parameters: z3.object({ a: z3.string(), n: z3.number().int().default(2), tag: z3.enum(['x', 'y']).optional() }).strict(),
      execute: (_id, params) => {
        seen.push(params)
        // (typed from the Zod 3 schema's input side: n may be absent, as Zod's default is not filled in)
        return `${params.a.toUpperCase()} ${params.n ?? 'none'} ${params.tag ?? '-'}`
      },
    })
    expect(runtime.list()[0].parameters).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, n: { type: 'integer', default: 2 }, tag: { type: 'string', enum: ['x', 'y'] } },
      required: ['a'],
      additionalProperties: false,
    })
    const [ok, wrongType, extra] = await runtime.dispatch([
      { id: 'a', name: 'legacy', arguments: { a: 'hi', tag: 'y' } },
      { id: 'b', name: 'legacy', arguments: { a: 'hi', n: 1.5 } },
      { id: 'c', name: 'legacy', arguments: { a: 'hi', other: true } },
    ])
    expect(textOf(ok)).toBe('HI none y')
    expect(seen).toEqual([{ a: 'hi', tag: 'y' }])
    expect(wrongType.error?.code).toBe('VALIDATION_ERROR')
    expect(extra.error?.code).toBe('VALIDATION_ERROR')
  })

  it('registerPlugin converts Zod schemas as well', async () => {
    const runtime = new ToolRuntime()
    runtime.registerPlugin('p', [{ name: 'echo', parameters: z.object({ s: z.string() }), execute: (_i: string, p: { s: string }) => p.s }])
    const [bad] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: { s: 2 } }])
    expect(bad.error?.code).toBe('VALIDATION_ERROR')
  })
})
