// `toolwire replay <file> --wire <wire>`: decodes a captured response body with the engine's
// StreamDecoder, fed the bytes as recorded, and tells what came out: the calls and whether each
// is complete, the decoder's errors, and the provider quirks noticed. A capture holding several
// responses one after another is split and each response decoded on its own.
// `toolwire replay <run dir>`: the model answers a run kept (`audit: { captureBodies: true }`,
// see ts/capture.ts), each decoded as the run decoded it: the same items pushed in the same
// pieces, the decoder told the same content type, on the run's wire (run.json).

import fs from 'node:fs'
import path from 'node:path'

import { StreamDecoder } from '../index.js'
import type { CaptureRecord } from '../capture.js'
import { WIRES, checkWire } from '../common.js'
import type { AssembledToolCall, AssembledTurn, StopReason, Wire } from '../types.js'
import type { CommandIo, ParsedArgs } from './args.js'
import { frameBody, splitResponses } from './frames.js'
import type { BodyFormat, FramedEvent } from './frames.js'
import type { Progress } from './progress.js'
import { findQuirks, turnErrors } from './quirks.js'
import type { DescribedError, Quirk } from './quirks.js'
import { CliError, usageError, inputError, EXIT_OK, EXIT_PROBLEMS } from './errors.js'
import { readInput } from './input.js'

export { WIRES }

const CHUNK = 256 * 1024

/** Decodes one response body (bytes), pushed in pieces as a stream would arrive. */
function decode(wire: Wire, body: Buffer, progress: Progress, label: string): AssembledTurn {
  const decoder = new StreamDecoder(wire)
  for (let at = 0; at < body.length; at += CHUNK) {
    decoder.push(body.subarray(at, Math.min(body.length, at + CHUNK)))
    progress.fraction(label, Math.min(body.length, at + CHUNK), body.length)
  }
  return decoder.finish()
}

/** A call as `replay` reports it. */
export interface CallView {
  index: number
  id: string
  name: string
  complete: boolean
  arguments: string
  kind?: 'custom'
  error?: AssembledToolCall['error']
  providerMetadata?: Record<string, unknown>
}

function callView(call: AssembledToolCall): CallView {
  const view: CallView = {
    index: call.index,
    id: call.id,
    name: call.name,
    complete: call.complete,
    arguments: call.arguments,
  }
  if (call.kind) view.kind = call.kind
  if (call.error) view.error = call.error
  if (call.providerMetadata) view.providerMetadata = call.providerMetadata
  return view
}

/** One response of a capture, decoded. */
export interface ResponseReport {
  index: number
  events: number
  bytes: number
  toolCalls: CallView[]
  serverToolCalls: CallView[]
  stopReason: StopReason
  rawStopReason: string | null
  text: string
  /** How many thinking blocks. */
  thinking: number
  usage: { inputTokens?: number; outputTokens?: number } | undefined
  errors: DescribedError[]
  quirks: Quirk[]
  ok: boolean
}

/** What `replay` reports of a file, or of a run directory's kept answers (format `run`). */
export interface ReplayReport {
  file: string
  wire: Wire
  format: BodyFormat | 'run'
  responses: ResponseReport[]
  ok: boolean
}

/** The answers a run kept: its capture files (`model-001.ndjson`, ...), in the order of its model calls. */
function captureFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => /^model-\d+\.ndjson$/.test(name))
    .sort((a, b) => Number(a.slice(6, -7)) - Number(b.slice(6, -7)))
}

/** The wire of the run in `dir`, as its run.json records it. */
function runWire(dir: string): Wire {
  const file = path.join(dir, 'run.json')
  if (!fs.existsSync(file)) throw inputError(`cannot read ${dir}: it is a directory, and no run directory of the audit log (it has no run.json)`)
  let run: unknown
  try {
    run = JSON.parse(readInput(file, 'utf8'))
  } catch (error) {
    if (error instanceof CliError) throw error
    throw inputError(`${file} is not JSON: ${(error as Error).message}`)
  }
  const wire = (run as { wire?: unknown } | null)?.wire
  if (typeof wire !== 'string' || !(WIRES as readonly string[]).includes(wire)) {
    throw inputError(`${dir}/run.json names no wire (${JSON.stringify(wire)}): only a run() keeps model answers`)
  }
  return wire as Wire
}

