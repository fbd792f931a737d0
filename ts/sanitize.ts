// Sanitization on the JavaScript side: describing content for the engine without copying big
// strings or bytes, and `sanitizeResult` for standalone use.

import { sanitizeResult as nativeSanitizeResult, scrubSecrets as nativeScrubSecrets } from '../native.js'
import { ToolwireError, native, describe, jsonText, own, ownOptions } from './common.js'
// The per-result budget when none is given (README: maxResultChars), and how far past a cut
// secrets are searched for: the engine's (toolwire_core::sanitize).
import { DEFAULT_MAX_RESULT_CHARS, DescribedBlock, SECRET_WINDOW, type BlockDescription } from './protocol.generated.js'
import type { ImageContent, SanitizeInput, SanitizeOptions, SanitizeReport, TextContent } from './types.js'

/**
 * Strings longer than this are sanitized from their ends instead of crossing whole; budgets
 * over it send long text to the libuv pool.
 */
const LONG_CHARS = 1 << 18

/**
 * Content blocks described for the engine ({@link describeContent}): each block a tuple as
 * toolwire_core::sanitize::layout declares it (a string, the two ends of a long one, bytes or an
 * image with its mime type), by index into `texts` or `buffers`.
 */
export interface ContentDescription {
  blocks: BlockDescription[]
  texts: string[]
  buffers: Uint8Array[]
}

/**
 * Describes content blocks for the engine: `{ blocks }` referring to `texts` and `buffers`.
 * A string much longer than the budget crosses as its two ends only, so copying it costs what is
 * kept, not its length; bytes cross without a copy.
 */
export function describeContent(content: readonly unknown[], maxChars: number, where: string): ContentDescription {
  const texts: string[] = []
  const buffers: Uint8Array[] = []
  const edge = maxChars + SECRET_WINDOW
  const blocks = content.map((item, index): BlockDescription => {
    if (item === null || typeof item !== 'object') {
      throw new ToolwireError('VALIDATION_ERROR', `${where}: content[${index}] must be a block object, got ${describe(item)}`)
    }
    // (a block's own keys, as the engine reads a block of JSON)
    const type = own(item, 'type')
    if (type === 'image') {
      const data = own(item, 'data')
      const mimeType = own(item, 'mimeType')
      if (typeof data !== 'string' || typeof mimeType !== 'string') {
        throw new ToolwireError('VALIDATION_ERROR', `${where}: content[${index}] is an image block without string data and mimeType`)
      }
      texts.push(data)
      return [DescribedBlock.IMAGE, texts.length - 1, mimeType]
    }
    if (type !== 'text') {
      throw new ToolwireError('VALIDATION_ERROR', `${where}: content[${index}] has type ${describe(type)}; only "text" and "image" blocks are supported`)
    }
    return describeText(own(item, 'text'), edge, texts, buffers, `${where}: content[${index}].text`)
  })
  return { blocks, texts, buffers }
}

function describeText(text: unknown, edge: number, texts: string[], buffers: Uint8Array[], where: string): BlockDescription {
  if (text instanceof Uint8Array) {
    buffers.push(text)
    return [DescribedBlock.BYTES, buffers.length - 1]
  }
  if (text instanceof ArrayBuffer) {
    buffers.push(new Uint8Array(text))
    return [DescribedBlock.BYTES, buffers.length - 1]
  }
  if (typeof text !== 'string') {
    throw new ToolwireError('VALIDATION_ERROR', `${where} must be a string or a Uint8Array of UTF-8, got ${describe(text)}`)
  }
  if (text.length > 2 * edge + 1) {
    texts.push(text.slice(0, edge), text.slice(text.length - edge))
    return [DescribedBlock.ENDS, texts.length - 2, texts.length - 1, text.length]
  }
  texts.push(text)
  return [DescribedBlock.WHOLE, texts.length - 1]
}

/** The effective per-result budget of a `sanitize` object (validated by the engine), its own key as JSON carries it. */
export function maxCharsOf(...sanitizes: (SanitizeOptions | null | undefined)[]): number {
  for (const sanitize of sanitizes) {
    const max = sanitize !== null && typeof sanitize === 'object' ? own(sanitize, 'maxResultChars') : undefined
    if (typeof max === 'number') return max
  }
  return DEFAULT_MAX_RESULT_CHARS
}

/** How a tool's value is sanitized (see `sanitizeLane`). */
export const LANE_INLINE = 0
const LANE_ENDS = 1
export const LANE_POOL = 2

