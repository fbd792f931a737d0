// The audit log of dispatches, runs and plans: one directory per run under `audit.dir`, named by
// the engine one-to-one from the run id (auditDirName: percent-encoded), written by the engine
// (run.json, calls.jsonl, results.jsonl, events.jsonl, append-only). What is recorded is what
// events carry: arguments scrubbed of secrets, results sanitized and redacted; the engine's writer
// scrubs secrets from every record and from run.json once more, so a plan's vars and args or a
// confirmation request cannot reach the disk raw. A call that ran is always recorded: a record
// the engine cannot hold whole is cut and marked, one JavaScript cannot serialize is recorded by
// its plain fields and marked, and verifyRun reports both.

import * as path from 'node:path'
import * as fs from 'node:fs'
import { NativeAudit, auditDirName, replayRun as replayRunNative, verifyRun as verifyRunNative } from '../native.js'
import { ToolwireError, describe, native, jsonText, messageOf, serializeFailure, checkOptionKeys, ownOptions } from './common.js'
import { AnswerCapture, nextCaptureNumber, type AnswerInfo } from './capture.js'
import { wallNow } from './clock.js'
import { notARunFile } from './run-files.js'
import type { AuditOptions, AuditReplay, AuditVerification, SanitizeOptions, Wire } from './types.js'

import { LogFile } from './protocol.generated.js'

const { CALLS: CALL, RESULTS: RESULT, EVENTS: EVENT } = LogFile
const DEFAULT_FLUSH_INTERVAL_MS = 1000

/** The files the engine's writer opens in a run directory (run.json is only ever replaced by a rename). */
const LOG_FILES = ['calls.jsonl', 'results.jsonl', 'events.jsonl'] as const

/** The file a record goes to: a `LogFile` code. */
type LogKind = (typeof LogFile)[keyof typeof LogFile]

/** A checked `audit` option: the root resolved to an absolute path, the flush interval set. */
export interface CheckedAudit {
  dir: string
  flushIntervalMs: number
  /** The model's answers of a run are kept beside its log (see capture.ts). */
  captureBodies: boolean
}

/** What run.json records of a run when it opens: its kind, and what its kind adds (a plan, a wire...). */
export interface RunInfo {
  [key: string]: unknown
  kind: 'dispatch' | 'run' | 'plan'
}

/** Told why a run's log failed (see {@link RunAudit.watch}). */
export type FailureListener = (failure: string) => void

/** The keys of an `audit` option. */
export const AUDIT_OPTIONS: readonly string[] = ['dir', 'flushIntervalMs', 'captureBodies']

/** Checks an `audit` option: `{ dir, flushIntervalMs?, captureBodies? }`; `undefined` when not given. */
export function auditOption(where: string, audit: AuditOptions): CheckedAudit
export function auditOption(where: string, audit: unknown): CheckedAudit | undefined
export function auditOption(where: string, audit: unknown): CheckedAudit | undefined {
  if (audit === undefined || audit === null) return undefined
  if (typeof audit !== 'object' || Array.isArray(audit)) {
    throw new TypeError(`${where} must be an object { dir, flushIntervalMs?, captureBodies? }, got ${describe(audit)}`)
  }
  // (its own keys only, each read once: see ownOptions)
  const option = ownOptions(audit) as { dir?: unknown; flushIntervalMs?: unknown; captureBodies?: unknown }
  checkOptionKeys(where, option, AUDIT_OPTIONS)
  if (typeof option.dir !== 'string' || option.dir === '') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}.dir must be a non-empty path, got ${describe(option.dir)}`)
  }
  const interval = option.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS
  if (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 0) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}.flushIntervalMs must be a number of milliseconds >= 0, got ${describe(interval)}`)
  }
  const captureBodies = option.captureBodies ?? false
  if (typeof captureBodies !== 'boolean') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}.captureBodies must be a boolean, got ${describe(captureBodies)}`)
  }
  const dir = path.resolve(option.dir)
  checkWritableDir(where, dir)
  return { dir, flushIntervalMs: interval, captureBodies }
}

/**
 * Creates the audit root `dir` if need be and checks that a run directory can be made in it:
 * a root that cannot be used (under a regular file, read-only, not a directory) is a
 * VALIDATION_ERROR when the option is given, naming the path and the OS error, never a log that
 * is silently off.
 */
function checkWritableDir(where: string, dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true })
    if (!fs.statSync(dir).isDirectory()) throw new Error('it is not a directory')
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK)
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}.dir ${describe(dir)} cannot hold the audit log: ${messageOf(error)}`)
  }
}

