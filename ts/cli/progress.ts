// Progress of long work, on stderr only (stdout stays the command's output, parseable with
// --json). On by default when stderr is a terminal, `--progress` forces it, `--quiet` silences
// it. A terminal gets one line rewritten in place; a pipe or file gets one line per step.

import { terminalSafe } from './terminal.js'

/** Where progress goes: a writable stream, maybe a terminal (stderr). */
export interface ProgressStream {
  write(text: string): unknown
  isTTY?: boolean
}

/** The options that choose whether progress is shown (each on when truthy: the flag was given). */
export interface ProgressOptions {
  progress?: unknown
  quiet?: unknown
}

export class Progress {
  stream: ProgressStream
  enabled: boolean
  tty: boolean
  open: boolean

  constructor(stream: ProgressStream, enabled: boolean) {
    this.stream = stream
    this.enabled = enabled
    this.tty = Boolean(stream.isTTY)
    this.open = false
  }

  static for(options: ProgressOptions, stream: ProgressStream = process.stderr): Progress {
    const enabled = options.quiet ? false : options.progress ? true : Boolean(stream.isTTY)
    return new Progress(stream, enabled)
  }

  /** One step: `what` (a sentence without final period). */
  step(what: string): void {
    if (!this.enabled) return
    if (this.tty) {
      this.stream.write(`\r\x1b[2Ktoolwire: ${terminalSafe(what)}`)
      this.open = true
    } else {
      this.stream.write(`toolwire: ${terminalSafe(what)}\n`)
    }
  }

  /** A fraction of a step: written on a terminal only (a pipe would get one line per chunk). */
  fraction(what: string, done: number, total: number): void {
    if (!this.enabled || !this.tty || total <= 0) return
    this.stream.write(`\r\x1b[2Ktoolwire: ${terminalSafe(what)} ${Math.floor((done / total) * 100)}%`)
    this.open = true
  }

  /** Ends the in-place line, if any. */
  done(): void {
    if (this.open) this.stream.write('\r\x1b[2K')
    this.open = false
  }
}
