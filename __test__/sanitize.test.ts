import { describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { ToolRuntime, ToolwireError, sanitizeResult, type ToolExecutionEvent, type ToolResult } from '../dist/index.js'
import { DescribedBlock, SECRET_WINDOW } from '../dist/protocol.generated.js'
import { describeContent } from '../dist/sanitize.js'
import { png, textOf, untyped } from './helpers.js'

// Fake secrets made up for these tests.
const GITHUB = 'ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVc'
const AWS = 'AKIAQ3EXAMPLE7XYZ4AB'
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function runtimeWith(tools: Record<string, (args: any) => unknown>, options: ConstructorParameters<typeof ToolRuntime>[0] = {}) {
  const runtime = new ToolRuntime(options)
  for (const [name, execute] of Object.entries(tools)) {
    runtime.register({ name, parameters: { type: 'object' }, execute: untyped(async (_id: string, args: unknown) => execute(args)) })
  }
  return runtime
}

async function run(runtime: ToolRuntime, name: string, args: object = {}, options = {}) {
  const events: ToolExecutionEvent[] = []
  const [result] = await runtime.dispatch([{ id: 'call_1', name, arguments: JSON.stringify(args) }], {
    onEvent: (event) => events.push(event),
    ...options,
  })
  return { result: result as ToolResult, events }
}

describe('text budgets', () => {
  it('keeps the head and the tail of a long result within maxResultChars, saying how much was cut', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')
    const runtime = runtimeWith({ log: () => lines }, { sanitize: { maxResultChars: 2000 } })
    const { result } = await run(runtime, 'log')
    const text = textOf(result)
    expect(text.length).toBeLessThanOrEqual(2000)
    expect(text.startsWith('line 0\nline 1\n')).toBe(true)
    expect(text.endsWith('line 19999')).toBe(true)
    const [cut] = result.sanitization!.truncated
    expect(cut).toMatchObject({ block: 0, unit: 'characters', budget: 2000, scope: 'result' })
    expect(text).toContain(`[... ${cut.cut} characters cut ...]`)
    expect(cut.cut).toBe(lines.length - (text.length - `\n\n[... ${cut.cut} characters cut ...]\n\n`.length))
  })

  it('never splits a surrogate pair', async () => {
    const runtime = runtimeWith({ emoji: () => '😀'.repeat(50_000) }, { sanitize: { maxResultChars: 1001 } })
    const { result } = await run(runtime, 'emoji')
    expect(textOf(result).length).toBeLessThanOrEqual(1001)
    expect(LONE_SURROGATE.test(textOf(result))).toBe(false)
  })

  it('takes a dispatch’s own sanitize options over the runtime’s, for that dispatch only', async () => {
    const runtime = runtimeWith({ log: () => 'z'.repeat(5000) }, { sanitize: { secrets: { patterns: [{ kind: 'acme', pattern: 'acme_[0-9]{8}' }] } } })
    const { result: cut } = await run(runtime, 'log', {}, { sanitize: { maxResultChars: 500 } })
    expect(textOf(cut).length).toBeLessThanOrEqual(500)
    expect(cut.sanitization!.truncated[0]).toMatchObject({ budget: 500, scope: 'result' })
    const { result: whole } = await run(runtime, 'log')
    expect(textOf(whole).length).toBe(5000)
    await expect(runtime.dispatch([{ id: 'a', name: 'log', arguments: '{}' }], { sanitize: { maxResultChars: 5 } })).rejects.toThrow(
      /dispatch: options\.sanitize\.maxResultChars/,
    )
  })

  it('turns unpaired surrogates into U+FFFD', () => {
    const { result } = sanitizeResult({ content: [{ type: 'text', text: 'a\uD800b' }] })
    expect(result.content[0]).toEqual({ type: 'text', text: 'a\uFFFDb' })
  })

  it('removes ANSI escapes when asked', async () => {
    const runtime = runtimeWith({ color: () => '\u001b[31mred\u001b[0m plain' }, { sanitize: { stripAnsi: true } })
    const { result } = await run(runtime, 'color')
    expect(textOf(result)).toBe('red plain')
    expect(result.sanitization!.ansi).toBe(2)
  })

  it('trims the largest results of a dispatch until the batch fits maxBatchChars', async () => {
    const runtime = runtimeWith(
      { big: () => 'b'.repeat(30_000), medium: () => 'm'.repeat(20_000), small: () => 'small' },
      { sanitize: { maxBatchChars: 25_000 } },
    )
    const results = await runtime.dispatch([
      { id: '1', name: 'big', arguments: '{}' },
      { id: '2', name: 'medium', arguments: '{}' },
      { id: '3', name: 'small', arguments: '{}' },
    ])
    const total = results.reduce((sum, r) => sum + textOf(r).length, 0)
    expect(total).toBeLessThanOrEqual(25_000)
    expect(textOf(results[2])).toBe('small')
    expect(results[0].sanitization!.truncated.at(-1)).toMatchObject({ scope: 'batch' })
    // The two large results share what the small one leaves (24995 characters), marker included.
    for (const r of results.slice(0, 2)) {
      expect(textOf(r).length).toBeGreaterThan(12_400)
      expect(textOf(r).length).toBeLessThanOrEqual(12_498)
    }
  })
})

