'use strict'
// The CLI's exit codes and the errors that carry them. An error ends the command with one line
// on stderr (no stack trace) and, with --json, `{ ok: false, error }` on stdout.

/** 0: done, nothing wrong found. */
const EXIT_OK = 0
/** 1: the input is invalid or unreadable, a call in it is broken, or `audit` found problems. */
const EXIT_PROBLEMS = 1
/** 2: usage error (unknown command or option, missing or bad argument). */
const EXIT_USAGE = 2

class CliError extends Error {
  /** `exitCode`: EXIT_PROBLEMS or EXIT_USAGE; `kind`: 'usage' | 'input'. */
  constructor(kind, message) {
    super(message)
    this.name = 'CliError'
    this.kind = kind
    this.exitCode = kind === 'usage' ? EXIT_USAGE : EXIT_PROBLEMS
  }
}

const usageError = (message) => new CliError('usage', message)
const inputError = (message) => new CliError('input', message)

/** The message of anything thrown, on one line. */
function oneLine(error) {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/\s*\n\s*/g, ' ').trim()
}

module.exports = { EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError, usageError, inputError, oneLine }
