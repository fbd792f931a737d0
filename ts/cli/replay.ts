// `toolwire replay <file> --wire <wire>`: decodes a captured response body with the engine's
// StreamDecoder, fed the bytes as recorded, and tells what came out: the calls and whether each
// is complete, the decoder's errors, and the provider quirks noticed. A capture holding several
// responses one after another is split and each response decoded on its own.

import { StreamDecoder } from '../index.js'
import { WIRES, checkWire } from '../common.js'
import type { AssembledToolCall, AssembledTurn, StopReason, Wire } from '../types.js'
import type { CommandIo, ParsedArgs } from './args.js'
import { frameBody, splitResponses } from './frames.js'
import type { BodyFormat } from './frames.js'
import type { Progress } from './progress.js'
import { findQuirks, turnErrors } from './quirks.js'
import type { DescribedError, Quirk } from './quirks.js'
import { usageError, inputError, EXIT_OK, EXIT_PROBLEMS } from './errors.js'
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

/** What `replay` reports of a file. */
export interface ReplayReport {
  file: string
  wire: Wire
  format: BodyFormat
  responses: ResponseReport[]
  ok: boolean
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
    const quirks = findQuirks(wire, framed.format, events, turn)
    const broken = turn.toolCalls.some((c) => !c.complete) || turn.serverToolCalls.some((c) => !c.complete)
    return {
      index: i,
      events: events.length,
      bytes: body.length,
      toolCalls: turn.toolCalls.map(callView),
      serverToolCalls: turn.serverToolCalls.map(callView),
      stopReason: turn.stopReason,
      rawStopReason: turn.rawStopReason,
      text: turn.text,
      thinking: turn.thinking.length,
      usage: turn.usage ? { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens } : undefined,
      errors: turnErrors(turn),
      quirks,
      ok: turn.errors.length === 0 && !broken,
    }
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
  out.push(`${report.file}: wire ${report.wire}, ${report.format} body, ${n} response${n === 1 ? '' : 's'}`)
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
  if (positionals.length !== 1) throw usageError('replay: expected one <file> (usage: toolwire replay <file> --wire <wire>)')
  if (options.wire === undefined) throw usageError(`replay: --wire is required (one of ${WIRES.join(', ')})`)
  let wire: Wire
  try {
    // checkWire returns the wire given when it is one of WIRES, and throws otherwise.
    wire = checkWire('replay', options.wire) as Wire
  } catch (error) {
    throw usageError((error as Error).message)
  }
  const report = replayFile(positionals[0], wire, io.progress)
  io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report, { full: options.full }))
  return report.ok ? EXIT_OK : EXIT_PROBLEMS
}