describe('bytes', () => {
  it('cuts and scrubs a Buffer returned by a tool without touching the caller’s buffer', async () => {
    const output = Buffer.from(`${GITHUB}\n${'.'.repeat(10 << 20)}\nexit ${AWS}\n`)
    const digest = createHash('sha256').update(output).digest('hex')
    const runtime = runtimeWith({ shell: () => output })
    const { result } = await run(runtime, 'shell')
    const text = textOf(result)
    expect([...text].length).toBeLessThanOrEqual(32_768)
    expect(text.startsWith('[redacted:github-token]\n')).toBe(true)
    expect(text.endsWith('exit [redacted:aws-access-key]\n')).toBe(true)
    expect(text).toMatch(/\[\.\.\. \d+ bytes cut \.\.\.\]/)
    expect(result.sanitization!.scrubbed).toEqual({ 'github-token': 1, 'aws-access-key': 1 })
    expect(createHash('sha256').update(output).digest('hex')).toBe(digest)
  })

  it('sanitizes long text on the libuv pool when the budget is large, keeping the value’s other fields', async () => {
    const output = Buffer.from(`${GITHUB}\n${'x'.repeat(2_000_000)}\n`)
    const long = `${'y'.repeat(1_000_000)} ${AWS}`
    const runtime = runtimeWith(
      { shell: () => ({ content: [{ type: 'text', text: output }, { type: 'text', text: long }], details: { code: 0 } }) },
      { sanitize: { maxResultChars: 400_000, maxBatchChars: null }, redaction: 'permissive' },
    )
    const { result } = await run(runtime, 'shell')
    const [bytes, text] = result.content.map((b) => (b as { text: string }).text)
    expect(bytes.length + text.length).toBeLessThanOrEqual(400_000)
    expect(bytes.startsWith('[redacted:github-token]\n')).toBe(true)
    expect(text.endsWith(' [redacted:aws-access-key]')).toBe(true)
    expect(result.details).toEqual({ code: 0 })
    expect(result.sanitization!.truncated.map((t) => t.unit)).toEqual(['bytes', 'characters'])
  })

  it('accepts bytes as the text of a text block, and a secret straddling the cut leaves no fragment', () => {
    const bytes = new TextEncoder().encode('.'.repeat(480) + GITHUB + '.'.repeat(100_000))
    const { result, report } = sanitizeResult({ content: [{ type: 'text', text: bytes }] }, { maxResultChars: 1000 })
    const text = (result.content[0] as { text: string }).text
    expect(text).not.toContain('ghp_')
    expect(text).toContain('[redacted:github-token]')
    expect(report.scrubbed['github-token']).toBe(1)
    expect(report.truncated[0].unit).toBe('bytes')
  })
})

describe('content descriptions', () => {
  it('describes a block of every kind the engine reads, as its generated layout declares it', () => {
    const long = `${'h'.repeat(SECRET_WINDOW + 100)}${'m'.repeat(10_000)}${'t'.repeat(SECRET_WINDOW + 100)}`
    const bytes = new Uint8Array([104, 105])
    const image = png(4, 4).toString('base64')
    const content = [
      { type: 'text', text: 'short' },
      { type: 'text', text: long },
      { type: 'text', text: bytes },
      { type: 'text', text: bytes.buffer },
      { type: 'image', data: image, mimeType: 'image/png' },
    ]
    const { blocks, texts, buffers } = describeContent(content, 100, 'test')
    expect(blocks).toEqual([
      [DescribedBlock.WHOLE, 0],
      [DescribedBlock.ENDS, 1, 2, long.length],
      [DescribedBlock.BYTES, 0],
      [DescribedBlock.BYTES, 1],
      [DescribedBlock.IMAGE, 3, 'image/png'],
    ])
    // (every code the engine declares is written)
    expect(new Set(blocks.map(([code]) => code))).toEqual(new Set(Object.values(DescribedBlock)))
    expect(texts).toEqual(['short', long.slice(0, SECRET_WINDOW + 100), long.slice(-(SECRET_WINDOW + 100)), image])
    expect(buffers.map((b) => [...b])).toEqual([[104, 105], [104, 105]])
    // and the engine reads each back as the block it was (an ArrayBuffer text, which a tool may
    // return, is outside sanitizeResult's declared input)
    const { result, report } = sanitizeResult({ content } as never, { maxResultChars: 100 })
    expect(result.content.map((b) => b.type)).toEqual(['text', 'text', 'text', 'text', 'image'])
    expect(report.truncated.map((t) => t.block)).toEqual([1])
  })
})

