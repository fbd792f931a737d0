// The `toolwire` CLI, run as users run it: the real bin spawned with node, on the recorded
// provider streams in ../shared/fixtures (read in place), on inputs written here, and on audit
// runs written by a real ToolRuntime. The HTML timeline is rendered in a real headless Chromium.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { ToolRuntime, auditRunDir, normalizeSchema } from '../dist/index.js'
import { findBrowser } from '../scripts/find-browser.mjs'
import { FIXTURES, HAVE_FIXTURES, itWithFixtures } from './fixtures.js'
import { renderTimeline, timelineRows } from '../dist/timeline.js'
import { main } from '../dist/cli/main.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin', 'toolwire.js')
const work = mkdtempSync(join(tmpdir(), 'toolwire-cli-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function cli(...args: string[]): Run {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: work })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** The command's --json output (stdout must be one JSON document). */
function cliJson(...args: string[]): { code: number | null; json: any; stderr: string } {
  const run = cli(...args, '--json')
  return { code: run.code, json: JSON.parse(run.stdout), stderr: run.stderr }
}

/** The Chromium the timeline test drives (CHROME_PATH, /usr/bin/chromium, or one on PATH). */
const browser = findBrowser()
const noBrowser = `no Chromium found: set CHROME_PATH${process.env.CHROME_PATH ? ` (now ${process.env.CHROME_PATH}, not an executable file)` : ''}, or install chromium (/usr/bin/chromium, or chromium, chromium-browser or google-chrome on PATH)`
const skipTimeline = browser === undefined && !process.env.CI
if (skipTimeline) console.warn(`cli.test.ts: skipping the HTML timeline test in Chromium: ${noBrowser}`)

const fixture = (path: string) => join(FIXTURES, path)
const expected = HAVE_FIXTURES ? JSON.parse(readFileSync(fixture('expected.json'), 'utf8')) : {}

function write(name: string, text: string): string {
  const path = join(work, name)
  writeFileSync(path, text)
  return path
}

/** An SSE body of Chat Completions chunks, ending with [DONE] when `done`. */
function chatSse(chunks: object[], done = true): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '')
}
const chunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
})
const toolCalls = (...calls: object[]) => chunk({ tool_calls: calls })

/** An error is one line on stderr, never a stack trace. */
function expectOneLineError(run: Run, pattern: RegExp) {
  const lines = run.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^toolwire: /)
  expect(lines[0]).toMatch(pattern)
  expect(run.stderr).not.toMatch(/\n\s+at /)
}

