'use strict'
// `toolwire audit <dir>`: a run directory of the audit log read back (replayRun), summarized,
// and checked (verifyRun); `--html <out>` also writes the run's timeline (lib/timeline.js).
// Given an audit root (the `audit.dir` of a runtime), it summarizes every run under it, or the
// one `--run <id>` names.

const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs')
const path = require('node:path')
const { auditRunDir, replayRun, verifyRun } = require('../index.js')
const { isoTime, renderTimeline, timelineRows } = require('../timeline.js')
const { usageError, inputError, oneLine, EXIT_OK, EXIT_PROBLEMS } = require('./errors.js')
const { idText, idReadings } = require('./terminal.js')

/** Whether `dir` is a run directory (`'run'`) or an audit root holding runs (their directories). */
function kindOf(dir) {
  let stat
  try {
    stat = statSync(dir)
  } catch (error) {
    throw inputError(`cannot read ${dir}: ${error.code === 'ENOENT' ? 'no such directory' : oneLine(error)}`)
  }
  if (!stat.isDirectory()) throw inputError(`${dir} is not a directory: pass a run directory of the audit log or its root`)
  if (existsSync(path.join(dir, 'run.json'))) return 'run'
  let runs
  try {
    runs = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'run.json')))
      .map((e) => path.join(dir, e.name))
  } catch (error) {
    throw inputError(`cannot read ${dir}: ${oneLine(error)}`)
  }
  if (runs.length === 0) throw inputError(`${dir} is neither a run directory of the audit log (no run.json) nor an audit root holding runs`)
  return runs
}

/** The report of one run directory (and its replay, for the timeline). */
function auditDir(dir, progress) {
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
  out.push(`Run ${r.runId === null ? '(no id)' : idText(r.runId)} (${r.kind ?? 'unknown kind'}) in ${report.dir}`)
  if (r.startedAt !== null) out.push(`  started ${isoTime(r.startedAt)}, ${r.endedAt !== null ? `lasted ${Math.round(report.run.durationMs)} ms` : 'never ended (no endedAt)'}`)
  const s = report.summary
  const statuses = Object.entries(s.byStatus).map(([k, v]) => `${v} ${k}`).join(', ')
  out.push(`  ${s.calls} call${s.calls === 1 ? '' : 's'}${statuses ? ` (${statuses})` : ''}, ${s.results} results, ${s.events} events`)
  if (s.partialLines > 0) out.push(`  ${s.partialLines} final line(s) cut off (a crash while writing)`)
  const failed = report.calls.filter((c) => c.status !== 'ok')
  if (failed.length > 0) {
    out.push('', `Calls not ok (${failed.length}):`)
    for (const c of failed) out.push(`  ${idText(c.callId)} ${c.tool}: ${c.status}${c.error ? ` — ${c.error.code}: ${c.error.message}` : ''}`)
  }
  if (report.malformed.length > 0) {
    out.push('', `Malformed lines (${report.malformed.length}):`)
    for (const m of report.malformed) out.push(`  ${m.file}:${m.line}${m.callId ? ` (${idText(m.callId)})` : ''}: ${m.message}`)
  }
  out.push('', `verifyRun: ${report.problems.length === 0 ? 'no problems' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`}`)
  for (const p of report.problems) out.push(`  ${p.kind}${p.callId ? ` (${idText(p.callId)})` : ''}: ${p.message}`)
  if (report.html) out.push('', `Timeline written to ${report.html}`)
  return out.join('\n')
}

/** The summary of every run under the audit root `root`, oldest first; a run that cannot be read is a problem of its own. */
function auditRoot(root, runDirs, progress) {
  const runs = runDirs.map((dir) => {
    try {
      return auditDir(dir, progress).report
    } catch (error) {
      const problem = { callId: null, kind: 'unreadable_run', message: oneLine(error) }
      return { dir, run: { runId: null, kind: null, startedAt: null, endedAt: null }, summary: null, calls: [], malformed: [], problems: [problem], ok: false }
    }
  })
  const start = (r) => (typeof r.run.startedAt === 'number' ? r.run.startedAt : Infinity)
  runs.sort((a, b) => start(a) - start(b) || (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0))
  const byStatus = {}
  let calls = 0
  for (const r of runs) {
    calls += r.summary?.calls ?? 0
    for (const [status, n] of Object.entries(r.summary?.byStatus ?? {})) byStatus[status] = (byStatus[status] ?? 0) + n
  }
  const failing = runs.filter((r) => !r.ok).length
  return {
    root,
    summary: { runs: runs.length, calls, byStatus, runsWithProblems: failing },
    runs: runs.map(({ dir, run, summary, problems, malformed, ok }) => ({ dir, run, summary, malformed, problems, ok })),
    ok: failing === 0,
  }
}

function formatRoot(report) {
  const s = report.summary
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`
  const out = [`Audit log ${report.root}: ${plural(s.runs, 'run')}, ${plural(s.calls, 'call')}, ${s.runsWithProblems === 0 ? 'no problems' : `${plural(s.runsWithProblems, 'run')} with problems`}`]
  for (const r of report.runs) {
    const where = path.basename(r.dir)
    const id = r.run.runId
    const shown = id === null ? `(no id) in ${where}` : where === id ? idText(id) : `${idText(id)} in ${where}`
    if (r.summary === null) {
      out.push(`  ${shown}: unreadable`)
    } else {
      const statuses = Object.entries(r.summary.byStatus).map(([k, v]) => `${v} ${k}`).join(', ')
      const verdict = r.problems.length === 0 ? 'no problems' : plural(r.problems.length, 'problem')
      out.push(`  ${shown} (${r.run.kind ?? 'unknown kind'}): ${plural(r.summary.calls, 'call')}${statuses ? ` (${statuses})` : ''}, ${verdict}`)
    }
    for (const p of r.problems) out.push(`    ${p.kind}${p.callId ? ` (${idText(p.callId)})` : ''}: ${p.message}`)
    for (const m of r.malformed) out.push(`    malformed ${m.file}:${m.line}${m.callId ? ` (${idText(m.callId)})` : ''}: ${m.message}`)
  }
  return out.join('\n')
}

