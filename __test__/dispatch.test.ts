import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, replayRun, verifyRun, type ToolExecutionEvent, type ToolResult } from '../dist/index.js'
import { overlapTool, sleep, stringsSchema, textOf, untyped } from './helpers.js'

function echoRuntime(options = {}) {
  const runtime = new ToolRuntime(options)
  const seen: unknown[] = []
  runtime.register({
    name: 'echo',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
    async execute(_id: string, params: unknown) {
      seen.push(params)
      return { content: [{ type: 'text', text: JSON.stringify(params) }], details: { params } }
    },
  })
  return { runtime, seen }
}

describe('arguments', () => {
  it('accepts JSON text, objects, and empty or whitespace text as {}', async () => {
    const { runtime, seen } = echoRuntime()
    const results = await runtime.dispatch([
      { id: 'a', name: 'echo', arguments: '{"text":"hi"}' },
      { id: 'b', name: 'echo', arguments: { text: 'obj' } },
      { id: 'c', name: 'echo', arguments: '' },
      { id: 'd', name: 'echo', arguments: ' \n\t ' },
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(seen).toEqual([{ text: 'hi' }, { text: 'obj' }, {}, {}])
    expect(results.map((r) => r.args)).toEqual([{ text: 'hi' }, { text: 'obj' }, {}, {}])
  })

  it('reports invalid JSON without echoing the raw text', async () => {
    const { runtime, seen } = echoRuntime()
    const [result] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: '{"text": "sk-SECRET-123' }])
    expect(result.status).toBe('error')
    expect(result.error?.code).toBe('INVALID_JSON')
    expect(textOf(result)).not.toContain('SECRET')
    expect(textOf(result)).toContain('not valid JSON')
    expect(result.args).toBeNull()
    expect(seen).toEqual([])
  })

  it('reports each schema violation at its JSON pointer, quoting at most 1 KB of the arguments', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'edit', parameters: stringsSchema('filePath', 'content'), execute: () => 'never' })
    const [missing, huge] = await runtime.dispatch([
      { id: 'a', name: 'edit', arguments: '{"content": 3}' },
      { id: 'b', name: 'edit', arguments: JSON.stringify({ filePath: 'x', content: 1, pad: 'y'.repeat(5000) }) },
    ])
    expect(missing.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(missing)).toContain('/filePath: required property is missing')
    expect(textOf(missing)).toMatch(/\/content: .*string/)
    expect(missing.error?.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/filePath', keyword: 'required' })]),
    )
    const quoted = textOf(huge).split('Received arguments:\n')[1].split('... (')[0]
    expect(Buffer.byteLength(quoted)).toBeLessThanOrEqual(1024)
    expect(textOf(huge)).toContain('/pad: property is not allowed')
  })

  // JSON.parse parity for the model's argument text (the attack review, finding 18: `{"x":1e999}`
  // was a bare INVALID_JSON). What JSON.parse reads is what the tool gets; a number it reads as
  // ±Infinity, which JSON cannot carry, is a VALIDATION_ERROR naming the number and its path.
  it.each([
    ['a duplicate key keeps its last value', '{"a":1,"a":2}'],
    ['an underflowing number is 0', '{"a":1e-400,"b":-1e-400}'],
    ['a __proto__ key is an own property, not a prototype', '{"__proto__":{"polluted":true},"a":1}'],
    ['a big integer is a double', `{"a":${'9'.repeat(300)}}`],
  ])('%s, as JSON.parse reads it', async (_name, text) => {
    const runtime = new ToolRuntime()
    const seen: unknown[] = []
    runtime.register({ name: 'any', parameters: { type: 'object' }, execute: (_id: string, params: unknown) => (seen.push(params), 'ok') })
    const [result] = await runtime.dispatch([{ id: 'a', name: 'any', arguments: text }])
    expect(result.status).toBe('ok')
    const expected = JSON.parse(text)
    expect(seen[0]).toStrictEqual(expected)
    expect(Object.keys(seen[0] as object)).toEqual(Object.keys(expected))
    expect(Object.getPrototypeOf(seen[0])).toBe(Object.prototype)
    expect(({} as any).polluted).toBeUndefined()
  })

  it.each([
    ['{"x":1e999}', '/x', '1e999'],
    ['{"x":{"y":[0,-1e400]}}', '/x/y/1', '-1e400'],
    [`{"n":1${'0'.repeat(400)}}`, '/n', '1000'],
  ])('%s is a VALIDATION_ERROR naming the number at its path', async (text, path, literal) => {
    const { runtime, seen } = echoRuntime()
    const [result] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: text }])
    expect(JSON.stringify(JSON.parse(text))).toContain('null') // JSON.parse gave ±Infinity
    expect(result.error?.code).toBe('VALIDATION_ERROR')
    expect(result.error?.details).toEqual([expect.objectContaining({ path, keyword: 'number' })])
    expect(textOf(result)).toContain(`${path}: the number ${literal}`)
    expect(textOf(result)).toContain('out of range')
    expect(textOf(result).length).toBeLessThan(1024)
    expect(seen).toEqual([])
  })

  // Seen in the issue 19 round 8 review: Infinity, -Infinity and NaN inside arguments given as
  // an object became null silently (JSON.stringify's rule) and the tool ran with null; they are
  // the same VALIDATION_ERROR at their path as a number out of range in argument text, however
  // the object arrives (dispatch, a beforeToolCall hook's params, a plan, a toJSON).
  const nonFinite: [string, () => Record<string, unknown>, string, string][] = [
    ['Infinity at the top', () => ({ n: Infinity }), '/n', 'Infinity'],
    ['-Infinity in an array', () => ({ a: [1, { b: -Infinity }] }), '/a/1/b', '-Infinity'],
    ['NaN under a key needing escapes', () => ({ 'x/y~z': NaN }), '/x~1y~0z', 'NaN'],
    ['Infinity from a toJSON', () => ({ t: { toJSON: () => ({ q: Infinity }) } }), '/t/q', 'Infinity'],
    ['Infinity after a real null', () => ({ a: null, s: 'null', b: [null, 0 / 0] }), '/b/1', 'NaN'],
    // Seen in the issue 19 round 9 attack review (13.mjs): a boxed number is unboxed by
    // JSON.stringify (ToNumber), so new Number(Infinity) reached the tool as null.
    ['a boxed Infinity', () => ({ n: new Number(Infinity) }), '/n', 'Infinity'],
    ['a boxed NaN in an array', () => ({ a: [new Number(1), new Number(NaN)] }), '/a/1', 'NaN'],
    ['a boxed -Infinity from a toJSON', () => ({ t: { toJSON: () => [new Number(-Infinity)] } }), '/t/0', '-Infinity'],
    ['a box whose valueOf gives Infinity', () => ({ v: Object.assign(new Number(1), { valueOf: () => Infinity }) }), '/v', 'Infinity'],
    ['a boxed NaN at the top of an array', () => [new Number(NaN)] as unknown as Record<string, unknown>, '/0', 'NaN'],
  ]
  it.each(nonFinite)('%s in object arguments is a VALIDATION_ERROR at its path', async (_name, args, path, number) => {
    const { runtime, seen } = echoRuntime()
    const [result] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: args() }])
    expect(result.error?.code).toBe('VALIDATION_ERROR')
    expect(result.error?.details).toEqual([expect.objectContaining({ path, keyword: 'number' })])
    expect(textOf(result)).toContain(`${path}: the number ${number} cannot be sent`)
    expect(seen).toEqual([])
    // so do the arguments a beforeToolCall hook gives instead
    const [hooked] = await runtime.dispatch([{ id: 'b', name: 'echo', arguments: '{}' }], { beforeToolCall: () => ({ params: args() }) })
    expect(hooked.error?.code).toBe('VALIDATION_ERROR')
    expect(hooked.error?.details).toEqual([expect.objectContaining({ path, keyword: 'number' })])
    // a plan step's are the plan's: the plan is invalid, naming where
    const plan = runtime.executePlan({ steps: [{ id: 's', tool: 'echo', args: args() }] })
    await expect(plan).rejects.toMatchObject({ code: 'PLAN_INVALID', message: expect.stringContaining(`the number ${number} at /steps/0/args${path}`) })
    expect(seen).toEqual([])
  })

  // Boxed primitives are a class: JSON.stringify unboxes Number, String and Boolean objects (a
  // BigInt object cannot be serialized); the check reads them the same way, so finite boxes, a
  // box faking another tag and a plain object named like one run as JSON carries them.
  it('boxed finite numbers, strings and booleans run as JSON carries them; a boxed BigInt cannot be serialized', async () => {
    const runtime = new ToolRuntime()
    const seen: unknown[] = []
    runtime.register({ name: 'any', parameters: { type: 'object' }, execute: (_id: string, params: unknown) => (seen.push(params), 'ok') })
    const faked = Object.assign(new String('null'), { [Symbol.toStringTag]: 'Number' })
    const args = { n: new Number(-0), s: new String('Infinity'), b: new Boolean(false), f: faked, z: null }
    const [result] = await runtime.dispatch([{ id: 'a', name: 'any', arguments: args }])
    expect(result.status).toBe('ok')
    // the tool gets the caller's own object; events and the log carry its JSON
    expect(seen).toEqual([args])
    expect(JSON.parse(JSON.stringify(args))).toEqual({ n: 0, s: 'Infinity', b: false, f: 'null', z: null })
    const [big] = await runtime.dispatch([{ id: 'b', name: 'any', arguments: { n: Object(1n) } }])
    expect(big.error?.code).toBe('INVALID_JSON')
    // An object whose only key is a function (valueOf is never called) would reach the tool as
    // {}: a function JSON drops is refused at its path, as in a tool's value (attack review 5's 8).
    const [lost] = await runtime.dispatch([{ id: 'c', name: 'any', arguments: { o: { valueOf: () => Infinity } } }])
    expect(lost.error?.code).toBe('INVALID_JSON')
    expect(lost.content[0]).toMatchObject({ text: expect.stringContaining('a function at $.o.valueOf') })
    expect(seen).toHaveLength(1)
  })

  it('object arguments with nulls and finite numbers only run as given', async () => {
    const runtime = new ToolRuntime()
    const seen: unknown[] = []
    runtime.register({ name: 'any', parameters: { type: 'object' }, execute: (_id: string, params: unknown) => (seen.push(params), 'ok') })
    const args = { a: null, s: 'null', n: [0, -0, 1e308, -5e-324], o: { nul: null } }
    const [result] = await runtime.dispatch([{ id: 'a', name: 'any', arguments: args }])
    expect(result.status).toBe('ok')
    expect(seen).toEqual([args])
  })

  it('names the closest registered tools for an unknown name', async () => {
    const { runtime } = echoRuntime()
    runtime.register({ name: 'read_file', parameters: { type: 'object' }, execute: () => '' })
    const [result] = await runtime.dispatch([{ id: 'a', name: 'read_fil', arguments: '{}' }])
    expect(result.error?.code).toBe('NOT_FOUND')
    expect(textOf(result)).toContain('Did you mean "read_file"?')
    expect(textOf(result)).toContain('Available tools: echo, read_file')
  })

  it('treats arguments that cannot be serialized as invalid JSON', async () => {
    const { runtime } = echoRuntime()
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const [result] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: cyclic }])
    expect(result.error?.code).toBe('INVALID_JSON')
    expect(textOf(result)).toContain('could not be serialized')
  })
  it('a raw lone surrogate in arguments text reaches the tool as U+FFFD, as the engine read it', async () => {
    const { runtime, seen } = echoRuntime()
    const events: ToolExecutionEvent[] = []
    const [raw, escaped] = await runtime.dispatch(
      [
        { id: 'a', name: 'echo', arguments: '{"text":"a\ud800"}' },
        { id: 'b', name: 'echo', arguments: '{"text":"a\\ud800"}' },
      ],
      { onEvent: (event) => events.push(event) },
    )
    expect(seen).toEqual([{ text: 'a\ufffd' }, { text: 'a\ufffd' }])
    expect([raw!.args, escaped!.args]).toEqual([{ text: 'a\ufffd' }, { text: 'a\ufffd' }])
    const starts = events.filter((e) => e.type === 'tool_execution_start') as { args: unknown }[]
    expect(starts.map((e) => e.args)).toEqual([{ text: 'a\ufffd' }, { text: 'a\ufffd' }])
  })
})

