// Reading a command's input file, its failure said as an input error (exit 1) in one line.

import { readFileSync } from 'node:fs'
import { inputError, oneLine } from './errors.js'

/** The file's bytes (or text, given an encoding); a missing file or a directory is an input error. */
export function readInput(file: string): Buffer
export function readInput(file: string, encoding: BufferEncoding): string
export function readInput(file: string, encoding?: BufferEncoding): Buffer | string {
  try {
    return readFileSync(file, encoding)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw inputError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : oneLine(error)}`)
  }
}

/** Whether `value`, parsed from the input, is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