const OPTIONS = { html: 'string', run: 'string', json: 'boolean', progress: 'boolean', quiet: 'boolean' }

const USAGE = 'toolwire audit <dir> [--run <id>] [--html <out>]'

/**
 * The directory of the run `--run` names under `root`: the id the listing printed as `id` (its
 * `\\` and `\uXXXX` escapes undone, see idText: a lone surrogate or a control character no
 * argument can carry), else the id as given; no run is an input error naming where it looked.
 */
function runDirOf(root, id) {
  const found = idReadings(id).map((reading) => auditRunDir(root, reading)).find((dir) => existsSync(path.join(dir, 'run.json')))
  if (found !== undefined) return found
  throw inputError(`no run "${id}" under ${root} (looked for ${auditRunDir(root, id)})`)
}

function run({ positionals, options }, io) {
  if (positionals.length !== 1) throw usageError(`audit: expected one <dir>, a run directory or the audit root (usage: ${USAGE})`)
  let dir = positionals[0]
  if (options.run !== undefined) {
    if (kindOf(dir) === 'run') throw usageError(`audit: --run picks a run under an audit root, and ${dir} is a run directory: pass its root, or leave --run out`)
    dir = runDirOf(dir, options.run)
  }
  const kind = kindOf(dir)
  if (kind !== 'run') {
    if (options.html !== undefined) throw usageError(`audit: --html draws one run, and ${dir} is an audit root: pass a run directory or --run <id>`)
    const report = auditRoot(dir, kind, io.progress)
    io.progress.done()
    io.out(options.json ? JSON.stringify(report, null, 2) : formatRoot(report))
    return report.ok ? EXIT_OK : EXIT_PROBLEMS
  }
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

module.exports = { OPTIONS, run, auditDir, auditRoot }
