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

  /** The message `register` refuses a tool `probe` with, whose parameters are Zod 3 `z.object(shape)`, or 'registered'. */
  const zod3Refusal = (runtime: ToolRuntime, shape: Record<string, z3.ZodTypeAny>): string => {
    try {
      runtime.register({ name: 'probe', parameters: z3.object(shape), execute: () => 'ran' })
    } catch (error) {
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR' })
      return (error as Error).message
    }
    return 'registered'
  }

  it('a Zod 3 type JSON cannot carry is refused at register naming its place, as Zod 4 refuses it', () => {
    const runtime = new ToolRuntime()
    const refused = (shape: Record<string, z3.ZodTypeAny>) => zod3Refusal(runtime, shape)
    expect(refused({ when: z3.date() })).toBe(
      'register: tool "probe": parameters is a Zod 3 schema with no JSON Schema form: z.date() at when holds values JSON cannot carry, and a model sends only JSON (a date as an ISO string is z.string().datetime())',
    )
    expect(refused({ cb: z3.function() })).toMatch(/: z\.function\(\) at cb holds values JSON cannot carry, and a model sends only JSON$/)
    expect(refused({ s: z3.symbol().optional() })).toMatch(/: z\.symbol\(\) at s holds/)
    expect(refused({ rows: z3.array(z3.object({ n: z3.bigint() })) })).toMatch(/: z\.bigint\(\) at rows\[\]\.n holds/)
    expect(refused({ m: z3.map(z3.string(), z3.number()) })).toMatch(/: z\.map\(\) at m holds/)
    expect(refused({ u: z3.union([z3.string(), z3.set(z3.string())]) })).toMatch(/: z\.set\(\) at u holds/)
    expect(runtime.definitions('openai-chat').tools).toEqual([])
  })

  it('a Zod 3 type is placed by the values it describes: wrappers and union members keep the path, elements add []', () => {
    // (attack review 22, z1: a branded or union member was placed at `a[]`, as an array's element is)
    const runtime = new ToolRuntime()
    const place = (shape: Record<string, z3.ZodTypeAny>) => {
      const message = zod3Refusal(runtime, shape)
      return /: (z\.\S+) at (.+) holds values JSON cannot carry/.exec(message)?.slice(1, 3).join(' at ') ?? message
    }
    const d = z3.date()
    expect(place({ a: d.brand('X') })).toBe('z.date() at a')
    expect(place({ a: d.optional().nullable().default(new Date(0)).catch(new Date(0)).readonly() })).toBe('z.date() at a')
    expect(place({ a: d.refine(() => true) })).toBe('z.date() at a')
    expect(place({ a: z3.string().pipe(d) })).toBe('z.date() at a')
    expect(place({ a: z3.lazy(() => d) })).toBe('z.date() at a')
    expect(place({ a: z3.union([z3.string(), d]) })).toBe('z.date() at a')
    expect(place({ a: z3.discriminatedUnion('k', [z3.object({ k: z3.literal('x'), d }), z3.object({ k: z3.literal('y') })]) })).toBe('z.date() at a.d')
    expect(place({ a: z3.intersection(z3.object({ x: z3.string() }), z3.object({ d })) })).toBe('z.date() at a.d')
    expect(place({ a: z3.array(d) })).toBe('z.date() at a[]')
    expect(place({ a: z3.tuple([z3.string(), d]) })).toBe('z.date() at a[1]')
    expect(place({ a: z3.tuple([z3.string()]).rest(d) })).toBe('z.date() at a[]')
    expect(place({ a: z3.record(z3.string(), d) })).toBe('z.date() at a.<key>')
    expect(place({ a: z3.object({}).catchall(d) })).toBe('z.date() at a.<other key>')
  })

  it('a Zod 3 literal or enum value JSON cannot carry is refused naming it and its place', () => {
    // (attack review 22, z1: z.literal(10n) failed as "Do not know how to serialize a BigInt", z.literal(undefined) was sent as an object)
    const runtime = new ToolRuntime()
    const refused = (shape: Record<string, z3.ZodTypeAny>) =>
      zod3Refusal(runtime, shape).replace('register: tool "probe": parameters is a Zod 3 schema with no JSON Schema form: ', '')
    expect(refused({ l: z3.literal(10n) })).toBe('z.literal(10n) at l holds values JSON cannot carry, and a model sends only JSON')
    expect(refused({ o: z3.object({ l: z3.literal(undefined) }) })).toBe('z.literal(undefined) at o.l holds values JSON cannot carry, and a model sends only JSON')
    expect(refused({ l: z3.literal(Symbol('s')).optional() })).toMatch(/^z\.literal\(Symbol\(s\)\) at l holds/)
    expect(refused({ l: z3.literal(NaN) })).toMatch(/^z\.literal\(NaN\) at l holds/)
    expect(refused({ e: z3.nativeEnum({ A: 10n } as unknown as z3.EnumLike) })).toMatch(/^z\.nativeEnum\(\) with the value 10n at e holds/)
    expect(refused({ l: z3.literal('x'), n: z3.literal(null), e: z3.nativeEnum({ A: 1, B: 'b' }), f: z3.enum(['a', 'b']) })).toBe('registered')
  })

  it('an error thrown while a Zod 3 schema is read is a VALIDATION_ERROR naming the tool, the option and the place', () => {
    // (attack review 22, z1: a shape getter that threw gave a bare Error)
    const runtime = new ToolRuntime()
    const getter = z3.object({
      get a(): z3.ZodString {
        throw new Error('shape getter boom')
      },
    })
    expect(() => runtime.register({ name: 'probe', parameters: getter, execute: () => 'ran' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', message: 'register: tool "probe": parameters is a Zod 3 schema that cannot be read at a: shape getter boom' }),
    )
    const lazy = z3.object({
      a: z3.object({
        b: z3.lazy((): z3.ZodString => {
          throw new Error('lazy boom')
        }),
      }),
    })
    expect(() => runtime.register({ name: 'probe', parameters: z3.string(), outputSchema: lazy, execute: () => ({ a: { b: 'ran' } }) })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/outputSchema is a Zod 3 schema that cannot be read at a\.b: lazy boom$/) }),
    )
    // nested past the stack: the place reached, by its end
    let deep: z3.ZodTypeAny = z3.string()
    for (let i = 0; i < 20_000; i++) deep = z3.object({ x: deep })
    expect(() => runtime.register({ name: 'probe', parameters: deep, execute: () => 'ran' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/parameters is a Zod 3 schema that cannot be read at \.\.\.(x\.)+x \(a path of \d+ characters\): .*call stack/) }),
    )
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
    // (attack review 22, z2/z3) what is sent cuts the recursion to any value, as providers refuse $ref cycles, and says so
    const { tools, reports } = runtime.definitions('openai-chat')
    expect(JSON.stringify(tools[0])).toContain('"kids":{"type":"array","items":{}}')
    expect(reports[0]!.warnings).toEqual([expect.stringContaining('the recursive $ref "#/properties/root" back to /properties/root is cut; any value is accepted there')])
  })
})
