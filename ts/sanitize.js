'use strict'
// Sanitization on the JavaScript side: describing content for the engine without copying big
// strings or bytes, and `sanitizeResult` for standalone use.

const { sanitizeResult: nativeSanitizeResult, scrubSecrets: nativeScrubSecrets } = require('../native.js')
const { ToolwireError, native, describe, jsonText } = require('./common.js')

// The per-result budget when none is given (README: maxResultChars), and how far past a cut
// secrets are searched for: the engine's (toolwire_core::sanitize).
const { DEFAULT_MAX_RESULT_CHARS, SECRET_WINDOW } = require('./protocol.generated.js')
/**
 * Strings longer than this are sanitized from their ends instead of crossing whole; budgets
 * over it send long text to the libuv pool.
 */
const LONG_CHARS = 1 << 18

/**
 * Describes content blocks for the engine: `{ blocks }` referring to `texts` and `buffers`.
 * A string much longer than the budget crosses as its two ends only, so copying it costs what is
 * kept, not its length; bytes cross without a copy.
 */
function describeContent(content, maxChars, where) {
  const texts = []
  const buffers = []
  const edge = maxChars + SECRET_WINDOW
  const blocks = content.map((block, index) => {
    if (block === null || typeof block !== 'object') {
      throw new ToolwireError('VALIDATION_ERROR', `${where}: content[${index}] must be a block object, got ${describe(block)}`)
    }
    if (block.type === 'image') {
      if (typeof block.data !== 'string' || typeof block.mimeType !== 'string') {
        throw new ToolwireError('VALIDATION_ERROR', `${where}: content[${index}] is an image block without string data and mimeType`)
      }
      texts.push(block.data)
      return { t: 'i', i: texts.length - 1, m: block.mimeType }
    }
    if (block.type !== 'text') {
      throw new ToolwireError('VALIDATION_ERROR', `${where}: content[${index}] has type ${describe(block.type)}; only "text" and "image" blocks are supported`)
    }
    return describeText(block.text, edge, texts, buffers, `${where}: content[${index}].text`)
  })
  return { blocks, texts, buffers }
}

function describeText(text, edge, texts, buffers, where) {
  if (text instanceof Uint8Array) {
    buffers.push(text)
    return { t: 'b', i: buffers.length - 1 }
  }
  if (text instanceof ArrayBuffer) {
    buffers.push(new Uint8Array(text))
    return { t: 'b', i: buffers.length - 1 }
  }
  if (typeof text !== 'string') {
    throw new ToolwireError('VALIDATION_ERROR', `${where} must be a string or a Uint8Array of UTF-8, got ${describe(text)}`)
  }
  if (text.length > 2 * edge + 1) {
    texts.push(text.slice(0, edge), text.slice(text.length - edge))
    return { t: 'e', h: texts.length - 2, e: texts.length - 1, n: text.length }
  }
  texts.push(text)
  return { t: 's', i: texts.length - 1 }
}

/** The effective per-result budget of a `sanitize` object (validated by the engine). */
function maxCharsOf(...sanitizes) {
  for (const sanitize of sanitizes) {
    if (sanitize && typeof sanitize.maxResultChars === 'number') return sanitize.maxResultChars
  }
  return DEFAULT_MAX_RESULT_CHARS
}

/** How a tool's value is sanitized (see `sanitizeLane`). */
const LANE_INLINE = 0
const LANE_ENDS = 1
const LANE_POOL = 2

/**
 * Where a tool's value is sanitized:
 * - `LANE_INLINE`, small values: with the rest of the call's completion;
 * - `LANE_ENDS`, long strings and bytes: right away, in Rust, from their two ends only, so the
 *   work is bounded by the budget (about half a millisecond at the default 32768 characters),
 *   however long the output; waking a pool thread and coming back costs more than that;
 * - `LANE_POOL`: on the libuv pool, for work that grows with the data: images, the `MEDIA:`
 *   files of a trusted-media tool, and long text under a budget over `LONG_CHARS`.
 */
function sanitizeLane(value, trustedMedia, maxChars) {
  const long = maxChars > LONG_CHARS ? LANE_POOL : LANE_ENDS
  if (typeof value === 'string') return stringLane(value, trustedMedia, long)
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return long
  if (value === null || typeof value !== 'object' || !Array.isArray(value.content)) return LANE_INLINE
  let lane = LANE_INLINE
  for (const block of value.content) {
    if (block === null || typeof block !== 'object') return LANE_INLINE
    if (block.type === 'image') return LANE_POOL
    const text = block.text
    if (text instanceof Uint8Array || text instanceof ArrayBuffer) lane = Math.max(lane, long)
    else if (typeof text === 'string') lane = Math.max(lane, stringLane(text, trustedMedia, long))
    if (lane === LANE_POOL) return lane
  }
  return lane
}

function stringLane(text, trustedMedia, long) {
  if (trustedMedia && text.includes('MEDIA:')) return LANE_POOL
  return text.length > LONG_CHARS ? long : LANE_INLINE
}

/**
 * The content of a tool's value for the ends and pool lanes, and `rest`, its other fields, from which the
 * engine rebuilds the value (undefined for bare text or bytes).
 */
function heavyContent(value) {
  if (typeof value === 'string' || value instanceof Uint8Array || value instanceof ArrayBuffer) {
    return { content: [{ type: 'text', text: value }], rest: undefined }
  }
  const { content, ...rest } = value
  return { content, rest }
}

/**
 * Sanitizes a result synchronously: `{ content, details? }` with text blocks as strings or UTF-8
 * bytes. Returns `{ result, report }`; the caller's objects and buffers are never modified.
 */
function sanitizeResult(result, options = {}) {
  if (result === null || typeof result !== 'object' || !Array.isArray(result.content)) {
    throw new ToolwireError('VALIDATION_ERROR', `sanitizeResult: result must be { content: [...], details? }, got ${describe(result)}`)
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`sanitizeResult: options must be an object, got ${describe(options)}`)
  }
  const { blocks, texts, buffers } = describeContent(result.content, maxCharsOf(options), 'sanitizeResult')
  const description = { blocks }
  if (result.details !== undefined) description.details = result.details
  const json = native(() =>
    nativeSanitizeResult(jsonText('sanitizeResult: result', description), texts, buffers, jsonText('sanitizeResult: options', options)),
  )
  return JSON.parse(json)
}

/**
 * `value` with the secrets of its strings and keys (at any depth) replaced by
 * `[redacted:<kind>]`, using the built-in kinds, or the kinds of `sanitize` (a runtime's option,
 * its custom patterns included) when given: the same walker the engine uses for every value
 * that leaves it. `value` itself when it holds none; `undefined` stays `undefined`.
 */
function scrubSecrets(value, where = 'scrubSecrets: value', sanitize = undefined) {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value
  const options = sanitize === undefined ? '' : jsonText('sanitize', sanitize)
  const scrubbed = native(() => nativeScrubSecrets(jsonText(where, value), options))
  return scrubbed === '' ? value : JSON.parse(scrubbed)
}

module.exports = { sanitizeResult, scrubSecrets, describeContent, sanitizeLane, LANE_INLINE, LANE_POOL, heavyContent, maxCharsOf }
