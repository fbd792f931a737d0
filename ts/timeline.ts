// A self-contained HTML timeline of an audited run: one row per call, a bar from its start to
// its end colored by status, the call's details shown on hover (and on keyboard focus). No
// script, no external asset: inline CSS only, so the file opens anywhere and can be attached
// to a bug report. Used by `toolwire audit --html`; takes what `replayRun(dir)` returns.

import type { AuditVerification, ToolStatus } from './types.js'

/**
 * What the timeline reads of a replay: what `replayRun(dir)` returns, or a part of it. The
 * records are read as they are: a field missing or of another type counts as absent.
 */
export interface TimelineReplay {
  run?: { runId?: unknown; kind?: unknown; startedAt?: unknown; endedAt?: unknown } | null
  calls?: readonly TimelineCall[] | null
  results?: readonly TimelineResult[] | null
}

/** What the timeline reads of a call record. */
export interface TimelineCall {
  callId?: unknown
  tool?: unknown
  createdAt?: unknown
  ts?: unknown
  attempt?: unknown
  args?: unknown
}

/** What the timeline reads of a result record. */
export interface TimelineResult {
  callId?: unknown
  tool?: unknown
  status?: unknown
  startedAt?: unknown
  endedAt?: unknown
  ts?: unknown
  attempt?: unknown
  error?: { code?: unknown; message?: unknown } | null
  args?: unknown
}

/** One call of the timeline (see {@link timelineRows}). */
export interface TimelineRow {
  callId: string
  tool: unknown
  /** The result's status, `unfinished` when no result was recorded. */
  status: string
  start: number
  end: number
  durationMs: number
  attempts: number
  error: { code: unknown; message: unknown } | null
  args: unknown
  /** Whether a result was recorded. */
  finished: boolean
}

/** A row while its records are read: its times are settled once the run's span is known. */
type RowDraft = Omit<TimelineRow, 'start' | 'end' | 'durationMs'> & {
  start: number | undefined
  end: number | undefined
  durationMs: number | undefined
}