/**
 * The directory of run `runId` under the audit root `root`: one per run id, never shared. The
 * engine names it (auditDirName) from the id's UTF-16 code units, so an id that is not
 * well-formed UTF-16 (a lone surrogate) has a directory of its own too. Run ids map to directories
 * one-to-one: lowercase letters, digits, `-`, `_` and inner dots are kept, every other byte is
 * percent-encoded (`team/a` is `team%2Fa`, `Run` is `%52un`, `..` is `%2E%2E`), a lone surrogate
 * is `~u` and its hex (`a\udc00b` is `a~uDC00b`, apart from `a\ufffdb`, `a%EF%BF%BDb`); an id
 * whose encoding passes 128 bytes is named by its start and SHA-256.
 */
export function auditRunDir(root: string, runId: string): string {
  if (typeof root !== 'string') throw new TypeError(`auditRunDir: root must be a string, got ${describe(root)}`)
  if (typeof runId !== 'string') throw new TypeError(`auditRunDir: runId must be a string, got ${describe(runId)}`)
  return path.join(root, auditDirName(runId))
}

/**
 * The canonical path of run directory `dir` (under `root`), so one directory reached through a
 * symlink and by its real path gets one writer: the root is created when missing (the writer
 * would create it anyway) and resolved; when that fails, `dir` as given.
 */
function canonicalRunDir(root: string, dir: string): string {
  try {
    fs.mkdirSync(root, { recursive: true })
    const real = path.join(fs.realpathSync.native(root), path.basename(dir))
    return fs.existsSync(real) ? fs.realpathSync.native(real) : real
  } catch {
    return dir
  }
}

/** One run directory open in this process, shared by every recorder of the run. */
interface RunEntry {
  /** its writer; null when it could not be opened (the recorder then writes nothing) */
  native: NativeAudit | null
  /** the recorders holding it */
  refs: number
  /** the pending flush of records that arrived after a quiet spell */
  timer: ReturnType<typeof setTimeout> | null
  failed: boolean
  /** why its log is not being written, once it is not */
  failure?: string
  runId: string
  dir: string
  listeners: Set<FailureListener>
  /** the number the next model answer kept here gets (see capture.ts), once one was kept */
  nextCapture?: number
  /** no more model answers are kept here: their numbers would pass Number.MAX_SAFE_INTEGER (said once) */
  capturesOff?: boolean
}

/**
 * The run directories open in this process, by canonical path (symlinks resolved): every writer
 * of one directory is the same, whichever runtime, `audit` option or path to it opened it (two
 * would number their lines apart).
 */
const OPEN = new Map<string, RunEntry>()

/** The run directories of one audit option, shared by the dispatches of a run. */
export class AuditLog {
  #options: CheckedAudit
  #snapshot: object
  /** the runtime's `sanitize` option as JSON text ('' for none): the engine scrubs every record with it */
  #sanitize: string

  /**
   * `options`: the checked `audit` option; `snapshot`: what run.json records of the runtime's
   * settings; `sanitize`: the runtime's `sanitize` option, whose secret patterns the engine
   * applies to everything written (run.json included).
   */
  constructor(options: CheckedAudit, snapshot: object, sanitize: SanitizeOptions | null | undefined) {
    this.#options = options
    this.#snapshot = snapshot
    this.#sanitize = sanitize === undefined || sanitize === null ? '' : jsonText('audit: the sanitize option', sanitize)
  }

