// Nothing a tool returns is lost silently (r9 user review, 22-lost-values: a Map, Set, RegExp,
// returned Error or {p: Promise} ended `ok` and the model read `{}`). Every kind JSON would carry
// as less than it is, at every place of a value the runtime reads (the value itself, a key, an
// array item, details, data, details beside a big text, a partial result), ends the call
// EXECUTION_ERROR naming its type and path; what JSON carries faithfully still passes.
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolResult } from '../dist/index.js'
import { untyped } from './helpers.js'

class Secret {
  #key = 'hidden'
  peek() {
    return this.#key
  }
}
class Getters {
  get size() {
    return 3
  }
}
class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

/** Each kind JSON loses, and how the error names it. */
const lost: [label: string, make: () => unknown, named: RegExp][] = [
  ['Map', () => new Map([['a', 1]]), /a Map/],
  ['Set', () => new Set([1, 2]), /a Set/],
  ['WeakMap', () => new WeakMap(), /a WeakMap/],
  ['WeakSet', () => new WeakSet(), /a WeakSet/],
  ['RegExp', () => /ab+c/i, /a RegExp/],
  ['Promise', () => Promise.resolve(1), /a Promise \(not awaited\)/],
  ['Error', () => new Error('disk full'), /an Error object \("disk full"\)/],
  ['ArrayBuffer', () => new ArrayBuffer(4), /an ArrayBuffer/],
  ['function', () => () => 1, /a function/],
  ['symbol', () => Symbol('s'), /a symbol/],
  ['class with private fields', () => new Secret(), /a Secret instance with no enumerable property/],
  ['class with getters only', () => new Getters(), /a Getters instance with no enumerable property/],
  ['DataView', () => new DataView(new ArrayBuffer(2)), /a DataView instance/],
  // with fields JSON does carry (an HTTP client's error): its class is still lost
  ['Error with fields', () => Object.assign(new Error('disk full'), { code: 'ENOSPC' }), /an Error object \("disk full"\)/],
]

/** 40 plain keys (numbers, strings, nulls, small objects): a plain value is checked cheaply first. */
const plainRows = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i % 4 === 0 ? null : i % 4 === 1 ? `v${i}` : i % 4 === 2 ? i : { id: i }]))

/** Where a value sits in what a tool returns, and the path the error names. */
const places: [label: string, wrap: (v: unknown) => unknown, path: string][] = [
  ['a key', (v) => ({ rows: 3, x: v }), '$.x'],
  ['an array item', (v) => ({ a: [1, v] }), '$.a[1]'],
  ['deep', (v) => ({ a: { b: [{ c: v }] } }), '$.a.b[0].c'],
  ['details', (v) => ({ content: [{ type: 'text', text: 'summary' }], details: { d: v } }), '$.details.d'],
  ['data beside text', (v) => ({ content: [{ type: 'text', text: 'summary' }], data: { rows: v } }), '$.data.rows'],
  ['after plain data', (v) => ({ ...plainRows, z: [{ a: null }, v] }), '$.z[1]'],
  ['details beside a big text', (v) => ({ content: [{ type: 'text', text: 'x'.repeat(100_000) }], details: { d: v } }), '$.details.d'],
]

/** Values JSON carries as they are (or as their toJSON says): each passes, read as JSON reads it. */
const carried: [label: string, value: unknown, data: unknown][] = [
  ['Date', { when: new Date(0) }, { when: '1970-01-01T00:00:00.000Z' }],
  ['URL', { url: new URL('https://x.com/a?b=1') }, { url: 'https://x.com/a?b=1' }],
  ['a Map with toJSON', { m: Object.assign(new Map([['a', 1]]), { toJSON() { return { a: 1 } } }) }, { m: { a: 1 } }],
  ['a class instance with fields', { p: new Point(1, 2) }, { p: { x: 1, y: 2 } }],
  ['a null-prototype object', { o: Object.assign(Object.create(null), { k: 1 }) }, { o: { k: 1 } }],
  ['a typed array', { t: new Uint8Array([1, 2]) }, { t: { 0: 1, 1: 2 } }],
  ['an empty typed array', { t: new Uint8Array(0) }, { t: {} }],
  ['boxed primitives', { s: Object('x'), n: Object(1), b: Object(true) }, { s: 'x', n: 1, b: true }],
  ['an undefined key, left out', { a: undefined, b: 1 }, { b: 1 }],
]

function runtimeReturning(values: Map<string, () => unknown>, updates: unknown[] = []) {
  const runtime = new ToolRuntime({ redaction: 'permissive' })
  runtime.register({
    name: 'give',
    parameters: { type: 'object' },
    execute: untyped(async (id: string, _args: unknown, _signal?: AbortSignal, onUpdate?: (partial: any) => void) => {
      const value = values.get(id)!()
      if (updates.length > 0 || id.startsWith('u')) onUpdate?.(value as any)
      return id.startsWith('u') ? 'done' : value
    }),
  })
  return runtime
}

const textOf = (result: ToolResult) => result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')

