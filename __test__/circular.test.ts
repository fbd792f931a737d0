// A value holding itself is named in one line, at the path where the cycle closes, wherever
// toolwire serializes a value someone else handed over: a tool's value (inline and beside a big
// text), its details and data, a partial result, hook answers, arguments given as objects, a
// plan's arguments, options and a decoder event (the audit writer's own guard: audit.test.ts). V8's own text ("Converting circular structure
// to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'self' closes
// the circle") reached the model before (user review r8, repros 1-hostile and 18-hostile-hooks).
import { describe, expect, it } from 'vitest'

import { StreamDecoder, ToolRuntime, type ToolResult } from '../dist/index.js'
import { untyped } from './helpers.js'

/** `{ a: { b: [0, <the a object>] } }`: the cycle closes at $.a.b[1]. */
function nested() {
  const a: Record<string, unknown> = {}
  a.b = [0, a]
  return { a }
}

/** A cycle under a key that is no plain name and a long one: quoted, bounded. */
function oddKeys() {
  const inner: Record<string, unknown> = {}
  inner['k'.repeat(500)] = inner
  return { 'two words': inner }
}

/** A cycle 40 levels down: the path's middle is elided. */
function deepCycle() {
  const root: Record<string, unknown> = {}
  let at = root
  for (let i = 0; i < 40; i++) at = (at.n = {}) as Record<string, unknown>
  at.back = root
  return root
}

const textOf = (result: ToolResult) => result.content.map((b) => (b.type === 'text' ? b.text : '')).join('')

/** Asserts `text` names a circular reference at `path` in one line, with no V8 wording. */
function expectCircular(text: string, path: string) {
  expect(text).toContain(`it holds a circular reference at ${path}`)
  expect(text).not.toContain('\n')
  expect(text).not.toMatch(/Converting circular structure|closes the circle|starting at object/)
}

describe('a cycle a tool hands over', () => {
  const runtime = new ToolRuntime()
  const big = 'x'.repeat(300_000)
  const returns: Record<string, [() => unknown, string]> = {
    // a plain value (the JSON lane)
    value: [() => nested(), '$.a.b[1]'],
    // the value itself is the cycle's start
    self: [
      () => {
        const o: Record<string, unknown> = {}
        o.self = o
        return o
      },
      '$.self',
    ],
    details: [() => ({ content: [{ type: 'text', text: 'ok' }], details: nested() }), '$.details.a.b[1]'],
    // details beside a text long enough to be sanitized before the call completes
    bigTextDetails: [() => ({ content: [{ type: 'text', text: big }], details: nested() }), '$.details.a.b[1]'],
    data: [() => ({ content: [{ type: 'text', text: 'ok' }], data: nested() }), '$.data.a.b[1]'],
    oddKeys: [() => oddKeys(), `$["two words"]["${'k'.repeat(40)}…"]`],
    deep: [() => deepCycle(), `$${'.n'.repeat(6)}…(29 more)…${'.n'.repeat(5)}.back`],
    // a cycle reached through toJSON's answer
    toJSON: [() => ({ wrapped: { toJSON: () => nested() } }), '$.wrapped.a.b[1]'],
  }
  for (const [name, [value]] of Object.entries(returns)) {
    runtime.register({ name, parameters: { type: 'object' }, execute: untyped(() => value()) })
  }
  for (const [name, [, path]] of Object.entries(returns)) {
    it(`${name}: EXECUTION_ERROR naming ${path}`, async () => {
      const [result] = await runtime.dispatch([{ id: 'c', name, arguments: '{}' }])
      expect(result.status).toBe('error')
      expect(result.error?.code).toBe('EXECUTION_ERROR')
      expectCircular(textOf(result), path)
      expectCircular(result.error!.message, path)
    })
  }

  it('a partial result holding a cycle is named in its update event', async () => {
    const rt = new ToolRuntime()
    rt.register({
      name: 'upd',
      parameters: { type: 'object' },
      execute: (_id, _args, _signal, onUpdate) => {
        onUpdate?.({ content: [{ type: 'text', text: 'x' }], details: nested() })
        return 'done'
      },
    })
    const updates: string[] = []
    const [result] = await rt.dispatch([{ id: 'u', name: 'upd', arguments: '{}' }], {
      onEvent: (event) => {
        if (event.type === 'tool_execution_update') updates.push(textOf(event.partialResult as ToolResult))
      },
    })
    expect(result.status).toBe('ok')
    expect(updates).toHaveLength(1)
    expect(updates[0]).toMatch(/^\[partial result omitted: /)
    expectCircular(updates[0], '$.details.a.b[1]')
  })
})

describe('a cycle in hook answers and arguments', () => {
  const runtime = new ToolRuntime()
  runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: (_id, args) => args })

  it('beforeToolCall answer: BLOCKED naming the path in the answer', async () => {
    const [result] = await runtime.dispatch([{ id: 'b', name: 'echo', arguments: '{}' }], {
      beforeToolCall: () => ({ params: nested() }),
    })
    expect(result.error?.code).toBe('BLOCKED')
    expectCircular(textOf(result), '$.params.a.b[1]')
  })

  it('afterToolCall answer: EXECUTION_ERROR naming the path in the answer', async () => {
    const [result] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: '{}' }], {
      afterToolCall: () => ({ details: nested() }),
    })
    expect(result.status).toBe('error')
    expectCircular(textOf(result), '$.details.a.b[1]')
  })

  it('arguments given as an object: INVALID_JSON naming the path', async () => {
    const [result] = await runtime.dispatch([{ id: 'o', name: 'echo', arguments: nested() }])
    expect(result.error?.code).toBe('INVALID_JSON')
    expectCircular(textOf(result), '$.a.b[1]')
  })

  it("a plan's arguments: VALIDATION_ERROR naming the path in the plan", async () => {
    const error = await runtime
      .executePlan({ steps: [{ id: 's', tool: 'echo', args: nested() }] } as never)
      .then(() => undefined, (e: Error & { code?: string }) => e)
    expect(error?.code).toBe('VALIDATION_ERROR')
    expectCircular(error!.message, '$.steps[0].args.a.b[1]')
  })

  it('options: VALIDATION_ERROR naming the path', () => {
    let thrown: (Error & { code?: string }) | undefined
    try {
      runtime.explainPolicy('echo', nested() as never)
    } catch (error) {
      thrown = error as Error & { code?: string }
    }
    expect(thrown?.code).toBe('VALIDATION_ERROR')
    expectCircular(thrown!.message, '$.a.b[1]')
  })

  it('StreamDecoder.pushEvent: VALIDATION_ERROR naming the path in the event', () => {
    const decoder = new StreamDecoder('openai-chat')
    expect(() => decoder.pushEvent(nested() as never)).toThrow(/^StreamDecoder\.pushEvent: event cannot be serialized to JSON: it holds a circular reference at \$\.a\.b\[1\]$/)
  })
})
