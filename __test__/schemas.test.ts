import { describe, expect, it } from 'vitest'

import { normalizeSchema, ToolRuntime, ToolwireError, validateToolName } from '../dist/index.js'
import type { SchemaTarget } from '../dist/index.js'
import { untyped } from './helpers.js'

const TARGETS: SchemaTarget[] = ['openai', 'openai-strict', 'anthropic', 'gemini', 'xai', 'mistral', 'llamacpp', 'p0']

/** A schema with a bit of everything providers disagree on. */
const editSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 6_700_000 },
    mode: { anyOf: [{ const: 'append' }, { const: 'replace' }] },
    note: { type: ['string', 'null'] },
    node: { $ref: '#/$defs/Node' },
  },
  required: ['path'],
  additionalProperties: false,
  $defs: { Node: { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#/$defs/Node' } } } },
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ToolwireError)
    return (error as ToolwireError).code
  }
  return undefined
}

describe('normalizeSchema', () => {
  it('gemini: removes what Gemini refuses, turns a literal union into an enum and a null type into nullable', () => {
    const { schema, removed, warnings } = normalizeSchema(editSchema, 'gemini') as { schema: any; removed: any[]; warnings: string[] }
    expect(schema.properties.mode).toEqual({ type: 'string', enum: ['append', 'replace'] })
    expect(schema.properties.note).toEqual({ type: 'string', nullable: true })
    expect(schema.properties.path).toEqual({ type: 'string' })
    expect(schema).not.toHaveProperty('additionalProperties')
    expect(schema).not.toHaveProperty('$defs')
    expect(removed).toContainEqual({ path: '/properties/path/maxLength', keyword: 'maxLength' })
    expect(removed).toContainEqual({ path: '/additionalProperties', keyword: 'additionalProperties' })
    // The recursive reference is cut, and said so.
    expect(warnings.join('\n')).toMatch(/Node/)
  })

  it('every target is idempotent: normalizing the output again changes nothing', () => {
    for (const target of TARGETS) {
      const once = normalizeSchema(editSchema, target)
      const twice = normalizeSchema(once.schema, target)
      expect(twice.schema, target).toEqual(once.schema)
      expect(twice.removed, target).toEqual([])
    }
  })

  it('openai-strict: every property required, optional ones nullable, and denormalize strips only forced nulls', () => {
    const original = {
      type: 'object',
      properties: { path: { type: 'string' }, limit: { type: 'integer' }, cursor: { type: ['string', 'null'] } },
      required: ['path'],
    }
    const strict = normalizeSchema(original, 'openai-strict')
    expect(strict.schema).toMatchObject({
      additionalProperties: false,
      required: ['path', 'limit', 'cursor'],
      properties: { limit: { type: ['integer', 'null'] } },
    })
    expect(strict.denormalize({ path: 'a', limit: null, cursor: null })).toEqual({ path: 'a', cursor: null })
  })

  it('openai-strict: past a limit is a LIMIT_EXCEEDED error naming the number', () => {
    const wide = { type: 'object', properties: { e: { type: 'string', enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } } }
    expect(codeOf(() => normalizeSchema(wide, 'openai-strict'))).toBe('LIMIT_EXCEEDED')
    expect(() => normalizeSchema(wide, 'openai-strict')).toThrow(/1001/)
  })

  it('p0 changes nothing and reports what is not portable', () => {
    const schema = { type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'number' }] } } }
    const { schema: out, removed, warnings } = normalizeSchema(schema, 'p0')
    expect(out).toEqual(schema)
    expect(removed).toEqual([])
    expect(warnings).toEqual([expect.stringContaining('/properties/a')])
    expect(warnings[0]).toContain('oneOf')
  })

  it('anthropic: a root union of objects becomes one object requiring what every variant requires', () => {
    const schema = {
      anyOf: [
        { type: 'object', properties: { kind: { enum: ['a'] }, x: { type: 'string' } }, required: ['kind', 'x'] },
        { type: 'object', properties: { kind: { enum: ['b'] }, y: { type: 'string' } }, required: ['kind'] },
      ],
    }
    const { schema: out } = normalizeSchema(schema, 'anthropic') as { schema: any }
    expect(out.type).toBe('object')
    expect(out).not.toHaveProperty('anyOf')
    expect(out.required).toEqual(['kind'])
    expect(out.properties.kind.enum).toEqual(['a', 'b'])
    expect(Object.keys(out.properties).sort()).toEqual(['kind', 'x', 'y'])
  })

  it('refuses a remote $ref without fetching it, and a too-deep schema, with typed errors', () => {
    const remote = { type: 'object', properties: { a: { $ref: 'https://example.invalid/a.json' } } }
    expect(codeOf(() => normalizeSchema(remote, 'openai'))).toBe('VALIDATION_ERROR')
    expect(() => normalizeSchema(remote, 'openai')).toThrow(/example\.invalid/)
    const nested = (levels: number) => {
      let schema: object = { type: 'string' }
      for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } }
      return schema
    }
    expect(normalizeSchema(nested(40), 'openai').schema).toEqual(nested(40))
    expect(codeOf(() => normalizeSchema(nested(40), 'openai', { maxDepth: 10 }))).toBe('LIMIT_EXCEEDED')
    // Deeper than JSON text may nest on the way in.
    expect(codeOf(() => normalizeSchema(nested(100), 'openai'))).toBe('LIMIT_EXCEEDED')
  })

  it('refuses bad arguments with clear errors', () => {
    expect(() => normalizeSchema(null as unknown as object, 'openai')).toThrow(TypeError)
    expect(codeOf(() => normalizeSchema({}, 'cohere' as SchemaTarget))).toBe('VALIDATION_ERROR')
    expect(() => normalizeSchema({}, 'cohere' as SchemaTarget)).toThrow(/cohere/)
  })

  it('names an unknown target with the closest one, quoting at most 100 characters of it', () => {
    expect(() => normalizeSchema({}, 'gemni' as SchemaTarget)).toThrow(
      'normalizeSchema: unknown schema target "gemni": expected one of "openai", "openai-strict", "anthropic", "gemini", "xai", "mistral", "llamacpp", "p0"; did you mean "gemini"?',
    )
    expect(() => validateToolName('f', 'openai-response' as SchemaTarget)).toThrow(/^validateToolName: unknown target "openai-response": .*; did you mean "openai-responses"\?$/)
    expect(codeOf(() => validateToolName('f', 'openai-response' as SchemaTarget))).toBe('VALIDATION_ERROR')
    let message = ''
    try {
      normalizeSchema({}, 'x'.repeat(1 << 20) as SchemaTarget)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message.length).toBeLessThan(400)
  })
})