describe('values JSON would lose', () => {
  it('every kind at every place: EXECUTION_ERROR naming its type and path', async () => {
    const values = new Map<string, () => unknown>()
    const want: [string, RegExp, string][] = []
    for (const [kind, make, named] of lost) {
      for (const [place, wrap, path] of places) {
        const id = `c${values.size}`
        values.set(id, () => wrap(make()))
        want.push([`${kind} at ${place}`, named, path])
      }
    }
    const runtime = runtimeReturning(values)
    const results = await runtime.dispatch([...values.keys()].map((id) => ({ id, name: 'give', arguments: '{}' })))
    results.forEach((result, i) => {
      const [label, named, path] = want[i]!
      expect(result.status, `${label}: ${textOf(result)}`).toBe('error')
      expect(result.error?.code, label).toBe('EXECUTION_ERROR')
      expect(textOf(result), label).toMatch(named)
      expect(textOf(result), label).toContain(` at ${path}, `)
      expect(textOf(result), label).toMatch(/give it a toJSON/)
    })
  })

  it('the value itself: a Map, Set, RegExp or class is named at $; a function or symbol too', async () => {
    const top = lost.filter(([label]) => !['Promise', 'Error', 'Error with fields', 'ArrayBuffer'].includes(label))
    const values = new Map(top.map(([, make], i) => [`t${i}`, make]))
    const results = await runtimeReturning(values).dispatch([...values.keys()].map((id) => ({ id, name: 'give', arguments: '{}' })))
    results.forEach((result, i) => {
      expect(result.error?.code, top[i]![0]).toBe('EXECUTION_ERROR')
      expect(textOf(result), top[i]![0]).toMatch(top[i]![2])
    })
  })

  it('an Error returned, not thrown, is the failure a thrown one is', async () => {
    const values = new Map<string, () => unknown>([
      ['r', () => new Error('disk full')],
      ['s', () => Object.assign(new TypeError('bad type'), { retryable: false })],
    ])
    const [returned, typed] = await runtimeReturning(values).dispatch([...values.keys()].map((id) => ({ id, name: 'give', arguments: '{}' })))
    expect(returned).toMatchObject({ status: 'error', ok: false, error: { code: 'EXECUTION_ERROR' } })
    expect(textOf(returned!)).toContain('disk full')
    expect(typed).toMatchObject({ status: 'error', error: { code: 'EXECUTION_ERROR', retryable: false } })
    expect(textOf(typed!)).toContain('bad type')
  })

  it('a partial result holding one: its update says it was omitted, naming type and path; the call goes on', async () => {
    const values = new Map<string, () => unknown>([['u1', () => ({ content: [{ type: 'text', text: 'half' }], details: { seen: new Set([1]) } })]])
    const events: any[] = []
    const [result] = await runtimeReturning(values).dispatch([{ id: 'u1', name: 'give', arguments: '{}' }], { onEvent: (e) => events.push(e) })
    expect(result!.status).toBe('ok')
    const update = events.find((e) => e.type === 'tool_execution_update')
    expect(update.partialResult.content[0].text).toMatch(/^\[partial result omitted: it holds a Set at \$\.details\.seen, which JSON would carry as \{\}/)
  })

  it('what JSON carries still passes, read as JSON reads it', async () => {
    const values = new Map(carried.map(([, value], i) => [`k${i}`, () => value]))
    const results = await runtimeReturning(values).dispatch([...values.keys()].map((id) => ({ id, name: 'give', arguments: '{}' })))
    results.forEach((result, i) => {
      const [label, , data] = carried[i]!
      expect(result.status, `${label}: ${textOf(result)}`).toBe('ok')
      expect(JSON.parse(textOf(result)), label).toEqual(data)
    })
  })
})

describe('hook answers JSON would lose', () => {
  it('new params or details holding a Map end the call in an error naming the path, never a {} passed on', async () => {
    const runtime = new ToolRuntime({ redaction: 'permissive' })
    const ran: unknown[] = []
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async (_id: string, args: unknown) => (ran.push(args), 'echoed') })
    const [before] = await runtime.dispatch([{ id: 'b1', name: 'echo', arguments: '{}' }], { beforeToolCall: () => ({ params: { m: new Map([['a', 1]]) } }) })
    expect(before!.ok).toBe(false)
    expect(textOf(before!)).toMatch(/it holds a Map at \$\.params\.m/)
    expect(ran).toEqual([])
    const [after] = await runtime.dispatch([{ id: 'a1', name: 'echo', arguments: '{}' }], { afterToolCall: () => ({ details: { seen: new Set([1]) } }) })
    expect(after!.ok).toBe(false)
    expect(textOf(after!)).toMatch(/it holds a Set at \$\.details\.seen/)
  })
})