describe('what a tool returns', () => {
  const runtime = new ToolRuntime()
  const returns: Record<string, () => unknown> = {
    agent: () => ({ content: [{ type: 'text', text: 'hello' }], details: { n: 1 } }),
    string: () => 'plain text',
    json: () => ({ rows: [1, 2] }),
    number: () => 42,
    nothing: () => undefined,
    bigint: () => ({ n: 10n }),
    cyclic: () => {
      const o: Record<string, unknown> = {}
      o.o = o
      return o
    },
    syncThrow: () => {
      throw new Error('sync boom')
    },
    reject: () => Promise.reject(new Error('async boom')),
    rejectString: () => Promise.reject('just a string'),
    rejectObject: () => Promise.reject({ reason: 42 }),
    nonPromise: () => ({ content: [{ type: 'text', text: 'sync value' }] }),
    isError: () => ({ content: [{ type: 'text', text: 'tool says no' }], isError: true }),
    badBlock: () => ({ content: [{ type: 'video', url: 'x' }] }),
  }
  for (const [name, fn] of Object.entries(returns)) {
    runtime.register({ name, parameters: { type: 'object' }, execute: untyped(fn) })
  }
  const run = async (name: string) => (await runtime.dispatch([{ id: name, name, arguments: '{}' }]))[0]

  it('keeps an AgentToolResult as content and details', async () => {
    const result = await run('agent')
    expect(result).toMatchObject({ ok: true, status: 'ok', content: [{ type: 'text', text: 'hello' }], details: { n: 1 } })
    expect(result.data).toBeUndefined()
  })

  it('turns a string into one text block', async () => {
    expect((await run('string')).content).toEqual([{ type: 'text', text: 'plain text' }])
  })

  // One rule for a tool's value holding Infinity, -Infinity or NaN: it is read as JSON carries it
  // (JSON.stringify writes null), in the result itself as in every sink; the result handed back
  // used to keep Infinity in data while events, the audit log and the wire had null.
  it('reads Infinity and NaN in a returned value as null in the result and every sink alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'non-finite-data-'))
    const events: any[] = []
    const runtime = new ToolRuntime({ audit: { dir }, onEvent: (e) => events.push(e) })
    const value = { rows: [1, Infinity, NaN], n: -Infinity, ok: 'yes' }
    // its data may leave in events and the audit log (strict redaction withholds it otherwise)
    runtime.register({ name: 'odd', parameters: { type: 'object' }, redaction: { allow: ['rows', 'n', 'ok'] }, execute: () => value })
    const [result] = await runtime.dispatch([{ id: 'a', name: 'odd', arguments: {} }], { runId: 'odd' })
    const asJson = JSON.parse(JSON.stringify(value))
    expect(result.status).toBe('ok')
    expect(result.data).toStrictEqual(asJson)
    expect(textOf(result)).toBe(JSON.stringify(value))
    const end = events.find((e) => e.type === 'tool_execution_end')
    expect(end.result.data).toStrictEqual(asJson)
    expect(replayRun(dir, 'odd').results[0].data).toStrictEqual(asJson)
    const [message] = runtime.encodeResults([result], 'openai-chat') as any[]
    expect(message.content).toContain('[1,null,null]')
    expect(value.rows[1]).toBe(Infinity) // the tool's own object is left alone
  })

  it('turns any JSON value into a JSON text block and data', async () => {
    const json = await run('json')
    expect(json.content).toEqual([{ type: 'text', text: '{"rows":[1,2]}' }])
    expect(json.data).toEqual({ rows: [1, 2] })
    expect((await run('number')).data).toBe(42)
  })

  it('turns undefined into "(no output)"', async () => {
    expect(textOf(await run('nothing'))).toBe('(no output)')
  })

  it('reports values that cannot be serialized', async () => {
    for (const name of ['bigint', 'cyclic']) {
      const result = await run(name)
      expect(result.error?.code).toBe('EXECUTION_ERROR')
      expect(textOf(result)).toContain('cannot be serialized')
    }
  })

  it('turns throws and rejections into EXECUTION_ERROR with the message', async () => {
    expect(textOf(await run('syncThrow'))).toBe('sync boom')
    expect(textOf(await run('reject'))).toBe('async boom')
    expect(textOf(await run('rejectString'))).toBe('just a string')
    expect(textOf(await run('rejectObject'))).toContain('{"reason":42}')
    for (const name of ['syncThrow', 'reject', 'rejectString', 'rejectObject']) {
      const result = await run(name)
      expect(result.status).toBe('error')
      expect(result.error?.code).toBe('EXECUTION_ERROR')
    }
  })

  it('accepts a non-Promise return', async () => {
    expect(textOf(await run('nonPromise'))).toBe('sync value')
  })

  it('honours isError and rejects unknown content blocks', async () => {
    const failed = await run('isError')
    expect(failed.status).toBe('error')
    expect(failed.error?.message).toBe('tool says no')
    expect(textOf(await run('badBlock'))).toContain('type "video"')
  })
})

