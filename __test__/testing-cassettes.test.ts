// toolwire/testing's cassettes: a scripted run recorded and replayed by a fresh runtime to the same
// outcome on every wire, requests keyed by their canonical hash whatever their key order, and a
// request with no recording failing with the nearest recording and the first path that differs.

import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { ToolwireError, models } from '../dist/index.js'
import type { RunOutcome, Wire } from '../dist/index.js'
import { faultyStream, recordModel, replayModel, scriptedBodies, scriptedBody, scriptedModel } from '../dist/testing/index.js'
import type { Recording, ScriptedTurn } from '../dist/testing/index.js'
import { WIRES, runtimeWithRead, userMessage } from './helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolwire-cassettes-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))


/** The recordings in `dir`, by file name. */
function recordings(): Record<string, Recording> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, JSON.parse(readFileSync(join(dir, name), 'utf8')) as Recording]))
}

/** What a run did, without what is new on every run (its id, generated call ids). */
function outcomeOf(outcome: RunOutcome) {
  return {
    stopReason: outcome.stopReason,
    error: outcome.error,
    usage: outcome.usage,
    steps: outcome.steps.map((step) => ({
      text: step.text,
      stopReason: step.stopReason,
      calls: step.calls.map((call) => [call.name, call.arguments, call.complete]),
      results: step.results.map((result) => [result.status, result.content]),
    })),
  }
}

/** A script with parallel calls, a bad call and an answer. */
const SCRIPT: ScriptedTurn[] = [
  { text: 'Reading both.', calls: [{ name: 'read', arguments: { path: 'a.txt' } }, { name: 'read', arguments: { path: 'b.txt' } }] },
  { calls: [{ name: 'read', arguments: { path: 7 } }] },
  { text: 'Both read.' },
]

describe('record, then replay with a fresh runtime', () => {
  for (const wire of WIRES) {
    it(`${wire}: the same outcome, every exchange one file`, async () => {
      const first = runtimeWithRead()
      const scripted = scriptedModel(wire, SCRIPT)
      const sent: string[] = []
      const model = async (request: any) => {
        const answer = await scripted(request)
        sent.push(await answer.clone().text())
        return answer
      }
      const recorded = await first.runtime.run({ wire, model: recordModel(model, dir), messages: [userMessage(wire, 'read them')] })
      expect(recorded.stopReason).toBe('stop')

      // One file per request, named by its hash, holding the request and the body as sent.
      const files = recordings()
      expect(Object.keys(files)).toHaveLength(3)
      for (const name of Object.keys(files)) expect(name).toMatch(/^[0-9a-f]{64}\.json$/)
      const bodies = Object.values(files).map((file) => file.response.body)
      expect(bodies.sort()).toEqual(sent.sort())
      expect(Object.values(files).map((file) => [file.response.status, file.response.contentType])).toEqual(Array(3).fill([200, 'text/event-stream; charset=utf-8']))

      const second = runtimeWithRead()
      const replayed = await second.runtime.run({ wire, model: replayModel(dir), messages: [userMessage(wire, 'read them')] })
      expect(outcomeOf(replayed)).toEqual(outcomeOf(recorded))
      expect(second.ran).toEqual(first.ran)
      expect(second.ran).toEqual(['a.txt', 'b.txt'])
    })
  }

  it('records answers that are no Response: an SDK stream of chunk objects (NDJSON), a whole response object, an error status', async () => {
    const chunks = scriptedBody('openai-chat', { text: 'Hi.' }, { format: 'ndjson' }).split('\n').filter(Boolean).map((line) => JSON.parse(line))
    async function* sdkStream() {
      yield* chunks
    }
    const whole = JSON.parse(scriptedBody('anthropic', { text: 'Whole.' }, { format: 'whole' }))
    const answers = [sdkStream(), whole, new Response('{"error":"overloaded"}', { status: 529, headers: { 'content-type': 'application/json' } })]
    const model = recordModel(() => answers.shift()!, dir)
    const request = (n: number) => ({ messages: [userMessage('openai-chat', `call ${n}`)], stream: true as const, stream_options: { include_usage: true as const } })

    const streamed = await model(request(1))
    expect(streamed.headers.get('content-type')).toBe('application/x-ndjson')
    expect((await streamed.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line))).toEqual(chunks)
    expect(await (await model(request(2))).json()).toEqual(whole)
    const failed = await model(request(3))
    expect([failed.status, await failed.text()]).toEqual([529, '{"error":"overloaded"}'])

    const replay = replayModel(dir)
    const { runtime } = runtimeWithRead()
    // (each run asks what was recorded, whatever its own request)
    const outcome = await runtime.run({ wire: 'openai-chat', model: () => replay(request(1)) })
    expect([outcome.stopReason, outcome.steps[0]!.text]).toEqual(['stop', 'Hi.'])
    const error = await runtime.run({ wire: 'anthropic', model: () => replay(request(3)) })
    expect(error.error).toBe('the model answered HTTP 529 (content type "application/json"): "{\\"error\\":\\"overloaded\\"}"')
  })

  it('keeps a body that is not UTF-8 exactly (as base64)', async () => {
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x41])
    const model = recordModel(() => bytes, dir)
    const request = { contents: [] }
    expect(new Uint8Array(await (await model(request)).arrayBuffer())).toEqual(bytes)
    expect(Object.values(recordings())[0]!.response).toEqual({ status: 200, bodyBase64: '//4AQQ==' })
    expect(new Uint8Array(await (await replayModel(dir)(request)).arrayBuffer())).toEqual(bytes)
  })
})