/** The records of capture file `file`, each line read as written; a line that is none names its number. */
function captureRecords(file: string): CaptureRecord[] {
  const lines = readInput(file, 'utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as CaptureRecord
    } catch {
      throw inputError(`${file}:${i + 1} is not a capture record (a run cut while writing it ends with a partial line): ${line.slice(0, 80)}`)
    }
  })
}

/** One kept answer decoded as its run decoded it. */
function replayCapture(file: string, index: number, wire: Wire): ResponseReport {
  const records = captureRecords(file)
  const head = records[0]
  const answer = head !== undefined && 'answer' in head ? head.answer : {}
  const decoder = new StreamDecoder(wire, answer.contentType === undefined ? {} : { contentType: answer.contentType })
  let items = 0
  let bytes = 0
  for (const record of records) {
    if ('text' in record) {
      bytes += Buffer.byteLength(record.text)
      decoder.push(record.text)
    } else if ('bytes' in record) {
      const chunk = Buffer.from(record.bytes, 'base64')
      bytes += chunk.length
      decoder.push(chunk)
    } else if ('event' in record) {
      decoder.pushEvent(record.event as object)
    } else continue
    items += 1
  }
  return reportOf(index, items, bytes, decoder.finish(), wire, 'ndjson', [])
}

/**
 * The report of run directory `dir`: each model answer it kept (`audit: { captureBodies: true }`)
 * decoded as the run decoded it; `wire` when given must be the run's.
 */
export function replayRunDir(dir: string, wire: Wire | undefined, progress: Progress): ReplayReport {
  const runs = runWire(dir)
  if (wire !== undefined && wire !== runs) throw usageError(`replay: the run in ${dir} is on wire ${runs}, not ${wire} (leave --wire out for a run directory)`)
  const files = captureFiles(dir)
  if (files.length === 0) {
    throw inputError(`${dir} keeps no model answers: run with audit: { dir, captureBodies: true } to keep them`)
  }
  const responses = files.map((name, i) => {
    progress.step(`decoding ${name} (${i + 1}/${files.length})`)
    return replayCapture(path.join(dir, name), i, runs)
  })
  progress.done()
  return { file: dir, wire: runs, format: 'run', responses, ok: responses.every((r) => r.ok) }
}

/** The report of one decoded response. */
function reportOf(index: number, events: number, bytes: number, turn: AssembledTurn, wire: Wire, format: BodyFormat, framed: FramedEvent[]): ResponseReport {
  const broken = turn.toolCalls.some((c) => !c.complete) || turn.serverToolCalls.some((c) => !c.complete)
  return {
    index,
    events,
    bytes,
    toolCalls: turn.toolCalls.map(callView),
    serverToolCalls: turn.serverToolCalls.map(callView),
    stopReason: turn.stopReason,
    rawStopReason: turn.rawStopReason,
    text: turn.text,
    thinking: turn.thinking.length,
    usage: turn.usage ? { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens } : undefined,
    errors: turnErrors(turn),
    quirks: findQuirks(wire, format, framed, turn),
    ok: turn.errors.length === 0 && !broken,
  }
}

/** The report of a file: `{ file, wire, format, responses, ok }`. */
export function replayFile(file: string, wire: Wire, progress: Progress): ReplayReport {
  const bytes = readInput(file)
  progress.step(`read ${bytes.length} bytes from ${file}`)
  const text = bytes.toString('utf8')
  const framed = frameBody(text)
  if (framed.format === 'empty') throw inputError(`${file} is empty: nothing to decode`)
  const groups = splitResponses(wire, framed)
  const responses = groups.map((events, i): ResponseReport => {
    const start = i === 0 ? 0 : events[0].start
    const end = i + 1 < groups.length ? groups[i + 1][0].start : text.length
    const body = groups.length === 1 ? bytes : Buffer.from(text.slice(start, end), 'utf8')
    const label = `decoding response ${i + 1}/${groups.length} (${body.length} bytes)`
    progress.step(label)
    const turn = decode(wire, body, progress, label)
    return reportOf(i, events.length, body.length, turn, wire, framed.format, events)
  })
  progress.done()
  return { file, wire, format: framed.format, responses, ok: responses.every((r) => r.ok) }
}