describe('toolwire replay', () => {
  itWithFixtures('shows a call cut off by max_tokens as incomplete, says why, and exits 1', () => {
    const run = cli('replay', fixture('anthropic/incomplete_partial_json_response.txt'), '--wire', 'anthropic')
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('[INCOMPLETE] #0 make_file  id toolu_01EKqbqmZrGRXy18eN7m9kvY')
    expect(run.stdout).toContain('INCOMPLETE_ARGUMENTS')
    expect(run.stdout).toContain('stop length (provider: max_tokens)')
    expect(run.stdout).toMatch(/\[error\] block-not-closed: tool_use block never closed/)
    expect(run.stdout).toMatch(/\[error\] output-limit-cut/)
    expect(run.stdout).toMatch(/1 call, 1 incomplete, 0 errors: problems found/)

    const { code, json } = cliJson('replay', fixture('anthropic/incomplete_partial_json_response.txt'), '--wire', 'anthropic')
    expect(code).toBe(1)
    expect(json.ok).toBe(false)
    expect(json.responses).toHaveLength(1)
    const [response] = json.responses
    expect(response.rawStopReason).toBe('max_tokens')
    expect(response.toolCalls).toHaveLength(1)
    expect(response.toolCalls[0]).toMatchObject({ name: 'make_file', complete: false, error: { code: 'INCOMPLETE_ARGUMENTS' } })
    expect(response.quirks.map((q: any) => q.id)).toEqual(
      expect.arrayContaining(['json-padding', 'block-not-closed', 'cut-off-arguments', 'output-limit-cut']),
    )
  })

  itWithFixtures('decodes recorded parallel calls exactly as expected.json has them, and exits 0', () => {
    const file = 'openai-chat/f82268f2fefd.sse'
    const { code, json } = cliJson('replay', fixture(file), '--wire', 'openai-chat')
    expect(code).toBe(0)
    expect(json.ok).toBe(true)
    const want = expected[file].streams[0]
    expect(json.responses[0].toolCalls.map((c: any) => ({ id: c.id, name: c.name, arguments: c.arguments, complete: c.complete }))).toEqual(
      want.tool_calls.map((c: any) => ({ ...c, complete: true })),
    )
    expect(json.responses[0].rawStopReason).toBe('tool_calls')
    expect(json.responses[0].errors).toEqual([])
    expect(json.responses[0].quirks).toEqual([])
    const text = cli('replay', fixture(file), '--wire', 'openai-chat').stdout
    expect(text).toContain('[complete] #0 GetWeatherArgs  id call_JMW1whyEaYG438VE1OIflxA2')
    expect(text).toContain('[complete] #1 get_stock_price  id call_DNYTawLBoN8fj3KN6qU9N1Ou')
    expect(text).toContain('2 calls, 0 incomplete, 0 errors: ok')
  })

  itWithFixtures('splits a capture of several responses and decodes each on its own', () => {
    for (const file of ['openai-responses/openai-reasoning-encrypted-content.1.chunks.txt', 'anthropic/anthropic-programmatic-tool-calling.1.chunks.txt']) {
      const wire = file.startsWith('anthropic') ? 'anthropic' : 'openai-responses'
      const { code, json } = cliJson('replay', fixture(file), '--wire', wire)
      expect(code, file).toBe(0)
      const parts = expected[file].responses ?? expected[file].messages
      expect(json.responses, file).toHaveLength(parts.length)
      json.responses.forEach((r: any) => expect(r.errors, file).toEqual([]))
    }
    const { json } = cliJson('replay', fixture('openai-responses/openai-reasoning-encrypted-content.1.chunks.txt'), '--wire', 'openai-responses')
    const want = expected['openai-responses/openai-reasoning-encrypted-content.1.chunks.txt'].responses
    expect(json.responses.map((r: any) => r.toolCalls.map((c: any) => [c.id, c.name]))).toEqual(
      want.map((r: any) => r.tool_calls.map((c: any) => [c.call_id, c.name])),
    )
  })

  itWithFixtures('names a spliced stream as an error and a duplicate message_start as a handled quirk', () => {
    const spliced = cliJson('replay', fixture('anthropic/spliced-message-start.chunks.txt'), '--wire', 'anthropic')
    expect(spliced.code).toBe(1)
    const [response] = spliced.json.responses
    expect(response.errors.map((e: any) => e.kind)).toEqual(['spliced-stream'])
    expect(response.quirks.find((q: any) => q.id === 'spliced-stream')).toMatchObject({ severity: 'error' })
    // The first message's tool_use block was never closed: the decoder reports it (a second
    // message reusing the block's index does not close it).
    expect(response.quirks.map((q: any) => q.id)).toEqual(['spliced-stream', 'block-not-closed', 'cut-off-arguments'])
    expect(response.toolCalls[0]).toMatchObject({ id: 'toolu_first', complete: false })

    const duplicate = cliJson('replay', fixture('anthropic/duplicate-message-start.chunks.txt'), '--wire', 'anthropic')
    expect(duplicate.code).toBe(0)
    expect(duplicate.json.responses).toHaveLength(1)
    expect(duplicate.json.responses[0].errors).toEqual([])
    expect(duplicate.json.responses[0].quirks).toEqual([expect.objectContaining({ id: 'duplicate-message-start', severity: 'warning' })])
  })

  itWithFixtures('names the provider quirks of the recordings', () => {
    const cases: [string, string, string[]][] = [
      ['openai-compatible-chat/alibaba-tool-call.chunks.txt', 'openai-chat', ['empty-string-fields']],
      ['openai-compatible-chat/anthropic-fallback-tool-call.sse', 'openai-chat', ['index-offset']],
      ['openai-compatible-chat/mistral-tool-call.chunks.txt', 'mistral', ['missing-index']],
      ['openai-responses/github-copilot-id-rotation.1.chunks.txt', 'openai-responses', ['item-id-rotation']],
      ['openai-responses/lmstudio-tool-call.1.chunks.txt', 'openai-responses', ['no-argument-deltas']],
      ['openai-responses/pydantic-bedrock-mantle-reused-tool-call-ids.0.sse', 'openai-responses', ['sse-data-before-event']],
      ['anthropic/llm-anthropic-test-tools.0.sse', 'anthropic', ['json-padding', 'empty-tool-input']],
      ['gemini/google-stream-no-args-tool-call.chunks.txt', 'gemini', ['partial-args-streaming', 'thought-signature-first-only', 'missing-id']],
      ['gemini/google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt', 'gemini', ['partial-args-streaming', 'missing-terminal-function-call', 'missing-id']],
      ['gemini/llm-gemini-test-tools.0.json-array-stream', 'gemini', ['json-array-stream', 'missing-id']],
    ]
    for (const [file, wire, quirks] of cases) {
      const { code, json } = cliJson('replay', fixture(file), '--wire', wire)
      expect(code, file).toBe(0)
      expect(json.responses.flatMap((r: any) => r.quirks.map((q: any) => q.id)), file).toEqual(quirks)
      expect(json.responses.every((r: any) => r.toolCalls.every((c: any) => c.complete)), file).toBe(true)
    }
    const mistral = cli('replay', fixture('openai-compatible-chat/mistral-tool-call.chunks.txt'), '--wire', 'mistral')
    expect(mistral.stdout).toMatch(/\[warning\] missing-index: tool call without `index`/)
  })

  it('names each provider quirk of a small stream written here (no recording needed)', () => {
    const sse = (events: object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')
    const named = (events: object[]) => events.map((e: any) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')
    const call = { index: 0, id: 'call_q', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }
    const fc = { type: 'function_call', id: 'fc_1', call_id: 'call_r', name: 'read', arguments: '{"path":"a"}' }
    const geminiCall = (fc: object, signature?: string) => ({ functionCall: fc, ...(signature ? { thoughtSignature: signature } : {}) })
    const geminiChunk = (parts: object[], finish?: string) => ({ candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}) }] })
    // [where the quirk was seen (QUIRKS.md), wire, body, the quirks replay names]
    const cases: [string, string, string, string[]][] = [
      [
        'QUIRK 4: Qwen/DashScope send id "" in continuation fragments',
        'openai-chat',
        chatSse([toolCalls({ ...call, function: { name: 'read', arguments: '{"path":' } }), toolCalls({ index: 0, id: '', function: { arguments: '"a"}' } }), chunk({}, 'tool_calls')]),
        ['empty-string-fields'],
      ],
      ['QUIRK 3: Anthropic\'s OpenAI-compatible endpoint starts at index 1', 'openai-chat', chatSse([toolCalls({ ...call, index: 1 }), chunk({}, 'tool_calls')]), ['index-offset']],
      ['QUIRK 2: Mistral sends calls without index', 'mistral', chatSse([toolCalls({ id: 'abcdefghi', function: { name: 'read', arguments: '{}' } }), chunk({}, 'tool_calls')]), ['missing-index']],
      [
        'QUIRK 18: GitHub Copilot rotates item_id on every event',
        'openai-responses',
        named([
          { type: 'response.created', response: { id: 'r' } },
          { type: 'response.output_item.added', output_index: 0, item: { ...fc, arguments: '' } },
          { type: 'response.function_call_arguments.delta', output_index: 0, item_id: 'fc_2', delta: '{"path":"a"}' },
          { type: 'response.output_item.done', output_index: 0, item: { ...fc, id: 'fc_3' } },
          { type: 'response.completed', response: { id: 'r', status: 'completed' } },
        ]),
        ['item-id-rotation'],
      ],
      [
        'QUIRK 19: LM Studio sends no argument deltas, only the .done events',
        'openai-responses',
        named([
          { type: 'response.created', response: { id: 'r' } },
          { type: 'response.output_item.added', output_index: 0, item: { ...fc, arguments: '' } },
          { type: 'response.function_call_arguments.done', output_index: 0, item_id: 'fc_1', arguments: '{"path":"a"}' },
          { type: 'response.output_item.done', output_index: 0, item: fc },
          { type: 'response.completed', response: { id: 'r', status: 'completed' } },
        ]),
        ['no-argument-deltas'],
      ],
      [
        'AWS Bedrock "mantle" writes data: before event: (fixture pydantic-bedrock-mantle-reused-tool-call-ids)',
        'openai-responses',
        [
          { type: 'response.created', response: { id: 'r' } },
          { type: 'response.output_item.done', output_index: 0, item: fc },
          { type: 'response.completed', response: { id: 'r', status: 'completed' } },
        ]
          .map((e) => `data: ${JSON.stringify(e)}\nevent: ${e.type}\n\n`)
          .join(''),
        ['sse-data-before-event'],
      ],
      [
        'QUIRK 20: an empty tool input streamed as only partial_json "", JSON padded before its brace',
        'anthropic',
        [
          { type: 'message_start', message: { id: 'm', content: [] } },
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'list', input: {} } },
          { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
          { type: 'message_stop' },
        ]
          .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e).replace(/}$/, '   }')}\n\n`)
          .join(''),
        ['json-padding', 'empty-tool-input'],
      ],
      [
        'QUIRKS 26, 27: Gemini 3 streams partialArgs; only the first parallel call is signed; no ids',
        'gemini',
        sse([
          geminiChunk([geminiCall({ name: 'read', willContinue: true }, 'SIG')]),
          geminiChunk([geminiCall({ partialArgs: [{ jsonPath: '$.path', stringValue: 'a' }] })]),
          geminiChunk([geminiCall({})]),
          geminiChunk([geminiCall({ name: 'list', args: {} })], 'STOP'),
        ]),
        ['partial-args-streaming', 'thought-signature-first-only', 'missing-id'],
      ],
      [
        'QUIRK 27: a streamed call never closed by an empty functionCall',
        'gemini',
        sse([
          geminiChunk([geminiCall({ name: 'read', willContinue: true })]),
          geminiChunk([geminiCall({ partialArgs: [{ jsonPath: '$.path', stringValue: 'a' }] })], 'STOP'),
        ]),
        ['partial-args-streaming', 'missing-terminal-function-call', 'missing-id'],
      ],
      [
        'Gemini without ?alt=sse streams one JSON array (fixture llm-gemini-test-tools)',
        'gemini',
        `[${JSON.stringify(geminiChunk([geminiCall({ name: 'list', args: {} })], 'STOP'), null, 2)}\n]`,
        ['json-array-stream', 'missing-id'],
      ],
      [
        'A server that ignores stream: true answers one chat.completion (issue 19)',
        'openai-chat',
        JSON.stringify({ id: 'c', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', tool_calls: [call] }, finish_reason: 'tool_calls' }] }),
        ['whole-response'],
      ],
    ]
    cases.forEach(([seen, wire, body, quirks], i) => {
      const { code, json } = cliJson('replay', write(`quirk-${i}.txt`, body), '--wire', wire)
      expect(code, seen).toBe(0)
      expect(json.responses.flatMap((r: any) => r.quirks.map((q: any) => q.id)), seen).toEqual(quirks)
      expect(json.responses.flatMap((r: any) => r.toolCalls).length, seen).toBeGreaterThan(0)
      expect(json.responses.every((r: any) => r.toolCalls.every((c: any) => c.complete)), seen).toBe(true)
    })
  })

  it("names quirks from the decoder's typed repairs, reading no provider field itself", () => {
    // Each provider's wire is known in the engine only: the CLI presents turn.repairs.
    const source = readFileSync(join(ROOT, 'ts', 'cli', 'quirks.ts'), 'utf8')
    expect(source).not.toMatch(/\.(choices|delta|tool_calls|function|finish_reason|candidates|functionCall|partialArgs|content_block|partial_json|item_id|output_index|call_id|prompt_filter_results)\b/)
    const body = chatSse([
      toolCalls({ id: 'call_a', type: 'function', function: { name: 'get_wea', arguments: '' } }),
      toolCalls({ function: { name: 'ther', arguments: '{}' } }),
      chunk({}, 'tool_calls'),
    ])
    const { json } = cliJson('replay', write('split-name.sse', body), '--wire', 'mistral')
    expect(json.responses[0].toolCalls[0]).toMatchObject({ name: 'get_weather', complete: true })
    expect(json.responses[0].quirks).toEqual([
      expect.objectContaining({ id: 'missing-index', severity: 'warning' }),
      expect.objectContaining({ id: 'name-split', severity: 'warning', detail: '"get_wea" + "ther"' }),
    ])
  })

  it('tells the quirks of streams written here: a reused index, cumulative arguments, finish_reason stop', () => {
    const reused = write(
      'ollama.sse',
      chatSse([
        toolCalls({ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }),
        toolCalls({ index: 0, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } }),
        chunk({}, 'tool_calls'),
      ]),
    )
    let out = cliJson('replay', reused, '--wire', 'openai-chat')
    expect(out.code).toBe(0)
    expect(out.json.responses[0].toolCalls.map((c: any) => [c.id, c.arguments])).toEqual([
      ['call_a', '{"path":"a"}'],
      ['call_b', '{"path":"b"}'],
    ])
    expect(out.json.responses[0].quirks.map((q: any) => q.id)).toEqual(['index-reused'])

    const cumulative = write(
      'deepseek.sse',
      chatSse([
        toolCalls({ index: 0, id: 'call_c', type: 'function', function: { name: 'search', arguments: '{"query":' } }),
        toolCalls({ index: 0, function: { arguments: '{"query":"tool' } }),
        toolCalls({ index: 0, function: { arguments: '{"query":"toolwire"}' } }),
        chunk({}, 'stop'),
      ]),
    )
    out = cliJson('replay', cumulative, '--wire', 'openai-chat')
    expect(out.code).toBe(0)
    expect(out.json.responses[0].toolCalls[0]).toMatchObject({ arguments: '{"query":"toolwire"}', complete: true })
    expect(out.json.responses[0].quirks.map((q: any) => q.id)).toEqual(['cumulative-arguments', 'finish-stop-with-calls'])
    expect(out.json.responses[0].stopReason).toBe('toolUse')
  })

  it('keeps a relay that changes the chunk id, usage trailer included, as one response', () => {
    // The relay of issue 19: the role chunk under one id, every later chunk under another, and
    // the usage trailer under a third.
    const relayed = write(
      'relay.sse',
      chatSse([
        { ...chunk({ role: 'assistant', content: '' }), id: 'chatcmpl-A' },
        { ...toolCalls({ index: 0, id: 'call_r', type: 'function', function: { name: 'read', arguments: '{}' } }), id: 'gen-B' },
        { ...chunk({}, 'tool_calls'), id: 'gen-B' },
        { id: 'gen-C', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 4, completion_tokens: 2 } },
      ]),
    )
    const { code, json } = cliJson('replay', relayed, '--wire', 'openai-chat')
    expect(code).toBe(0)
    expect(json.responses).toHaveLength(1)
    expect(json.responses[0].errors).toEqual([])
    expect(json.responses[0].usage).toEqual({ inputTokens: 4, outputTokens: 2 })
  })

  it('exits 1 on a stream cut before its end, naming the cut-off call', () => {
    const cut = write(
      'cut.sse',
      chatSse([toolCalls({ index: 0, id: 'call_x', type: 'function', function: { name: 'delete_files', arguments: '{"glob":"*.tmp"' } })], false),
    )
    const run = cli('replay', cut, '--wire', 'openai-chat')
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('[INCOMPLETE] #0 delete_files  id call_x')
    const { json } = cliJson('replay', cut, '--wire', 'openai-chat')
    const [response] = json.responses
    expect(response.toolCalls[0]).toMatchObject({ complete: false, error: { code: 'INCOMPLETE_ARGUMENTS' } })
    expect(response.errors.map((e: any) => e.kind)).toEqual(['stream-truncated'])
    // (the decoder's stream-truncated error says the finish_reason never came)
    expect(response.quirks.map((q: any) => q.id)).toEqual(['cut-off-arguments', 'stream-truncated'])
  })

  it('decodes a whole chat.completion (a server that ignored stream: true) to its calls, and names a body that is not the wire', () => {
    const whole = write(
      'completion.json',
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] },
            finish_reason: 'tool_calls',
          },
        ],
      }),
    )
    let out = cliJson('replay', whole, '--wire', 'openai-chat')
    expect(out.code).toBe(0)
    expect(out.json.responses[0].toolCalls).toEqual([expect.objectContaining({ id: 'call_w', name: 'read', arguments: '{"path":"a"}', complete: true })])
    expect(out.json.responses[0].stopReason).toBe('toolUse')

    const lost = write(
      'lost.json',
      JSON.stringify({ id: 'c', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'tool_calls' }] }),
    )
    out = cliJson('replay', lost, '--wire', 'openai-chat')
    expect(out.code).toBe(1)
    expect(out.json.responses[0].errors.map((e: any) => e.kind)).toEqual(['tool-calls-lost'])

    const page = write('login.html', '<!DOCTYPE html>\n<html><title>Sign in</title></html>\n')
    out = cliJson('replay', page, '--wire', 'anthropic')
    expect(out.code).toBe(1)
    expect(out.json.responses[0].errors).toEqual([
      expect.objectContaining({ kind: 'not-the-wire', message: expect.stringContaining('it begins with "<!DOCTYPE html>\\n<html><title>Sign in') }),
    ])
  })

  itWithFixtures('reports progress on stderr with --progress, stdout staying one JSON document', () => {
    const run = cli('replay', fixture('openai-responses/azure-reasoning-encrypted-content.1.chunks.txt'), '--wire', 'openai-responses', '--json', '--progress')
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).responses).toHaveLength(4)
    const lines = run.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^toolwire: read \d+ bytes from /)
    expect(lines.slice(1)).toEqual([1, 2, 3, 4].map((i) => expect.stringMatching(new RegExp(`^toolwire: decoding response ${i}/4 \\(\\d+ bytes\\)$`))))
    // Not a terminal and no --progress: nothing on stderr.
    expect(cli('replay', fixture('openai-chat/2018feb66ae1.sse'), '--wire', 'openai-chat').stderr).toBe('')
  })

  it('gives usage errors exit 2 and unreadable input exit 1, each one line on stderr', () => {
    const body = write('any.sse', chatSse([chunk({ content: 'hi' }, 'stop')]))
    let run = cli('replay', body)
    expect(run.code).toBe(2)
    expectOneLineError(run, /--wire is required/)
    run = cli('replay', body, '--wire', 'openai')
    expect(run.code).toBe(2)
    expectOneLineError(
      run,
      /replay: unknown wire "openai": expected one of "openai-chat", "openai-responses", "anthropic", "gemini", "mistral"; did you mean "openai-chat"\? \(see toolwire --help\)$/,
    )
    run = cli('replay', body, '--wire', 'anthropic', '--verbose')
    expect(run.code).toBe(2)
    expectOneLineError(run, /unknown option --verbose/)
    run = cli('frobnicate')
    expect(run.code).toBe(2)
    expectOneLineError(run, /unknown command "frobnicate"/)
    run = cli()
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('Usage: toolwire <command>')
    run = cli('--help')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Exit codes: 0 done')
    // A command's --help is that command's (issue 19 round 5, new-user review 10).
    for (const [command, own, other] of [
      ['replay', '--wire <wire>', 'schema <file>'],
      ['schema', '--target <t>', 'audit <dir>'],
      ['audit', '[--html <out>]', 'replay <file>'],
    ]) {
      run = cli(command, '--help')
      expect(run.code, command).toBe(0)
      expect(run.stdout, command).toContain(`Usage: toolwire ${command}`)
      expect(run.stdout, command).toContain(own)
      expect(run.stdout, command).toContain('Exit codes: 0 done')
      expect(run.stdout, command).not.toContain(other)
    }

    run = cli('replay', join(work, 'missing.sse'), '--wire', 'anthropic')
    expect(run.code).toBe(1)
    expectOneLineError(run, /cannot read .*missing\.sse: no such file/)
    run = cli('replay', write('empty.sse', '\n\n'), '--wire', 'anthropic')
    expect(run.code).toBe(1)
    expectOneLineError(run, /is empty: nothing to decode/)
    const json = cliJson('replay', join(work, 'missing.sse'), '--wire', 'anthropic')
    expect(json.code).toBe(1)
    expect(json.json).toEqual({ ok: false, error: { kind: 'input', message: expect.stringContaining('no such file'), exitCode: 1 } })
    const usage = cliJson('replay', 'x.sse')
    expect(usage.json.error).toMatchObject({ kind: 'usage', exitCode: 2 })
  })
})

describe('toolwire schema', () => {
  const tool = {
    type: 'function',
    function: {
      name: 'lookup',
      parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        properties: {
          email: { type: ['string', 'null'], format: 'email' },
          kind: { const: 'user' },
        },
        required: ['email'],
      },
    },
  }

  it('prints the normalized schema and what was removed, from a tool definition', () => {
    const file = write('tool.json', JSON.stringify(tool))
    const { code, json } = cliJson('schema', file, '--target', 'gemini')
    expect(code).toBe(0)
    const direct = normalizeSchema(tool.function.parameters, 'gemini')
    expect(json).toMatchObject({ target: 'gemini', from: '/function/parameters', schema: direct.schema, removed: direct.removed, warnings: direct.warnings })
    expect(json.removed.map((r: any) => r.keyword)).toEqual(expect.arrayContaining(['additionalProperties', '$schema', 'format']))
    expect(JSON.stringify(json.schema)).not.toContain('additionalProperties')

    const run = cli('schema', file, '--target', 'gemini')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('(schema at /function/parameters): normalized for gemini')
    expect(run.stdout).toContain(`Removed (${direct.removed.length}):`)
    expect(run.stdout).toMatch(/^ {2}\/additionalProperties {2}additionalProperties$/m)
    expect(run.stdout).toMatch(/^ {2}\/properties\/email\/format {2}format$/m)
  })

  it('takes a bare JSON Schema and the strict OpenAI form', () => {
    const file = write('schema.json', JSON.stringify(tool.function.parameters))
    const { code, json } = cliJson('schema', file, '--target', 'openai-strict')
    expect(code).toBe(0)
    const direct = normalizeSchema(tool.function.parameters, 'openai-strict')
    expect(json.from).toBeNull()
    expect(json.schema).toEqual(direct.schema)
    expect(json.schema.required).toEqual(['email', 'kind'])
  })

  it('exits 1 on input that is not JSON or cannot be normalized, 2 on a bad target', () => {
    let run = cli('schema', write('bad.json', '{"type": "object",'), '--target', 'anthropic')
    expect(run.code).toBe(1)
    expectOneLineError(run, /bad\.json is not JSON/)
    run = cli('schema', write('ref.json', JSON.stringify({ type: 'object', properties: { a: { $ref: '#/nowhere' } } })), '--target', 'openai-strict')
    expect(run.code).toBe(1)
    expectOneLineError(run, /cannot be normalized for openai-strict: .*#\/nowhere/)
    run = cli('schema', write('ok.json', '{"type":"object"}'), '--target', 'claude')
    expect(run.code).toBe(2)
    expectOneLineError(run, /unknown target "claude"/)
    run = cli('schema', write('ok.json', '{"type":"object"}'))
    expect(run.code).toBe(2)
    expectOneLineError(run, /--target is required/)
  })
})

describe('toolwire audit', () => {
  const auditRoot = join(work, 'audit')
  let runDir = ''

  beforeAll(async () => {
    const runtime = new ToolRuntime({ audit: { dir: auditRoot }, policy: { deny: ['forbidden'] }, timeoutMs: 150 })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'echoed' })
    runtime.register({
      name: 'slow',
      parameters: { type: 'object' },
      execute: (_id: string, _args: unknown, signal?: AbortSignal) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve('late'), 5_000)
          signal?.addEventListener('abort', () => clearTimeout(timer))
        }),
    })
    runtime.register({
      name: 'boom',
      parameters: { type: 'object' },
      execute: async () => {
        throw new Error('disk <full> & "stuck"')
      },
    })
    runtime.register({ name: 'forbidden', parameters: { type: 'object' }, execute: async () => 'never' })
    const results = await runtime.dispatch(
      [
        { id: 'c-echo', name: 'echo', arguments: JSON.stringify({ note: '<img src=x onerror=alert(1)>' }) },
        { id: 'c-slow', name: 'slow', arguments: '{}' },
        { id: 'c-boom', name: 'boom', arguments: '{}' },
        { id: 'c-forbidden', name: 'forbidden', arguments: '{}' },
      ],
      { runId: 'cli-run' },
    )
    expect(results.map((r) => r.status)).toEqual(['ok', 'timeout', 'error', 'blocked'])
    runDir = join(auditRoot, 'cli-run')
  })

  it("summarizes a run and verifyRun's verdict, and exits 0 when it found nothing", () => {
    const { code, json } = cliJson('audit', runDir)
    expect(code).toBe(0)
    expect(json.ok).toBe(true)
    expect(json.run).toMatchObject({ runId: 'cli-run', kind: 'dispatch' })
    expect(json.summary).toMatchObject({ calls: 4, results: 4, byStatus: { ok: 1, timeout: 1, error: 1, blocked: 1 }, partialLines: 0, malformedLines: 0 })
    expect(json.calls.map((c: any) => [c.callId, c.tool, c.status])).toEqual([
      ['c-echo', 'echo', 'ok'],
      ['c-slow', 'slow', 'timeout'],
      ['c-boom', 'boom', 'error'],
      ['c-forbidden', 'forbidden', 'blocked'],
    ])
    expect(json.calls.find((c: any) => c.callId === 'c-forbidden').error.code).toBe('POLICY_DENIED')
    expect(json.problems).toEqual([])

    const run = cli('audit', runDir)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Run cli-run (dispatch)')
    expect(run.stdout).toContain('4 calls (1 ok, 1 timeout, 1 error, 1 blocked)')
    expect(run.stdout).toMatch(/c-slow slow: timeout — TIMEOUT: /)
    expect(run.stdout).toContain('verifyRun: no problems')
  })

  it('exits 1 with the findings when a result is missing from the log', () => {
    const damaged = join(work, 'damaged', 'cli-run')
    mkdirSync(dirname(damaged), { recursive: true })
    cpSync(runDir, damaged, { recursive: true })
    const results = join(damaged, 'results.jsonl')
    const kept = readFileSync(results, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && JSON.parse(line).callId !== 'c-boom')
    writeFileSync(results, kept.map((line) => `${line}\n`).join(''))

    const { code, json } = cliJson('audit', damaged)
    expect(code).toBe(1)
    expect(json.ok).toBe(false)
    expect(json.problems).toEqual([
      expect.objectContaining({ callId: 'c-boom', kind: 'missing_result' }),
      expect.objectContaining({ kind: 'seq_gap' }),
    ])
    expect(json.calls.find((c: any) => c.callId === 'c-boom').status).toBe('unfinished')
    const run = cli('audit', damaged)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/verifyRun: 2 problems\n {2}missing_result \(c-boom\): .*\n {2}seq_gap: /)
  })

  it('exits 1 on a missing directory, 2 without one', () => {
    let run = cli('audit', join(work, 'nowhere'))
    expect(run.code).toBe(1)
    expectOneLineError(run, /cannot read .*nowhere: no such directory/)
    const empty = join(work, 'empty')
    mkdirSync(empty, { recursive: true })
    run = cli('audit', empty)
    expect(run.code).toBe(1)
    expectOneLineError(run, /is neither a run directory of the audit log \(no run\.json\) nor an audit root holding runs/)
    run = cli('audit')
    expect(run.code).toBe(2)
    expectOneLineError(run, /audit: expected one <dir>/)
  })

  it('summarizes every run under the audit root, and picks one with --run', async () => {
    const root = join(work, 'audit-root')
    const runtime = new ToolRuntime({ audit: { dir: root } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'echoed' })
    await runtime.dispatch([{ id: 'a1', name: 'echo', arguments: '{}' }], { runId: 'team/a' })
    await runtime.dispatch(
      [
        { id: 'b1', name: 'echo', arguments: '{}' },
        { id: 'b2', name: 'missing', arguments: '{}' },
      ],
      { runId: 'team_a' },
    )
    const [generated] = await runtime.dispatch([{ id: 'c1', name: 'echo', arguments: '{}' }])

    let { code, json } = cliJson('audit', root)
    expect(code).toBe(0)
    expect(json).toMatchObject({ root, ok: true, summary: { runs: 3, calls: 4, byStatus: { ok: 3, error: 1 }, runsWithProblems: 0 } })
    expect(json.runs.map((r: any) => [r.run.runId, r.summary.calls, r.ok])).toEqual([
      ['team/a', 1, true],
      ['team_a', 2, true],
      [generated.runId, 1, true],
    ])
    expect(json.runs[0].dir).toBe(auditRunDir(root, 'team/a'))
    let run = cli('audit', root)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`Audit log ${root}: 3 runs, 4 calls, no problems`)
    expect(run.stdout).toContain('  team/a in team%2Fa (dispatch): 1 call (1 ok), no problems')
    expect(run.stdout).toContain('  team_a (dispatch): 2 calls (1 ok, 1 error), no problems')

    // --run: one run, as if its directory were given.
    ;({ code, json } = cliJson('audit', root, '--run', 'team/a'))
    expect(code).toBe(0)
    expect(json.run.runId).toBe('team/a')
    expect(json.calls.map((c: any) => c.callId)).toEqual(['a1'])
    run = cli('audit', root, '--run', 'team-b')
    expect(run.code).toBe(1)
    expectOneLineError(run, /no run "team-b" under /)
    run = cli('audit', auditRunDir(root, 'team_a'), '--run', 'team_a')
    expect(run.code).toBe(2)
    expectOneLineError(run, /--run picks a run under an audit root/)
    run = cli('audit', root, '--html', join(work, 'root.html'))
    expect(run.code).toBe(2)
    expectOneLineError(run, /--html draws one run, and .* is an audit root: pass a run directory or --run <id>/)

    // A run with problems (and one that cannot be read) makes the root's verdict: exit 1.
    const results = join(auditRunDir(root, 'team_a'), 'results.jsonl')
    writeFileSync(results, readFileSync(results, 'utf8').split('\n')[0] + '\n')
    mkdirSync(join(root, 'broken'))
    writeFileSync(join(root, 'broken', 'run.json'), JSON.stringify({ runId: 'broken', startedAt: 'yesterday' }))
    ;({ code, json } = cliJson('audit', root))
    expect(code).toBe(1)
    expect(json.ok).toBe(false)
    expect(json.summary.runsWithProblems).toBe(2)
    const teamA = json.runs.find((r: any) => r.run.runId === 'team_a')
    expect(teamA.problems.map((p: any) => p.kind)).toEqual(['missing_result', 'seq_gap'])
    expect(json.runs.find((r: any) => r.dir.endsWith('broken')).problems[0]).toMatchObject({ kind: 'unreadable_run', message: expect.stringContaining('is not a time') })
    run = cli('audit', root)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/team_a \(dispatch\): 2 calls \([^)]*1 unfinished[^)]*\), 2 problems\n {4}missing_result \(b\d\): .*\n {4}seq_gap: /)
    expect(run.stdout).toContain('broken: unreadable')
  })

  it('reports a run.json time no Date can hold as bad input (exit 1), in text, --json and --html alike', () => {
    const bad = join(work, 'bad-time')
    cpSync(runDir, bad, { recursive: true })
    const runJson = JSON.parse(readFileSync(join(bad, 'run.json'), 'utf8'))
    for (const [key, value] of [['startedAt', 1e20], ['endedAt', -1e17], ['startedAt', 'yesterday']] as const) {
      writeFileSync(join(bad, 'run.json'), JSON.stringify({ ...runJson, [key]: value }))
      const shown = JSON.stringify(value)
      for (const extra of [[], ['--json'], ['--html', join(work, 'bad.html')]]) {
        const run = cli('audit', bad, ...extra)
        expect(run.code).toBe(1)
        if (extra[0] === '--json') expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { kind: 'input', exitCode: 1, message: expect.stringContaining(`${key} ${shown} is not a time`) } })
        else expectOneLineError(run, new RegExp(`run\\.json: ${key} ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a time`))
        expect(run.stderr).not.toMatch(/internal error/)
      }
    }
    // The timeline itself never throws on such a time: it leaves the start out.
    const html = renderTimeline({ run: { runId: 'r', startedAt: 1e20 }, calls: [], results: [] })
    expect(html).not.toContain('started ')
    expect(renderTimeline({ run: { runId: 'r', startedAt: 0 }, calls: [], results: [] })).toContain('started 1970-01-01T00:00:00.000Z')
  })

  it('on a terminal, an error clears the progress line before its one line', () => {
    const bad = join(work, 'tty-run')
    cpSync(runDir, bad, { recursive: true })
    const runJson = JSON.parse(readFileSync(join(bad, 'run.json'), 'utf8'))
    writeFileSync(join(bad, 'run.json'), JSON.stringify({ ...runJson, startedAt: 1e20 }))
    const written: string[] = []
    const stderr = { isTTY: true, write: (text: string) => written.push(text) }
    const stdout = { write: (text: string) => written.push(`[stdout] ${text}`) }
    expect(main(['audit', bad], { stdout, stderr })).toBe(1)
    const error = written.findIndex((text) => text.startsWith('toolwire: ') && text.includes('is not a time'))
    expect(error).toBeGreaterThan(0)
    expect(written.slice(0, error).some((text) => text.startsWith('\r\x1b[2Ktoolwire: reading run'))).toBe(true)
    expect(written[error - 1]).toBe('\r\x1b[2K')
    expect(written.slice(error + 1)).toEqual([])
  })

  it.skipIf(skipTimeline)('writes a self-contained HTML timeline that Chromium renders: rows, colors, hover details', async () => {
    if (browser === undefined) throw new Error(`CI is set and ${noBrowser}`)
    const out = join(work, 'timeline.html')
    const run = cli('audit', runDir, '--html', out, '--progress')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`Timeline written to ${out}`)
    expect(run.stderr).toContain(`toolwire: writing the timeline of 4 calls to ${out}`)
    const html = readFileSync(out, 'utf8')
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed|video|audio|source)\b|\s(src|href)="|url\(/i)

    const { chromium } = await import('playwright-core')
    const profile = mkdtempSync(join(tmpdir(), 'toolwire-chromium-'))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: browser,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    try {
      const requests: string[] = []
      context.on('request', (request) => requests.push(request.url()))
      const page = context.pages()[0] ?? (await context.newPage())
      await page.goto(`file://${out}`)
      expect(await page.title()).toBe('toolwire run cli-run')

      const rows = await page.$$eval('.row', (elements) =>
        elements.map((row) => {
          const bar = row.querySelector('.bar') as HTMLElement
          const track = row.querySelector('.track') as HTMLElement
          const b = bar.getBoundingClientRect()
          const t = track.getBoundingClientRect()
          return {
            id: row.getAttribute('data-call-id'),
            status: row.getAttribute('data-status'),
            tool: row.querySelector('.tool')!.textContent,
            color: getComputedStyle(bar).backgroundColor,
            inTrack: b.width > 0 && b.left >= t.left - 0.5 && b.right <= t.right + 0.5,
            detailsShown: getComputedStyle(row.querySelector('.details')!).display !== 'none',
          }
        }),
      )
      expect(rows).toEqual([
        { id: 'c-echo', status: 'ok', tool: 'echo', color: 'rgb(46, 125, 50)', inTrack: true, detailsShown: false },
        { id: 'c-slow', status: 'timeout', tool: 'slow', color: 'rgb(239, 108, 0)', inTrack: true, detailsShown: false },
        { id: 'c-boom', status: 'error', tool: 'boom', color: 'rgb(198, 40, 40)', inTrack: true, detailsShown: false },
        { id: 'c-forbidden', status: 'blocked', tool: 'forbidden', color: 'rgb(106, 27, 154)', inTrack: true, detailsShown: false },
      ])

      await page.hover('.row[data-call-id="c-boom"] .bar')
      const boom = page.locator('.row[data-call-id="c-boom"] .details')
      expect(await boom.isVisible()).toBe(true)
      expect(await boom.locator('dd[data-key="status"]').textContent()).toBe('error')
      // The error text is shown as text, not markup.
      expect(await boom.locator('dd[data-key="error"]').textContent()).toBe('EXECUTION_ERROR: disk <full> & "stuck"')
      expect(await page.locator('.row[data-call-id="c-slow"] .details').isVisible()).toBe(false)

      await page.hover('.row[data-call-id="c-echo"] .bar')
      const echo = page.locator('.row[data-call-id="c-echo"] .details')
      expect(await echo.isVisible()).toBe(true)
      expect(await echo.locator('dd[data-key="args"]').textContent()).toBe('{"note":"<img src=x onerror=alert(1)>"}')
      expect(await page.locator('img').count()).toBe(0)
      expect(await boom.isVisible()).toBe(false)

      await page.hover('.row[data-call-id="c-slow"] .bar')
      const slow = page.locator('.row[data-call-id="c-slow"] .details')
      expect(await slow.locator('dd[data-key="error"]').textContent()).toMatch(/^TIMEOUT: Tool "slow" did not finish within 150 ms/)
      expect(await slow.locator('dd[data-key="tool"]').textContent()).toBe('slow')

      expect(await page.locator('.legend-item').allTextContents()).toEqual(['ok 1', 'error 1', 'timeout 1', 'blocked 1'])
      expect(await page.locator('.verify').textContent()).toBe('verifyRun: no problems')
      // Nothing but the file itself was loaded.
      expect(requests).toEqual([`file://${out}`])
    } finally {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }, 60_000)
})

