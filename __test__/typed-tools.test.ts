// Typed tools at run time: the tools of __test__/consumer/typed-tools.ts (whose types and expected
// type errors tsconfig.strict.json checks) registered and dispatched, each receiving the arguments
// its schema's type says, and refusing what the schema refuses, whatever kind of schema it is.
import { describe, expect, it, vi } from 'vitest'
import { z as z3 } from 'zod/v3'

import { ToolRuntime, defineTool } from '../dist/index.js'
import { jsonSchema, registerTyped, returns, typebox034, typebox1, zod3, zod4 } from './consumer/typed-tools.js'
import { textOf } from './helpers.js'

describe('typed tools', () => {
  it('defineTool returns the tool itself, to register or hand to an adapter', () => {
    const tool = { name: 'same', execute: () => 'x' }
    expect(defineTool(tool)).toBe(tool)
  })

  it('each kind of schema (Zod 4, Zod 3, TypeBox 0.3x and 1.x, JSON Schema) registers and checks the arguments it types', async () => {
    const runtime = new ToolRuntime()
    for (const tool of [zod4, zod3, typebox034, typebox1, jsonSchema]) runtime.register(tool)
    const good = await runtime.dispatch([
      { id: 'a', name: 'read_file', arguments: { path: 'notes.md', mode: 'text' } },
      { id: 'b', name: 'legacy', arguments: { q: 'x', n: 2 } },
      { id: 'c', name: 'tb034', arguments: { id: 'k1', count: 3 } },
      { id: 'd', name: 'tb1', arguments: { city: 'Oslo', unit: 'c' } },
      { id: 'e', name: 'search', arguments: { query: 'q', near: { lat: 1, lon: 2 }, limit: null } },
    ])
    expect(good.map((result) => [result.status, textOf(result)])).toEqual([
      ['ok', '8'],
      ['ok', 'x'],
      ['ok', 'k1'],
      ['ok', 'Oslo'],
      ['ok', '{"hits":["q"],"sort":"asc"}'],
    ])
    // what each type says is wrong, each schema refuses before the tool runs
    const bad = await runtime.dispatch([
      { id: 'a', name: 'read_file', arguments: { path: 3 } },
      { id: 'b', name: 'legacy', arguments: { n: 2 } },
      { id: 'c', name: 'tb034', arguments: { id: 'k1', count: 1.5 } },
      { id: 'd', name: 'tb1', arguments: { city: 'Oslo', unit: 'k' } },
      { id: 'e', name: 'search', arguments: { query: 'q', qery: 'typo' } },
    ])
    expect(bad.map((result) => result.error?.code)).toEqual(Array(5).fill('VALIDATION_ERROR'))
  })

  it('what the typed returns give reaches the model as the types say', async () => {
    const runtime = new ToolRuntime()
    // (the tools whose types are expected to fail are registered too: the runtime checks them anyway)
    for (const tool of returns) runtime.register(tool)
    const names = ['text', 'plain', 'json', 'nothing', 'bad_block', 'bad_content', 'measured', 'mismeasured']
    const results = await runtime.dispatch(names.map((name, i) => ({ id: `c${i}`, name, arguments: {} })))
    const byName = Object.fromEntries(results.map((result) => [result.tool, result]))
    expect(byName.text!.content.map((block) => block.type)).toEqual(['text', 'image'])
    expect(textOf(byName.plain!)).toBe('a string')
    expect(JSON.parse(textOf(byName.json!))).toEqual({ rows: [1, 2, 3] })
    expect(byName.nothing!.ok).toBe(true)
    expect(byName.measured!.details).toEqual({ size: 3 })
    for (const refused of ['bad_block', 'mismeasured']) expect(byName[refused]!.ok, refused).toBe(false)
    // (content that is no list is a JSON value at run time, not a result: the types refuse it as
    // the likelier mistake)
    expect(textOf(byName.bad_content!)).toBe('{"content":"a"}')
  })

  it('register types a tool written in place the same way', async () => {
    const runtime = new ToolRuntime()
    registerTyped(runtime)
    const [sum, concat, token] = await runtime.dispatch([
      { id: 'a', name: 'add', arguments: { a: 2, b: 3 } },
      { id: 'b', name: 'concat', arguments: { a: 'x' } },
      { id: 'c', name: 'required', arguments: {} },
    ])
    expect(textOf(sum!)).toBe('5')
    expect(textOf(concat!)).toBe('x')
    // (the annotation said token is always there; the schema let it be absent)
    expect(token!.ok).toBe(true)
  })

  it('a Zod 3 type JSON cannot carry is refused at register naming its place, as Zod 4 refuses it', () => {
    const runtime = new ToolRuntime()
    const refused = (shape: Record<string, z3.ZodTypeAny>) => {
      try {
        runtime.register({ name: 'probe', parameters: z3.object(shape), execute: () => 'ran' })
      } catch (error) {
        return (error as Error).message
      }
      return 'registered'
    }
    expect(refused({ when: z3.date() })).toBe(
      'register: tool "probe": parameters is a Zod 3 schema with no JSON Schema form: z.date() at when holds values JSON cannot carry, and a model sends only JSON (a date as an ISO string is z.string().datetime())',
    )
    expect(refused({ cb: z3.function() })).toMatch(/: z\.function\(\) at cb holds values JSON cannot carry, and a model sends only JSON$/)
    expect(refused({ s: z3.symbol().optional() })).toMatch(/: z\.symbol\(\) at s holds/)
    expect(refused({ rows: z3.array(z3.object({ n: z3.bigint() })) })).toMatch(/: z\.bigint\(\) at rows\[\]\.n holds/)
    expect(refused({ m: z3.map(z3.string(), z3.number()) })).toMatch(/: z\.map\(\) at m holds/)
    expect(refused({ u: z3.union([z3.string(), z3.set(z3.string())]) })).toMatch(/: z\.set\(\) at u\[\] holds/)
    expect(runtime.definitions('openai-chat').tools).toEqual([])
  })

  it('a recursive Zod 3 schema registers without a console warning and checks its arguments at every depth', async () => {
    type Node = { id: string; kids: Node[] }
    const node: z3.ZodType<Node> = z3.lazy(() => z3.object({ id: z3.string(), kids: z3.array(node) }))
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const runtime = new ToolRuntime()
    try {
      runtime.register({ name: 'tree', parameters: z3.object({ root: node }), execute: (_id, { root }) => root.kids.length })
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
    }
    const [good, bad] = await runtime.dispatch([
      { id: 'a', name: 'tree', arguments: { root: { id: 'a', kids: [{ id: 'b', kids: [] }] } } },
      { id: 'b', name: 'tree', arguments: { root: { id: 'a', kids: [{ id: 'b', kids: [{ id: 3, kids: [] }] }] } } },
    ])
    expect(textOf(good!)).toBe('1')
    expect(bad!.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(bad!)).toContain('/root/kids/0/kids/0/id')
  })
})