describe('validateToolName', () => {
  it('applies each provider rule', () => {
    expect(validateToolName('get_weather', 'anthropic')).toEqual({ ok: true })
    expect(validateToolName('get.weather', 'gemini')).toEqual({ ok: true })
    const dotted = validateToolName('get.weather', 'openai-chat')
    expect(dotted.ok).toBe(false)
    expect(dotted.reason).toContain('get.weather')
    expect(validateToolName('9lives', 'gemini').ok).toBe(false)
    expect(validateToolName('9lives', 'anthropic').ok).toBe(true)
    expect(validateToolName('x'.repeat(65), 'openai').ok).toBe(false)
  })
})

function runtimeWithTools() {
  const runtime = new ToolRuntime()
  runtime.register({
    name: 'edit',
    description: 'Edit a file',
    parameters: editSchema,
    execute: untyped((_id: string, params: unknown) => params),
  })
  runtime.register({ name: 'ping', execute: () => 'pong' })
  return runtime
}

describe('ToolRuntime.definitions', () => {
  it('gives each wire its own shape, with a report per tool', () => {
    const runtime = runtimeWithTools()
    const chat = runtime.definitions('openai-chat')
    expect(chat.tools[0]).toMatchObject({ type: 'function', function: { name: 'edit', description: 'Edit a file' } })
    expect(chat.tools[0]).not.toHaveProperty('function.strict')
    const strict = runtime.definitions('openai-strict')
    expect(strict.tools[0]).toMatchObject({ type: 'function', function: { name: 'edit', strict: true } })
    const responses = runtime.definitions('openai-responses') as { tools: any[] }
    expect(Object.keys(responses.tools[0]).sort()).toEqual(['description', 'name', 'parameters', 'strict', 'type'])
    const anthropic = runtime.definitions('anthropic') as { tools: any[] }
    expect(Object.keys(anthropic.tools[0]).sort()).toEqual(['description', 'input_schema', 'name'])
    const gemini = runtime.definitions('gemini') as { tools: any[]; reports: any[] }
    expect(gemini.tools).toHaveLength(1)
    expect(gemini.tools[0].functionDeclarations.map((d: any) => d.name)).toEqual(['edit', 'ping'])
    expect(gemini.tools[0].functionDeclarations[0]).toHaveProperty('parameters')
    const hash = runtime.list()[0].schemaHash
    expect(hash).toMatch(/^[0-9a-f]{16}$/)
    expect(gemini.reports[0]).toMatchObject({ tool: 'edit', schemaHash: hash })
    expect(gemini.reports[0].removed).toContainEqual({ path: '/properties/path/maxLength', keyword: 'maxLength' })
    const json = runtime.definitions('gemini', { jsonSchema: true }) as { tools: any[] }
    expect(json.tools[0].functionDeclarations[0]).toHaveProperty('parametersJsonSchema')
    expect(json.tools[0].functionDeclarations[0]).not.toHaveProperty('parameters')
  })

  it('throws naming a tool whose name the target refuses', () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: '9lives', execute: () => 'ok' })
    expect(codeOf(() => runtime.definitions('gemini'))).toBe('VALIDATION_ERROR')
    expect(() => runtime.definitions('gemini')).toThrow(/9lives/)
    expect(() => runtime.definitions('nope' as never)).toThrow(/nope/)
  })

  it('the schema hash is stable under key order and changes with the schema', () => {
    const a = new ToolRuntime()
    a.register({ name: 't', parameters: { type: 'object', properties: { x: { type: 'string' } } }, execute: () => '' })
    const b = new ToolRuntime()
    b.register({ name: 't', parameters: { properties: { x: { type: 'string' } }, type: 'object' }, execute: () => '' })
    const c = new ToolRuntime()
    c.register({ name: 't', parameters: { type: 'object', properties: { x: { type: 'number' } } }, execute: () => '' })
    expect(a.list()[0].schemaHash).toBe(b.list()[0].schemaHash)
    expect(a.list()[0].schemaHash).not.toBe(c.list()[0].schemaHash)
  })

  it('after sending strict definitions, the nulls the strict form forced are stripped before the tool runs', async () => {
    const runtime = new ToolRuntime()
    const seen: unknown[] = []
    runtime.register({
      name: 'search',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer' }, cursor: { type: ['string', 'null'] } },
        required: ['query'],
        additionalProperties: false,
      },
      execute: (_id: string, params: unknown) => {
        seen.push(params)
        return 'ok'
      },
    })
    const args = '{"query":"q","limit":null,"cursor":null}'
    const [before] = await runtime.dispatch([{ id: 'a', name: 'search', arguments: args }])
    expect(before.error?.code).toBe('VALIDATION_ERROR')
    runtime.definitions('openai-strict')
    const [after] = await runtime.dispatch([{ id: 'b', name: 'search', arguments: args }])
    expect(after.ok).toBe(true)
    expect(seen).toEqual([{ query: 'q', cursor: null }])
    expect(after.args).toEqual({ query: 'q', cursor: null })
  })
})