  /**
   * Opens (or joins) run `runId`'s directory; `info` goes into run.json. Returns the run's
   * recorder; when the directory cannot be written, one that writes nothing, its `failure`
   * saying why (a warning says so too).
   */
  open(runId: string, info: RunInfo): RunAudit {
    const dir = canonicalRunDir(this.#options.dir, auditRunDir(this.#options.dir, runId))
    let entry = OPEN.get(dir)
    if (entry === undefined) {
      const run = { runId, startedAt: wallNow(), ...this.#snapshot, ...info }
      let handle: NativeAudit
      try {
        // A link planted where a log file goes: the engine's writer would open its target for append.
        const planted = LOG_FILES.map((name) => notARunFile(dir, name)).find((why) => why !== undefined)
        if (planted !== undefined) throw new Error(planted)
        handle = native(() => new NativeAudit(dir, jsonText('audit: run.json', run), this.#sanitize, runId))
      } catch (error) {
        const failure = `the audit log of run "${runId}" cannot be written, so it is off: ${messageOf(error)}`
        process.emitWarning(`toolwire: ${failure}`, 'ToolwireWarning')
        return new RunAudit({ native: null, refs: 1, timer: null, failed: true, failure, runId, dir, listeners: new Set() }, this.#options)
      }
      entry = { native: handle, refs: 0, timer: null, failed: false, runId, dir, listeners: new Set() }
      OPEN.set(dir, entry)
    }
    entry.refs += 1
    return new RunAudit(entry, this.#options)
  }

  /**
   * Leaves the run; the last to leave closes it, merging `update` into run.json. The flush or
   * close is the recorder's last write: a failure there still reaches its `watch` listener.
   */
  release(recorder: RunAudit, update: object): void {
    const entry = recorder.entry
    const handle = entry.native
    if (handle === null) return
    entry.refs -= 1
    if (entry.refs > 0) {
      recorder.flush()
      recorder.unwatch()
      return
    }
    OPEN.delete(entry.dir)
    if (entry.timer !== null) clearTimeout(entry.timer)
    try {
      native(() => handle.finish(jsonText('audit: run update', { endedAt: wallNow(), ...update })))
    } catch (error) {
      warn(entry, error)
    }
    recorder.unwatch()
  }
}

/**
 * The run's log failed (a write or a flush, whenever it happens: on the flush timer after a
 * dispatch resolved, or at its close): it says so once, as a process warning and to every
 * recorder still watching it, which flag their results and emit `audit_failed`.
 */
function warn(entry: RunEntry, error: unknown): void {
  if (entry.failed) return
  entry.failed = true
  entry.failure = `the audit log of run "${entry.runId}" could not be written: ${messageOf(error)}`
  process.emitWarning(`toolwire: ${entry.failure}`, 'ToolwireWarning')
  for (const listener of [...entry.listeners]) {
    try {
      listener(entry.failure)
    } catch (error) {
      process.emitWarning(`toolwire: an audit failure listener threw: ${messageOf(error)}`, 'ToolwireWarning')
    }
  }
}

/** Records of one run: calls, results and events, in the order they happen. */
class RunAudit {
  /** the run directory it records into */
  declare readonly entry: RunEntry
  /** how long records may stay buffered, in milliseconds */
  declare readonly interval: number
  /** whether the model's answers of a run are kept (`audit.captureBodies`) */
  declare readonly captureBodies: boolean
  /** the listener given to `watch`, until released */
  declare listener?: FailureListener

  constructor(entry: RunEntry, options: CheckedAudit) {
    this.entry = entry
    this.interval = options.flushIntervalMs
    this.captureBodies = options.captureBodies
  }

  /**
   * Starts keeping a model answer of the run (on `wire`), when `audit.captureBodies` is set and
   * the run's log is being written; else undefined. Answers are numbered in the order they come,
   * on after the capture files its directory holds (a run id used again appends to its
   * log: its answers are appended too, never replacing the earlier run's).
   */
  captureAnswer(wire: Wire, answer: AnswerInfo): AnswerCapture | undefined {
    const entry = this.entry
    if (!this.captureBodies || entry.failed) return undefined
    entry.nextCapture ??= nextCaptureNumber(entry.dir)
    // (numbers past Number.MAX_SAFE_INTEGER: open warned once, and capture is off for the run)
    if (entry.capturesOff === true) return undefined
    const capture = AnswerCapture.open(entry.dir, entry.nextCapture, wire, answer)
    if (capture === 'numbers-spent') {
      entry.capturesOff = true
      return undefined
    }
    if (capture !== undefined) entry.nextCapture = capture.number + 1
    return capture
  }

  /** Why this run's log is not being written (it could not be opened, or a write failed), else undefined. */
  get failure(): string | undefined {
    return this.entry.failure
  }

  /** Calls `listener(failure)` if the run's log fails while this recorder holds it (until released). */
  watch(listener: FailureListener): void {
    this.unwatch()
    this.listener = listener
    this.entry.listeners.add(listener)
  }

  unwatch(): void {
    if (this.listener !== undefined) this.entry.listeners.delete(this.listener)
    this.listener = undefined
  }

  call(record: object): void {
    this.#record(CALL, record)
  }

  result(record: object): void {
    this.#record(RESULT, record)
  }

  event(record: object): void {
    this.#record(EVENT, record)
  }

  flush(): void {
    const entry = this.entry
    const handle = entry.native
    if (handle === null) return
    try {
      native(() => handle.flush())
    } catch (error) {
      warn(entry, error)
    }
  }

  #record(kind: LogKind, record: object): void {
    const entry = this.entry
    const handle = entry.native
    if (handle === null) return
    try {
      let text: string | undefined
      try {
        text = JSON.stringify(record)
      } catch (error) {
        // A value the tool or hook handed over (a BigInt, a cycle, a throwing toJSON): the
        // record keeps its plain fields and says why the rest is missing.
        const reason = `the record cannot be serialized to JSON: ${serializeFailure(error, record)}`.slice(0, MAX_REASON)
        native(() => handle.recordIncomplete(kind, headOf(record), reason, this.interval, wallNow()))
      }
      if (text !== undefined) native(() => handle.record(kind, text, this.interval, wallNow()))
    } catch (error) {
      warn(entry, error)
      return
    }
    // Records that arrive after a quiet spell are written within the interval, not at the next record.
    if (entry.timer === null) {
      entry.timer = setTimeout(() => {
        entry.timer = null
        this.flush()
      }, Math.max(this.interval, 1))
      entry.timer.unref()
    }
  }
}

export type { RunAudit }

/** The longest reason recorded for a record that could not be serialized. */
const MAX_REASON = 1024

/** The JSON text of a record's top-level strings, numbers, booleans and nulls (its callId, tool, status...). */
function headOf(record: object): string {
  const head: Record<string, string | number | boolean | null> = {}
  try {
    for (const [key, value] of Object.entries(record)) {
      if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number') head[key] = value
    }
  } catch {
    // A getter that throws: keep what was read.
  }
  return JSON.stringify(head)
}

/** Checks the arguments of replayRun and verifyRun: a directory, and a run id under it when given. */
function checkRunArgs(where: string, dir: unknown, runId: unknown): void {
  if (typeof dir !== 'string') throw new TypeError(`${where}: dir must be a string, got ${describe(dir)}`)
  if (runId !== undefined && typeof runId !== 'string') throw new TypeError(`${where}: runId must be a string, got ${describe(runId)}`)
}

/**
 * Reads a run directory back, synchronously: `{ run, calls, results, events, partialLines, ... }`.
 * A final line cut by a crash is counted in `partialLines`, never thrown. `replayRun(dir)` reads
 * the run directory `dir`; `replayRun(root, runId)` the run `runId` under the audit root `root`.
 */
export function replayRun(dir: string, runId?: string): AuditReplay {
  checkRunArgs('replayRun', dir, runId)
  const replay: AuditReplay = JSON.parse(native(() => replayRunNative(runId === undefined ? dir : auditRunDir(dir, runId))))
  const escaped: unknown = replay.run?.runIdEscaped
  if (typeof escaped === 'string') replay.run.runId = unescapedRunId(escaped)
  return replay
}

/**
 * The exact run id run.json keeps in `runIdEscaped` for an id that is not well-formed UTF-16
 * (its `runId` then holds U+FFFD for each lone surrogate): `\uXXXX` is that code unit, `\\` a
 * backslash, any other backslash itself (the engine's escaped_id_utf16 writes it). Linear.
 */
function unescapedRunId(escaped: string): string {
  return escaped.replace(/\\(?:u([0-9a-fA-F]{4})|(\\))/g, (_: string, hex: string | undefined) => (hex === undefined ? '\\' : String.fromCharCode(parseInt(hex, 16))))
}

/**
 * Checks a run directory's invariants: `{ ok, problems: [{ callId, kind, message }] }`; as
 * replayRun, of the directory `dir` or of run `runId` under the audit root `dir`. The invariants:
 * one final result per call, consecutive attempts, results after their calls, argsHash, every
 * record written whole.
 */
export function verifyRun(dir: string, runId?: string): AuditVerification {
  checkRunArgs('verifyRun', dir, runId)
  return JSON.parse(native(() => verifyRunNative(runId === undefined ? dir : auditRunDir(dir, runId))))
}
