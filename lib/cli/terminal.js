'use strict'
// What the CLI prints is partly text from outside (call ids and tool names a model sent, tool
// error messages, file contents): a control character in it would reach the user's terminal
// (ESC and OSC sequences retitle it, clear the screen, hide text, write links; CR and backspace
// overwrite a line; bidi overrides reorder what is shown). Every line the CLI writes passes
// through `terminalSafe`, once, where it is written.

/**
 * C0 controls but tab and newline (the CLI's own layout: lines and columns), DEL, C1 controls
 * (U+0080-U+009F: 8-bit CSI, OSC, ...), the bidi embeddings and overrides U+202A-U+202E and the
 * isolates U+2066-U+2069, and the line and paragraph separators U+2028/U+2029.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` with every unsafe character written as its `\uXXXX` escape (visible, and in JSON output
 * a valid escape of the same character, so `--json` output still parses to the same value).
 * Linear in the text.
 */
function terminalSafe(text) {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/**
 * A lone UTF-16 surrogate (half an emoji, or an id made so): written out it would become U+FFFD,
 * so `a\ud800`, `a\udc00` and `a\ufffd` would print alike; shown as `\uD800` instead.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** A `\uXXXX` escape as terminalSafe writes one (either case of hex digits). */
const ESCAPE = /\\u([0-9a-fA-F]{4})/g

/**
 * The texts an id given back to the CLI (a `--run` id) may stand for: `printed` as it is, and
 * `printed` with its `\uXXXX` escapes undone when that text is what terminalSafe prints as
 * `printed` (`a\uD800` is the id a + U+D800, printed so). Only an escape terminalSafe writes
 * is undone (`\u0041` stays six characters). At most two texts, the escaped reading last;
 * linear in the text.
 */
function printedReadings(printed) {
  const readings = [printed]
  const unescaped = printed.replace(ESCAPE, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)))
  if (unescaped !== printed && terminalSafe(unescaped) === printed) readings.push(unescaped)
  return readings
}

module.exports = { terminalSafe, printedReadings }
