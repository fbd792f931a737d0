// `toolwire audit <dir>`: a run directory of the audit log read back (replayRun), summarized,
// and checked (verifyRun); `--html <out>` also writes the run's timeline (timeline.ts).
// Given an audit root (the `audit.dir` of a runtime), it summarizes every run under it, or the
// one `--run <id>` names.

import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import type { Stats } from 'node:fs'
import path from 'node:path'
import { auditRunDir, replayRun, verifyRun } from '../index.js'
import { isoTime, renderTimeline, timelineRows } from '../timeline.js'
import type { AuditReplay, AuditVerification } from '../types.js'
import type { CommandIo, ParsedArgs } from './args.js'
import { usageError, inputError, oneLine, EXIT_OK, EXIT_PROBLEMS } from './errors.js'
import type { Progress } from './progress.js'
import { idText, idReadings } from './terminal.js'

/** What run.json says of a run, as `audit` reports it (null: not said). */
export interface RunInfo {
  runId: string | null
  kind: string | null
  startedAt: number | null
  endedAt: number | null
}

/** A run's counts: its calls (by status), results, events, and the lines cut off or malformed. */
export interface RunSummary {
  calls: number
  results: number
  events: number
  byStatus: Record<string, number>
  partialLines: number
  malformedLines: number
}

/** A call of a run as `audit` reports it: its times in ms from the run's start. */
export interface AuditCallReport {
  callId: string
  /** As the log holds it (a string, unless the log was written by something else). */
  tool: unknown
  status: string
  startMs: number
  durationMs: number
  attempts: number
  error: { code: unknown; message: unknown } | null
}

/** What `audit` reports of one run directory. */
export interface RunReport {
  dir: string
  run: RunInfo & { durationMs: number }
  summary: RunSummary
  calls: AuditCallReport[]
  malformed: AuditReplay['malformed']
  problems: AuditVerification['problems']
  ok: boolean
  /** Where `--html` wrote the timeline. */
  html?: string
}

/** A run as `audit` reports it in an audit root's listing; `summary` null: the run could not be read. */
export interface RootRunReport {
  dir: string
  run: RunInfo
  summary: RunSummary | null
  malformed: AuditReplay['malformed']
  problems: AuditVerification['problems']
  ok: boolean
}

/** What `audit` reports of an audit root: every run under it. */
export interface RootReport {
  root: string
  summary: { runs: number; calls: number; byStatus: Record<string, number>; runsWithProblems: number }
  runs: RootRunReport[]
  ok: boolean
}

/** Whether `dir` is a run directory (`'run'`) or an audit root holding runs (their directories). */
function kindOf(dir: string): 'run' | string[] {
  let stat: Stats
  try {
    stat = statSync(dir)
  } catch (error) {
    throw inputError(`cannot read ${dir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : oneLine(error)}`)
  }
  if (!stat.isDirectory()) throw inputError(`${dir} is not a directory: pass a run directory of the audit log or its root`)
  if (existsSync(path.join(dir, 'run.json'))) return 'run'
  let runs: string[]
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
export function auditDir(dir: string, progress: Progress): { report: RunReport; replay: AuditReplay } {
  progress.step(`reading run ${dir}`)
  let replay: AuditReplay
  try {
    replay = replayRun(dir)
  } catch (error) {
    throw inputError(`cannot replay ${dir}: ${oneLine(error)}`)
  }
  progress.step(`read ${replay.calls.length} calls, ${replay.results.length} results, ${replay.events.length} events; verifying`)
  const verification: AuditVerification = verifyRun(dir)
  const { rows, span } = timelineRows(replay)
  const byStatus: Record<string, number> = {}
  for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + 1
  // run.json as the engine writes it; its times are checked here.
  const run: { runId?: string; kind?: string; startedAt?: number; endedAt?: number } = replay.run ?? {}
  for (const key of ['startedAt', 'endedAt'] as const) {
    const value = run[key]
    if (value !== undefined && value !== null && isoTime(value) === undefined) {
      throw inputError(`${path.join(dir, 'run.json')}: ${key} ${JSON.stringify(value)} is not a time (milliseconds since the epoch, within a Date's range)`)
    }
  }
  const report: RunReport = {
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

function formatReport(report: RunReport): string {
  const out: string[] = []
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
export function auditRoot(root: string, runDirs: string[], progress: Progress): RootReport {
  const runs = runDirs.map((dir): RootRunReport & { calls: AuditCallReport[] } => {
    try {
      return auditDir(dir, progress).report
    } catch (error) {
      const problem = { callId: null, kind: 'unreadable_run', message: oneLine(error) }
      return { dir, run: { runId: null, kind: null, startedAt: null, endedAt: null }, summary: null, calls: [], malformed: [], problems: [problem], ok: false }
    }
  })
  const start = (r: RootRunReport): number => (typeof r.run.startedAt === 'number' ? r.run.startedAt : Infinity)
  runs.sort((a, b) => start(a) - start(b) || (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0))
  const byStatus: Record<string, number> = {}
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

function formatRoot(report: RootReport): string {
  const s = report.summary
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`
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

export const OPTIONS = { html: 'string', run: 'string', json: 'boolean', progress: 'boolean', quiet: 'boolean' } as const

const USAGE = 'toolwire audit <dir> [--run <id>] [--html <out>]'

/**
 * The directory of the run `--run` names under `root`: the id the listing printed as `id` (its
 * `\\` and `\uXXXX` escapes undone, see idText: a lone surrogate or a control character no
 * argument can carry), else the id as given; no run is an input error naming where it looked.
 */
function runDirOf(root: string, id: string): string {
  const found = idReadings(id).map((reading) => auditRunDir(root, reading)).find((dir) => existsSync(path.join(dir, 'run.json')))
  if (found !== undefined) return found
  throw inputError(`no run "${id}" under ${root} (looked for ${auditRunDir(root, id)})`)
}

export function run({ positionals, options }: ParsedArgs<typeof OPTIONS>, io: CommandIo): number {
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
      throw inputError(`cannot write ${out}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its directory does not exist' : oneLine(error)}`)
    }
    report.html = out
  }
  io.progress.done()
  io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report))
  return report.ok ? EXIT_OK : EXIT_PROBLEMS
}