function clip(text: string, max: number): string {
  const oneLineText = text.replace(/\s*\n\s*/g, ' ')
  return oneLineText.length <= max ? oneLineText : `${oneLineText.slice(0, max)}… (${Buffer.byteLength(text)} bytes)`
}

function formatCall(call: CallView, full: boolean): string[] {
  const state = call.complete ? 'complete' : 'INCOMPLETE'
  const lines = [`    [${state}] #${call.index} ${call.name || '(no name)'}  id ${call.id}${call.kind ? `  (${call.kind})` : ''}`]
  lines.push(`        arguments: ${full ? call.arguments : clip(call.arguments, 160) || '(empty)'}`)
  if (call.error) lines.push(`        ${call.error.code}: ${call.error.message}`)
  return lines
}

export function formatReport(report: ReplayReport, { full = false }: { full?: boolean } = {}): string {
  const out: string[] = []
  const n = report.responses.length
  out.push(
    report.format === 'run'
      ? `${report.file}: a run on wire ${report.wire}, ${n} model answer${n === 1 ? '' : 's'} kept`
      : `${report.file}: wire ${report.wire}, ${report.format} body, ${n} response${n === 1 ? '' : 's'}`,
  )
  for (const r of report.responses) {
    out.push('')
    out.push(`Response ${r.index + 1}/${n}: stop ${r.stopReason} (provider: ${r.rawStopReason ?? 'none'}), ${r.events} events, ${r.bytes} bytes — ${r.ok ? 'OK' : 'BROKEN'}`)
    out.push(`  Calls (${r.toolCalls.length}):${r.toolCalls.length === 0 ? ' none' : ''}`)
    for (const call of r.toolCalls) out.push(...formatCall(call, full))
    if (r.serverToolCalls.length > 0) {
      out.push(`  Run by the provider (${r.serverToolCalls.length}):`)
      for (const call of r.serverToolCalls) out.push(...formatCall(call, full))
    }
    if (r.text) out.push(`  Text: ${clip(r.text, 120)}`)
    out.push(`  Errors (${r.errors.length}):${r.errors.length === 0 ? ' none' : ''}`)
    for (const e of r.errors) out.push(`    ${e.kind}: ${e.message}`)
    out.push(`  Quirks (${r.quirks.length}):${r.quirks.length === 0 ? ' none' : ''}`)
    for (const q of r.quirks) out.push(`    [${q.severity}] ${q.id}: ${q.title}${q.detail ? ` — ${q.detail}` : ''}`)
  }
  out.push('')
  const calls = report.responses.reduce((s, r) => s + r.toolCalls.length, 0)
  const broken = report.responses.reduce((s, r) => s + r.toolCalls.filter((c) => !c.complete).length, 0)
  const errors = report.responses.reduce((s, r) => s + r.errors.length, 0)
  out.push(`${calls} call${calls === 1 ? '' : 's'}, ${broken} incomplete, ${errors} error${errors === 1 ? '' : 's'}: ${report.ok ? 'ok' : 'problems found'}`)
  return out.join('\n')
}

export const OPTIONS = { wire: 'string', json: 'boolean', full: 'boolean', progress: 'boolean', quiet: 'boolean' } as const

export function run({ positionals, options }: ParsedArgs<typeof OPTIONS>, io: CommandIo): number {
  if (positionals.length !== 1) throw usageError('replay: expected one <file> or <run dir> (usage: toolwire replay <file> --wire <wire>, or toolwire replay <run dir>)')
  const isRunDir = positionals[0] !== '-' && fs.statSync(positionals[0], { throwIfNoEntry: false })?.isDirectory() === true
  if (options.wire === undefined && !isRunDir) throw usageError(`replay: --wire is required for a file (one of ${WIRES.join(', ')})`)
  let wire: Wire | undefined
  try {
    // checkWire returns the wire given when it is one of WIRES, and throws otherwise.
    wire = options.wire === undefined ? undefined : (checkWire('replay', options.wire) as Wire)
  } catch (error) {
    throw usageError((error as Error).message)
  }
  const report = isRunDir ? replayRunDir(positionals[0], wire, io.progress) : replayFile(positionals[0], wire!, io.progress)
  io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report, { full: options.full }))
  return report.ok ? EXIT_OK : EXIT_PROBLEMS
}
