// Type tests of typed tools (type-checked by tsconfig.strict.json, as a user's strict nodenext
// project; __test__/typed-tools.test.ts runs the tools). Each `@ts-expect-error` is an expected
// error: should the line compile, tsc fails on the unused directive. `expectTypeOf` pins the types
// inferred from each kind of schema.
import { Type } from '@sinclair/typebox'
import TypeBox from 'typebox'
import { expectTypeOf } from 'vitest'
import { z } from 'zod'
import { z as z3 } from 'zod/v3'
import { ToolRuntime, defineTool, type ApprovalCallback, type InferParameters } from 'toolwire'

/** A Zod 4 schema: its input side (defaults not filled in: toolwire never runs Zod's parse). */
export const zod4 = defineTool({
  name: 'read_file',
  parameters: z.object({ path: z.string(), limit: z.number().int().default(100), mode: z.enum(['text', 'bytes']).optional() }),
  execute: async (_id, params) => {
    expectTypeOf(params).toEqualTypeOf<{ path: string; limit?: number | undefined; mode?: 'text' | 'bytes' | undefined }>()
    // @ts-expect-error a misspelled parameter
    void params.pth
    return `${params.path.length}`
  },
})

/** A Zod 3 schema (`zod/v3`): its input side too. */
export const zod3 = defineTool({
  name: 'legacy',
  parameters: z3.object({ q: z3.string(), n: z3.number().optional() }),
  execute: (_id, params) => {
    expectTypeOf(params).toEqualTypeOf<{ q: string; n?: number | undefined }>()
    // @ts-expect-error q is a string
    const n: number = params.q
    return String(n)
  },
})

/** A TypeBox 0.3x schema: its `Static` type. */
export const typebox034 = defineTool({
  name: 'tb034',
  parameters: Type.Object({ id: Type.String(), count: Type.Optional(Type.Integer()) }),
  execute: (_id, params) => {
    expectTypeOf(params).toEqualTypeOf<{ id: string; count?: number }>()
    return { content: [{ type: 'text', text: params.id }] }
  },
})

/** A TypeBox 1.x schema (pi-agent-core's): read from its JSON Schema shape. */
export const typebox1 = defineTool({
  name: 'tb1',
  parameters: TypeBox.Object({ city: TypeBox.String(), days: TypeBox.Optional(TypeBox.Number()), unit: TypeBox.Union([TypeBox.Literal('c'), TypeBox.Literal('f')]) }),
  execute: (_id, params) => {
    expectTypeOf(params).toEqualTypeOf<{ city: string; unit: 'c' | 'f'; days?: number }>()
    return params.city
  },
})

/** A JSON Schema literal: read by the type parameter's `const` (no `as const` needed). */
export const jsonSchema = defineTool({
  name: 'search',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      sort: { enum: ['asc', 'desc'] },
      near: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] },
      limit: { type: ['integer', 'null'] },
    },
    required: ['query'],
    additionalProperties: false,
  },
  execute: (_id, params) => {
    expectTypeOf(params).toEqualTypeOf<{
      query: string
      tags?: string[]
      sort?: 'asc' | 'desc'
      near?: { lat: number; lon: number }
      limit?: number | null
    }>()
    // @ts-expect-error a misspelled parameter
    void params.qery
    return { hits: [params.query], sort: params.sort ?? 'asc' }
  },
})

/** The same schema written `as const` beforehand reads the same. */
const searchSchema = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } as const
expectTypeOf<InferParameters<typeof searchSchema>>().toEqualTypeOf<{ query: string }>()

/** A schema TypeScript only knows loosely (not `as const`, typed `object`) types params as any. */
const loose: object = { type: 'object' }
expectTypeOf<InferParameters<typeof loose>>().toBeAny()
/** No schema: any, so an annotation is taken as given. */
expectTypeOf<InferParameters<undefined>>().toBeAny()
export const annotated = defineTool({ name: 'add', execute: (_id: string, p: { a: number; b: number }) => String(p.a + p.b) })

/** A 1x1 PNG. */
const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/** What execute returns is checked: blocks must be blocks, details must match outputSchema. */
export const returns = [
  defineTool({ name: 'text', execute: async () => ({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: pixel, mimeType: 'image/png' }] }) }),
  defineTool({ name: 'plain', execute: () => 'a string' }),
  defineTool({ name: 'json', execute: async () => ({ rows: [1, 2, 3] }) }),
  defineTool({ name: 'nothing', execute: async () => {} }),
  // @ts-expect-error a block type that does not exist
  defineTool({ name: 'bad_block', execute: async () => ({ content: [{ type: 'txt', text: 'a' }] }) }),
  // a content that is no list is a JSON value (a file tool's { path, content }), as at run time
  defineTool({ name: 'bad_content', execute: () => ({ content: 'a' }) }),
  defineTool({ name: 'file', execute: (_id: string, p: { path: string }) => ({ path: p.path, content: 'hello' }) }),
  // @ts-expect-error a list of content is blocks, and 'txt' is none
  defineTool({ name: 'bad_blocks_value', execute: () => ({ path: 'a', content: [{ type: 'txt', text: 'a' }] }) }),
  defineTool({
    name: 'measured',
    outputSchema: z.object({ size: z.number() }),
    execute: async () => ({ content: [{ type: 'text', text: 'size 3' }], details: { size: 3 } }),
  }),
  defineTool({
    name: 'mismeasured',
    outputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
    // @ts-expect-error details that outputSchema refuses
    execute: async () => ({ content: [{ type: 'text', text: 'size 3' }], details: { size: 'three' } }),
  }),
]

/** register is typed the same way, for a tool written in place; tools of defineTool register from a list. */
export function registerTyped(runtime: ToolRuntime): void {
  for (const tool of [zod4, zod3, typebox1]) runtime.register(tool)
  runtime.register({
    name: 'add',
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: (_id, { a, b }) => String(a + b),
  })
  // @ts-expect-error a parameter typed against the schema (a is a string)
  runtime.register({
    name: 'concat',
    parameters: z.object({ a: z.string() }),
    execute: (_id: string, params: { a: number }) => String(params.a),
  })
  // @ts-expect-error token is optional in the schema, required in the annotation
  runtime.register({
    name: 'required',
    parameters: { type: 'object', properties: { token: { type: 'string' } } },
    execute: (_id: string, params: { token: string }) => params.token,
  })
}

/** onApproval answers a decision or a boolean, from a plain or an async function. */
export const answers: ApprovalCallback[] = [
  async () => 'deny',
  () => 'allow-once',
  async (request) => {
    if (request.toolName === 'exec') return 'deny'
    return 'allow-always'
  },
  async () => true,
  () => false,
  async (request) => request.toolName === 'read',
]
// @ts-expect-error not a decision
export const wrongAnswer: ApprovalCallback = async () => 'maybe'