describe('requests are keyed by their canonical hash', () => {
  it('key order does not matter, anywhere in the request', async () => {
    const model = recordModel(scriptedModel('openai-chat', [{ text: 'yes' }]), dir)
    // (the file is written when the body has been read to its end)
    await (await model({ messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], stream: true, stream_options: { include_usage: true } })).text()
    const shuffled = { stream_options: { include_usage: true }, stream: true, tools: [{ function: { parameters: { type: 'object' }, name: 'f' }, type: 'function' }], messages: [{ content: 'hi', role: 'user' }] } as const
    expect(await (await replayModel(dir)(shuffled as never)).text()).toContain('"content":"yes"')
    // Array order does matter: it is the conversation's.
    expect(Object.keys(recordings())).toHaveLength(1)
  })

  it('ids the decoder made for calls sent without one (Gemini) are numbered, so a replayed run asks what the recorded one asked', async () => {
    const first = runtimeWithRead()
    const recorded = await first.runtime.run({ wire: 'gemini', model: recordModel(scriptedModel('gemini', SCRIPT), dir) })
    const ids = recorded.steps.flatMap((step) => step.calls.map((call) => call.id))
    expect(ids.every((id) => /^call_[0-9a-f]{24}$/.test(id))).toBe(true)
    const file = Object.values(recordings()).find((recording) => JSON.stringify(recording.request).includes('b.txt'))!
    expect(JSON.stringify(file.request)).toContain(ids[0]!)
    const replayed = await runtimeWithRead().runtime.run({ wire: 'gemini', model: replayModel(dir) })
    expect(outcomeOf(replayed)).toEqual(outcomeOf(recorded))
    expect(replayed.steps[0]!.calls[0]!.id).not.toBe(ids[0])
  })
})

