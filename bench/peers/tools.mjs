// What bench/dispatch.mjs and every contender of bench/turn.mjs share: the 10-property schema
// and its arguments (as JSON Schema, and as the zod schemas of the SDKs that validate with zod), the
// 16 trivial tools t0..t15, and the N calls of one model turn.

import { z } from 'zod'

/** The number of distinct tools; call i goes to tool `t${i % TOOLS}`. */
export const TOOLS = 16

/** A 10-property object schema: numbers and strings, some required, nothing else allowed. */
export const schema = {
  type: 'object',
  properties: {
    p0: { type: 'number' },
    p1: { type: 'number', minimum: 0 },
    p2: { type: 'integer' },
    p3: { type: 'number' },
    p4: { type: 'number', maximum: 1e9 },
    p5: { type: 'string' },
    p6: { type: 'string', minLength: 1 },
    p7: { type: 'string' },
    p8: { type: 'string', maxLength: 64 },
    p9: { type: 'string' },
  },
  required: ['p0', 'p1', 'p5', 'p6'],
  additionalProperties: false,
}

/** The same schema in zod (the AI SDK's and the OpenAI Agents SDK's idiomatic way to declare it). */
export const zodSchema = z
  .object({
    p0: z.number(),
    p1: z.number().min(0),
    p2: z.number().int().optional(),
    p3: z.number().optional(),
    p4: z.number().max(1e9).optional(),
    p5: z.string(),
    p6: z.string().min(1),
    p7: z.string().optional(),
    p8: z.string().max(64).optional(),
    p9: z.string().optional(),
  })
  .strict()

/**
 * The same schema as the OpenAI Agents SDK requires zod parameters (strict mode: every property
 * present, the optional ones nullable), as its users declare it.
 */
export const strictZodSchema = z.object({
  p0: z.number(),
  p1: z.number().min(0),
  p2: z.number().int().nullable(),
  p3: z.number().nullable(),
  p4: z.number().max(1e9).nullable(),
  p5: z.string(),
  p6: z.string().min(1),
  p7: z.string().nullable(),
  p8: z.string().max(64).nullable(),
  p9: z.string().nullable(),
})

/** Valid arguments giving all ten properties. */
export const args = { p0: 1, p1: 2.5, p2: 3, p3: -4, p4: 5000, p5: 'alpha', p6: 'beta', p7: 'gamma', p8: 'delta', p9: 'epsilon' }
export const argumentsText = JSON.stringify(args)

/** The tool names. */
export const toolNames = Array.from({ length: TOOLS }, (_, t) => `t${t}`)

/** The N calls of one turn: `{ id, name }`, ids `call_0`... */
export function turnCalls(n) {
  return Array.from({ length: n }, (_, i) => ({ id: `call_${i}`, name: `t${i % TOOLS}` }))
}

/** What every trivial tool returns (pi-agent-core's and toolwire's result shape). */
export function okResult() {
  return { content: [{ type: 'text', text: 'ok' }], details: undefined }
}

/** Throws unless `got` is `n` long. */
export function expectLength(label, got, n) {
  if (!Array.isArray(got) || got.length !== n) throw new Error(`${label}: expected ${n} results, got ${Array.isArray(got) ? got.length : typeof got}`)
}
