// The model's answers of a run, kept beside its audit log when `audit.captureBodies` is set, so
// that `toolwire replay <run dir>` decodes exactly what the run received: one file a model call,
// `model-001.ndjson`, `model-002.ndjson`..., numbered on after those the directory holds (a run
// id used again appends to its audit log, and its answers follow the earlier run's, never
// replacing them), each line one record, in the order the run read them:
//   {"answer":{"contentType":...,"status":...},"wire":"..."}   first: what the decoder was told
//                                                  of the answer, and the run's wire
//   {"text":"..."} | {"bytes":"<base64>"} | {"event":{...}}   each item pushed to the decoder, as
//                                                  pushed (a string, bytes, or an SDK's chunk)
//   {"end":true}                                   last, when the body ended (not aborted or cut)
// Written as read (a line per item, synchronously), so a run that crashes keeps what came before.
// Unlike the audit log, the bodies are not scrubbed: replaying them exactly needs them as they
// were (the README says so where the option is), and each file is made as the audit writer makes
// its logs (see run-files.ts): a new file, owner-only, never through a symlink. A capture that
// cannot be written warns once and stops; it never fails the run.

import fs from 'node:fs'
import path from 'node:path'

import { messageOf } from './common.js'
import { createOwnerOnly, replacedSince, type FileIdentity } from './run-files.js'
import type { Wire } from './types.js'

/** The file the `n`th answer kept in a run directory is in: `model-001.ndjson` for the first. */
export function captureFileName(n: number): string {
  return `model-${String(n).padStart(3, '0')}.ndjson`
}

/** A capture file's name, its number the first group. */
export const CAPTURE_FILE = /^model-(\d+)\.ndjson$/

/** The number of capture file `name` (`model-012.ndjson` is 12), else undefined. */
export function captureNumber(name: string): number | undefined {
  const match = CAPTURE_FILE.exec(name)
  return match === null ? undefined : Number(match[1])
}

/**
 * The number the next answer kept in run directory `dir` gets: one past the highest capture
 * file there (a run id used again keeps its earlier answers), 1 when there is none.
 */
export function nextCaptureNumber(dir: string): number {
  let highest = 0
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return 1
  }
  for (const name of names) {
    const n = captureNumber(name)
    if (n !== undefined && Number.isSafeInteger(n) && n > highest) highest = n
  }
  return highest + 1
}

/** How many taken names an answer steps over before its capture gives up (another process keeping answers in the same directory). */
const MAX_TAKEN = 100

/** What the decoder is told of a model answer, kept first in its capture file. */
export interface AnswerInfo {
  contentType?: string
  status?: number
}

/** One model answer being kept: its records, written as the run reads them. */
export class AnswerCapture {
  #fd: number | null
  #file: string
  #identity: FileIdentity
  /** its number in the run directory (`model-<number>.ndjson`) */
  readonly number: number

  private constructor(fd: number, file: string, identity: FileIdentity, number: number) {
    this.#fd = fd
    this.#file = file
    this.#identity = identity
    this.number = number
  }

  /**
   * Starts keeping an answer of a run on `wire` in run directory `dir`, with what the decoder is
   * told of it, as capture file `first` or, when that name is taken (by a file, a directory or a
   * symlink: none is ever written through or replaced), the next free one, at most
   * MAX_TAKEN names stepped over; undefined (and a warning) when no file can be made, or when
   * the number would pass Number.MAX_SAFE_INTEGER (a file planted as `model-9007199254740991.ndjson`):
   * numbers are never stepped past it, and `'numbers-spent'` says so (the run keeps no more).
   */
  static open(dir: string, first: number, wire: Wire, answer: AnswerInfo): AnswerCapture | 'numbers-spent' | undefined {
    // (bounded by attempts, never by `n - first`: past 2^53 `n + 1` is `n` again, and the loop would never end)
    for (let attempt = 0, n = first; ; attempt++, n++) {
      if (!Number.isSafeInteger(n)) {
        warnNumbers(dir, n)
        return 'numbers-spent'
      }
      const file = path.join(dir, captureFileName(n))
      try {
        // (the run directory exists once its audit log opened; owner-only: the bodies are raw)
        const { fd, identity } = createOwnerOnly(file)
        const capture = new AnswerCapture(fd, file, identity, n)
        capture.#write({ answer, wire })
        return capture
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < MAX_TAKEN) continue
        warn(file, error)
        return undefined
      }
    }
  }

  /** Keeps one item the run pushed to the decoder: a string, bytes, or a chunk object. */
  add(item: unknown): void {
    if (typeof item === 'string') this.#write({ text: item })
    else if (item instanceof Uint8Array) this.#write({ bytes: Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('base64') })
    else if (item instanceof ArrayBuffer) this.#write({ bytes: Buffer.from(item).toString('base64') })
    else this.#write({ event: item })
  }

  /** Ends the capture: `ended` when the body ended by itself (not aborted, not given up). */
  close(ended: boolean): void {
    if (ended) this.#write({ end: true })
    if (this.#fd === null) return
    try {
      fs.closeSync(this.#fd)
    } catch (error) {
      warn(this.#file, error)
    }
    this.#fd = null
    // What was written into a file that is no longer at its name reached no one: said, as the audit log says it.
    const replaced = replacedSince(this.#file, this.#identity)
    if (replaced !== undefined) warn(this.#file, new Error(replaced))
  }

  /** Appends one record line; a failure (a full disk, an item with no JSON form) warns once and stops the capture. */
  #write(record: object): void {
    if (this.#fd === null) return
    try {
      fs.writeSync(this.#fd, `${JSON.stringify(record)}\n`)
    } catch (error) {
      warn(this.#file, error)
      try {
        fs.closeSync(this.#fd)
      } catch {
        // (already warned)
      }
      this.#fd = null
    }
  }
}

/** Says that no capture file can be numbered in `dir`: the next number, `n`, is past Number.MAX_SAFE_INTEGER (a file of the directory is numbered so). */
function warnNumbers(dir: string, n: number): void {
  process.emitWarning(
    `toolwire: the model's answer could not be kept in ${dir} (audit.captureBodies): its number, ${n}, is past Number.MAX_SAFE_INTEGER (${Number.MAX_SAFE_INTEGER}: a capture file there is numbered that high): capture is off for this run; the run goes on`,
    'ToolwireWarning',
  )
}

/** Says that capture file `file` could not be written, and why. */
function warn(file: string, error: unknown): void {
  process.emitWarning(`toolwire: the model's answer could not be kept in ${file} (audit.captureBodies): ${messageOf(error)}; the run goes on`, 'ToolwireWarning')
}

/** One record of a capture file, as {@link AnswerCapture} writes it. */
export type CaptureRecord =
  | { answer: AnswerInfo; wire?: Wire }
  | { text: string }
  | { bytes: string }
  | { event: unknown }
  | { end: true }