describe('scheduling', () => {
  it('returns results in source order whatever order the tools finish in', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'wait',
      parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
      execute: async (_id: string, params: { ms: number }) => {
        await sleep(params.ms)
        return String(params.ms)
      },
    })
    const results = await runtime.dispatch([30, 1, 15].map((ms, i) => ({ id: `c${i}`, name: 'wait', arguments: { ms } })))
    expect(results.map((r) => r.callId)).toEqual(['c0', 'c1', 'c2'])
    expect(results.map(textOf)).toEqual(['30', '1', '15'])
  })

  it('runs calls in parallel up to the concurrency cap', async () => {
    const runtime = new ToolRuntime({ concurrency: 3 })
    const { tool, stats } = overlapTool('work')
    runtime.register(tool)
    await runtime.dispatch(Array.from({ length: 9 }, (_, i) => ({ id: `c${i}`, name: 'work', arguments: '{}' })))
    expect(stats.max).toBe(3)
  })

  it('shares the cap between dispatches at once on one runtime', async () => {
    const runtime = new ToolRuntime({ concurrency: 2 })
    const { tool, stats } = overlapTool('work')
    runtime.register(tool)
    const calls = (p: string) => Array.from({ length: 4 }, (_, i) => ({ id: `${p}${i}`, name: 'work', arguments: '{}' }))
    const [a, b] = await Promise.all([runtime.dispatch(calls('a')), runtime.dispatch(calls('b'))])
    expect(stats.max).toBe(2)
    expect(a.map((r) => r.callId)).toEqual(['a0', 'a1', 'a2', 'a3'])
    expect(b.map((r) => r.callId)).toEqual(['b0', 'b1', 'b2', 'b3'])
    expect([...a, ...b].every((r) => r.ok)).toBe(true)
  })

  it('runs a batch holding a sequential tool in source order, one at a time', async () => {
    const runtime = new ToolRuntime()
    const { tool, stats } = overlapTool('work')
    runtime.register(tool)
    runtime.register({ ...overlapTool('seq').tool, executionMode: 'sequential', execute: tool.execute })
    await runtime.dispatch([
      { id: 'a', name: 'work', arguments: '{}' },
      { id: 'b', name: 'seq', arguments: '{}' },
      { id: 'c', name: 'work', arguments: '{}' },
    ])
    expect(stats.max).toBe(1)
    expect(stats.order).toEqual(['start:a', 'end:a', 'start:b', 'end:b', 'start:c', 'end:c'])
  })

  it('never overlaps calls with one concurrency key, and keeps their source order', async () => {
    const runtime = new ToolRuntime()
    const log: string[] = []
    runtime.register({
      name: 'edit',
      parameters: stringsSchema('path'),
      concurrencyKey: (params: { path: string }) => params.path,
      async execute(id: string, params: { path: string }) {
        log.push(`start:${id}:${params.path}`)
        await sleep(params.path === 'a.txt' ? 20 : 5)
        log.push(`end:${id}:${params.path}`)
        return 'edited'
      },
    })
    await runtime.dispatch([
      { id: '1', name: 'edit', arguments: '{"path":"a.txt"}' },
      { id: '2', name: 'edit', arguments: '{"path":"b.txt"}' },
      { id: '3', name: 'edit', arguments: '{"path":"a.txt"}' },
    ])
    const a = log.filter((l) => l.endsWith('a.txt'))
    expect(a).toEqual(['start:1:a.txt', 'end:1:a.txt', 'start:3:a.txt', 'end:3:a.txt'])
    expect(log.indexOf('start:2:b.txt')).toBeLessThan(log.indexOf('end:1:a.txt'))
  })

  it('fails only the call whose concurrencyKey throws', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'edit',
      parameters: { type: 'object' },
      concurrencyKey: (params: { bad?: boolean }) => {
        if (params.bad) throw new Error('no key for you')
        return 'k'
      },
      execute: () => 'ok',
    })
    const [bad, good] = await runtime.dispatch([
      { id: 'a', name: 'edit', arguments: '{"bad":true}' },
      { id: 'b', name: 'edit', arguments: '{}' },
    ])
    expect(bad.error?.code).toBe('EXECUTION_ERROR')
    expect(textOf(bad)).toContain('no key for you')
    expect(good.ok).toBe(true)
  })
})

