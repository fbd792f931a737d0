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
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

/**
 * A lone UTF-16 surrogate (half an emoji, or an id made so): written out it would become U+FFFD,
 * so `a\ud800`, `a\udc00` and `a\ufffd` would print alike; shown as `\uD800` instead.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * An id (a run id, a call id) as the CLI prints it, unambiguously: as run.json's `runIdEscaped`
 * writes one, a backslash as `\\`, and each character terminalSafe escapes (a lone surrogate, a
 * control character) as `\uXXXX`; so `a\ud800` prints `a\uD800` and the literal text
 * `a\uD800` prints `a\\uD800`. Linear.
 */
export function idText(id: unknown): string {
  if (typeof id !== 'string') return terminalSafe(String(id))
  return terminalSafe(id.replace(/\\/g, '\\\\'))
}

/** `\\` or a `\uXXXX` escape (either case of hex digits), as idText writes them. */
const ID_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|\\)/g

/**
 * The ids an id given back to the CLI (a `--run` id) may stand for, most likely first: the id
 * idText printed as `given` (its escapes undone), when there is one and it differs, then `given`
 * as it is (an id typed as it is, `C:\temp`). At most two; linear in the text.
 */
export function idReadings(given: string): string[] {
  const unescaped = given.replace(ID_ESCAPE, (_: string, hex: string | undefined) => (hex === undefined ? '\\' : String.fromCharCode(Number.parseInt(hex, 16))))
  return unescaped !== given && idText(unescaped) === given ? [unescaped, given] : [given]
}