describe('a request with no recording', () => {
  it('fails naming the nearest recording and the first path where they differ', async () => {
    const { runtime } = runtimeWithRead()
    await runtime.run({ wire: 'anthropic', model: recordModel(scriptedModel('anthropic', SCRIPT), dir), messages: [userMessage('anthropic', 'read them')] })
    const files = recordings()
    const firstFile = Object.keys(files).find((name) => files[name]!.request && (files[name]!.request as { messages: unknown[] }).messages.length === 1)!

    const outcome = await runtime.run({ wire: 'anthropic', model: replayModel(dir), messages: [userMessage('anthropic', 'read those')] })
    expect(outcome.stopReason).toBe('error')
    expect(outcome.error).toMatch(
      new RegExp(
        `^replayModel: no recording in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} of this request \\([0-9a-f]{64}\\.json\\): the nearest of 3 is ${firstFile} \\(\\d+% alike\\); they first differ at \\$\\.messages\\[0\\]\\.content: the request has "read those", the recording "read them"$`,
      ),
    )

    // Directly: a ToolwireError NOT_FOUND; a key the recording lacks reads `nothing`.
    const request = { ...(files[firstFile]!.request as object), temperature: 0 }
    const error = await replayModel(dir)(request as never).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ToolwireError)
    expect((error as ToolwireError).code).toBe('NOT_FOUND')
    expect((error as Error).message).toMatch(new RegExp(`the nearest of 3 is ${firstFile} \\(9\\d% alike\\); they first differ at \\$\\.temperature: the request has 0, the recording nothing$`))
  })

  it('in an empty or missing folder says there are none', async () => {
    for (const folder of [dir, join(dir, 'missing')]) {
      await expect(replayModel(folder)({ messages: [] } as never)).rejects.toThrow(
        new RegExp(`^replayModel: no recording in .* of this request \\([0-9a-f]{64}\\.json\\): the folder holds no recordings \\(record them with recordModel\\(model, dir\\)\\)$`),
      )
    }
  })

  it('misuse is named', () => {
    expect(() => recordModel('model' as never, dir)).toThrow('recordModel: model must be a function, got string model')
    expect(() => replayModel('' as never)).toThrow('replayModel: dir must be a non-empty path, got an empty string')
  })
})

/** What a body delivers: its text, then the message of the error it fails with (undefined: it ended). */
async function delivered(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null): Promise<{ text: string; error: string | undefined }> {
  const chunks: Uint8Array[] = []
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk)
  } catch (error) {
    return { text: Buffer.concat(chunks).toString('utf8'), error: (error as Error).message }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), error: undefined }
}

/** The one recording in `dir` (its file name and content). */
function onlyRecording(): [string, Recording] {
  const entries = Object.entries(recordings())
  expect(entries).toHaveLength(1)
  return entries[0]!
}