export const STATUS_COLORS: Record<ToolStatus | 'unfinished', string> = {
  ok: '#2e7d32',
  error: '#c62828',
  timeout: '#ef6c00',
  blocked: '#6a1b9a',
  cancelled: '#757575',
  skipped: '#9e9e9e',
  pending: '#1565c0',
  unfinished: '#455a64',
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** The largest time a Date holds, in ms either side of the epoch. */
const MAX_DATE_MS = 8.64e15

/** The ISO text of an epoch-ms time, or undefined when it is not a number a Date can hold. */
export function isoTime(value: unknown): string | undefined {
  const t = num(value)
  return t === undefined || Math.abs(t) > MAX_DATE_MS ? undefined : new Date(t).toISOString()
}

/**
 * The rows of a run, one per call id in the order the calls were recorded: `{ callId, tool,
 * status, start, end, durationMs, attempts, error, args, finished }` (times in epoch ms), and
 * the run's span `{ start, end }`.
 */
export function timelineRows(replay: TimelineReplay): { rows: TimelineRow[]; span: { start: number; end: number } } {
  const run = replay.run ?? {}
  const rows = new Map<string, RowDraft>()
  for (const call of replay.calls ?? []) {
    const id = String(call.callId ?? '')
    let row = rows.get(id)
    if (row === undefined) {
      row = { callId: id, tool: call.tool ?? '', status: 'unfinished', start: num(call.createdAt) ?? num(call.ts), end: undefined, durationMs: undefined, attempts: 0, error: null, args: call.args, finished: false }
      rows.set(id, row)
    }
    row.attempts = Math.max(row.attempts, num(call.attempt) ?? 1)
  }
  for (const result of replay.results ?? []) {
    const id = String(result.callId ?? '')
    let row = rows.get(id)
    if (row === undefined) {
      row = { callId: id, tool: result.tool ?? '', status: 'unfinished', start: undefined, end: undefined, durationMs: undefined, attempts: 0, error: null, args: result.args, finished: false }
      rows.set(id, row)
    }
    const start = num(result.startedAt) ?? num(result.ts)
    if (start !== undefined && (row.start === undefined || start < row.start)) row.start = start
    row.end = num(result.endedAt) ?? num(result.ts) ?? row.end
    row.status = typeof result.status === 'string' ? result.status : 'error'
    row.error = result.error ? { code: result.error.code ?? '', message: result.error.message ?? '' } : null
    row.attempts = Math.max(row.attempts, num(result.attempt) ?? 1)
    row.finished = true
  }
  const list = [...rows.values()]
  // A loop, not Math.min(...times): spreading a run's hundreds of thousands of times overflows the stack.
  let start = num(run.startedAt) ?? Infinity
  let end = num(run.endedAt) ?? -Infinity
  for (const row of list) {
    for (const t of [row.start, row.end]) {
      if (t === undefined) continue
      if (t < start) start = t
      if (t > end) end = t
    }
  }
  const span = Number.isFinite(start) && Number.isFinite(end) ? { start, end } : { start: 0, end: 0 }
  for (const row of list) {
    if (row.start === undefined) row.start = span.start
    if (row.end === undefined || row.end < row.start) row.end = row.finished ? row.start : span.end
    row.durationMs = row.end - row.start
  }
  // (every row's times are set by the loop above)
  return { rows: list as TimelineRow[], span }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const esc = (value: unknown): string => String(value).replace(/[&<>"']/g, (c) => ESCAPES[c])

function ms(value: number): string {
  if (value < 1) return `${value.toFixed(2)} ms`
  if (value < 1000) return `${Math.round(value)} ms`
  return `${(value / 1000).toFixed(2)} s`
}

function argsText(args: unknown): string {
  if (args === undefined) return ''
  let text
  try {
    text = JSON.stringify(args)
  } catch {
    text = String(args)
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

/**
 * The HTML document. `replay`: what `replayRun` returns; `options.problems`: verifyRun's
 * problems, listed under the timeline; `options.title`.
 */
export function renderTimeline(replay: TimelineReplay, options: { problems?: AuditVerification['problems']; title?: string } = {}): string {
  const { rows, span } = timelineRows(replay)
  const run = replay.run ?? {}
  const total = Math.max(span.end - span.start, 0)
  const pct = (t: number): number => (total === 0 ? 0 : ((t - span.start) / total) * 100)
  const counts: Record<string, number> = {}
  for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1
  const title = options.title ?? `toolwire run ${run.runId ?? ''}`.trim()
  const problems = options.problems ?? []

  const rowHtml = rows.map((row) => {
    const left = pct(row.start)
    const width = Math.max(pct(row.end) - left, 0.4)
    const color = (STATUS_COLORS as Record<string, string | undefined>)[row.status] ?? STATUS_COLORS.error
    const details: [string, unknown][] = [
      ['call', row.callId],
      ['tool', row.tool],
      ['status', row.status],
      ['start', `+${ms(row.start - span.start)}`],
      ['end', row.finished ? `+${ms(row.end - span.start)}` : 'no result recorded'],
      ['duration', ms(row.durationMs)],
      ['attempts', String(row.attempts || 1)],
    ]
    if (row.error) details.push(['error', `${row.error.code}: ${row.error.message}`])
    const args = argsText(row.args)
    if (args) details.push(['args', args])
    const tooltip = details.map(([k, v]) => `${k}: ${v}`).join('\n')
    return `<div class="row" tabindex="0" data-call-id="${esc(row.callId)}" data-status="${esc(row.status)}">
<div class="label"><span class="tool">${esc(row.tool)}</span> <span class="id">${esc(row.callId)}</span></div>
<div class="track"><div class="bar status-${esc(row.status)}" style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%;background-color:${color}" title="${esc(tooltip)}"></div></div>
<div class="status">${esc(row.status)} · ${esc(ms(row.durationMs))}</div>
<dl class="details">${details.map(([k, v]) => `<dt>${esc(k)}</dt><dd data-key="${esc(k)}">${esc(v)}</dd>`).join('')}</dl>
</div>`
  })

  const legend = Object.entries(STATUS_COLORS)
    .filter(([status]) => counts[status] !== undefined)
    .map(([status, color]) => `<span class="legend-item" data-status="${status}"><span class="swatch" style="background-color:${color}"></span>${status} ${counts[status]}</span>`)
    .join(' ')

  const problemHtml =
    problems.length === 0
      ? '<p class="verify ok">verifyRun: no problems</p>'
      : `<div class="verify problems"><p>verifyRun: ${problems.length} problem${problems.length === 1 ? '' : 's'}</p><ul>${problems
          .map((p) => `<li data-kind="${esc(p.kind)}">${esc(p.kind)}${p.callId ? ` (${esc(p.callId)})` : ''}: ${esc(p.message)}</li>`)
          .join('')}</ul></div>`

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1b1b1b; background: #fff; }
h1 { font-size: 18px; margin: 0 0 4px; }
.meta { color: #555; margin-bottom: 12px; }
.legend-item { margin-right: 12px; white-space: nowrap; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
.axis { display: grid; grid-template-columns: 260px 1fr 150px; color: #777; font-size: 12px; margin-top: 12px; }
.axis .scale { display: flex; justify-content: space-between; }
.row { display: grid; grid-template-columns: 260px 1fr 150px; align-items: center; position: relative; padding: 3px 0; border-top: 1px solid #eee; outline: none; }
.row:hover, .row:focus { background: #f5f7fa; }
.label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.label .id { color: #777; font-size: 12px; }
.track { position: relative; height: 16px; background: #fafafa; }
.bar { position: absolute; top: 2px; height: 12px; min-width: 2px; border-radius: 3px; }
.status { padding-left: 8px; font-size: 12px; color: #444; }
.details { display: none; position: absolute; z-index: 10; left: 260px; top: 100%; margin: 0; padding: 8px 10px; background: #222; color: #fff; border-radius: 4px; font-size: 12px; max-width: 640px; box-shadow: 0 2px 8px rgba(0,0,0,.3); }
.details dt { float: left; clear: left; width: 70px; color: #bbb; }
.details dd { margin: 0 0 0 76px; word-break: break-all; }
.row:hover .details, .row:focus .details { display: block; }
.verify.ok { color: #2e7d32; }
.verify.problems { color: #c62828; }
</style>
</head>
<body>
<h1>${esc(title)}</h1>
<div class="meta">${esc(run.kind ?? 'run')} · ${rows.length} call${rows.length === 1 ? '' : 's'} · ${esc(ms(total))}${isoTime(run.startedAt) !== undefined ? ` · started ${esc(isoTime(run.startedAt))}` : ''}</div>
<div class="legend">${legend}</div>
<div class="axis"><span>call</span><span class="scale"><span>0</span><span>${esc(ms(total))}</span></span><span></span></div>
<div class="rows">
${rowHtml.join('\n')}
</div>
${problemHtml}
</body>
</html>
`
}