describe('deadlines and cancellation', () => {
  it('times out a call, aborts its signal, and ignores its late value', async () => {
    const runtime = new ToolRuntime({ timeoutMs: 40 })
    let abortReason: unknown
    let lateSettled = false
    runtime.register({
      name: 'slow',
      parameters: { type: 'object' },
      async execute(_id: string, _p: unknown, signal?: AbortSignal) {
        signal?.addEventListener('abort', () => (abortReason = signal.reason))
        await sleep(120)
        lateSettled = true
        return 'too late'
      },
    })
    const [result] = await runtime.dispatch([{ id: 'a', name: 'slow', arguments: '{}' }])
    expect(result.status).toBe('timeout')
    expect(result.error?.code).toBe('TIMEOUT')
    expect(result.error?.retryable).toBe(true)
    expect(textOf(result)).toContain('did not finish within 40 ms')
    expect((abortReason as DOMException).name).toBe('TimeoutError')
    await sleep(150)
    expect(lateSettled).toBe(true)
  })

  it('every tool gets an AbortSignal unless it opts out with signal: false, however execute is written', async () => {
    // `execute.length` is 1 for `(id, args = {}, signal) => ...` and 0 for `(...args) => ...`:
    // the signal no longer depends on it.
    const seen: Record<string, string> = {}
    const record = (name: string, signal: unknown) => (seen[name] = signal instanceof AbortSignal ? 'signal' : String(signal))
    const runtime = new ToolRuntime()
    const tools: [string, (...args: any[]) => unknown, boolean?][] = [
      ['defaults', (_id: string, _args = {}, signal?: AbortSignal) => record('defaults', signal)],
      ['destructured', (_id: string, { x = 1 }: { x?: number } = {}, signal?: AbortSignal) => record('destructured', signal ?? x)],
      ['rest', (...args: unknown[]) => record('rest', args[2])],
      ['two', function (this: unknown, _id: string, _args: unknown) {
        // eslint-disable-next-line prefer-rest-params
        return record('two', arguments[2])
      }],
      ['optedOut', (_id: string, _args: unknown, signal?: AbortSignal) => record('optedOut', signal), false],
    ]
    for (const [name, execute, signal] of tools) {
      runtime.register({ name, parameters: { type: 'object' }, execute: untyped(execute), ...(signal === undefined ? {} : { signal }) })
    }
    await runtime.dispatch(tools.map(([name]) => ({ id: name, name, arguments: '{}' })))
    expect(seen).toEqual({ defaults: 'signal', destructured: 'signal', rest: 'signal', two: 'signal', optedOut: 'undefined' })
    expect(runtime.list().find((t) => t.name === 'optedOut')).toMatchObject({ signal: false })
    expect(runtime.list().find((t) => t.name === 'two')).not.toHaveProperty('signal')
    expect(() => runtime.register({ name: 'bad', execute: () => 'x', signal: 'no' as never })).toThrow(/signal must be a boolean/)
  })

  it('TIMEOUT and CANCELLED never claim the tool stopped: they say the signal was aborted, or that there was none', async () => {
    const runtime = new ToolRuntime({ timeoutMs: 30 })
    let heard = 0
    const hang = (_id: string, _args: unknown = {}, signal?: AbortSignal) =>
      new Promise(() => signal?.addEventListener('abort', () => (heard += 1)))
    runtime.register({ name: 'heeds', parameters: { type: 'object' }, execute: untyped(hang) })
    runtime.register({ name: 'deaf', parameters: { type: 'object' }, signal: false, execute: untyped(hang) })
    const timedOut = await runtime.dispatch([
      { id: 'a', name: 'heeds', arguments: '{}' },
      { id: 'b', name: 'deaf', arguments: '{}' },
    ])
    expect(timedOut.map((r) => r.error?.code)).toEqual(['TIMEOUT', 'TIMEOUT'])
    expect(heard).toBe(1)
    expect(textOf(timedOut[0])).toMatch(/^Tool "heeds" did not finish within 30 ms\. Its AbortSignal was aborted; the tool may still be running/)
    expect(textOf(timedOut[1])).toMatch(/^Tool "deaf" did not finish within 30 ms\. The tool takes no AbortSignal \(it was registered with signal: false\), so it may still be running/)
    const controller = new AbortController()
    const pending = runtime.dispatch(
      [
        { id: 'c', name: 'heeds', arguments: '{}' },
        { id: 'd', name: 'deaf', arguments: '{}' },
      ],
      { signal: controller.signal, timeoutMs: 10_000 },
    )
    await sleep(10)
    controller.abort()
    const cancelled = await pending
    expect(cancelled.map((r) => r.error?.code)).toEqual(['CANCELLED', 'CANCELLED'])
    expect(textOf(cancelled[0])).toContain('Its AbortSignal was aborted')
    expect(textOf(cancelled[1])).toContain('takes no AbortSignal')
    for (const result of [...timedOut, ...cancelled]) expect(textOf(result)).not.toMatch(/was stopped|stopped\./)
  })

  it('takes the tool deadline first, then the dispatch one, then the runtime one', async () => {
    const runtime = new ToolRuntime({ timeoutMs: 5_000 })
    const hang = () => new Promise(() => {})
    runtime.register({ name: 'own', parameters: { type: 'object' }, timeoutMs: 20, execute: untyped(hang) })
    runtime.register({ name: 'plain', parameters: { type: 'object' }, execute: untyped(hang) })
    const results = await runtime.dispatch(
      [
        { id: 'a', name: 'own', arguments: '{}' },
        { id: 'b', name: 'plain', arguments: '{}' },
      ],
      { timeoutMs: 60 },
    )
    expect(results.map((r) => r.status)).toEqual(['timeout', 'timeout'])
    expect(textOf(results[0])).toContain('within 20 ms')
    expect(textOf(results[1])).toContain('within 60 ms')
  })

  it('calls started together share an AbortSignal only with calls of their dispatch that end by the same deadline', async () => {
    const signals: Record<string, AbortSignal> = {}
    const aborted: Record<string, string> = {}
    const watch = (id: string, signal?: AbortSignal) => {
      signals[id] = signal!
      signal!.addEventListener('abort', () => (aborted[id] = (signal!.reason as DOMException).name))
    }
    // one dispatch: two calls of a 30 ms tool time out together, a call of a 5 s tool is untouched
    const runtime = new ToolRuntime({ timeoutMs: 5_000 })
    runtime.register({ name: 'short', parameters: { type: 'object' }, timeoutMs: 30, execute: (id: string, _a: unknown, signal?: AbortSignal) => (watch(id, signal), new Promise(() => {})) })
    runtime.register({ name: 'long', parameters: { type: 'object' }, execute: async (id: string, _a: unknown, signal?: AbortSignal) => (watch(id, signal), await sleep(80), 'done') })
    const results = await runtime.dispatch(['a', 'b', 'c'].map((id) => ({ id, name: id === 'c' ? 'long' : 'short', arguments: '{}' })))
    expect(results.map((r) => r.status)).toEqual(['timeout', 'timeout', 'ok'])
    expect(signals.a).toBe(signals.b)
    expect(signals.c).not.toBe(signals.a)
    await sleep(20)
    expect(aborted).toEqual({ a: 'TimeoutError', b: 'TimeoutError' })

    // two dispatches whose calls one answer starts (two queued calls freed by one completion
    // crossing): cancelling one never aborts the other's signal
    const shared = new ToolRuntime({ concurrency: 2, timeoutMs: 5_000 })
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    shared.register({ name: 'gate', parameters: { type: 'object' }, execute: async () => (await gate, 'ok') })
    shared.register({ name: 'hang', parameters: { type: 'object' }, execute: (id: string, _a: unknown, signal?: AbortSignal) => (watch(id, signal), new Promise(() => {})) })
    const gated = shared.dispatch(['x1', 'x2'].map((id) => ({ id, name: 'gate', arguments: '{}' })))
    const [cy, cz] = [new AbortController(), new AbortController()]
    const y = shared.dispatch([{ id: 'y', name: 'hang', arguments: '{}' }], { signal: cy.signal })
    const z = shared.dispatch([{ id: 'z', name: 'hang', arguments: '{}' }], { signal: cz.signal })
    release()
    await gated
    await sleep(5)
    expect(Object.keys(signals)).toEqual(expect.arrayContaining(['y', 'z']))
    cy.abort()
    expect((await y)[0].status).toBe('cancelled')
    await sleep(5)
    expect(aborted.y).toBe('AbortError')
    expect(aborted.z).toBeUndefined()
    cz.abort()
    expect((await z)[0].status).toBe('cancelled')
    expect(aborted.z).toBe('AbortError')
  })

  it('cancels: running calls are aborted, queued ones never run', async () => {
    const runtime = new ToolRuntime({ concurrency: 1 })
    const started: string[] = []
    let sawAbort = false
    runtime.register({
      name: 'long',
      parameters: { type: 'object' },
      execute: (id: string, _p: unknown, signal?: AbortSignal) =>
        new Promise((resolve) => {
          started.push(id)
          signal?.addEventListener('abort', () => {
            sawAbort = true
            resolve('stopped')
          })
        }),
    })
    const controller = new AbortController()
    const pending = runtime.dispatch(
      [
        { id: 'a', name: 'long', arguments: '{}' },
        { id: 'b', name: 'long', arguments: '{}' },
      ],
      { signal: controller.signal },
    )
    await sleep(10)
    controller.abort()
    const results = await pending
    expect(started).toEqual(['a'])
    expect(sawAbort).toBe(true)
    expect(results.map((r) => [r.status, r.error?.code])).toEqual([
      ['cancelled', 'CANCELLED'],
      ['cancelled', 'CANCELLED'],
    ])
    expect(textOf(results[1])).toContain('before it started')
  })

  it('runs nothing for a signal that is already aborted, but answers every call', async () => {
    const { runtime, seen } = echoRuntime()
    const events: string[] = []
    const results = await runtime.dispatch(
      [
        { id: 'a', name: 'echo', arguments: '{}' },
        { id: 'b', name: 'nope', arguments: '{' },
      ],
      { signal: AbortSignal.abort(), onEvent: (e) => events.push(`${e.type}:${e.toolCallId}`) },
    )
    expect(seen).toEqual([])
    expect(results.map((r) => r.status)).toEqual(['cancelled', 'cancelled'])
    expect(events).toEqual([
      'tool_execution_start:a',
      'tool_execution_end:a',
      'tool_execution_start:b',
      'tool_execution_end:b',
    ])
  })
})