// Seen in the issue 19 round 5 attack review (4.mjs): arguments given as an object holding a Map,
// a Set or a class instance with private fields only reached the tool as `{}`, while the same
// value returned by a tool was an error naming it.
describe('arguments given as objects JSON would lose', () => {
  for (const [label, make, named] of lost) {
    it(`${label} in a call's arguments refuses that call, naming it at its path; the tool never runs`, async () => {
      const runtime = new ToolRuntime({ redaction: 'permissive' })
      const ran: unknown[] = []
      runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async (_id: string, args: unknown) => (ran.push(args), 'echoed') })
      const [refused, fine] = await runtime.dispatch([
        { id: 'l1', name: 'echo', arguments: { q: 1, nested: [{ x: make() }] } as any },
        { id: 'l2', name: 'echo', arguments: { q: 2 } as any },
      ])
      expect(refused!.ok, label).toBe(false)
      expect(textOf(refused!), label).toMatch(named)
      expect(textOf(refused!), label).toContain('$.nested[0].x')
      expect(fine!.ok).toBe(true)
      expect(ran).toEqual([{ q: 2 }])
    })
  }
})

// A value of shared sub-objects (`x = [y, y]`, forty levels) is written once per reference, as
// JSON writes it: 2^40 objects, which held the thread for days (issue 19 round 5, a review of
// the lost-value check). The serialization stops at its bound and costs that call only.
describe('a value of shared sub-objects past the bound', () => {
  it('ends its call with an error naming the bound; the other calls and the runtime go on', { timeout: 120_000 }, async () => {
    let shared: unknown = [1]
    for (let i = 0; i < 40; i++) shared = [shared, shared]
    const runtime = new ToolRuntime({ redaction: 'permissive' })
    runtime.register({ name: 'give', parameters: { type: 'object' }, execute: async (id: string) => (id === 'big' ? { tree: shared } : { ok: true }) })
    const [big, small] = await runtime.dispatch([
      { id: 'big', name: 'give', arguments: '{}' },
      { id: 'small', name: 'give', arguments: '{}' },
    ])
    expect(big!.status).toBe('error')
    expect(textOf(big!)).toContain('more than 4194304 objects and arrays')
    expect(small!.status).toBe('ok')
    const [after] = await runtime.dispatch([{ id: 'after', name: 'give', arguments: '{}' }])
    expect(after!.status).toBe('ok')
  })
})

// A BigInt made JSON.stringify throw V8's "Do not know how to serialize a BigInt", with no path,
// while a Map, a cycle or a symbol named theirs (r10 user review #10, 5-hostile and
// 26-hooks-hostile): every place a value crosses names the BigInt's path the same way.
describe('a BigInt is named at its path, wherever it crosses', () => {
  const bigints: [label: string, make: () => unknown][] = [
    ['a bigint', () => 10n],
    ['a huge bigint', () => 2n ** 4000n],
    ['a BigInt object', () => Object(2n)],
    ['a toJSON returning one', () => ({ toJSON: () => 3n })],
  ]
  const named = (path: string) => new RegExp(`it holds a BigInt at ${path.replace(/[$.[\]]/g, '\\$&')}, which JSON cannot carry`)

  it('in a tool value, at every place', async () => {
    const values = new Map<string, () => unknown>()
    const want: [string, string][] = []
    for (const [kind, make] of bigints) {
      for (const [place, wrap, path] of places) {
        values.set(`c${values.size}`, () => wrap(make()))
        want.push([`${kind} at ${place}`, path])
      }
    }
    const results = await runtimeReturning(values).dispatch([...values.keys()].map((id) => ({ id, name: 'give', arguments: '{}' })))
    results.forEach((result, i) => {
      const [label, path] = want[i]!
      expect(result.error?.code, label).toBe('EXECUTION_ERROR')
      expect(textOf(result), label).toMatch(named(path))
      expect(textOf(result), label).not.toContain('Do not know how')
      expect(textOf(result).length, label).toBeLessThan(400)
    })
  })

  it('in a partial result, a hook answer and arguments given as an object', async () => {
    const events: any[] = []
    const values = new Map<string, () => unknown>([['u1', () => ({ content: [{ type: 'text', text: 'half' }], details: { big: 10n } })]])
    const [updated] = await runtimeReturning(values).dispatch([{ id: 'u1', name: 'give', arguments: '{}' }], { onEvent: (e) => events.push(e) })
    expect(updated!.status).toBe('ok')
    expect(events.find((e) => e.type === 'tool_execution_update').partialResult.content[0].text).toMatch(named('$.details.big'))

    const runtime = new ToolRuntime()
    const ran: unknown[] = []
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async (_id: string, args: unknown) => (ran.push(args), 'echoed') })
    const [before] = await runtime.dispatch([{ id: 'b', name: 'echo', arguments: '{}' }], { beforeToolCall: () => ({ params: { n: 1n } }) })
    expect(textOf(before!)).toMatch(named('$.params.n'))
    const [after] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: '{}' }], { afterToolCall: () => ({ details: { rows: [1, 2n] } }) })
    expect(textOf(after!)).toMatch(named('$.details.rows[1]'))
    const [given] = await runtime.dispatch([{ id: 'g', name: 'echo', arguments: { page: { size: 5n } } }])
    expect(given!.ok).toBe(false)
    expect(textOf(given!)).toMatch(named('$.page.size'))
    expect(ran).toEqual([{}])
  })
})
