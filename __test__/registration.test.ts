import { Type } from '@sinclair/typebox'
import TypeBox from 'typebox'
import { describe, expect, it } from 'vitest'

import { ToolRuntime, ToolwireError } from '../dist/index.js'
import { textOf } from './helpers.js'

/** A tool shaped exactly like a pi-agent-core AgentTool, with a TypeBox schema (symbol keys included). */
const piReadTool = {
  name: 'read',
  label: 'Read file',
  description: 'Read a file',
  parameters: Type.Object({ path: Type.String({ description: 'Path to read' }), offset: Type.Optional(Type.Number()) }),
  async execute(toolCallId: string, params: { path: string }, signal?: AbortSignal) {
    return { content: [{ type: 'text' as const, text: `${toolCallId}:${params.path}:${signal instanceof AbortSignal}` }], details: { lines: 1 } }
  },
}

describe('register', () => {
  it('accepts a pi-agent-core AgentTool unchanged', async () => {
    const runtime = new ToolRuntime()
    runtime.register(piReadTool)
    const [ok, bad] = await runtime.dispatch([
      { id: 'c1', name: 'read', arguments: '{"path":"a.ts"}' },
      { id: 'c2', name: 'read', arguments: '{"path":1}' },
    ])
    expect(ok).toMatchObject({ ok: true, content: [{ type: 'text', text: 'c1:a.ts:true' }], details: { lines: 1 } })
    expect(bad.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(bad)).toContain('/path')
  })

  it('refuses a duplicate name, naming it', () => {
    const runtime = new ToolRuntime()
    runtime.register(piReadTool)
    expect(() => runtime.register(piReadTool)).toThrow(/"read" is already registered/)
    try {
      runtime.register(piReadTool)
    } catch (error) {
      expect(error).toBeInstanceOf(ToolwireError)
      expect((error as ToolwireError).code).toBe('CONFLICT')
    }
  })

  it('refuses names outside ^[a-zA-Z0-9_-]{1,64}$', () => {
    const runtime = new ToolRuntime()
    for (const name of ['', 'has space', 'dot.name', 'x'.repeat(65), 'ünïcode']) {
      expect(() => runtime.register({ ...piReadTool, name }), name).toThrow(/\^\[a-zA-Z0-9_-\]\{1,64\}\$/)
    }
    expect(() => runtime.register({ ...piReadTool, name: 42 as never })).toThrow(/name must be a string, got number 42/)
  })

  it('refuses a schema that does not compile, naming the JSON pointer at fault', () => {
    const runtime = new ToolRuntime()
    const schema = { type: 'object', properties: { count: { type: 'integr' } } }
    expect(() => runtime.register({ ...piReadTool, parameters: schema })).toThrow(/\/properties\/count\/type/)
    const remote = { type: 'object', properties: { x: { $ref: 'https://example.invalid/schema.json' } } }
    expect(() => runtime.register({ ...piReadTool, parameters: remote })).toThrow(/\/properties\/x\/\$ref/)
    // @ts-expect-error 'strin' is no JSON type, so no value matches: its details do not type-check either
    expect(() => runtime.register({ ...piReadTool, outputSchema: { type: 'strin' } })).toThrow(/outputSchema schema does not compile at \/type/)
  })

  it('refuses a tool without execute, and bad declared options', () => {
    const runtime = new ToolRuntime()
    expect(() => runtime.register({ name: 'x', parameters: {} } as never)).toThrow(/tool "x" has no execute function/)
    expect(() => runtime.register({ ...piReadTool, executionMode: 'serial' as never })).toThrow(/"serial"/)
    expect(() => runtime.register({ ...piReadTool, riskLevel: 'extreme' as never })).toThrow(/"extreme"/)
    expect(() => runtime.register({ ...piReadTool, timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number/)
    expect(() => runtime.register({ ...piReadTool, concurrencyKey: 'path' as never })).toThrow(/concurrencyKey must be a function/)
    expect(() => runtime.register(null as never)).toThrow(TypeError)
  })

  it('lists tools in registration order and unregisters them', async () => {
    const runtime = new ToolRuntime()
    runtime.register(piReadTool)
    runtime.register({ name: 'write', parameters: { type: 'object' }, riskLevel: 'high', category: 'fs', timeoutMs: 500, execute: () => 'w' })
    expect(runtime.list().map((t) => t.name)).toEqual(['read', 'write'])
    expect(runtime.list()[1]).toMatchObject({ riskLevel: 'high', category: 'fs', timeoutMs: 500, executionMode: 'parallel' })
    expect(runtime.list()[0].parameters).toEqual(JSON.parse(JSON.stringify(piReadTool.parameters)))
    expect(runtime.unregister('read')).toBe(true)
    expect(runtime.unregister('read')).toBe(false)
    expect(runtime.list().map((t) => t.name)).toEqual(['write'])
    const [result] = await runtime.dispatch([{ id: 'a', name: 'read', arguments: '{}' }])
    expect(result.error?.code).toBe('NOT_FOUND')
    runtime.register(piReadTool)
    expect(runtime.list().map((t) => t.name)).toEqual(['write', 'read'])
  })

  it('lets a call in flight finish when its tool is unregistered, and ends queued calls NOT_FOUND', async () => {
    const runtime = new ToolRuntime({ concurrency: 1 })
    let release: () => void = () => {}
    runtime.register({
      name: 'gate',
      parameters: { type: 'object' },
      execute: () => new Promise<string>((resolve) => (release = () => resolve('finished'))),
    })
    const pending = runtime.dispatch([
      { id: 'a', name: 'gate', arguments: '{}' },
      { id: 'b', name: 'gate', arguments: '{}' },
    ])
    await new Promise((r) => setTimeout(r, 5))
    expect(runtime.unregister('gate')).toBe(true)
    release()
    const [first, second] = await pending
    expect(first).toMatchObject({ ok: true, content: [{ type: 'text', text: 'finished' }] })
    expect(second.error?.code).toBe('NOT_FOUND')
    expect(textOf(second)).toContain('unregistered before this call could start')
  })

  it('checks structured output against outputSchema', async () => {
    const runtime = new ToolRuntime()
    // @ts-expect-error the tool returns what outputSchema refuses, on purpose (the run-time check is tested)
    runtime.register({
      name: 'count',
      parameters: { type: 'object' },
      outputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
      execute: (_id: string, params: { n: unknown }) => ({ n: params.n }),
    })
    const [good, bad] = await runtime.dispatch([
      { id: 'a', name: 'count', arguments: '{"n":3}' },
      { id: 'b', name: 'count', arguments: '{"n":"three"}' },
    ])
    expect(good).toMatchObject({ ok: true, data: { n: 3 } })
    expect(bad.error?.code).toBe('EXECUTION_ERROR')
    expect(textOf(bad)).toContain('does not match its outputSchema')
  })
})

describe('recursive schemas: a $ref to a $id of the same schema is local', () => {
  // TypeBox 0.34 `Type.Recursive` refers to its root by its `$id` ({ $id: 'T0', ..., $ref: 'T0' }),
  // 1.x `Type.Cyclic` to `$defs` entries by theirs: refused as remote before.
  const tree = Type.Recursive((Self) => Type.Object({ id: Type.String(), kids: Type.Array(Self) }))
  const cyclic = TypeBox.Cyclic(
    {
      Node: TypeBox.Object({ id: TypeBox.String(), kids: TypeBox.Array(TypeBox.Ref('Node')) }),
    },
    'Node',
  )

  for (const [label, parameters] of [
    ['TypeBox 0.34 Type.Recursive', tree],
    ['TypeBox 1.x Type.Cyclic', cyclic],
  ] as const) {
    it(`${label}: registers, and validates nested arguments`, async () => {
      const runtime = new ToolRuntime()
      const seen: unknown[] = []
      runtime.register({
        name: 'walk',
        description: 'Walk a tree',
        parameters: parameters as any,
        execute: (_id: string, args: unknown) => {
          seen.push(args)
          return 'walked'
        },
      })
      for (const wire of ['openai-chat', 'anthropic', 'gemini'] as const) expect(() => runtime.definitions(wire), wire).not.toThrow()
      const valid = { id: 'root', kids: [{ id: 'a', kids: [{ id: 'b', kids: [] }] }] }
      const invalid = { id: 'root', kids: [{ id: 'a', kids: [{ id: 7, kids: [] }] }] }
      const missing = { id: 'root', kids: [{ id: 'a' }] }
      const [ok, bad, absent] = await runtime.dispatch([
        { id: 'c1', name: 'walk', arguments: valid },
        { id: 'c2', name: 'walk', arguments: invalid },
        { id: 'c3', name: 'walk', arguments: missing },
      ])
      expect(ok!.status).toBe('ok')
      expect(seen).toEqual([valid])
      expect(bad!.error?.code).toBe('VALIDATION_ERROR')
      expect(textOf(bad!)).toContain('/kids/0/kids/0/id')
      expect(absent!.error?.code).toBe('VALIDATION_ERROR')
      expect(textOf(absent!)).toContain('kids')
    })
  }

  it('still refuses a $ref to an id the schema does not declare, naming it', () => {
    const runtime = new ToolRuntime()
    const parameters = { $id: 'T0', type: 'object', properties: { next: { $ref: 'T1' } } }
    expect(() => runtime.register({ ...piReadTool, parameters })).toThrow(/\/properties\/next\/\$ref: Resource 'T1' is not present/)
  })
})

describe('messages quote at most about a kilobyte of any value', () => {
  const big = 'é'.repeat(20_000)
  /** The message of what `run` threw or rejected with, or of the result it resolved to. */
  async function messageOf(run: () => unknown): Promise<string> {
    try {
      const value = await run()
      const results = value as { content: { text: string }[] }[]
      return results[0].content[0].text
    } catch (error) {
      return (error as Error).message
    }
  }

  it('from the model (VALIDATION_ERROR, NOT_FOUND, required groups), the caller (thrown) and plans', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'edit',
      parameters: {
        type: 'object',
        additionalProperties: false,
        properties: { n: { type: 'integer' }, mode: { enum: ['a', 'b'] }, path: { type: 'string', pattern: '^/' } },
      },
      requiredGroups: ['path'],
      execute: () => 'ok',
    })
    const messages = await Promise.all([
      messageOf(() => runtime.dispatch([{ id: '1', name: 'edit', arguments: { n: big, path: '/x' } }])),
      messageOf(() => runtime.dispatch([{ id: '2', name: 'edit', arguments: { mode: big, path: '/x' } }])),
      messageOf(() => runtime.dispatch([{ id: '3', name: 'edit', arguments: { path: big } }])),
      messageOf(() => runtime.dispatch([{ id: '4', name: 'edit', arguments: { [big]: 1, path: '/x' } }])),
      messageOf(() => runtime.dispatch([{ id: '5', name: 'edit', arguments: { [big]: 1 } }])),
      messageOf(() => runtime.dispatch([{ id: '6', name: big, arguments: {} }])),
      messageOf(() => runtime.dispatch([], { signal: big as never })),
      messageOf(() => runtime.register({ name: big, execute: () => 'x' })),
      messageOf(() => runtime.register({ name: 't', executionMode: big as never, execute: () => 'x' })),
      messageOf(() => runtime.executePlan({ steps: [{ id: 'a', tool: 'edit', args: { p: `$steps.${big}` } }] })),
    ])
    for (const [i, message] of messages.entries()) {
      // The fixed words, the tool's schema and at most a few bounded quotes; before, each held
      // the 40 KB value at least once.
      expect(message.length, `message ${i}: ${message.slice(0, 200)}`).toBeLessThan(5_000)
      expect(message, `message ${i}`).toMatch(/more (bytes|characters) not shown/)
    }
  })
})
