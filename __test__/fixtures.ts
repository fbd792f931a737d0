// The recorded provider streams in ../shared/fixtures, read in place (never copied here), and
// their expected calls from expected.json, brought to one shape for every wire.
//
// A clone without ../shared (a contributor's) still passes: the suites that read the recordings
// register through `describeWithFixtures` / `itWithFixtures`, which run them where the folder
// exists, show them as skipped (naming the folder) where it does not, and fail them under CI,
// where the folder must be. `TOOLWIRE_FIXTURES` points at another copy of the folder.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { describe, it } from 'vitest'

import type { AssembledTurn, Wire } from '../dist/index.js'

export const FIXTURES =
  process.env.TOOLWIRE_FIXTURES || join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'fixtures')

/** Whether the recorded streams are there to read. */
export const HAVE_FIXTURES = existsSync(join(FIXTURES, 'expected.json'))

/** Whether this runs in CI (`CI` set, and not to `false` or `0`): the fixtures must be there. */
const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0'

const MISSING = `the recorded provider streams are not at ${FIXTURES} (expected.json missing)`

if (!HAVE_FIXTURES && !IN_CI) {
  console.warn(`${MISSING}: the suites over them are skipped (set TOOLWIRE_FIXTURES to their folder to run them)`)
}

/**
 * A suite over the recorded streams: `body` runs (and may read them while collecting) where
 * they exist; elsewhere one skipped test says why, or under CI one failing test.
 */
export function describeWithFixtures(title: string, body: () => void): void {
  if (HAVE_FIXTURES) describe(title, body)
  else describe(title, () => itWithFixtures('reads the recorded provider streams', () => {}))
}

/** A test over the recorded streams: skipped where they are missing, failed under CI. */
export function itWithFixtures(title: string, fn: () => unknown | Promise<unknown>, timeout?: number): void {
  if (HAVE_FIXTURES) it(title, fn, timeout)
  else if (IN_CI) {
    it(title, () => {
      throw new Error(`${MISSING}; CI must have them (they are at ../shared/fixtures next to the repository)`)
    })
  } else it.skip(`${title} (skipped: ${MISSING})`, fn)
}

/** One call a response must yield. `id: null` means the provider sent none: any unique id. */
export interface ExpectedCall {
  id: string | null
  name: string
  arguments: string
  complete: boolean
  kind?: 'custom'
  itemId?: string
  thoughtSignature?: boolean
  /** The provider sent the arguments whole, as an object (not as streamed text). */
  whole?: boolean
}

/** One response of a fixture file, with the bytes of its body and what decoding must give. */
export interface ExpectedResponse {
  file: string
  wire: Wire
  /** Position of this response in its file. */
  part: number
  body: Buffer
  toolCalls: ExpectedCall[]
  /** Provider-executed calls; `undefined` where expected.json does not record them (Responses). */
  serverToolCalls?: ExpectedCall[]
  rawStopReason: string | null
}

const WIRE_OF_FOLDER: Record<string, Wire> = {
  'openai-chat': 'openai-chat',
  'openai-compatible-chat': 'openai-chat',
  'openai-responses': 'openai-responses',
  anthropic: 'anthropic',
  gemini: 'gemini',
}

interface RawRecord {
  start: number
  json: any
}