// Seen by a new user (issue 19): `toolwire audit` and `toolwire replay` printed call ids, tool
// names and error texts raw, so ESC/OSC/BEL/CR sequences from a model or a tool reached the terminal.
describe('the CLI never writes a control character from its input to the terminal', () => {
  const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
  const hostile = [
    '\x1b[2J\x1b[H', '\x1b]0;PWNED\x07', '\r\x1b[2Kall good', '\x9b31m', '\x9d0;t\x9c', '\x7f\x08', 'a\u202eevil', '\u2066x\u2069', 'line\u2028sep', '\x00\x0b\x0c',
  ]

  it('terminalSafe escapes every unsafe character and keeps the rest', async () => {
    const { terminalSafe } = await import('../dist/cli/terminal.js')
    for (let code = 0; code < 0x2100; code++) {
      const c = String.fromCharCode(code)
      const out: string = terminalSafe(`x${c}y`)
      if (UNSAFE.test(c)) expect(out, `U+${code.toString(16)}`).toBe(`x\\u${code.toString(16).padStart(4, '0')}y`)
      else expect(out, `U+${code.toString(16)}`).toBe(`x${c}y`)
    }
    expect(terminalSafe('ok 😀 é\n\tnext')).toBe('ok 😀 é\n\tnext')
  })

  it('every run id the audit listing prints is taken back by --run (r9 user review, 11-audit)', async () => {
    // Seen by a user: the listing printed a\uD800, and --run 'a\uD800' answered "no run".
    const root = join(work, 'printed-ids')
    const runtime = new ToolRuntime({ audit: { dir: root } })
    runtime.register({ name: 'echo', parameters: { type: 'object' }, execute: async () => 'echoed' })
    const ids: [id: string, printed: string][] = [
      ['a\ud800', 'a\\uD800'],
      ['a\udc00', 'a\\uDC00'],
      ['a\ufffd', 'a\ufffd'],
      ['b\u0007', 'b\\u0007'],
      ['c\u202e', 'c\\u202e'],
      ['team/a', 'team/a'],
      // r10 user review #11 (10-audit): the literal text a\uD800 printed as a + U+D800 did; a
      // backslash prints as \\ now, as run.json's runIdEscaped writes it
      ['a\\uD800', 'a\\\\uD800'],
      ['d\\u0041', 'd\\\\u0041'],
      ['C:\\temp', 'C:\\\\temp'],
      ['e\\\\f', 'e\\\\\\\\f'],
      ['b\\u0007', 'b\\\\u0007'],
    ]
    for (const [i, [id]] of ids.entries()) await runtime.dispatch([{ id: `call_${i}`, name: 'echo', arguments: '{}' }], { runId: id })
    const listing = cli('audit', root)
    expect(listing.code).toBe(0)
    for (const [i, [id, printed]] of ids.entries()) {
      expect(listing.stdout, printed).toContain(`\n  ${printed} `)
      const { code, json } = cliJson('audit', root, '--run', printed)
      expect(code, printed).toBe(0)
      expect(json.run.runId, printed).toBe(id)
      expect(json.calls.map((c: any) => c.callId), printed).toEqual([`call_${i}`])
    }
    // No two ids print alike: each printed id heads exactly one line of the listing
    for (const [, printed] of ids) expect(listing.stdout.split(`\n  ${printed} `).length - 1, printed).toBe(1)
    // an id with a backslash typed as it is (not as printed) is still found
    expect(cliJson('audit', root, '--run', 'C:\\temp').json.run.runId).toBe('C:\\temp')
    const none = cli('audit', root, '--run', 'z\\uD800')
    expect(none.code).toBe(1)
    expectOneLineError(none, /no run "z\\uD800" under /)
  })

  it('in audit (text and --json) and replay output, ids, names and messages are escaped', async () => {
    const root = join(work, 'hostile-audit')
    const runtime = new ToolRuntime({ audit: { dir: root } })
    for (const [i, text] of hostile.entries()) {
      runtime.register({ name: `t${i}`, parameters: { type: 'object' }, execute: async () => { throw new Error(`failed: ${text}`) } })
    }
    const calls = hostile.map((text, i) => ({ id: `call_${i}_${text}`, name: i % 2 === 0 ? `t${i}` : `t${i}${text}`, arguments: '{}' }))
    await runtime.dispatch(calls, { runId: 'hostile' })
    const text = cli('audit', join(root, 'hostile'))
    const json = cli('audit', join(root, 'hostile'), '--json')
    for (const run of [text, json]) {
      expect(run.stdout.length).toBeGreaterThan(0)
      expect(UNSAFE.exec(run.stdout + run.stderr)).toBeNull()
    }
    expect(text.stdout).toContain('\\u001b]0;PWNED\\u0007')
    // --json still parses, to the very ids.
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(calls[0]!.id).slice(1, -1))
    const body = write(
      'hostile.json',
      JSON.stringify({
        id: 'c', object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: hostile.map((h, i) => ({ id: `call_${h}`, type: 'function', function: { name: `read${h}`, arguments: `{"p":"${i}"}` } })) }, finish_reason: 'tool_calls' }],
      }),
    )
    for (const run of [cli('replay', body, '--wire', 'openai-chat', '--full'), cli('replay', body, '--wire', 'openai-chat', '--json')]) {
      expect(run.stdout.length).toBeGreaterThan(0)
      expect(UNSAFE.exec(run.stdout + run.stderr)).toBeNull()
    }
    // The one-line error of bad input too.
    const missing = cli('audit', join(root, 'no\x1b[2Jsuch'))
    expect(missing.code).toBe(1)
    expect(UNSAFE.exec(missing.stderr)).toBeNull()
  })
})