describe('events', () => {
  it('emits one start before exactly one end for every call, including those that never run', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'ok', parameters: stringsSchema('x'), execute: () => 'fine' })
    runtime.register({ name: 'boom', parameters: { type: 'object' }, execute: () => Promise.reject(new Error('x')) })
    const events: ToolExecutionEvent[] = []
    const calls = [
      { id: 'ok', name: 'ok', arguments: '{"x":"1"}' },
      { id: 'unknown', name: 'nope', arguments: '{}' },
      { id: 'badjson', name: 'ok', arguments: '{' },
      { id: 'invalid', name: 'ok', arguments: '{}' },
      { id: 'blocked', name: 'ok', arguments: '{"x":"block"}' },
      { id: 'boom', name: 'boom', arguments: '{}' },
    ]
    await runtime.dispatch(calls, {
      onEvent: (e) => events.push(e),
      beforeToolCall: ({ args }) => ((args as { x?: string }).x === 'block' ? { block: true, reason: 'nope' } : undefined),
    })
    for (const { id } of calls) {
      const mine = events.filter((e) => e.toolCallId === id).map((e) => e.type)
      expect(mine, id).toEqual(['tool_execution_start', 'tool_execution_end'])
    }
    const start = events.find((e) => e.type === 'tool_execution_start' && e.toolCallId === 'ok')
    expect(start).toMatchObject({ toolName: 'ok', args: { x: '1' } })
    const end = events.find((e) => e.type === 'tool_execution_end' && e.toolCallId === 'boom')
    expect(end).toMatchObject({ isError: true, result: { status: 'error' } })
  })

  it('emits updates while a call runs and drops those after it settled', async () => {
    const runtime = new ToolRuntime()
    let later: ((p: unknown) => void) | undefined
    runtime.register({
      name: 'progress',
      parameters: { type: 'object' },
      async execute(_id: string, _p: unknown, _signal?: AbortSignal, onUpdate?: (p: unknown) => void) {
        onUpdate?.({ step: 1 })
        await sleep(5)
        onUpdate?.({ step: 2 })
        later = onUpdate
        return 'done'
      },
    })
    const events: ToolExecutionEvent[] = []
    await runtime.dispatch([{ id: 'a', name: 'progress', arguments: '{}' }], { onEvent: (e) => events.push(e) })
    later?.({ step: 3 })
    expect(events.map((e) => e.type)).toEqual([
      'tool_execution_start',
      'tool_execution_update',
      'tool_execution_update',
      'tool_execution_end',
    ])
    expect(events.filter((e) => e.type === 'tool_execution_update').map((e) => (e as { partialResult: unknown }).partialResult)).toEqual([
      { step: 1 },
      { step: 2 },
    ])
  })

  it('keeps dispatching when an event listener throws', async () => {
    const { runtime } = echoRuntime()
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    try {
      const [result] = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: '{}' }], {
        onEvent: () => {
          throw new Error('listener bug')
        },
      })
      expect(result.ok).toBe(true)
      await sleep(1)
      expect(warnings.some((w) => w.includes('listener bug'))).toBe(true)
    } finally {
      process.off('warning', onWarning)
    }
  })
})

