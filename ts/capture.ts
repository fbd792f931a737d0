// The model's answers of a run, kept beside its audit log when `audit.captureBodies` is set, so
// that `toolwire replay <run dir>` decodes exactly what the run received: one file a model call,
// `model-001.ndjson`, `model-002.ndjson`..., each line one record, in the order the run read them:
//   {"answer":{"contentType":...,"status":...}}   first: what the decoder was told of the answer
//   {"text":"..."} | {"bytes":"<base64>"} | {"event":{...}}   each item pushed to the decoder, as
//                                                  pushed (a string, bytes, or an SDK's chunk)
//   {"end":true}                                   last, when the body ended (not aborted or cut)
// Written as read (a line per item, synchronously), so a run that crashes keeps what came before.
// Unlike the audit log, the bodies are not scrubbed: replaying them exactly needs them as they
// were (the README says so where the option is). A capture that cannot be written warns once and
// stops; it never fails the run.

import fs from 'node:fs'
import path from 'node:path'

import { messageOf } from './common.js'

/** The file a model call's answer is kept in: `model-001.ndjson` for the run's first model call. */
export function captureFileName(call: number): string {
  return `model-${String(call).padStart(3, '0')}.ndjson`
}

/** What the decoder is told of a model answer, kept first in its capture file. */
export interface AnswerInfo {
  contentType?: string
  status?: number
}

/** One model answer being kept: its records, written as the run reads them. */
export class AnswerCapture {
  #fd: number | null
  #file: string

  private constructor(fd: number, file: string) {
    this.#fd = fd
    this.#file = file
  }

  /**
   * Starts keeping the answer to model call `call` (1 for the first) in run directory `dir`, with
   * what the decoder is told of it; undefined (and a warning) when the file cannot be made.
   */
  static open(dir: string, call: number, answer: AnswerInfo): AnswerCapture | undefined {
    const file = path.join(dir, captureFileName(call))
    let fd: number
    try {
      // (the run directory exists once its audit log opened; owner-only: the bodies are raw)
      fd = fs.openSync(file, 'w', 0o600)
    } catch (error) {
      warn(file, error)
      return undefined
    }
    const capture = new AnswerCapture(fd, file)
    capture.#write({ answer })
    return capture
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

/** Says that capture file `file` could not be written, and why. */
function warn(file: string, error: unknown): void {
  process.emitWarning(`toolwire: the model's answer could not be kept in ${file} (audit.captureBodies): ${messageOf(error)}; the run goes on`, 'ToolwireWarning')
}

/** One record of a capture file, as {@link AnswerCapture} writes it. */
export type CaptureRecord =
  | { answer: AnswerInfo }
  | { text: string }
  | { bytes: string }
  | { event: unknown }
  | { end: true }
