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
import { captureNumber, type AnswerInfo, type CaptureRecord } from '../capture.js'
import { WIRES, checkWire } from '../common.js'
import { RunFileError, readRunFile } from '../run-files.js'
import { scrubSecrets } from '../sanitize.js'
import type { AssembledToolCall, AssembledTurn, StopReason, Wire } from '../types.js'
import type { CommandIo, ParsedArgs } from './args.js'
import { frameBody, splitResponses } from './frames.js'
import type { BodyFormat, FramedEvent } from './frames.js'
import type { Progress } from './progress.js'
import { findQuirks, turnErrors } from './quirks.js'
import type { DescribedError, Quirk } from './quirks.js'
import { CliError, usageError, inputError, oneLine, EXIT_OK, EXIT_PROBLEMS } from './errors.js'
import { isObject, readInput } from './input.js'

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
  /** (a run directory's answer on a wire other than the run's, as run.json names it: a run id used again by a run on another wire) */
  wire?: Wire
  /** (a run directory's answer kept without its `{"end": true}`: why it is not what the run decoded; the answer is not ok) */
  notReadToEnd?: string
}

/** What `replay` reports of a file, or of a run directory's kept answers (format `run`). */
export interface ReplayReport {
  file: string
  wire: Wire
  format: BodyFormat | 'run'
  responses: ResponseReport[]
  ok: boolean
}

/** The answers a run kept: its capture files (`model-001.ndjson`, ...), in the order they were kept. */
function captureFiles(dir: string): string[] {
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch (error) {
    throw inputError(`cannot read ${dir}: ${oneLine(error)}`)
  }
  return names
    .filter((name) => captureNumber(name) !== undefined)
    .sort((a, b) => captureNumber(a)! - captureNumber(b)! || (a < b ? -1 : 1))
}

/**
 * The bytes of file `file` of a run directory: a regular file, never one reached through a
 * symlink (whatever it points to, nothing of it is read or shown), a FIFO or a device.
 */
