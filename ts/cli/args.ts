// A small argv parser: positionals and `--name value` / `--name=value` / boolean `--flag`
// options, checked against each command's declared options (anything else is a usage error).

import { usageError } from './errors.js'
import type { Progress } from './progress.js'

/** Each option a command takes, by name (without `--`), and whether it takes a value. */
export type OptionSpec = Record<string, 'string' | 'boolean'>

/** The options given: a string for each `'string'` option, `true` for each boolean flag given. */
export type ParsedOptions<S extends OptionSpec = OptionSpec> = { -readonly [K in keyof S]?: S[K] extends 'boolean' ? true : string }

/** A command line parsed: its positionals and its options. */
export interface ParsedArgs<S extends OptionSpec = OptionSpec> {
  positionals: string[]
  options: ParsedOptions<S>
}

/** What a command writes to: `out` (stdout, each text a line, made terminal-safe) and its progress (stderr). */
export interface CommandIo {
  out: (text: string) => void
  progress: Progress
}

/**
 * `spec`: { name: 'string' | 'boolean' }. Returns { positionals, options }. `--` ends options.
 */
export function parseArgs<S extends OptionSpec>(argv: readonly string[], spec: S, command: string): ParsedArgs<S> {
  const positionals: string[] = []
  const options: Record<string, string | true> = {}
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=')
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      const type = spec[name]
      if (type === undefined) {
        const known = Object.keys(spec).map((n) => `--${n}`).join(', ')
        throw usageError(`${command}: unknown option --${name} (options: ${known})`)
      }
      if (type === 'boolean') {
        if (eq !== -1) throw usageError(`${command}: --${name} takes no value`)
        options[name] = true
        continue
      }
      let value: string | undefined
      if (eq !== -1) value = arg.slice(eq + 1)
      else {
        value = argv[i + 1]
        i += 1
      }
      if (value === undefined || value === '') throw usageError(`${command}: --${name} needs a value`)
      options[name] = value
      continue
    }
    if (arg.startsWith('-') && arg !== '-') throw usageError(`${command}: unknown option ${arg}`)
    positionals.push(arg)
  }
  // Each name was checked against `spec` and given the type it declares.
  return { positionals, options: options as ParsedOptions<S> }
}