/** The events of a body with their byte offsets: NDJSON lines or SSE blocks. */
function records(body: Buffer): RawRecord[] {
  const text = body.toString('latin1') // offsets in bytes
  const out: RawRecord[] = []
  const ndjson = /^\s*[{[]/.test(text)
  const separator = ndjson ? /\r?\n/g : /\r?\n\r?\n/g
  let start = 0
  const push = (end: number) => {
    const raw = body.subarray(start, end).toString('utf8')
    const data = ndjson
      ? raw
      : raw
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('\n')
    let json: any = null
    try {
      json = JSON.parse(data)
    } catch {
      json = null
    }
    if (raw.trim() !== '') out.push({ start, json })
  }
  for (const match of text.matchAll(separator)) {
    push(match.index!)
    start = match.index! + match[0].length
  }
  push(text.length)
  return out
}

/** Splits a file holding several responses into their bodies (the caller's job, not the decoder's). */
function splitResponses(body: Buffer, folder: string): Buffer[] {
  if (folder === 'gemini') return [body]
  const starts: number[] = [0]
  let chunkId: string | null = null
  for (const record of records(body)) {
    const type = record.json?.type
    let boundary = false
    if (folder === 'openai-responses') boundary = type === 'response.created'
    else if (folder === 'anthropic') boundary = type === 'message_start'
    else {
      const id = record.json?.id
      if (typeof id === 'string' && id !== '') {
        boundary = chunkId !== null && id !== chunkId
        chunkId = id
      }
    }
    if (boundary && record.start > 0) starts.push(record.start)
  }
  return starts.map((start, i) => body.subarray(start, starts[i + 1] ?? body.length))
}

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
  } catch {
    return false
  }
}

/** A call is complete when its arguments are an object and its end was signalled. */
function expectedCall(
  id: string | null,
  name: string,
  args: string,
  ended: boolean,
  extra: Partial<ExpectedCall> = {},
): ExpectedCall {
  return { id, name, arguments: args, complete: ended && isJsonObject(args), ...extra }
}

/** Every response of every fixture file, as the conformance suite checks them. */
export function loadFixtures(): ExpectedResponse[] {
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8'))
  const out: ExpectedResponse[] = []
  for (const [file, entry] of Object.entries<any>(expected)) {
    const folder = file.split('/')[0]!
    const wire = WIRE_OF_FOLDER[folder]
    if (wire === undefined) throw new Error(`no wire for ${file}`)
    const bodies = splitResponses(readFileSync(join(FIXTURES, file)), folder)
    const add = (part: number, response: Omit<ExpectedResponse, 'file' | 'wire' | 'part' | 'body'>) => {
      const body = bodies[part]
      if (body === undefined) throw new Error(`${file}: expected response ${part} not found in the file`)
      out.push({ file, wire, part, body, ...response })
    }
    const expectedCount =
      entry.streams?.length ?? entry.responses?.length ?? entry.messages?.length ?? 1
    if (bodies.length !== expectedCount) {
      throw new Error(`${file}: split into ${bodies.length} responses, expected.json has ${expectedCount}`)
    }
    if (entry.streams) {
      entry.streams.forEach((stream: any, part: number) =>
        add(part, {
          toolCalls: stream.tool_calls.map((c: any) =>
            expectedCall(c.id || null, c.name, c.arguments, stream.finish_reason !== null),
          ),
          serverToolCalls: [],
          rawStopReason: stream.finish_reason,
        }),
      )
    } else if (entry.responses) {
      entry.responses.forEach((response: any, part: number) => {
        // Each Responses call has its own end (output_item.done), whatever follows it.
        const calls = response.tool_calls.map((c: any) =>
          expectedCall(c.call_id, c.name, c.arguments, true, { itemId: c.item_id }),
        )
        for (const c of entry.custom_tool_calls ?? []) {
          calls.push({ id: c.call_id, name: c.name, arguments: c.input, complete: true, kind: 'custom' })
        }
        add(part, { toolCalls: calls, rawStopReason: response.status })
      })
    } else if (entry.messages) {
      const inStart = new Map<string, any>()
      for (const c of entry.tool_use_in_message_start ?? []) inStart.set(c.message_id, c)
      entry.messages.forEach((message: any, part: number) => {
        const ended = message.stop_reason !== null && message.stop_reason !== 'max_tokens'
        const client: ExpectedCall[] = []
        const server: ExpectedCall[] = []
        const events = records(bodies[part]!).map((r) => r.json)
        const streamed = (id: string) => {
          const start = events.find((e) => e?.type === 'content_block_start' && e.content_block?.id === id)
          return events.some(
            (e) => e?.type === 'content_block_delta' && e.index === start?.index && e.delta?.partial_json,
          )
        }
        for (const c of message.tool_calls) {
          const call = expectedCall(c.id, c.name, c.arguments, ended && c.arguments_valid_json !== false, {
            whole: !streamed(c.id),
          })
          ;(c.type === 'server_tool_use' ? server : client).push(call)
        }
        // A tool_use inside message_start, followed by message_stop, is a complete call.
        const start = events.find((e) => e?.type === 'message_start')?.message
        const whole = inStart.get(start?.id)
        if (whole) client.push(expectedCall(whole.id, whole.name, whole.arguments, true))
        // expected.json takes stop_reason from message_delta only; a message that arrives whole
        // in message_start (programmatic tool calling) carries its stop_reason there.
        const rawStopReason = message.stop_reason ?? (whole ? start.stop_reason : null)
        add(part, { toolCalls: client, serverToolCalls: server, rawStopReason })
      })
    } else {
      add(0, {
        toolCalls: entry.tool_calls.map((c: any) =>
          expectedCall(c.id, c.name, c.arguments, true, { thoughtSignature: c.has_thought_signature }),
        ),
        serverToolCalls: [],
        rawStopReason: entry.finishReason,
      })
    }
  }
  return out
}

