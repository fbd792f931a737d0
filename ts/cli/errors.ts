// The CLI's exit codes and the errors that carry them. An error ends the command with one line
// on stderr (no stack trace) and, with --json, `{ ok: false, error }` on stdout.

/** 0: done, nothing wrong found. */
export const EXIT_OK = 0
/** 1: the input is invalid or unreadable, a call in it is broken, or `audit` found problems. */
export const EXIT_PROBLEMS = 1
/** 2: usage error (unknown command or option, missing or bad argument). */
export const EXIT_USAGE = 2

/** What a CliError is about: the command line (`usage`) or what it was given (`input`). */
export type CliErrorKind = 'usage' | 'input'

export class CliError extends Error {
  kind: CliErrorKind
  exitCode: typeof EXIT_PROBLEMS | typeof EXIT_USAGE

  /** `exitCode`: EXIT_PROBLEMS or EXIT_USAGE; `kind`: 'usage' | 'input'. */
  constructor(kind: CliErrorKind, message: string) {
    super(message)
    this.name = 'CliError'
    this.kind = kind
    this.exitCode = kind === 'usage' ? EXIT_USAGE : EXIT_PROBLEMS
  }
}

export const usageError = (message: string): CliError => new CliError('usage', message)
export const inputError = (message: string): CliError => new CliError('input', message)

/** The message of anything thrown, on one line. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/\s*\n\s*/g, ' ').trim()
}
