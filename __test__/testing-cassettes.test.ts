// toolwire/testing's cassettes: a scripted run recorded and replayed by a fresh runtime to the same
// outcome on every wire, requests keyed by their canonical hash whatever their key order, and a
// request with no recording failing with the nearest recording and the first path that differs.

import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { ToolwireError } from '../dist/index.js'
import type { RunOutcome, Wire } from '../dist/index.js'
import { recordModel, replayModel, scriptedBody, scriptedModel } from '../dist/testing/index.js'
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
    await model({ messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }], stream: true, stream_options: { include_usage: true } })
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