describe('secrets', () => {
  it('scrubs results, details and event arguments, but the tool gets its arguments as sent', async () => {
    let received: unknown
    const runtime = new ToolRuntime({ redaction: 'permissive' })
    runtime.register({
      name: 'echo',
      parameters: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
      execute: async (_id: string, args: { token: string }) => {
        received = args
        return { content: [{ type: 'text', text: `token ${args.token}` }], details: { token: args.token } }
      },
    })
    const { result, events } = await run(runtime, 'echo', { token: GITHUB })
    expect(received).toEqual({ token: GITHUB })
    expect(textOf(result)).toBe('token [redacted:github-token]')
    expect(result.details).toEqual({ token: '[redacted:github-token]' })
    const start = events.find((e) => e.type === 'tool_execution_start') as any
    expect(start.args).toEqual({ token: '[redacted:github-token]' })
    const end = events.find((e) => e.type === 'tool_execution_end') as any
    expect(JSON.stringify(end)).not.toContain(GITHUB)
  })

  it('scrubs error messages', async () => {
    const runtime = runtimeWith({ fail: () => Promise.reject(new Error(`auth failed for ${AWS}`)) })
    const { result } = await run(runtime, 'fail')
    expect(result.error!.message).toBe('auth failed for [redacted:aws-access-key]')
    expect(textOf(result)).toBe('auth failed for [redacted:aws-access-key]')
  })

  it('adds custom patterns and refuses ones that need backtracking', () => {
    const options = { secrets: { patterns: [{ kind: 'ticket-key', pattern: 'TK-[0-9]{6}' }] } }
    const { result, report } = sanitizeResult({ content: [{ type: 'text', text: 'use TK-123456 now' }] }, options)
    expect(result.content[0]).toEqual({ type: 'text', text: 'use [redacted:ticket-key] now' })
    expect(report.scrubbed).toEqual({ 'ticket-key': 1 })
    const bad = () => sanitizeResult({ content: [] }, { secrets: { patterns: [{ kind: 'x', pattern: '(a)\\1' }] } })
    expect(bad).toThrow(ToolwireError)
    expect(bad).toThrow(/linear-time/)
    expect(() => new ToolRuntime({ sanitize: { secrets: { patterns: [{ kind: 'x', pattern: '(?=a)' }] } } })).toThrow(/x/)
  })

  it('can be turned off', () => {
    const { result } = sanitizeResult({ content: [{ type: 'text', text: GITHUB }] }, { secrets: { enabled: false } })
    expect(result.content[0]).toEqual({ type: 'text', text: GITHUB })
  })
})