describe('hooks', () => {
  it('beforeToolCall can block, replace the arguments (validated again), or fail closed', async () => {
    const runtime = new ToolRuntime()
    const seen: unknown[] = []
    runtime.register({
      name: 'write',
      parameters: stringsSchema('path'),
      execute: (_id: string, params: unknown) => {
        seen.push(params)
        return 'written'
      },
    })
    const results = await runtime.dispatch(
      ['block', 'replace', 'invalid', 'throw', 'pass'].map((mode) => ({ id: mode, name: 'write', arguments: { path: mode } })),
      {
        beforeToolCall: async ({ toolCall, args, call }) => {
          expect(call.callId).toBe(toolCall.id)
          expect(call.args).toEqual(args)
          switch (toolCall.id) {
            case 'block':
              return { block: true, reason: 'writes are frozen' }
            case 'replace':
              return { params: { path: 'sandbox/replace' } }
            case 'invalid':
              return { params: { path: 7 } }
            case 'throw':
              throw new Error('policy engine down')
          }
        },
      },
    )
    const byId = Object.fromEntries(results.map((r) => [r.callId, r]))
    expect(byId.block).toMatchObject({ status: 'blocked', error: { code: 'BLOCKED' } })
    expect(textOf(byId.block)).toContain('writes are frozen')
    expect(byId.replace).toMatchObject({ status: 'ok', args: { path: 'sandbox/replace' } })
    expect(byId.invalid.error?.code).toBe('VALIDATION_ERROR')
    expect(byId.throw).toMatchObject({ status: 'blocked', error: { code: 'BLOCKED' } })
    expect(textOf(byId.throw)).toContain('policy engine down')
    expect(seen).toEqual([{ path: 'sandbox/replace' }, { path: 'pass' }])
  })

  // attack review, finding 07: `block` was honored only when exactly `true`, so `block: 1` ran
  // the call silently. pi-agent-core blocks on any truthy `block` (`beforeResult?.block`), and so
  // does toolwire now, by JavaScript's truthiness exactly: fail closed.
  describe('beforeToolCall blocks on any truthy block, as pi-agent-core does', () => {
    const blocking: [string, () => unknown][] = [
      ['true', () => true],
      ['a number (1)', () => 1],
      ['a negative number (-1)', () => -1],
      ['Infinity', () => Infinity],
      ["the string 'true'", () => 'true'],
      ["the string 'false' (a non-empty string)", () => 'false'],
      ['an object', () => ({ reason: 'policy' })],
      ['an empty object', () => ({})],
      ['an empty array', () => []],
      ['a function (no JSON form)', () => () => false],
      ['a symbol (no JSON form)', () => Symbol('block')],
      ['a BigInt (1n, no JSON form)', () => 1n],
      ['a Boolean object holding false', () => new Boolean(false)],
    ]
    const proceeding: [string, () => unknown][] = [
      ['false', () => false],
      ['0', () => 0],
      ['-0', () => -0],
      ['0n (no JSON form)', () => 0n],
      ["''", () => ''],
      ['NaN', () => NaN],
      ['null', () => null],
      ['undefined', () => undefined],
    ]

    async function withBlock(block: unknown, answer: (block: unknown) => unknown = (b) => ({ block: b, reason: 'not allowed' })) {
      const runtime = new ToolRuntime()
      const ran: string[] = []
      runtime.register({ name: 'delete_all', parameters: { type: 'object' }, execute: async (id: string) => (ran.push(id), 'deleted') })
      const [result] = await runtime.dispatch([{ id: 'c1', name: 'delete_all', arguments: '{}' }], { beforeToolCall: () => answer(block) as never })
      return { result: result!, ran }
    }

    it.each(blocking)('block: %s blocks the call, with the reason', async (_name, block) => {
      const { result, ran } = await withBlock(block())
      expect(ran).toEqual([])
      expect(result).toMatchObject({ status: 'blocked', error: { code: 'BLOCKED' } })
      expect(textOf(result)).toContain('not allowed')
    })

    it.each(proceeding)('block: %s does not block: the call runs', async (_name, block) => {
      const { result, ran } = await withBlock(block())
      expect(ran).toEqual(['c1'])
      expect(result.status).toBe('ok')
    })

    it('a falsy block with new params runs the call with them (0n has no JSON form and is left out)', async () => {
      const runtime = new ToolRuntime()
      const seen: unknown[] = []
      runtime.register({ name: 'write', parameters: stringsSchema('path'), execute: async (_id: string, params: unknown) => (seen.push(params), 'ok') })
      const results = await runtime.dispatch(
        [0n, 0, ''].map((_, i) => ({ id: `c${i}`, name: 'write', arguments: { path: 'a' } })),
        { beforeToolCall: ({ toolCall }) => ({ block: [0n, 0, ''][Number(toolCall.id.slice(1))], params: { path: 'b' } }) },
      )
      expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok'])
      expect(seen).toEqual([{ path: 'b' }, { path: 'b' }, { path: 'b' }])
    })

    it('a reason that is not a string gives the default one; the rest of a blocking answer is not read', async () => {
      const { result } = await withBlock(1, (block) => ({ block, reason: 42, params: new Map() }))
      expect(result).toMatchObject({ status: 'blocked', error: { code: 'BLOCKED' } })
      expect(textOf(result)).toContain('blocked by the beforeToolCall hook')
    })

    it('block is read once: a getter answering true, then false, blocks', async () => {
      let reads = 0
      const answer = {
        get block() {
          reads += 1
          return reads === 1
        },
      }
      const { result, ran } = await withBlock(undefined, () => answer)
      expect(ran).toEqual([])
      expect(result.status).toBe('blocked')
      expect(reads).toBe(1)
    })

    it('a block getter that throws fails the call closed', async () => {
      const answer = {
        get block(): boolean {
          throw new Error('policy store down')
        },
      }
      const { result, ran } = await withBlock(undefined, () => answer)
      expect(ran).toEqual([])
      expect(result.status).toBe('blocked')
      expect(textOf(result)).toContain('policy store down')
    })

    it('an answer that is not an object proceeds, as pi-agent-core reads it (`"x"?.block` is undefined)', async () => {
      for (const answer of ['block', 1, true]) {
        const { result, ran } = await withBlock(undefined, () => answer)
        expect(ran, String(answer)).toEqual(['c1'])
        expect(result.status).toBe('ok')
      }
    })
  })

  it('afterToolCall replaces content, details and isError without merging', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 't',
      parameters: { type: 'object' },
      execute: () => ({ content: [{ type: 'text', text: 'raw' }], details: { a: 1, b: 2 } }),
    })
    const [replaced, failed] = await runtime.dispatch(
      [
        { id: 'replace', name: 't', arguments: '{}' },
        { id: 'fail', name: 't', arguments: '{}' },
      ],
      {
        afterToolCall: ({ toolCall, result, isError }) => {
          expect(isError).toBe(false)
          expect(result.content).toEqual([{ type: 'text', text: 'raw' }])
          return toolCall.id === 'replace'
            ? { content: [{ type: 'text', text: 'redacted' }], details: { c: 3 } }
            : { isError: true }
        },
      },
    )
    expect(replaced).toMatchObject({ ok: true, content: [{ type: 'text', text: 'redacted' }], details: { c: 3 } })
    expect(failed).toMatchObject({ status: 'error', error: { code: 'EXECUTION_ERROR' } })
  })

  it('onPersist replaces what is recorded and returned', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: () => 'api_key=hunter2' })
    const events: ToolExecutionEvent[] = []
    const [result] = await runtime.dispatch([{ id: 'a', name: 't', arguments: '{}' }], {
      onEvent: (e) => events.push(e),
      onPersist: (r: ToolResult) => ({ ...r, content: [{ type: 'text', text: textOf(r).replace('hunter2', '***') }] }),
    })
    expect(textOf(result)).toBe('api_key=***')
    const end = events.find((e) => e.type === 'tool_execution_end') as { result: ToolResult }
    expect(textOf(end.result)).toBe('api_key=***')
  })

  it('withholds the output when afterToolCall throws', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: () => ({ content: [{ type: 'text', text: 'secret' }], details: { s: 1 } }) })
    const [result] = await runtime.dispatch([{ id: 'a', name: 't', arguments: '{}' }], {
      afterToolCall: () => {
        throw new Error('redactor down')
      },
    })
    expect(result.status).toBe('error')
    expect(textOf(result)).not.toContain('secret')
    expect(textOf(result)).toContain('redactor down')
    expect(result.details).toBeUndefined()
  })
})

