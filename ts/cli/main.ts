// The `toolwire` command line: replay, schema, audit. Exit codes: 0 done, nothing wrong found;
// 1 the input is invalid or unreadable, a call in it is broken, or audit found problems; 2 usage
// error. Errors are one line on stderr, never a stack trace; with --json, stdout also gets
// `{ "ok": false, "error": { "kind", "message", "exitCode" } }`.

import { parseArgs } from './args.js'
import type { CommandIo, OptionSpec, ParsedArgs } from './args.js'
import { Progress } from './progress.js'
import type { ProgressStream } from './progress.js'
import { terminalSafe } from './terminal.js'
import { CliError, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, oneLine, usageError } from './errors.js'
import type * as AuditCommand from './audit.js'
import type * as ReplayCommand from './replay.js'
import type * as SchemaCommand from './schema.js'

export { EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE }

/** A command: the options it takes, and what runs it (returning the exit code). */
interface Command {
  OPTIONS: OptionSpec
  run(parsed: ParsedArgs, io: CommandIo): number
}

// Each command's module is loaded when it runs (`--version` and `--help` load none).
const COMMANDS: Record<string, () => Command> = {
  replay: () => require('./replay.js') as typeof ReplayCommand,
  schema: () => require('./schema.js') as typeof SchemaCommand,
  audit: () => require('./audit.js') as typeof AuditCommand,
}

export const HELP: string = `Usage: toolwire <command> [options]

Commands:
  replay <file> --wire <wire>   decode a captured response body: the calls, whether each is
                                complete, errors, and the provider quirks noticed
                                (wire: openai-chat, openai-responses, anthropic, gemini, mistral;
                                --full prints whole arguments)
  replay <run dir>              the same for each model answer a run kept (audit: { dir,
                                captureBodies: true }), decoded as the run decoded it
  schema <file> --target <t>    a JSON Schema (or a tool definition) normalized for a provider,
                                and what was removed (t: openai, openai-strict, anthropic, gemini,
                                xai, mistral, llamacpp, p0; --json-schema: gemini's full form)
  audit <dir> [--run <id>]      an audit-log run directory: summary and verifyRun findings;
        [--html <out>]          given the audit root, every run under it (--run <id>: that
                                run); --html writes a self-contained HTML timeline of a run

Options for every command:
  --json       machine-readable output on stdout
  --progress   progress on stderr even when it is not a terminal (--quiet: none)
  --help       this text

Exit codes: 0 done; 1 invalid or unreadable input, a broken call, or audit findings;
2 usage error.`

/**
 * The help of one command: its lines of {@link HELP}'s command list (its own line and the
 * indented lines after it), then the options every command takes and the exit codes.
 */
function commandHelp(command: string): string {
  const lines = HELP.split('\n')
  const start = lines.findIndex((line) => line.startsWith(`  ${command} `))
  let end = start + 1
  while (end < lines.length && /^ {3,}\S/.test(lines[end])) end++
  const common = HELP.slice(HELP.indexOf('Options for every command:'))
  return `Usage: toolwire ${command} [options]\n\n${lines.slice(start, end).join('\n')}\n\n${common}`
}

/** Where the CLI writes: streams (default: the process's). */
export interface MainIo {
  stdout?: ProgressStream
  stderr?: ProgressStream
}

/**
 * Runs the CLI with `argv` (without node and the script); returns the exit code. `io`:
 * `{ stdout, stderr }` streams (default: the process's).
 */
export function main(argv: readonly string[], io: MainIo = {}): number {
  const stdout = io.stdout ?? process.stdout
  const stderr = io.stderr ?? process.stderr
  const json = argv.includes('--json')
  // Every line goes through terminalSafe: ids, names and messages from outside are printed too.
  const out = (text: string): unknown => stdout.write(terminalSafe(text.endsWith('\n') ? text : `${text}\n`))
  try {
    const [command, ...rest] = argv
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      ;(command === undefined ? stderr : stdout).write(`${HELP}\n`)
      return command === undefined ? EXIT_USAGE : EXIT_OK
    }
    if (command === '--version' || command === '-v') {
      out((require('../../package.json') as { version: string }).version)
      return EXIT_OK
    }
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
    if (load === undefined) throw usageError(`unknown command "${command}" (commands: ${Object.keys(COMMANDS).join(', ')})`)
    const mod = load()
    if (rest.includes('--help') || rest.includes('-h')) {
      stdout.write(`${commandHelp(command)}\n`)
      return EXIT_OK
    }
    const parsed = parseArgs(rest, mod.OPTIONS, command)
    const progress = Progress.for(parsed.options, stderr)
    try {
      return mod.run(parsed, { out, progress })
    } finally {
      // Before the error line below: a terminal's in-place progress line is cleared, not left with the error appended.
      progress.done()
    }
  } catch (error) {
    const known = error instanceof CliError
    const message = known ? error.message : `internal error: ${oneLine(error)}`
    const exitCode = known ? error.exitCode : EXIT_PROBLEMS
    stderr.write(`toolwire: ${terminalSafe(oneLine(message))}${known && error.kind === 'usage' ? ' (see toolwire --help)' : ''}\n`)
    if (json) out(JSON.stringify({ ok: false, error: { kind: known ? error.kind : 'internal', message, exitCode } }))
    return exitCode
  }
}
