import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, deflateSync } from 'node:zlib'
import { afterAll } from 'vitest'
import { seededRandom } from '../dist/testing/index.js'
import { ToolRuntime, encodeResults, toInvocationRecord, toToolResultMessage, type ToolDefinition, type ToolResult, type HistoryMessage, type ToolReturn, type Wire } from '../dist/index.js'

/** The text of a result's first block. */
export function textOf(result: ToolResult): string {
  const block = result.content[0]
  if (block === undefined || block.type !== 'text') throw new Error(`no text block in ${JSON.stringify(result)}`)
  return block.text
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** An object schema with the given string properties, all required. */
export function stringsSchema(...names: string[]): object {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
    required: names,
    additionalProperties: false,
  }
}

/** A tool that records how many of its calls overlap. */
export function overlapTool(name: string, extra: Partial<ToolDefinition> = {}) {
  const stats = { running: 0, max: 0, order: [] as string[] }
  const tool: ToolDefinition = {
    name,
    parameters: { type: 'object' },
    async execute(id: string) {
      stats.running += 1
      stats.max = Math.max(stats.max, stats.running)
      stats.order.push(`start:${id}`)
      await sleep(15)
      stats.order.push(`end:${id}`)
      stats.running -= 1
      return id
    },
    ...extra,
  }
  return { tool, stats }
}

/** Every file under `dir`, read as text (audit files, state files). */
export function filesUnder(dir: string): string {
  let text = ''
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    text += statSync(path).isDirectory() ? filesUnder(path) : readFileSync(path, 'utf8')
  }
  return text
}

/** A runtime with one tool, `read`, that answers `contents of <path>` and records each path it read in `ran`. */
export function runtimeWithRead() {
  const runtime = new ToolRuntime()
  const ran: string[] = []
  const read: ToolDefinition = {
    name: 'read',
    description: 'Read a file',
    parameters: stringsSchema('path'),
    async execute(id: string, params: { path: string }) {
      ran.push(params.path)
      return `contents of ${params.path}`
    },
  }
  runtime.register(read)
  return { runtime, ran }
}

export const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']

/** Every exit of `results` and of the events and audit files of their dispatch, as text. */
export function exits(results: ToolResult[], events: unknown[], auditDir: string): Record<string, string> {
  const out: Record<string, string> = {
    results: JSON.stringify(results.map(({ args: _args, ...rest }) => rest)),
    events: JSON.stringify(events),
    toToolResultMessage: JSON.stringify(results.map(toToolResultMessage)),
    toInvocationRecord: JSON.stringify(results.map(toInvocationRecord)),
    audit: filesUnder(auditDir),
  }
  for (const wire of WIRES) out[`encodeResults(${wire})`] = JSON.stringify(encodeResults(results, wire))
  return out
}

/** Throws naming the exit and the surroundings where a piece of `material` reached one. */
export function expectNoLeak(name: string, material: string[], where: Record<string, string>) {
  for (const [exit, text] of Object.entries(where)) {
    for (const piece of material) {
      const at = text.indexOf(piece)
      if (at >= 0) throw new Error(`${name}: ${piece} reached ${exit}: ...${text.slice(Math.max(0, at - 200), at + 100)}...`)
    }
  }
}

/**
 * Runs one tool returning `value` in a runtime auditing into `dir`, and returns every exit of
 * its result (see `exits`).
 */
export async function showing(dir: string, value: unknown): Promise<Record<string, string>> {
  const runtime = new ToolRuntime({ audit: { dir } })
  runtime.register({ name: 'show', parameters: { type: 'object' }, execute: untyped(async () => value) })
  const events: unknown[] = []
  const results = await runtime.dispatch([{ id: 'c1', name: 'show', arguments: '{}' }], {
    runId: 'r',
    onEvent: (event) => events.push(event),
  })
  if (results[0].status !== 'ok') throw new Error(`the tool's call ended ${results[0].status}: ${JSON.stringify(results[0].error)}`)
  return exits(results, events, dir)
}

/**
 * A made-up private key's body lines, its PEM lines and a piece of each body line (what must
 * reach no exit), shared by the secret-shape tests.
 */
export const KEY_BODY = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  'xyzABCdefGHIjklMNOpqrSTUvwxYZ0123456789abcdefghijkl',
  'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1u',
]
export const KEY_PIECES = KEY_BODY.map((line) => line.slice(5, 35))
export const KEY_PEM = ['-----BEGIN PRIVATE KEY-----', ...KEY_BODY, '-----END PRIVATE KEY-----']

/**
 * `showing` in a fresh audit directory per call, under one temporary root named after `name`
 * and removed after the file's tests.
 */
export function showingEach(name: string): (value: unknown) => Promise<Record<string, string>> {
  const root = mkdtempSync(join(tmpdir(), `toolwire-${name}-`))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  let runs = 0
  return (value) => showing(join(root, `run-${(runs += 1)}`), value)
}

/** A small seeded generator (toolwire/testing's seededRandom), so a failure names a case that reproduces. */
export function generator(seed: number) {
  const next = seededRandom(seed)
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  return { next, int, pick }
}

/** A PNG of the given size (one colour per row), encoded here so no binary file is committed. */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const out = Buffer.alloc(body.length + 8)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body) >>> 0, body.length + 4)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // RGB
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1)
    for (let x = 0; x < width; x++) raw.fill(y % 251, row + 1 + x * 3, row + 4 + x * 3)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/**
 * `execute` typed as returning a ToolReturn whatever it returns: for tools that hand the runtime
 * values the types refuse (hostile, unknown or deliberately wrong), whose run-time handling is
 * what a test checks.
 */
// oxlint-disable-next-line typescript/no-explicit-any
export function untyped(execute: (...args: any[]) => unknown): (...args: any[]) => ToolReturn | Promise<ToolReturn> {
  return execute as (...args: unknown[]) => ToolReturn
}

/** What `promise` rejected with; a promise that resolves fails the test. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

/** The first user message of a history on `wire`, in the wire's own shape. */
export function userMessage<W extends Wire>(wire: W, text: string): HistoryMessage<W> {
  return (wire === 'gemini' ? { role: 'user', parts: [{ text }] } : { role: 'user', content: text }) as HistoryMessage<W>
}