describe('misuse', () => {
  it('rejects with a TypeError naming the bad call', async () => {
    const { runtime } = echoRuntime()
    await expect(runtime.dispatch('nope' as never)).rejects.toThrow(/calls must be an array/)
    await expect(runtime.dispatch([{ id: 1, name: 'echo' } as never])).rejects.toThrow(/calls\[0\]\.id must be a string/)
    await expect(runtime.dispatch([null as never])).rejects.toThrow(/calls\[0\] must be an object/)
    await expect(runtime.dispatch([], { onEvent: 3 } as never)).rejects.toThrow(/options.onEvent must be a function/)
    await expect(runtime.dispatch([], { timeoutMs: -1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('resolves an empty batch with no results', async () => {
    const { runtime } = echoRuntime()
    expect(await runtime.dispatch([])).toEqual([])
  })

  it('refuses bad runtime options with the value named', () => {
    expect(() => new ToolRuntime({ concurrency: 0 })).toThrow(/concurrency must be a whole number of at least 1, got 0/)
    expect(() => new ToolRuntime({ timeoutMs: Number.NaN })).toThrow(/timeoutMs/)
  })
})

describe('number options', () => {
  it('refuses NaN and Infinity everywhere instead of falling back to a default', async () => {
    expect(() => new ToolRuntime({ concurrency: Number.POSITIVE_INFINITY })).toThrow(/options.concurrency must be a finite number/)
    const runtime = new ToolRuntime()
    expect(() => runtime.register({ name: 't', parameters: {}, timeoutMs: Number.NaN, execute: () => '' })).toThrow(
      /tool "t": timeoutMs must be a finite number/,
    )
    await expect(runtime.dispatch([], { timeoutMs: Number.NaN })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
    await expect(runtime.dispatch([], { runId: 5 as never })).rejects.toThrow(/runId must be a non-empty string, got number 5/)
  })
})

describe('defaults', () => {
  it('runs at most 16 calls at once by default', async () => {
    const runtime = new ToolRuntime()
    const { tool, stats } = overlapTool('work')
    runtime.register(tool)
    await runtime.dispatch(Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, name: 'work', arguments: '{}' })))
    expect(stats.max).toBe(16)
  })
})

describe('plan marks on calls', () => {
  it('stamps stepId, attempt, loopId and confirmationId on every result, and checks them', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'hi' })
    runtime.register({ name: 'fails', parameters: { type: 'object' }, execute: async () => { throw new Error('no') } })
    const mark = { stepId: 's1', attempt: 3, loopId: 'run:s1', confirmationId: 'conf-1' }
    const [fast, failed, plain] = await runtime.dispatch([
      { id: 'a', name: 'echo', arguments: '{}', ...mark },
      { id: 'b', name: 'fails', arguments: '{}', ...mark },
      { id: 'c', name: 'echo', arguments: '{}' },
    ])
    for (const result of [fast, failed]) expect(result).toMatchObject(mark)
    expect(plain.attempt).toBe(1)
    expect(plain.stepId).toBeUndefined()
    await expect(runtime.dispatch([{ id: 'd', name: 'echo', arguments: '{}', attempt: 0 }])).rejects.toThrow(/calls\[0\]\.attempt must be a whole number/)
    await expect(runtime.dispatch([{ id: 'd', name: 'echo', arguments: '{}', stepId: 5 as any }])).rejects.toThrow(/calls\[0\]\.stepId must be a string/)
  })
})