describe('the Chromium the timeline test uses', () => {
  it('is CHROME_PATH, else /usr/bin/chromium, else chromium, chromium-browser or google-chrome on PATH', () => {
    const bin = join(work, 'browsers')
    mkdirSync(bin, { recursive: true })
    const fake = (name: string) => {
      const path = join(bin, name)
      writeFileSync(path, '#!/bin/sh\n')
      chmodSync(path, 0o755)
      return path
    }
    const chrome = fake('google-chrome')
    expect(findBrowser({ CHROME_PATH: chrome, PATH: '' })).toBe(chrome)
    expect(findBrowser({ CHROME_PATH: join(bin, 'absent'), PATH: bin })).toBeUndefined()
    writeFileSync(join(bin, 'chromium-browser'), 'not executable')
    const onPath = findBrowser({ PATH: `${join(work, 'nowhere')}:${bin}` })
    // /usr/bin/chromium comes first when this machine has it.
    expect([chrome, '/usr/bin/chromium']).toContain(onPath)
    const browserPath = fake('chromium-browser')
    expect([browserPath, '/usr/bin/chromium']).toContain(findBrowser({ PATH: bin }))
    expect(findBrowser({ PATH: join(work, 'nowhere') }) ?? 'none').toBe(findBrowser({ PATH: '' }) ?? 'none')
  })
})