describe('redaction', () => {
  const withDetails = (redaction?: { allow: string[] }) => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'stat',
      parameters: { type: 'object' },
      redaction,
      execute: async () => ({ content: [{ type: 'text', text: 'done' }], details: { path: '/a', owner: 'root', stats: { lines: 3, raw: 'x' } } }),
    })
    return runtime
  }

  it('withholds details from events of a tool without an allowlist and says so, in strict mode', async () => {
    const { result, events } = await run(withDetails(), 'stat')
    expect(result.details).toEqual({ path: '/a', owner: 'root', stats: { lines: 3, raw: 'x' } })
    const end = events.find((e) => e.type === 'tool_execution_end') as any
    expect(end.result.details).toBeUndefined()
    expect(textOf(end.result)).toBe('done')
    expect(events).toContainEqual({ type: 'redaction_failed', toolCallId: 'call_1', toolName: 'stat', code: 'REDACTION_FAILED' })
  })

  it('keeps only the allowed fields in events', async () => {
    const { events } = await run(withDetails({ allow: ['path', 'stats.lines'] }), 'stat')
    const end = events.find((e) => e.type === 'tool_execution_end') as any
    expect(end.result.details).toEqual({ path: '/a', stats: { lines: 3 } })
    expect(events.some((e) => e.type === 'redaction_failed')).toBe(false)
  })

  it('lets details through in permissive mode', async () => {
    const { events } = await run(withDetails(), 'stat', {}, { redaction: 'permissive' })
    const end = events.find((e) => e.type === 'tool_execution_end') as any
    expect(end.result.details.owner).toBe('root')
  })

  // Seen by a new user (issue 19): a tool returning a plain JSON value had it whole as `data` in
  // every tool_execution_end event and in events.jsonl/results.jsonl (1.5 MB, unredacted) while
  // the same value as `details` was withheld.
  it('redacts a plain JSON value (data) as details, in events and the audit log, on every path', async () => {
    const customer = { name: 'Ada', ssn: '078-05-1120', notes: 'n'.repeat(200_000) }
    const cases: { redaction?: { allow: string[] }; mode?: 'permissive'; data: unknown; failed: boolean }[] = [
      { data: undefined, failed: true },
      { redaction: { allow: ['name'] }, data: { name: 'Ada' }, failed: false },
      { mode: 'permissive', data: customer, failed: false },
    ]
    for (const hooked of [false, true]) {
      for (const { redaction, mode, data, failed } of cases) {
        const dir = mkdtempSync(join(tmpdir(), 'redact-data-'))
        const runtime = new ToolRuntime({
          audit: { dir },
          ...(mode ? { redaction: mode } : {}),
        })
        runtime.register({ name: 'lookup', parameters: { type: 'object' }, redaction, execute: async () => customer })
        const events: ToolExecutionEvent[] = []
        const [result] = await runtime.dispatch([{ id: 'c', name: 'lookup', arguments: '{}' }], {
          runId: 'r',
          onEvent: (event) => events.push(event),
          ...(hooked ? { afterToolCall: async () => undefined } : {}),
        })
        const how = `${JSON.stringify({ redaction, mode, hooked })}`
        expect(result.data, how).toEqual(customer)
        const end = events.find((e) => e.type === 'tool_execution_end') as any
        expect(end.result.data, how).toEqual(data)
        expect(events.some((e) => e.type === 'redaction_failed'), how).toBe(failed)
        if (data === undefined) {
          const audit = readFileSync(join(dir, 'r', 'results.jsonl'), 'utf8') + readFileSync(join(dir, 'r', 'events.jsonl'), 'utf8')
          expect(audit.length, how).toBeLessThan(60_000)
          expect(audit, how).not.toContain('"data":')
        }
      }
    }
  })

  it('refuses a malformed redaction config, naming it', () => {
    const runtime = new ToolRuntime()
    expect(() => runtime.register({ name: 't', execute: () => 'x', redaction: { allow: 'path' } as any })).toThrow(/redaction must be/)
  })

  it('cuts text in events at eventTextChars, while the result keeps its budget', async () => {
    const runtime = runtimeWith({ long: () => 'x'.repeat(20_000) })
    const { result, events } = await run(runtime, 'long')
    expect(textOf(result).length).toBe(20_000)
    const end = events.find((e) => e.type === 'tool_execution_end') as any
    expect(textOf(end.result).length).toBeLessThanOrEqual(8000)
  })

  it('scrubs and redacts partial results in update events', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'stream',
      parameters: { type: 'object' },
      execute: async (_id: string, _args: unknown, _signal?: AbortSignal, onUpdate?: (p: unknown) => void) => {
        onUpdate?.({ content: [{ type: 'text', text: `got ${GITHUB}` }], details: { secret: 1 } })
        return 'ok'
      },
    })
    const { events } = await run(runtime, 'stream')
    const update = events.find((e) => e.type === 'tool_execution_update') as any
    expect(update.partialResult.content[0].text).toBe('got [redacted:github-token]')
    expect(update.partialResult.details).toBeUndefined()
  })

  it('shows bytes in a progress value as their text, scrubbed, keeping the value’s shape', async () => {
    const runtime = new ToolRuntime()
    const chunk = Buffer.from(`line 1\ntoken ${GITHUB}\n`)
    runtime.register({
      name: 'tail',
      parameters: { type: 'object' },
      execute: async (_id: string, _args: unknown, _signal?: AbortSignal, onUpdate?: (p: unknown) => void) => {
        onUpdate?.({ step: 1, output: chunk })
        return 'ok'
      },
    })
    const { events } = await run(runtime, 'tail')
    const update = events.find((e) => e.type === 'tool_execution_update') as any
    expect(update.partialResult).toEqual({ step: 1, output: 'line 1\ntoken [redacted:github-token]\n' })
    expect(chunk.toString()).toContain(GITHUB)
  })
})