describe('the tools option', () => {
  /** A runtime of `names` (each returns its name; `ran` lists the calls run), auditing into `dir`. */
  function toolsRuntime(names: string[], dir: string) {
    const ran: string[] = []
    const runtime = new ToolRuntime({ audit: { dir } })
    for (const name of names) runtime.register({ name, parameters: { type: 'object' }, execute: async () => (ran.push(name), name) })
    return { runtime, ran }
  }
  const root = mkdtempSync(join(tmpdir(), 'toolwire-tools-option-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('runs only the listed tools; any other call ends NOT_FOUND as on a runtime of the listed tools, with events and audit records', async () => {
    const limited = toolsRuntime(['read', 'reader', 'secret_admin'], join(root, 'limited'))
    const plain = toolsRuntime(['read', 'reader'], join(root, 'plain'))
    const calls = ['read', 'secret_admin', 'secret_admn', 'raed', 'nope'].map((name, i) => ({ id: `t${i}`, name, arguments: '{}' }))
    const run = async ({ runtime }: { runtime: ToolRuntime }, options: object) => {
      const events: ToolExecutionEvent[] = []
      const results = await runtime.dispatch(calls, { runId: 'limited-run', onEvent: (e) => events.push(e), ...options })
      return { results, events }
    }
    const mine = await run(limited, { tools: ['read', 'reader'] })
    const theirs = await run(plain, {})
    expect(limited.ran).toEqual(['read'])
    expect(mine.results.map((r) => textOf(r))).toEqual([
      'read',
      'Tool "secret_admin" not found. Available tools: read, reader.',
      'Tool "secret_admn" not found. Available tools: read, reader.',
      'Tool "raed" not found. Did you mean "read"? Available tools: read, reader.',
      'Tool "nope" not found. Available tools: read, reader.',
    ])
    const shape = (r: ToolResult) => ({ ...r, startedAt: 0, endedAt: 0, durationMs: 0 })
    expect(mine.results.map(shape)).toEqual(theirs.results.map(shape))
    // The tools left out are never named: not suggested, not listed.
    for (const result of mine.results.slice(1)) {
      expect(textOf(result).split(' not found.')[1]).not.toContain('secret_admin')
      expect(JSON.stringify(result.error?.details)).not.toContain('secret_admin')
    }
    for (const result of mine.results) {
      // Real timestamps, as any result's.
      expect(result.startedAt).toBeGreaterThan(Date.now() - 60_000)
      expect(result.endedAt).toBeGreaterThanOrEqual(result.startedAt)
    }
    const sequence = (events: ToolExecutionEvent[]) => events.map((e) => [e.type, e.toolCallId])
    expect(sequence(mine.events)).toEqual(sequence(theirs.events))
    const replay = replayRun(join(root, 'limited'), 'limited-run')
    expect(replay.results.map((r: any) => [r.callId, r.error?.code ?? null]).sort()).toEqual([
      ['t0', null],
      ['t1', 'NOT_FOUND'],
      ['t2', 'NOT_FOUND'],
      ['t3', 'NOT_FOUND'],
      ['t4', 'NOT_FOUND'],
    ])
    expect(verifyRun(join(root, 'limited'), 'limited-run')).toEqual({ ok: true, problems: [] })
  })

  it('refuses names that are not registered, naming them with the closest, and a list that is not one of names', async () => {
    const { runtime, ran } = toolsRuntime(['read', 'write'], join(root, 'refused'))
    const call = [{ id: 'c', name: 'read', arguments: '{}' }]
    const cases: [unknown, RegExp][] = [
      [['read', 'raed'], /^dispatch: options\.tools names a tool that is not registered: "raed"; did you mean "read"\?$/],
      [['x', 'y'], /^dispatch: options\.tools names tools that are not registered: "x", "y"$/],
      [['x'.repeat(1 << 20)], /^dispatch: options\.tools names a tool that is not registered: "x{100}"…$/],
      ['read', /^dispatch: options: tools: expected an array/],
      [[1], /^dispatch: options: tools\[0\]: expected a string/],
    ]
    for (const [tools, message] of cases) {
      const error = await runtime.dispatch(call, { tools: tools as string[] }).catch((e) => e)
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) })
    }
    expect(ran).toEqual([])
    expect((await runtime.dispatch(call, { tools: ['read'] }))[0].ok).toBe(true)
  })
})

describe('the arguments a tool gets are its own', () => {
  /** A credential shape the built-in secret kinds catch. */
  const KEY = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6'

  /** A runtime whose tool changes its arguments, and what it was handed. */
  function mutatingRuntime() {
    const runtime = new ToolRuntime()
    const handed: unknown[] = []
    runtime.register({
      name: 'login',
      parameters: { type: 'object', properties: { user: { type: 'string' } } },
      execute: async (_id: string, params: Record<string, unknown>) => {
        handed.push(JSON.stringify(params))
        params.apiKey = KEY
        params.self = params
        return 'logged in'
      },
    })
    return { runtime, handed }
  }

  it("a tool changing its arguments (a credential, a cycle) changes neither its result's nor its events'", async () => {
    const { runtime, handed } = mutatingRuntime()
    const events: ToolExecutionEvent[] = []
    for (const args of ['{"user":"ann"}', { user: 'ann' }]) {
      const [result] = await runtime.dispatch([{ id: 'a', name: 'login', arguments: args }], { onEvent: (event) => events.push(event) })
      expect(result.status).toBe('ok')
      expect(result.args).toEqual({ user: 'ann' })
      expect(JSON.stringify(result)).not.toContain(KEY)
    }
    expect(handed).toEqual(['{"user":"ann"}', '{"user":"ann"}'])
    const shown = events.flatMap((e) => (e.type === 'tool_execution_start' ? [e.args] : e.type === 'tool_execution_end' ? [e.result.args] : []))
    expect(shown).toEqual(Array(4).fill({ user: 'ann' }))
  })

  it('a listener changing the arguments an event shows never changes what the tool gets', async () => {
    const { runtime, handed } = mutatingRuntime()
    const [result] = await runtime.dispatch([{ id: 'a', name: 'login', arguments: '{"user":"ann"}' }], {
      onEvent: (event) => {
        if (event.type === 'tool_execution_start') (event.args as { user: string }).user = '/etc/passwd'
      },
    })
    expect(handed).toEqual(['{"user":"ann"}'])
    expect(result.status).toBe('ok')
  })

  it('a plan step whose tool makes its arguments circular costs nothing else', async () => {
    const { runtime } = mutatingRuntime()
    const outcome = await runtime.executePlan({ steps: [{ id: 's', tool: 'login', args: { user: 'ann' } }] })
    expect(outcome.status).toBe('ok')
  })
})