function runFile(file: string): Buffer {
  try {
    return readRunFile(file)
  } catch (error) {
    if (error instanceof RunFileError) throw inputError(error.message)
    const code = (error as NodeJS.ErrnoException).code
    throw inputError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : oneLine(error)}`)
  }
}

/** The wire of the run in `dir`, as its run.json records it; undefined when it names none (the last run of its id was no run()). */
function runWire(dir: string): Wire | undefined {
  const file = path.join(dir, 'run.json')
  if (fs.lstatSync(file, { throwIfNoEntry: false }) === undefined) throw inputError(`cannot read ${dir}: it is a directory, and no run directory of the audit log (it has no run.json)`)
  let run: unknown
  try {
    run = JSON.parse(runFile(file).toString('utf8'))
  } catch (error) {
    if (error instanceof CliError) throw error
    throw inputError(`${file} is not JSON: ${scrubbed(oneLine(error))}`)
  }
  const wire = isObject(run) ? run.wire : undefined
  if (wire === undefined) return undefined
  if (typeof wire !== 'string' || !(WIRES as readonly string[]).includes(wire)) throw inputError(`${file} names no wire the decoder knows: ${shown(wire)}`)
  return wire as Wire
}

/** The keys a capture record holds one of (an answer record may name its wire too). */
const RECORD_KEYS = ['answer', 'text', 'bytes', 'event', 'end'] as const

/** Base64 as the capture writes it (Buffer's standard alphabet, padded). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * A value of a capture file, for an error: its JSON, cut at 80 characters, its secrets replaced
 * (the capture is the one file the audit log does not scrub, so it may hold what a model wrote).
 */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(scrubSecrets(value, 'replay: a capture value'))
  return text.length <= 80 ? text : `${text.slice(0, 80)}... (${text.length} characters)`
}

/**
 * A message quoting what a capture holds (JSON.parse's, the decoder's), for an error or a report:
 * its secrets replaced, as {@link shown} replaces a value's; JSON.parse's quote of the text it
 * refused (`Unexpected token 's', "sk-proj-Zq"... is not valid JSON`, a secret cut where no
 * pattern finds it) left out.
 */
function scrubbed(message: string): string {
  return scrubSecrets(message.replace(/, ".*"(?:\.\.\.)? is not valid JSON/s, ' is not valid JSON'), 'replay: a message')
}

/** Why a capture holds no `{"end": true}`: the run stopped reading the answer before it ended. */
export const NOT_READ_TO_END =
  'the answer was not read to its end: the run stopped reading it (an abort, a limit such as maxAnswerBytes, or the process ended) before the body ended, so the run did not decode it as replayed here; the last item kept may be one the run refused'

/** A JSON value's kind, for an error: `null`, `a number`, `a string`, `an array`, `an object`... */
function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** A value a record holds where another was due, for an error: `null`, `a number 5`, `an object {"a":1}`. */
function got(value: unknown): string {
  return value === null ? 'null' : `${kindOf(value)} ${shown(value)}`
}

/** Checks one parsed line of a capture file (line `n` of `count`), as capture.ts writes it; throws an input error naming the file, the line and what is wrong. */
function checkRecord(at: string, value: unknown, n: number, count: number): CaptureRecord {
  const refuse = (what: string): never => {
    throw inputError(`${at}: not a capture record: ${what}`)
  }
  if (!isObject(value)) return refuse(`a record is a JSON object, got ${got(value)}`)
  const keys = Object.keys(value)
  const known = keys.filter((key) => (RECORD_KEYS as readonly string[]).includes(key))
  const unknown = keys.filter((key) => !(RECORD_KEYS as readonly string[]).includes(key) && !(key === 'wire' && 'answer' in value))
  if (unknown.length > 0) refuse(`unknown key ${shown(unknown[0])} (a record holds one of ${RECORD_KEYS.join(', ')})`)
  if (known.length !== 1) refuse(known.length === 0 ? `it holds none of ${RECORD_KEYS.join(', ')}` : `it holds ${known.join(' and ')}, where a record holds one`)
  const key = known[0] as (typeof RECORD_KEYS)[number]
  const field = value[key]
  if (n === 1 && key !== 'answer') refuse(`the first record is the answer's ({"answer": {...}}), got ${shown(key)}`)
  switch (key) {
    case 'answer': {
      if (n !== 1) refuse('an answer record comes first, and once')
      if (!isObject(field)) refuse(`"answer" is an object { contentType?, status? }, got ${got(field)}`)
      const answer = field as Record<string, unknown>
      for (const inner of Object.keys(answer)) if (inner !== 'contentType' && inner !== 'status') refuse(`"answer" has unknown key ${shown(inner)} (it holds contentType and status)`)
      if (answer.contentType !== undefined && typeof answer.contentType !== 'string') refuse(`"answer.contentType" is a string, got ${got(answer.contentType)}`)
      if (answer.status !== undefined && !(Number.isInteger(answer.status) && (answer.status as number) >= 100 && (answer.status as number) <= 599)) refuse(`"answer.status" is an HTTP status (an integer 100-599), got ${got(answer.status)}`)
      const wire = value.wire
      if (wire !== undefined && (typeof wire !== 'string' || !(WIRES as readonly string[]).includes(wire))) refuse(`"wire" is one of ${WIRES.join(', ')}, got ${got(wire)}`)
      break
    }
    case 'text':
      if (typeof field !== 'string') refuse(`"text" is a string, got ${got(field)}`)
      break
    case 'bytes':
      if (typeof field !== 'string') refuse(`"bytes" is a base64 string, got ${got(field)}`)
      if (!BASE64.test(field as string)) refuse(`"bytes" is not base64 (${(field as string).length} characters)`)
      break
    case 'event':
      break
    case 'end':
      if (field !== true) refuse(`"end" is true, got ${got(field)}`)
      if (n !== count) refuse(`{"end": true} is the last record, and ${count - n} follow it`)
      break
  }
  return value as CaptureRecord
}

/** The records of capture file `file`, each line read and checked as written; a line that is none names its number and what is wrong. */
function captureRecords(file: string): CaptureRecord[] {
  const lines = runFile(file).toString('utf8').split('\n')
  if (lines.at(-1) === '') lines.pop()
  if (lines.length === 0) throw inputError(`${file} is empty: a capture file begins with its answer record ({"answer": {...}})`)
  return lines.map((line, i) => {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw inputError(`${file}:${i + 1}: not a capture record (a run cut while writing it ends with a partial line): ${scrubbed(oneLine(error))}`)
    }
    return checkRecord(`${file}:${i + 1}`, value, i + 1, lines.length)
  })
}