/** JSON text without the whitespace between tokens. */
function compact(text: string): string {
  let out = ''
  let inString = false
  let escaped = false
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false
      else if (ch === '\\') escaped = true
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue
    out += ch
  }
  return out
}

/**
 * The decoder keeps the provider's own text of arguments that arrive whole (Anthropic
 * `content_block_start.input`), which the provider sends compact; expected.json renders those
 * with Python's `json.dumps` separators (`", "`, `": "`). Such texts compare equal when they
 * differ only in whitespace between tokens; streamed arguments must match byte for byte.
 */
function sameArguments(got: string, expected: ExpectedCall | undefined): string {
  if (expected === undefined || got === expected.arguments || !expected.whole) return got
  return compact(got) === compact(expected.arguments) && got === compact(got) ? expected.arguments : got
}

/** What a decoded turn says, in the shape the expectations use, for comparing runs. */
export function project(turn: AssembledTurn, expected: ExpectedResponse) {
  const call = (c: AssembledTurn['toolCalls'][number], e: ExpectedCall | undefined) => ({
    id: e && e.id === null ? (c.id.length > 0 ? '<generated>' : '') : c.id,
    name: c.name,
    arguments: sameArguments(c.arguments, e),
    complete: c.complete,
    ...(c.kind ? { kind: c.kind } : {}),
    ...(e?.itemId !== undefined ? { itemId: c.providerMetadata?.itemId } : {}),
    ...(e?.thoughtSignature !== undefined ? { thoughtSignature: c.providerMetadata?.thoughtSignature !== undefined } : {}),
  })
  return {
    toolCalls: turn.toolCalls.map((c, i) => call(c, expected.toolCalls[i])),
    ...(expected.serverToolCalls === undefined
      ? {}
      : { serverToolCalls: turn.serverToolCalls.map((c, i) => call(c, expected.serverToolCalls![i])) }),
    rawStopReason: turn.rawStopReason,
  }
}

/** The expectation in the same shape. */
export function projectExpected(expected: ExpectedResponse) {
  const call = (e: ExpectedCall) => ({
    id: e.id === null ? '<generated>' : e.id,
    name: e.name,
    arguments: e.arguments,
    complete: e.complete,
    ...(e.kind ? { kind: e.kind } : {}),
    ...(e.itemId !== undefined ? { itemId: e.itemId } : {}),
    ...(e.thoughtSignature !== undefined ? { thoughtSignature: e.thoughtSignature } : {}),
  })
  return {
    toolCalls: expected.toolCalls.map(call),
    ...(expected.serverToolCalls === undefined ? {} : { serverToolCalls: expected.serverToolCalls.map(call) }),
    rawStopReason: expected.rawStopReason,
  }
}
