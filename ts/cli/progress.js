'use strict'
// Progress of long work, on stderr only (stdout stays the command's output, parseable with
// --json). On by default when stderr is a terminal, `--progress` forces it, `--quiet` silences
// it. A terminal gets one line rewritten in place; a pipe or file gets one line per step.

const { terminalSafe } = require('./terminal.js')

class Progress {
  constructor(stream, enabled) {
    this.stream = stream
    this.enabled = enabled
    this.tty = Boolean(stream.isTTY)
    this.open = false
  }

  static for(options, stream = process.stderr) {
    const enabled = options.quiet ? false : options.progress ? true : Boolean(stream.isTTY)
    return new Progress(stream, enabled)
  }

  /** One step: `what` (a sentence without final period). */
  step(what) {
    if (!this.enabled) return
    if (this.tty) {
      this.stream.write(`\r\x1b[2Ktoolwire: ${terminalSafe(what)}`)
      this.open = true
    } else {
      this.stream.write(`toolwire: ${terminalSafe(what)}\n`)
    }
  }

  /** A fraction of a step: written on a terminal only (a pipe would get one line per chunk). */
  fraction(what, done, total) {
    if (!this.enabled || !this.tty || total <= 0) return
    this.stream.write(`\r\x1b[2Ktoolwire: ${terminalSafe(what)} ${Math.floor((done / total) * 100)}%`)
    this.open = true
  }

  /** Ends the in-place line, if any. */
  done() {
    if (this.open) this.stream.write('\r\x1b[2K')
    this.open = false
  }
}

module.exports = { Progress }
