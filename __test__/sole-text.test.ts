// A tool's commonest value, `{ content: [{ type: 'text', text }] }`, crosses as its text alone
// (Completion.RETURNED_TEXT). Its results must be exactly those of the general path, which
// serializes the value and has the engine parse it: here every text of a seeded corpus (lone
// surrogates, NUL, quotes, escapes, secrets, ANSI sequences, texts around the budget) is returned
// both ways, once as plain objects (the short path) and once as the same value built on objects
// without a prototype (JSON text alike, taken by the general path), and every result and event
// is compared.
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolExecutionEvent, type ToolResult } from '../dist/index.js'
import { generator, sleep, untyped } from './helpers.js'

type Rng = ReturnType<typeof generator>

const SECRETS = [
  `sk-proj-${'A1b2C3d4'.repeat(6)}`,
  'AKIAIOSFODNN7EXAMPLE',
  'ghp_' + 'a'.repeat(36),
  'password=hunter2hunter2',
  'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl',
]

/** A text of random UTF-16 units and pieces that matter to the engine's reading. */
function text(r: Rng): string {
  const parts: string[] = []
  const pieces = r.int(6)
  for (let i = 0; i < pieces; i++) {
    switch (r.int(8)) {
      case 0:
        parts.push(String.fromCharCode(0xd800 + r.int(0x800)))
        break
      case 1:
        parts.push(r.pick(['\u0000', '"', '\\', '\\u0041', '\n', '\u2028', '\u001b[31m', 'é', '😀']))
        break
      case 2:
        parts.push(r.pick(SECRETS))
        break
      case 3:
        parts.push('x'.repeat(r.pick([1, 100, 4000, 40_000])))
        break
      default:
        parts.push(String.fromCharCode(0x20 + r.int(0x5f)).repeat(1 + r.int(20)))
    }
  }
  return parts.join('')
}

/** `value`'s objects rebuilt without a prototype: the same JSON, off the short path. */
function withoutPrototypes(text: string): unknown {
  const block = Object.assign(Object.create(null), { type: 'text', text })
  return Object.assign(Object.create(null), { content: [block] })
}

/** What a result says, without its own call's marks and times. */
function said(result: ToolResult): unknown {
  const { callId: _c, tool: _t, runId: _r, startedAt: _s, endedAt: _e, durationMs: _d, ...rest } = result
  return JSON.parse(JSON.stringify(rest))
}

