'use strict'
// The audit log of dispatches, runs and plans: one directory per run under `audit.dir`, written
// by the engine (run.json, calls.jsonl, results.jsonl, events.jsonl, append-only). What is
// recorded is what events carry: arguments scrubbed of secrets, results sanitized and redacted;
// the engine's writer scrubs secrets from every record and from run.json once more, so a plan's
// vars and args or a confirmation request cannot reach the disk raw.

const path = require('node:path')
const { NativeAudit, replayRun: replayRunNative, verifyRun: verifyRunNative } = require('../native.js')
const { ToolwireError, describe, native, jsonText, messageOf } = require('./common.js')

const CALL = 0
const RESULT = 1
const EVENT = 2
const DEFAULT_FLUSH_INTERVAL_MS = 1000

/** Checks an `audit` option: `{ dir, flushIntervalMs? }`; `undefined` when not given. */
function auditOption(where, audit) {
  if (audit === undefined || audit === null) return undefined
  if (typeof audit !== 'object' || Array.isArray(audit)) {
    throw new TypeError(`${where} must be an object { dir, flushIntervalMs? }, got ${describe(audit)}`)
  }
  for (const key of Object.keys(audit)) {
    if (key !== 'dir' && key !== 'flushIntervalMs') {
      throw new ToolwireError('VALIDATION_ERROR', `${where} has unknown key "${key}" (expected dir, flushIntervalMs)`)
    }
  }
  if (typeof audit.dir !== 'string' || audit.dir === '') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}.dir must be a non-empty path, got ${describe(audit.dir)}`)
  }
  const interval = audit.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS
  if (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 0) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}.flushIntervalMs must be a number of milliseconds >= 0, got ${describe(interval)}`)
  }
  return { dir: path.resolve(audit.dir), flushIntervalMs: interval }
}

/** A run id as a directory name: other characters than letters, digits, `.`, `_` and `-` become `_`. */
function directoryName(runId) {
  const name = runId.replace(/[^A-Za-z0-9._-]/g, '_')
  return name === '.' || name === '..' ? `_${name}` : name
}

/** The open run directories of one audit option, shared by the dispatches of a run. */
class AuditLog {
  #options
  #snapshot
  /** the runtime's `sanitize` option as JSON text ('' for none): the engine scrubs every record with it */
  #sanitize
  /** runId -> { native, refs, timer } */
  #open = new Map()

  /**
   * `options`: the checked `audit` option; `snapshot`: what run.json records of the runtime's
   * settings; `sanitize`: the runtime's `sanitize` option, whose secret patterns the engine
   * applies to everything written (run.json included).
   */
  constructor(options, snapshot, sanitize) {
    this.#options = options
    this.#snapshot = snapshot
    this.#sanitize = sanitize === undefined || sanitize === null ? '' : jsonText('audit: the sanitize option', sanitize)
  }

  /**
   * Opens (or joins) run `runId`'s directory; `info` goes into run.json. Returns the run's
   * recorder, or undefined when the directory cannot be written (a warning says why).
   */
  open(runId, info) {
    let entry = this.#open.get(runId)
    if (entry === undefined) {
      const dir = path.join(this.#options.dir, directoryName(runId))
      const run = { runId, startedAt: Date.now(), ...this.#snapshot, ...info }
      let handle
      try {
        handle = native(() => new NativeAudit(dir, jsonText('audit: run.json', run), this.#sanitize))
      } catch (error) {
        process.emitWarning(`toolwire: the audit log of run "${runId}" cannot be written, so it is off: ${messageOf(error)}`, 'ToolwireWarning')
        return undefined
      }
      entry = { native: handle, refs: 0, timer: null, failed: false, runId }
      this.#open.set(runId, entry)
    }
    entry.refs += 1
    return new RunAudit(entry, this.#options.flushIntervalMs)
  }

  /** Leaves the run; the last to leave closes it, merging `update` into run.json. */
  release(recorder, update) {
    const entry = recorder.entry
    entry.refs -= 1
    if (entry.refs > 0) {
      recorder.flush()
      return
    }
    this.#open.delete(entry.runId)
    if (entry.timer !== null) clearTimeout(entry.timer)
    try {
      native(() => entry.native.finish(jsonText('audit: run update', { endedAt: Date.now(), ...update })))
    } catch (error) {
      warn(entry, error)
    }
  }
}

function warn(entry, error) {
  if (entry.failed) return
  entry.failed = true
  process.emitWarning(`toolwire: the audit log of run "${entry.runId}" could not be written: ${messageOf(error)}`, 'ToolwireWarning')
}

/** Records of one run: calls, results and events, in the order they happen. */
class RunAudit {
  constructor(entry, flushIntervalMs) {
    this.entry = entry
    this.interval = flushIntervalMs
  }

  call(record) {
    this.#record(CALL, record)
  }

  result(record) {
    this.#record(RESULT, record)
  }

  event(record) {
    this.#record(EVENT, record)
  }

  flush() {
    const entry = this.entry
    try {
      native(() => entry.native.flush())
    } catch (error) {
      warn(entry, error)
    }
  }

  #record(kind, record) {
    const entry = this.entry
    try {
      native(() => entry.native.record(kind, jsonText('audit: a record', record), this.interval))
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

/**
 * Reads a run directory back: `{ run, calls, results, events, partialLines, ... }`. A final line
 * cut by a crash is counted in `partialLines`, never thrown.
 */
function replayRun(dir) {
  if (typeof dir !== 'string') throw new TypeError(`replayRun: dir must be a string, got ${describe(dir)}`)
  return JSON.parse(native(() => replayRunNative(dir)))
}

/** Checks a run directory's invariants: `{ ok, problems: [{ callId, kind, message }] }`. */
function verifyRun(dir) {
  if (typeof dir !== 'string') throw new TypeError(`verifyRun: dir must be a string, got ${describe(dir)}`)
  return JSON.parse(native(() => verifyRunNative(dir)))
}

module.exports = { AuditLog, auditOption, replayRun, verifyRun }
