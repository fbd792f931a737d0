'use strict'
// `toolwire audit <dir>`: a run directory of the audit log read back (replayRun), summarized,
// and checked (verifyRun); `--html <out>` also writes the run's timeline (lib/timeline.js).

const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs')
const path = require('node:path')
const { replayRun, verifyRun } = require('../../index.js')
const { isoTime, renderTimeline, timelineRows } = require('../timeline.js')
const { usageError, inputError, oneLine, EXIT_OK, EXIT_PROBLEMS } = require('./errors.js')

function checkRunDir(dir) {
  let stat
  try {
    stat = statSync(dir)
  } catch (error) {
    throw inputError(`cannot read ${dir}: ${error.code === 'ENOENT' ? 'no such directory' : oneLine(error)}`)
  }
  if (!stat.isDirectory()) throw inputError(`${dir} is not a directory: pass a run directory of the audit log`)
  if (existsSync(path.join(dir, 'run.json'))) return
  let runs = []
  try {
    runs = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'run.json')))
      .map((e) => e.name)
  } catch {
    runs = []
  }
  if (runs.length > 0) {
    const shown = runs.slice(0, 5).join(', ')
    throw inputError(`${dir} is an audit log root holding ${runs.length} run${runs.length === 1 ? '' : 's'} (${shown}${runs.length > 5 ? ', …' : ''}): pass one run directory`)
  }
  throw inputError(`${dir} is not a run directory of the audit log (no run.json)`)
}

function auditDir(dir, progress) {
  checkRunDir(dir)
  progress.step(`reading run ${dir}`)
  let replay
  try {
    replay = replayRun(dir)
  } catch (error) {
    throw inputError(`cannot replay ${dir}: ${oneLine(error)}`)
  }
  progress.step(`read ${replay.calls.length} calls, ${replay.results.length} results, ${replay.events.length} events; verifying`)
  const verification = verifyRun(dir)
  const { rows, span } = timelineRows(replay)
  const byStatus = {}
  for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1
  const run = replay.run ?? {}
  for (const key of ['startedAt', 'endedAt']) {
    const value = run[key]
    if (value !== undefined && value !== null && isoTime(value) === undefined) {
      throw inputError(`${path.join(dir, 'run.json')}: ${key} ${JSON.stringify(value)} is not a time (milliseconds since the epoch, within a Date's range)`)
    }
  }
  const report = {
    dir,
    run: { runId: run.runId ?? null, kind: run.kind ?? null, startedAt: run.startedAt ?? null, endedAt: run.endedAt ?? null, durationMs: span.end - span.start },
    summary: {
      calls: rows.length,
      results: replay.results.length,
      events: replay.events.length,
      byStatus,
      partialLines: replay.partialLines,
      malformedLines: replay.malformed.length,
    },
    calls: rows.map((r) => ({
      callId: r.callId,
      tool: r.tool,
      status: r.status,
      startMs: r.start - span.start,
      durationMs: r.durationMs,
      attempts: r.attempts || 1,
      error: r.error,
    })),
    malformed: replay.malformed,
    problems: verification.problems,
    ok: verification.ok && replay.malformed.length === 0,
  }
  return { report, replay }
}

function formatReport(report) {
  const out = []
  const r = report.run
  out.push(`Run ${r.runId ?? '(no id)'} (${r.kind ?? 'unknown kind'}) in ${report.dir}`)
  if (r.startedAt !== null) out.push(`  started ${isoTime(r.startedAt)}, ${r.endedAt !== null ? `lasted ${Math.round(report.run.durationMs)} ms` : 'never ended (no endedAt)'}`)
  const s = report.summary
  const statuses = Object.entries(s.byStatus).map(([k, v]) => `${v} ${k}`).join(', ')
  out.push(`  ${s.calls} call${s.calls === 1 ? '' : 's'}${statuses ? ` (${statuses})` : ''}, ${s.results} results, ${s.events} events`)
  if (s.partialLines > 0) out.push(`  ${s.partialLines} final line(s) cut off (a crash while writing)`)
  const failed = report.calls.filter((c) => c.status !== 'ok')
  if (failed.length > 0) {
    out.push('', `Calls not ok (${failed.length}):`)
    for (const c of failed) out.push(`  ${c.callId} ${c.tool}: ${c.status}${c.error ? ` — ${c.error.code}: ${c.error.message}` : ''}`)
  }
  if (report.malformed.length > 0) {
    out.push('', `Malformed lines (${report.malformed.length}):`)
    for (const m of report.malformed) out.push(`  ${m.file}:${m.line}${m.callId ? ` (${m.callId})` : ''}: ${m.message}`)
  }
  out.push('', `verifyRun: ${report.problems.length === 0 ? 'no problems' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`}`)
  for (const p of report.problems) out.push(`  ${p.kind}${p.callId ? ` (${p.callId})` : ''}: ${p.message}`)
  if (report.html) out.push('', `Timeline written to ${report.html}`)
  return out.join('\n')
}

const OPTIONS = { html: 'string', json: 'boolean', progress: 'boolean', quiet: 'boolean' }

function run({ positionals, options }, io) {
  if (positionals.length !== 1) throw usageError('audit: expected one <dir>, a run directory (usage: toolwire audit <dir> [--html <out>])')
  const dir = positionals[0]
  const { report, replay } = auditDir(dir, io.progress)
  if (options.html !== undefined) {
    const out = path.resolve(options.html)
    io.progress.step(`writing the timeline of ${report.calls.length} calls to ${out}`)
    const html = renderTimeline(replay, { problems: report.problems })
    try {
      writeFileSync(out, html)
    } catch (error) {
      throw inputError(`cannot write ${out}: ${error.code === 'ENOENT' ? 'its directory does not exist' : oneLine(error)}`)
    }
    report.html = out
  }
  io.progress.done()
  io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report))
  return report.ok ? EXIT_OK : EXIT_PROBLEMS
}

module.exports = { OPTIONS, run, auditDir }