describe('a value of one text block', () => {
  it('ends exactly as the general path ends it, for every text of a seeded corpus', async () => {
    const runtime = new ToolRuntime({ sanitize: { maxResultChars: 30_000 } })
    const texts = new Map<string, string>()
    runtime.register({ name: 'short', parameters: { type: 'object' }, execute: (id: string) => ({ content: [{ type: 'text', text: texts.get(id)! }] }) })
    runtime.register({ name: 'general', parameters: { type: 'object' }, execute: untyped((id: string) => withoutPrototypes(texts.get(id)!)) })
    const r = generator(20261127)
    for (let round = 0; round < 12; round++) {
      const calls = []
      for (let i = 0; i < 25; i++) {
        const value = text(r)
        texts.set(`s${round}.${i}`, value)
        texts.set(`g${round}.${i}`, value)
        calls.push({ id: `s${round}.${i}`, name: 'short', arguments: '{}' }, { id: `g${round}.${i}`, name: 'general', arguments: '{}' })
      }
      const events: ToolExecutionEvent[] = []
      const results = await runtime.dispatch(calls, { onEvent: (event) => events.push(event) })
      const ends = new Map(events.filter((e) => e.type === 'tool_execution_end').map((e) => [e.toolCallId, (e as { result: ToolResult }).result]))
      for (let i = 0; i < results.length; i += 2) {
        const [short, general] = [results[i]!, results[i + 1]!]
        expect(said(short), JSON.stringify(texts.get(short.callId)).slice(0, 200)).toEqual(said(general))
        expect(said(ends.get(short.callId)!)).toEqual(said(ends.get(general.callId)!))
      }
      // the corpus holds what it is meant to: secrets scrubbed, lone surrogates repaired
      if (round === 11) {
        const all = JSON.stringify(results)
        expect(all).toContain('[redacted:')
        expect(all).not.toContain('AKIAIOSFODNN7EXAMPLE')
      }
    }
  })

  it('reads every other shape of value as before', async () => {
    const runtime = new ToolRuntime()
    const values: unknown[] = [
      { content: [{ type: 'text', text: 'a' }], details: { n: 1 } },
      { content: [{ type: 'text', text: 'a', annotations: { x: 1 } }] },
      { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { content: [{ type: 'text', text: 'a\ud800' }] },
      { content: [{ type: 'text', get text() { return 'from a getter' } }] },
      { content: [{ type: 'text', text: 'a', toJSON: () => ({ type: 'text', text: 'from toJSON' }) }] },
    ]
    values.forEach((value, i) => runtime.register({ name: `t${i}`, parameters: { type: 'object' }, execute: untyped(() => value) }))
    const results = await runtime.dispatch(values.map((_, i) => ({ id: `c${i}`, name: `t${i}`, arguments: '{}' })))
    expect(results.map((r) => r.status)).toEqual(values.map(() => 'ok'))
    expect(results[0]!.details).toEqual({ n: 1 })
    expect(results[2]!.content).toHaveLength(2)
    expect(results[3]!.content[0]).toEqual({ type: 'text', text: 'a\ufffd' })
    expect(results[4]!.content[0]).toMatchObject({ text: 'from a getter' })
    expect(JSON.stringify(results[5]!.content)).toContain('from toJSON')
  })

  it('a result is what the engine checked, never the object the tool may change or reuse after returning it', async () => {
    const runtime = new ToolRuntime()
    // one object reused for every call, as a tool may cache its result object: each call's value
    // is read when its promise settles, before the next call (20 ms later) changes it
    const reused = { content: [{ type: 'text', text: '' }] }
    const reusedWithDetails = { content: [{ type: 'text', text: '' }], details: { n: 0 } }
    const wait = (id: string) => sleep(Number(id[1]) * 20)
    runtime.register({ name: 'reuse', parameters: { type: 'object' }, execute: untyped(async (id: string) => (await wait(id), (reused.content[0]!.text = id), reused)) })
    runtime.register({
      name: 'reuseDetails',
      parameters: { type: 'object' },
      execute: untyped(async (id: string) => (await wait(id), (reusedWithDetails.content[0]!.text = id), (reusedWithDetails.details.n = id.length), reusedWithDetails)),
    })
    // a getter that answers clean text on its first reads, a secret after: the result is what
    // the engine read and scrubbed, whichever read that was
    let reads = 0
    const shifting = {
      get content() {
        return [{ type: 'text', text: ++reads > 3 ? 'AKIAIOSFODNN7EXAMPLE' : 'clean' }]
      },
    }
    runtime.register({ name: 'shifting', parameters: { type: 'object' }, execute: untyped(() => shifting) })
    const ends: ToolResult[] = []
    const results = await runtime.dispatch(
      [
        { id: 'a0', name: 'reuse', arguments: '{}' },
        { id: 'a1', name: 'reuse', arguments: '{}' },
        { id: 'b2', name: 'reuseDetails', arguments: '{}' },
        { id: 'b33', name: 'reuseDetails', arguments: '{}' },
        { id: 'c', name: 'shifting', arguments: '{}' },
      ],
      { onEvent: (event) => event.type === 'tool_execution_end' && ends.push((event as { result: ToolResult }).result) },
    )
    expect(results.slice(0, 4).map((r) => r.content[0])).toEqual(['a0', 'a1', 'b2', 'b33'].map((text) => ({ type: 'text', text })))
    expect(results.slice(2, 4).map((r) => r.details)).toEqual([{ n: 2 }, { n: 3 }])
    // (events withhold details by default: the content is what both show)
    for (const result of results) expect(result.content).toEqual(ends.find((e) => e.callId === result.callId)!.content)
    expect(JSON.stringify(results[4]!.content)).not.toContain('AKIAIOSFODNN7EXAMPLE')
    // changed after the dispatch: the results stay as they were checked
    reused.content[0]!.text = 'AKIAIOSFODNN7EXAMPLE'
    reusedWithDetails.content[0]!.text = 'AKIAIOSFODNN7EXAMPLE'
    reusedWithDetails.details.n = 99
    expect(JSON.stringify(results)).not.toContain('AKIAIOSFODNN7EXAMPLE')
    expect(results[3]!.details).toEqual({ n: 3 })
  })
})
