// Shell command analysis for exec-like tools: analyzeCommand (run in Rust). The JavaScript side
// only fills in the process's defaults (cwd, PATH); the engine checks and names every option.

import { resolve } from 'node:path'

import { analyzeCommand as nativeAnalyzeCommand } from '../native.js'
import { native, describe, jsonText, own, ownOptions } from './common.js'
import type { AnalyzeOptions, CommandAnalysis } from './types.js'

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The PATH the engine searches: `options.env.PATH` when `options.env` is given (no PATH there
 * means an empty one, so nothing is found), else the process's. A value of the wrong type goes
 * through as it is, for the engine to name.
 */
function pathOf(options: { env?: unknown }): unknown {
  if (options.env === undefined) return process.env.PATH ?? ''
  if (!isPlainObject(options.env)) return undefined
  // (its own PATH, as the engine reads the JSON of `env`)
  const path = own(options.env, 'PATH')
  return path === undefined || path === null ? '' : path
}

/**
 * The working directory the command runs in: `options.cwd`, a relative one resolved against
 * `process.cwd()` (as `child_process` resolves a relative `cwd`), else `process.cwd()`. A value
 * of the wrong type goes through as it is, for the engine to name.
 */
function cwdOf(options: { cwd?: unknown }): unknown {
  const cwd = options.cwd
  if (cwd === undefined || cwd === null) return process.cwd()
  return typeof cwd === 'string' ? resolve(process.cwd(), cwd) : cwd
}

/**
 * Decides whether the shell command line `command` may run without asking: `{ approved, reason?,
 * segments }`, one verdict per simple command. `options`: `{ cwd, allowlist, safeBins,
 * trustedDirs, env }`; `cwd` (relative to `process.cwd()`) defaults to `process.cwd()`, PATH to
 * `process.env.PATH`. Programs are found as the shell finds them: PATH in order, its relative
 * entries (`.`, empty, `bin`) in `cwd`.
 */
export function analyzeCommand(command: string, options?: AnalyzeOptions): CommandAnalysis {
  if (typeof command !== 'string') {
    throw new TypeError(`analyzeCommand: command must be a string, got ${describe(command)}`)
  }
  if (options !== undefined && !isPlainObject(options)) {
    throw new TypeError(`analyzeCommand: options must be a plain object, got ${describe(options)}`)
  }
  // (its own keys only, each read once: see ownOptions)
  const given: AnalyzeOptions = ownOptions(options ?? {})
  const path = pathOf(given)
  const engineOptions = {
    ...given,
    cwd: cwdOf(given),
    env: path === undefined ? given.env : { PATH: path },
  }
  const text = jsonText('analyzeCommand: options', engineOptions)
  return JSON.parse(native(() => nativeAnalyzeCommand(command, text))) as CommandAnalysis
}