/** One kept answer decoded as its run decoded it, on the wire it names (else `runs`, the wire run.json names); `wire`, when given, must be its own. */
function replayCapture(file: string, index: number, runs: Wire | undefined, wire: Wire | undefined): ResponseReport {
  const records = captureRecords(file)
  const head = records[0] as { answer: AnswerInfo; wire?: Wire }
  const own = head.wire ?? runs
  if (own === undefined) throw inputError(`${file} names no wire, and neither does run.json: only a run() keeps model answers`)
  if (wire !== undefined && wire !== own) throw usageError(`replay: ${file} is an answer on wire ${own}, not ${wire} (leave --wire out for a run directory)`)
  const answer = head.answer
  let items = 0
  let bytes = 0
  let at = 1
  try {
    const decoder = new StreamDecoder(own, answer.contentType === undefined ? {} : { contentType: answer.contentType })
    for (const record of records) {
      at += 1
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
    at = records.length + 1
    let report = reportOf(index, items, bytes, decoder.finish(), own, 'ndjson', [])
    // (no {"end": true}: the run gave the answer up, and decoded less than what is replayed here)
    if (!('end' in records.at(-1)!)) report = { ...report, notReadToEnd: NOT_READ_TO_END, ok: false }
    return own === runs ? report : { ...report, wire: own }
  } catch (error) {
    if (error instanceof CliError) throw error
    throw inputError(`${file}:${Math.max(1, Math.min(at - 1, records.length))}: the decoder refused the record: ${scrubbed(oneLine(error))}`)
  }
}

/**
 * The report of run directory `dir`: each model answer it kept (`audit: { captureBodies: true }`)
 * decoded as the run decoded it, on the wire its capture names (run.json's for a capture that
 * names none); `wire` when given must be each one's.
 */
export function replayRunDir(dir: string, wire: Wire | undefined, progress: Progress): ReplayReport {
  const runs = runWire(dir)
  const files = captureFiles(dir)
  if (files.length === 0) {
    if (runs === undefined) throw inputError(`${dir}/run.json names no wire: only a run() keeps model answers`)
    if (wire !== undefined && wire !== runs) throw usageError(`replay: the run in ${dir} is on wire ${runs}, not ${wire} (leave --wire out for a run directory)`)
    throw inputError(`${dir} keeps no model answers: run with audit: { dir, captureBodies: true } to keep them`)
  }
  if (wire !== undefined && runs !== undefined && wire !== runs) throw usageError(`replay: the run in ${dir} is on wire ${runs}, not ${wire} (leave --wire out for a run directory)`)
  const responses = files.map((name, i) => {
    progress.step(`decoding ${name} (${i + 1}/${files.length})`)
    return replayCapture(path.join(dir, name), i, runs, wire)
  })
  progress.done()
  return { file: dir, wire: runs ?? responses[0]!.wire!, format: 'run', responses, ok: responses.every((r) => r.ok) }
}

/** A call as `replay` reports it, the decoder's message of its error with its secrets replaced (its arguments are the answer's, shown as they are). */
function scrubbedCall(call: AssembledToolCall): CallView {
  const view = callView(call)
  if (view.error !== undefined) view.error = { ...view.error, message: scrubbed(view.error.message) }
  return view
}

/** The report of one decoded response. */
function reportOf(index: number, events: number, bytes: number, turn: AssembledTurn, wire: Wire, format: BodyFormat, framed: FramedEvent[]): ResponseReport {
  const broken = turn.toolCalls.some((c) => !c.complete) || turn.serverToolCalls.some((c) => !c.complete)
  return {
    index,
    events,
    bytes,
    toolCalls: turn.toolCalls.map(scrubbedCall),
    serverToolCalls: turn.serverToolCalls.map(scrubbedCall),
    stopReason: turn.stopReason,
    rawStopReason: turn.rawStopReason,
    text: turn.text,
    thinking: turn.thinking.length,
    usage: turn.usage ? { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens } : undefined,
    // (the decoder's messages quote what the answer holds: their secrets replaced)
    errors: turnErrors(turn).map((error) => ({ ...error, message: scrubbed(error.message) })),
    quirks: findQuirks(wire, format, framed, turn).map((quirk) => ({ ...quirk, detail: scrubbed(quirk.detail) })),
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
    out.push(`Response ${r.index + 1}/${n}${r.wire === undefined ? '' : ` (wire ${r.wire})`}: stop ${r.stopReason} (provider: ${r.rawStopReason ?? 'none'}), ${r.events} events, ${r.bytes} bytes — ${r.ok ? 'OK' : 'BROKEN'}`)
    if (r.notReadToEnd !== undefined) out.push(`  NOT READ TO ITS END: ${r.notReadToEnd}`)
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