describe('the timeline of a large run', () => {
  it('takes 100k calls (no spread of every time into Math.min/max)', () => {
    const n = 100_000
    const calls = Array.from({ length: n }, (_, i) => ({ callId: `c${i}`, tool: 't', createdAt: 1_000 + i }))
    const results = Array.from({ length: n }, (_, i) => ({ callId: `c${i}`, tool: 't', status: i % 2 ? 'ok' : 'error', startedAt: 1_000 + i, endedAt: 1_010 + i }))
    const replay = { run: { runId: 'big' }, calls, results }
    const { rows, span } = timelineRows(replay)
    expect(rows).toHaveLength(n)
    expect(span).toEqual({ start: 1_000, end: 1_009 + n })
    const html = renderTimeline(replay)
    expect(html.match(/class="row"/g)).toHaveLength(n)
  }, 60_000)
})

describe('what the CLI shares with the library', () => {
  const require = createRequire(import.meta.url)
  it('takes the wires and the schema targets from the library, and reads input files one way', () => {
    expect(require('../dist/cli/replay.js').WIRES).toBe(require('../dist/common.js').WIRES)
    expect(require('../dist/cli/schema.js').TARGETS).toBe(require('../dist/schema.js').SCHEMA_TARGETS)
    expect(Object.keys(require('../dist/schema.js'))).not.toContain('isZodSchema')
    // (replay reads a directory as a run directory of the audit log: this one is none)
    for (const [args, after] of [
      [['replay', work, '--wire', 'anthropic'], ', and no run directory of the audit log \\(it has no run\\.json\\)'],
      [['schema', work, '--target', 'openai'], ''],
    ] as const) {
      const run = cli(...args)
      expect(run.code).toBe(1)
      expectOneLineError(run, new RegExp(`cannot read ${work.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is a directory${after}$`))
    }
  })
})