describe('a stream that breaks is recorded as it broke', () => {
  for (const wire of ['openai-chat', 'anthropic', 'gemini'] as const) {
    it(`${wire}: the run sees the same bytes and error with the recorder as without; the replay gives them again`, async () => {
      const [first] = scriptedBodies(wire, SCRIPT)
      const broken = () => faultyStream(first!, { cutAfterEvent: 3, cutAs: 'error' })
      const bare = await delivered(broken())
      expect(bare.error).toMatch(/^faultyStream: the connection was cut after \d+ bytes$/)

      // Directly: the recorder's body is the stream's, bytes then the same error.
      const request = { [wire === 'gemini' ? 'contents' : 'messages']: [userMessage(wire, 'read them')] }
      const recorder = recordModel(broken, dir)
      expect(await delivered((await recorder(request)).body)).toEqual(bare)
      const [, recording] = onlyRecording()
      expect(recording.response).toEqual({ status: 200, body: bare.text, error: bare.error })
      expect(await delivered((await replayModel(dir)(request as never)).body)).toEqual(bare)

      // Through run(): the outcome without recording, with it, and replayed is one.
      const without = await runtimeWithRead().runtime.run({ wire, model: broken, messages: [userMessage(wire, 'read them')] })
      expect([without.stopReason, without.error]).toEqual(['error', bare.error])
      rmSync(dir, { recursive: true, force: true })
      const recorded = await runtimeWithRead().runtime.run({ wire, model: recordModel(broken, dir), messages: [userMessage(wire, 'read them')] })
      expect(outcomeOf(recorded)).toEqual(outcomeOf(without))
      const replayed = await runtimeWithRead().runtime.run({ wire, model: replayModel(dir), messages: [userMessage(wire, 'read them')] })
      expect(outcomeOf(replayed)).toEqual(outcomeOf(without))
    })
  }

  it('a stream that fails before its first byte, and an SDK stream that throws, are recorded with no body and the error', async () => {
    const request = { messages: [userMessage('openai-chat', 'hi')] }
    await expect(delivered((await recordModel(() => faultyStream(scriptedBody('openai-chat', { text: 'x' }), { cutAtByte: 0, cutAs: 'error' }), dir)(request)).body)).resolves.toEqual({ text: '', error: 'faultyStream: the connection was cut after 0 bytes' })
    expect(onlyRecording()[1].response).toEqual({ status: 200, error: 'faultyStream: the connection was cut after 0 bytes' })
    const chunks = scriptedBody('openai-chat', { text: 'Hi.' }, { format: 'ndjson' }).split('\n').filter(Boolean).map((line) => JSON.parse(line))
    async function* sdkStream() {
      yield chunks[0]
      throw new Error('socket hang up')
    }
    const answer = await recordModel(sdkStream, dir)(request)
    expect(answer.headers.get('content-type')).toBe('application/x-ndjson')
    expect(await delivered(answer.body)).toEqual({ text: `${JSON.stringify(chunks[0])}\n`, error: 'socket hang up' })
    expect(await delivered((await replayModel(dir)(request as never)).body)).toEqual({ text: `${JSON.stringify(chunks[0])}\n`, error: 'socket hang up' })
  })

  it('a body the run gives up (an abort of a stalled stream) is recorded never', async () => {
    const controller = new AbortController()
    const stalled = () => faultyStream(scriptedBody('openai-chat', { text: 'hello there' }), { cutAfterEvent: 1, cutAs: 'stall' })
    setTimeout(() => controller.abort(), 50)
    const outcome = await runtimeWithRead().runtime.run({ wire: 'openai-chat', model: recordModel(stalled, dir), messages: [userMessage('openai-chat', 'hi')], signal: controller.signal })
    expect(outcome.stopReason).toBe('aborted')
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('statuses without a body (204, 205, 304)', () => {
  it('are recorded without one and replayed without one', async () => {
    for (const status of [204, 205, 304]) {
      rmSync(dir, { recursive: true, force: true })
      const request = { messages: [userMessage('openai-chat', `status ${status}`)] }
      const recorded = await recordModel(() => new Response(null, { status, headers: { 'content-type': 'text/plain' } }), dir)(request)
      expect([recorded.status, recorded.body]).toEqual([status, null])
      expect(onlyRecording()[1].response).toEqual({ status, contentType: 'text/plain' })
      const replayed = await replayModel(dir)(request as never)
      expect([replayed.status, replayed.body, replayed.headers.get('content-type')]).toEqual([status, null, 'text/plain'])
    }
  })

  it('a Response of a status no Response can be made with again is refused when recorded', async () => {
    await expect(recordModel(() => Response.error(), dir)({ messages: [] })).rejects.toThrow(
      'recordModel: the model answered a Response of status number 0, which no Response can be made with again (a fetch Response has a status from 200 to 599)',
    )
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('a recording is checked when read', () => {
  const request = { messages: [{ role: 'user', content: 'hi' }], stream: true }

  /** The recording file of `request`, made by recording a scripted answer. */
  async function fileOfRequest(): Promise<string> {
    await (await recordModel(scriptedModel('openai-chat', [{ text: 'yes' }]), dir)(request as never)).text()
    return join(dir, onlyRecording()[0])
  }

  it('a malformed one is a VALIDATION_ERROR naming the file, the key and the value', async () => {
    const file = await fileOfRequest()
    const written = JSON.parse(readFileSync(file, 'utf8')) as Recording
    const cases: [unknown, string][] = [
      [{ ...written, response: { status: 0, body: 'x' } }, 'response.status must be an HTTP status a fetch Response can have (a whole number from 200 to 599), got number 0'],
      [{ ...written, response: { status: 101 } }, 'response.status must be an HTTP status a fetch Response can have (a whole number from 200 to 599), got number 101'],
      [{ ...written, response: { status: '200' } }, 'response.status must be an HTTP status a fetch Response can have (a whole number from 200 to 599), got string 200'],
      [{ ...written, response: { status: 200, body: 5 } }, 'response.body must be a string, got number 5'],
      [{ ...written, response: { status: 200, contentType: 'text/event-stream\r\nx-evil: 1' } }, 'response.contentType must be a header value (no line break or NUL, no character past \\u00ff), got "text/event-stream\\r\\nx-evil: 1"'],
      [{ ...written, response: { status: 200, bodyBase64: 'not base64!' } }, 'response.bodyBase64 must be base64, got "not base64!"'],
      [{ ...written, response: { status: 200, body: 'a', bodyBase64: 'YQ==' } }, 'response holds both body and bodyBase64: keep the one the bytes are in'],
      [{ ...written, response: { status: 200, error: { message: 'x' } } }, 'response.error must be a string, got an object'],
      [{ ...written, response: { status: 205, body: 'x' } }, 'response.body must be left out with status 205, which has no body, got "x"'],
      [{ ...written, response: { status: 200, stauts: 200 } }, 'response has unknown key "stauts" (a response holds status, contentType, body, bodyBase64, error)'],
      [{ ...written, note: 'mine' }, 'has unknown key "note" (a recording holds key, request, response)'],
      [{ request: written.request }, 'response must be an object { status, contentType?, body? }, got undefined'],
      [{ response: written.response }, 'request must be the request body (an object), got undefined'],
      [null, 'must be an object { request, response }, got null'],
      [[], 'must be an object { request, response }, got an array'],
    ]
    for (const [content, fault] of cases) {
      writeFileSync(file, JSON.stringify(content))
      const error = await replayModel(dir)(request as never).catch((caught: unknown) => caught)
      expect(error, fault).toBeInstanceOf(ToolwireError)
      expect([(error as ToolwireError).code, (error as Error).message]).toEqual(['VALIDATION_ERROR', `replayModel: the recording ${file} ${fault}`])
    }
    writeFileSync(file, '{ "request": ')
    await expect(replayModel(dir)(request as never)).rejects.toThrow(`replayModel: the recording ${file} is not JSON: Unexpected end of JSON input`)
    rmSync(file)
    mkdirSync(file)
    await expect(replayModel(dir)(request as never)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: `replayModel: the recording ${file} is a directory, not a recording: refused` })
  })

  it('files of the folder that are no recordings are left out of the search for the nearest, and named', async () => {
    const file = await fileOfRequest()
    writeFileSync(join(dir, 'notes.json'), '{ this is not json')
    writeFileSync(join(dir, 'null.json'), 'null')
    mkdirSync(join(dir, 'sub.json'))
    symlinkSync(join(dir, 'loop.json'), join(dir, 'loop.json'))
    writeFileSync(join(dir, 'readme.txt'), 'not a .json file: not looked at')
    const error = (await replayModel(dir)({ messages: [{ role: 'user', content: 'bye' }], stream: true } as never).catch((caught: unknown) => caught)) as ToolwireError
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toMatch(
      new RegExp(
        `: the nearest of 1 is ${file.slice(dir.length + 1)} \\(\\d+% alike\\); they first differ at \\$\\.messages\\[0\\]\\.content: the request has "bye", the recording "hi" \\(4 files are no recording, left out: loop\\.json is a symlink: refused \\(a recording is never read through a link[^;]*; notes\\.json is not JSON: Expected property name or '\\}' in JSON at position 2[^;]*; null\\.json must be an object \\{ request, response \\}, got null; and 1 more\\)$`,
      ),
    )
    rmSync(file)
    await expect(replayModel(dir)({ messages: [] } as never)).rejects.toThrow(/: the folder holds no recordings \(record them with recordModel\(model, dir\)\) \(4 files are no recording, left out: .*; and 1 more\)$/)
    rmSync(join(dir, 'loop.json'))
    rmSync(join(dir, 'notes.json'))
    rmSync(join(dir, 'null.json'))
    await expect(replayModel(dir)({ messages: [] } as never)).rejects.toThrow(/\(a file is no recording, left out: sub\.json is a directory, not a recording: refused\)$/)
  })
})

describe('only call ids are numbered, and only where a request holds call ids', () => {
  const generated = (n: number) => `call_${n.toString(16).padStart(24, '0')}`

  it('text that has the form of a generated id is content: two requests differing in it are two recordings', async () => {
    const request = (order: string) => ({ messages: [{ role: 'user', content: 'status of order' }, { role: 'user', content: order }], stream: true })
    await (await recordModel(scriptedModel('openai-chat', [{ text: 'SHIPPED' }]), dir)(request('call_0123456789abcdef01234567') as never)).text()
    await expect(replayModel(dir)(request('call_fedcba9876543210fedcba98') as never)).rejects.toThrow(
      /they first differ at \$\.messages\[1\]\.content: the request has "call_fedcba9876543210fedcba98", the recording "call_0123456789abcdef01234567"$/,
    )
  })

  // Each wire's history with one call under `id` and its result under `result`, `text` the result.
  const histories: Record<string, (id: string, result: string, text: string) => object> = {
    'openai-chat': (id, result, text) => ({ messages: [{ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] }, { role: 'tool', tool_call_id: result, content: text }] }),
    'openai-responses': (id, result, text) => ({ input: [{ type: 'function_call', id: 'fc_1', call_id: id, name: 'read', arguments: '{"path":"a"}' }, { type: 'function_call_output', call_id: result, output: text }] }),
    anthropic: (id, result, text) => ({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read', input: { path: 'a' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: result, content: text }] }] }),
    gemini: (id, result, text) => ({ contents: [{ role: 'model', parts: [{ functionCall: { id, name: 'read', args: { path: 'a' } } }] }, { role: 'user', parts: [{ functionResponse: { id: result, name: 'read', response: { result: text } } }] }] }),
  }

  for (const [wire, history] of Object.entries(histories)) {
    it(`${wire}: a generated id at a call's id and its result's is numbered; the same form in a result's content is not`, async () => {
      await (await recordModel(() => 'answer', dir)(history(generated(1), generated(1), 'call_aaaaaaaaaaaaaaaaaaaaaaaa'))).text()
      const replay = replayModel(dir)
      // Other generated ids (as a replayed run makes): the recording.
      expect(await (await replay(history(generated(2), generated(2), 'call_aaaaaaaaaaaaaaaaaaaaaaaa') as never)).text()).toBe('answer')
      // Another text of that form: no recording, the difference in the content.
      await expect(replay(history(generated(2), generated(2), 'call_bbbbbbbbbbbbbbbbbbbbbbbb') as never)).rejects.toThrow(/they first differ at \S+: the request has "call_bbbbbbbbbbbbbbbbbbbbbbbb", the recording "call_aaaaaaaaaaaaaaaaaaaaaaaa"$/)
      // A result under another id than its call's: another request.
      await expect(replay(history(generated(2), generated(3), 'call_aaaaaaaaaaaaaaaaaaaaaaaa') as never)).rejects.toThrow(/the request has "call_generated_2", the recording "call_generated_1"$/)
    })
  }

  for (const wire of ['openai-chat', 'openai-responses', 'anthropic'] as const) {
    it(`${wire}: a run whose calls came without ids (the decoder made them) replays`, async () => {
      const bodies = scriptedBodies(wire, SCRIPT)
      let next = 0
      const idless = () => faultyStream(bodies[next++]!, { removeIds: true })
      const first = runtimeWithRead()
      const recorded = await first.runtime.run({ wire, model: recordModel(idless, dir), messages: [userMessage(wire, 'read them')] })
      expect(recorded.stopReason).toBe('stop')
      const ids = recorded.steps.flatMap((step) => step.calls.map((call) => call.id))
      expect(ids.every((id) => /^call_[0-9a-f]{24}$/.test(id))).toBe(true)
      const replayed = await runtimeWithRead().runtime.run({ wire, model: replayModel(dir), messages: [userMessage(wire, 'read them')] })
      expect(outcomeOf(replayed)).toEqual(outcomeOf(recorded))
      expect(replayed.steps[0]!.calls[0]!.id).not.toBe(ids[0])
    })
  }
})

describe('options.key: what the wrapped model adds to the request, in the hash', () => {
  /** A preset of `model` on a fetch answering each request with the next scripted body, and the bodies it sent. */
  function preset(model: string, turns: ScriptedTurn[]) {
    const bodies = scriptedBodies('openai-chat', turns)
    const sent: any[] = []
    const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push(JSON.parse(String(init?.body)))
      return new Response(bodies.shift()!, { headers: { 'content-type': 'text/event-stream' } })
    }
    return { model: models.openaiChat({ model, apiKey: 'sk-test', fetch }), sent }
  }

  it('a recording made with a key replays with that key only, the recording naming it', async () => {
    const gpt4o = preset('gpt-4o', [{ text: 'from gpt-4o' }])
    const messages = [userMessage('openai-chat', 'hi')]
    await runtimeWithRead().runtime.run({ wire: 'openai-chat', model: recordModel(gpt4o.model, dir, { key: { model: 'gpt-4o' } }), messages })
    expect(gpt4o.sent[0].model).toBe('gpt-4o')
    const [, recording] = onlyRecording()
    expect(recording.key).toEqual({ model: 'gpt-4o' })
    expect((recording.request as object as { model?: string }).model).toBeUndefined()

    const same = await runtimeWithRead().runtime.run({ wire: 'openai-chat', model: replayModel(dir, { key: { model: 'gpt-4o' } }), messages })
    expect(same.steps.map((step) => step.text)).toEqual(['from gpt-4o'])
    // Another model: no recording, the key named as the difference.
    const other = await runtimeWithRead().runtime.run({ wire: 'openai-chat', model: replayModel(dir, { key: { model: 'gpt-4o-mini' } }), messages })
    expect(other.error).toMatch(/: the nearest of 1 is [0-9a-f]{64}\.json \(100% alike\); it was recorded with key \{"model":"gpt-4o"\}, this replay has \{"model":"gpt-4o-mini"\}$/)
    const none = await runtimeWithRead().runtime.run({ wire: 'openai-chat', model: replayModel(dir), messages })
    expect(none.error).toMatch(/; it was recorded with key \{"model":"gpt-4o"\}, this replay has nothing$/)
    // Key order in the key does not matter.
    await (await recordModel(() => 'x', dir, { key: { a: 1, b: 2 } })({ messages: [] })).text()
    expect(await (await replayModel(dir, { key: { b: 2, a: 1 } })({ messages: [] } as never)).text()).toBe('x')
  })

  it('misuse is named', () => {
    expect(() => recordModel(() => 'x', dir, { kye: 'gpt-4o' } as never)).toThrow(/^recordModel: options has unknown key "kye" .*did you mean "key"\?$/)
    expect(() => replayModel(dir, { key: () => 1 })).toThrow('replayModel: options.key has no JSON form (got function')
    expect(() => replayModel(dir, 'gpt-4o' as never)).toThrow('replayModel: options must be an object, got string gpt-4o')
  })
})

// Attack review 22, k1 to k3: recordings were written in place (writeFile: a symlink at the name
// had its target overwritten, two recorders mixed their bytes, a replay read half a file), read
// through symlinks (the target's first bytes quoted), and one deeply nested recording in the
// folder turned every miss into a RangeError.
describe('recording files are written whole and read only as the folder holds them', () => {
  const request = { messages: [{ role: 'user', content: 'hi' }], stream: true }
  const other = { messages: [{ role: 'user', content: 'bye' }], stream: true }

  it('a symlink at a recording\'s name is replaced by the recording, its target never written; replay refuses a link by name, quoting nothing of its target', async () => {
    const victim = join(dir, '..', `${dir.split('/').pop()}-victim.txt`)
    writeFileSync(victim, 'export PATH=/usr/bin  # VICTIM\n')
    try {
      await (await recordModel(() => 'data: first\n\n', dir)(request)).text()
      const [name] = onlyRecording()
      const file = join(dir, name)
      rmSync(file)
      symlinkSync(victim, file)
      // replay: refused by name, nothing of the target read
      const refused = (await replayModel(dir)(request as never).catch((caught: unknown) => caught)) as ToolwireError
      expect(refused.code).toBe('PRECONDITION_FAILED')
      expect(refused.message).toBe(`replayModel: the recording ${file} is a symlink: refused (a recording is never read through a link: what it points to is no recording of the folder's, and nothing of it is read)`)
      // a miss names it among the files left out, quoting nothing of it
      const missed = (await replayModel(dir)(other as never).catch((caught: unknown) => caught)) as ToolwireError
      expect(missed.code).toBe('NOT_FOUND')
      expect(missed.message).toContain(`(a file is no recording, left out: ${name} is a symlink: refused`)
      expect(`${refused.message}${missed.message}`).not.toContain('VICTIM')
      // recording again: the link replaced by a regular file, the target untouched
      await (await recordModel(() => 'data: recorded\n\n', dir)(request)).text()
      expect(readFileSync(victim, 'utf8')).toBe('export PATH=/usr/bin  # VICTIM\n')
      expect(lstatSync(file).isFile()).toBe(true)
      expect(await (await replayModel(dir)(request as never)).text()).toBe('data: recorded\n\n')
      expect(readdirSync(dir)).toEqual([name])
    } finally {
      rmSync(victim, { force: true })
    }
  })

  it('a recording is made as a new file renamed over its name: no temporary file is left, its mode is as the umask leaves 644', async () => {
    const umask = process.umask(0o022)
    try {
      await (await recordModel(() => 'data: x\n\n', dir)(request)).text()
    } finally {
      process.umask(umask)
    }
    const [name] = onlyRecording()
    expect(readdirSync(dir)).toEqual([name])
    expect(statSync(join(dir, name)).mode & 0o777).toBe(0o644)
  })

  it('recorders of one request at once leave one whole recording, and a replay meanwhile reads a whole one', async () => {
    const bodies = [0, 1, 2, 3].map((i) => `data: ${String(i).repeat(100_000 * (i + 1))}\n\n`)
    for (let round = 0; round < 5; round++) {
      const replay = replayModel(dir)
      const replays = [0, 1, 2, 3, 4, 5].map(async () => {
        await new Promise((resolve) => setImmediate(resolve))
        // (none yet, or one of the bodies whole: never a VALIDATION_ERROR of half a file)
        return replay(request as never).then(
          (response) => response.text(),
          (error: ToolwireError) => error.code,
        )
      })
      const recorded = bodies.map(async (body) => (await recordModel(() => body, dir)(request)).text())
      expect(await Promise.all(recorded)).toEqual(bodies)
      for (const seen of await Promise.all(replays)) expect(seen === 'NOT_FOUND' || bodies.includes(seen), String(seen).slice(0, 40)).toBe(true)
      const [name, recording] = onlyRecording()
      expect(readdirSync(dir)).toEqual([name])
      expect(bodies).toContain(recording.response.body)
    }
  })

  it('a recording nested too deeply to compare is named as a file left out, and a miss is still NOT_FOUND naming the nearest good one', async () => {
    await (await recordModel(() => 'data: x\n\n', dir)(request)).text()
    const [good] = onlyRecording()
    const depth = 20_000
    writeFileSync(join(dir, 'deep.json'), `{"request":{"messages":${'['.repeat(depth)}${']'.repeat(depth)}},"response":{"status":200}}`)
    const error = (await replayModel(dir)(other as never).catch((caught: unknown) => caught)) as ToolwireError
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain(`: the nearest of 1 is ${good} (`)
    expect(error.message).toContain('they first differ at $.messages[0].content: the request has "bye", the recording "hi"')
    expect(error.message).toMatch(/\(a file is no recording, left out: deep\.json (cannot be compared with the request|cannot be checked|is not JSON): [^)]*Maximum call stack size exceeded\)$/)
    // the deep one alone: NOT_FOUND, naming it
    rmSync(join(dir, good))
    await expect(replayModel(dir)(other as never)).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/: the folder holds no recording it can compare with it \(a file is no recording, left out: deep\.json /) })
  })
})