/**
 * Where a tool's value is sanitized:
 * - `LANE_INLINE`, small values: with the rest of the call's completion;
 * - `LANE_ENDS`, long strings and bytes: right away, in Rust, from their two ends only, so the
 *   work is bounded by the budget (about half a millisecond at the default 32768 characters),
 *   however long the output; waking a pool thread and coming back costs more than that;
 * - `LANE_POOL`: on the libuv pool, for work that grows with the data: images, the `MEDIA:`
 *   files of a trusted-media tool, and long text under a budget over `LONG_CHARS`.
 */
export function sanitizeLane(value: unknown, trustedMedia: boolean | undefined, maxChars: number): number {
  const long = maxChars > LONG_CHARS ? LANE_POOL : LANE_ENDS
  if (typeof value === 'string') return stringLane(value, trustedMedia, long)
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return long
  // (the value's own keys, as the engine reads its JSON)
  const content = value !== null && typeof value === 'object' ? own(value, 'content') : undefined
  if (!Array.isArray(content)) return LANE_INLINE
  let lane: number = LANE_INLINE
  for (const block of content as unknown[]) {
    if (block === null || typeof block !== 'object') return LANE_INLINE
    if (own(block, 'type') === 'image') return LANE_POOL
    const text = own(block, 'text')
    if (text instanceof Uint8Array || text instanceof ArrayBuffer) lane = Math.max(lane, long)
    else if (typeof text === 'string') lane = Math.max(lane, stringLane(text, trustedMedia, long))
    if (lane === LANE_POOL) return lane
  }
  return lane
}

function stringLane(text: string, trustedMedia: boolean | undefined, long: number): number {
  if (trustedMedia && text.includes('MEDIA:')) return LANE_POOL
  return text.length > LONG_CHARS ? long : LANE_INLINE
}

/**
 * The content of a tool's value for the ends and pool lanes, and `rest`, its other fields, from which the
 * engine rebuilds the value (undefined for bare text or bytes).
 */
export function heavyContent(value: string | Uint8Array | ArrayBuffer | { content: unknown[]; [key: string]: unknown }): {
  content: unknown[]
  rest: Record<string, unknown> | undefined
} {
  if (typeof value === 'string' || value instanceof Uint8Array || value instanceof ArrayBuffer) {
    return { content: [{ type: 'text', text: value }], rest: undefined }
  }
  // (its own content, which sanitizeLane found; the rest are its own keys too)
  const { content: _content, ...rest } = value
  return { content: own(value, 'content') as unknown[], rest }
}

/**
 * Sanitizes a result synchronously: `{ content, details? }` with text blocks as strings or UTF-8
 * bytes. Returns `{ result, report }`; the caller's objects and buffers are never modified.
 */
export function sanitizeResult(
  result: SanitizeInput,
  options: SanitizeOptions = {},
): { result: { content: (TextContent | ImageContent)[]; details?: unknown }; report: SanitizeReport } {
  // (the result's and the options' own keys, each read once: see ownOptions)
  const content = result !== null && typeof result === 'object' ? own(result, 'content') : undefined
  if (!Array.isArray(content)) {
    throw new ToolwireError('VALIDATION_ERROR', `sanitizeResult: result must be { content: [...], details? }, got ${describe(result)}`)
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`sanitizeResult: options must be an object, got ${describe(options)}`)
  }
  const given = Array.isArray(options) ? options : ownOptions(options)
  const { blocks, texts, buffers } = describeContent(content, maxCharsOf(given), 'sanitizeResult')
  const description: { blocks: BlockDescription[]; details?: unknown } = { blocks }
  const details = own(result, 'details')
  if (details !== undefined) description.details = details
  const json = native(() =>
    nativeSanitizeResult(jsonText('sanitizeResult: result', description), texts, buffers, jsonText('sanitizeResult: options', given)),
  )
  return JSON.parse(json) as { result: { content: (TextContent | ImageContent)[]; details?: unknown }; report: SanitizeReport }
}

/**
 * `value` with the secrets of its strings and keys (at any depth) replaced by
 * `[redacted:<kind>]`, using the built-in kinds, or the kinds of `sanitize` (a runtime's option,
 * its custom patterns included) when given: the same walker the engine uses for every value
 * that leaves it. `value` itself when it holds none; `undefined` stays `undefined`.
 */
export function scrubSecrets<T>(value: T, where = 'scrubSecrets: value', sanitize: SanitizeOptions | undefined = undefined): T {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value
  const options = sanitize === undefined ? '' : jsonText('sanitize', sanitize)
  const scrubbed = native(() => nativeScrubSecrets(jsonText(where, value), options))
  return scrubbed === '' ? value : (JSON.parse(scrubbed) as T)
}