describe('limits', () => {
  it('refuses an over-long call id with LIMIT_EXCEEDED naming the limit and the size', async () => {
    const runtime = runtimeWith({ t: () => 'ran' })
    const [result] = await runtime.dispatch([{ id: 'x'.repeat(129), name: 't', arguments: '{}' }])
    expect(result.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 128, actual: 129 } })
    expect(result.error!.message).toContain('129 characters')
  })

  it('refuses arguments over maxArgumentsBytes without running the tool', async () => {
    let ran = false
    const runtime = runtimeWith({ t: () => (ran = true) }, { limits: { maxArgumentsBytes: 100 } })
    const [result] = await runtime.dispatch([{ id: 'c', name: 't', arguments: JSON.stringify({ a: 'x'.repeat(200) }) }])
    expect(result.error).toMatchObject({ code: 'LIMIT_EXCEEDED', details: { limit: 100 } })
    expect(ran).toBe(false)
  })

  it('rejects bad limit and sanitize options by name', () => {
    expect(() => new ToolRuntime({ limits: { maxIdChars: 0 } })).toThrow(/limits.maxIdChars/)
    expect(() => new ToolRuntime({ sanitize: { maxResultChars: 5 } })).toThrow(/maxResultChars must be a whole number of at least 100, got 5/)
    expect(() => new ToolRuntime({ redaction: 'loose' as any })).toThrow(/'strict' or 'permissive'/)
    expect(() => sanitizeResult({ content: 'x' } as any)).toThrow(ToolwireError)
  })
})

describe('images', () => {
  const image = (buffer: Buffer, mimeType = 'image/png') => ({ type: 'image' as const, data: buffer.toString('base64'), mimeType })

  it('keeps an image within the limits, with its type sniffed from the bytes', () => {
    const { result, report } = sanitizeResult({ content: [image(png(40, 30), 'image/jpeg')] })
    expect(result.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png', data: png(40, 30).toString('base64') })
    expect(report.images[0]).toMatchObject({ block: 0, action: 'kept', width: 40, height: 30, declaredMimeType: 'image/jpeg' })
  })

  it('resizes an image over maxWidth keeping its aspect ratio', () => {
    const { result, report } = sanitizeResult({ content: [image(png(3000, 300))] })
    expect(report.images[0]).toMatchObject({ action: 'resized', width: 2000, height: 200 })
    expect(result.content[0].type).toBe('image')
  })

  it('replaces a corrupt image and a decompression bomb by text saying why', () => {
    const whole = png(100, 100)
    // A bomb's header is well formed (its checksum right); only its size is absurd.
    const bomb = png(1, 1)
    bomb.writeUInt32BE(100_000, 16)
    bomb.writeUInt32BE(100_000, 20)
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)) >>> 0, 29)
    const { result, report } = sanitizeResult({ content: [image(whole.subarray(0, 60)), image(bomb)] })
    expect(result.content.map((b) => b.type)).toEqual(['text', 'text'])
    expect(report.images.map((i) => i.action)).toEqual(['omitted', 'omitted'])
    expect((result.content[0] as { text: string }).text).toMatch(/could not be decoded/)
    expect((result.content[1] as { text: string }).text).toMatch(/100000x100000 is over the 50000000-pixel limit/)
  })

  it('shows images in events as metadata only', async () => {
    const data = png(20, 10).toString('base64')
    const runtime = runtimeWith({ shot: () => ({ content: [{ type: 'image', data, mimeType: 'image/png' }] }) })
    const { result, events } = await run(runtime, 'shot')
    expect(result.content[0]).toMatchObject({ type: 'image', data })
    const end = events.find((e) => e.type === 'tool_execution_end') as any
    expect(end.result.content[0]).toEqual({ type: 'image', mimeType: 'image/png', bytes: png(20, 10).length, width: 20, height: 10, omitted: true })
  })

  it('honours MEDIA: lines only from trustedMedia tools', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-media-'))
    const file = join(dir, 'shot.png')
    writeFileSync(file, png(8, 8))
    const runtime = new ToolRuntime()
    const execute = async () => `saved\nMEDIA:${file}\ndone`
    runtime.register({ name: 'trusted', parameters: { type: 'object' }, trustedMedia: true, execute })
    runtime.register({ name: 'plain', parameters: { type: 'object' }, execute })
    const [trusted, plain] = await runtime.dispatch([
      { id: '1', name: 'trusted', arguments: '{}' },
      { id: '2', name: 'plain', arguments: '{}' },
    ])
    expect(trusted.content.map((b) => b.type)).toEqual(['text', 'image', 'text'])
    expect(trusted.content[1]).toMatchObject({ mimeType: 'image/png' })
    expect(textOf(plain)).toContain(`MEDIA:${file}`)
  })
})
