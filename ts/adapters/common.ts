// What the adapters share: running one call through a runtime on behalf of another library, and
// turning a failed result into the Error those libraries expect a failing tool to throw.

import * as native_ from '../../native.js'
import { describe, checkOptionKeys, own, ownOptions, DISPATCH_OPTIONS, AS_RUNTIME_OPTION } from '../common.js'
import type { ToolRuntime } from '../index.js'
import type { ContentBlock, ErrorCode, TextContent, ToolExecutionEvent, ToolInfo, ToolResult, ToolStatus } from '../types.js'
import { routingUpdates } from './batch.js'
import type { AdapterDispatchOptions, UpdateListener } from './batch.js'

/** The error the adapters throw for a failed result where their library expects a throw. */
export interface ToolwireToolError extends Error {
  name: 'ToolwireToolError'
  /** The result's error code. */
  code: ErrorCode | undefined
  status: ToolStatus
  /** The failed result. */
  result: ToolResult
}

/** Throws a TypeError naming `where` unless `runtime` is a ToolRuntime. */
export function checkRuntime(runtime: ToolRuntime, where: string): void {
  if (runtime === null || typeof runtime !== 'object' || typeof runtime.dispatch !== 'function' || typeof runtime.list !== 'function' || typeof runtime.register !== 'function') {
    throw new TypeError(`${where}: runtime must be a ToolRuntime, got ${describe(runtime)}`)
  }
}

/** The runtime's registered tools, or those named in `names` (each must be registered). */
export function toolsOf(runtime: ToolRuntime, names: string[] | undefined, where: string): ToolInfo[] {
  checkRuntime(runtime, where)
  const all: ToolInfo[] = runtime.list()
  if (names === undefined) return all
  if (!Array.isArray(names)) throw new TypeError(`${where}: options.tools must be an array of tool names, got ${describe(names)}`)
  return names.map((name) => {
    const info = all.find((tool) => tool.name === name)
    if (info === undefined) throw new TypeError(`${where}: options.tools names "${name}", which is not registered`)
    return info
  })
}

/**
 * The `tools` dispatch option of an adapter given `options.tools` (`names`): those of them still
 * registered, so a call to any other tool ends NOT_FOUND in the engine, naming only these (a
 * tool unregistered since is not there, as for any dispatch); `undefined` when every tool is
 * offered.
 */
export function offeredTools(runtime: ToolRuntime, names: string[] | undefined): string[] | undefined {
  if (names === undefined) return undefined
  const registered = new Set(runtime.list().map((tool: ToolInfo) => tool.name))
  return names.filter((name) => registered.has(name))
}

/**
 * An adapter's options as it reads them: their own keys only, each read once (a key inherited
 * from a polluted Object.prototype, such as `tools` or `dispatch`, is not an option: see
 * ownOptions); anything but an object is a TypeError naming it.
 */
export function adapterOptions<O extends object>(options: O, where: string): O {
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: options must be an object, got ${describe(options)}`)
  return ownOptions(options)
}

/** The adapter options' `dispatch` (DispatchOptions without `signal`), checked: its own keys, each read once. */
export function dispatchOptionsOf(options: { dispatch?: AdapterDispatchOptions }, where: string): AdapterDispatchOptions {
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: options must be an object, got ${describe(options)}`)
  const given = own(options, 'dispatch') as AdapterDispatchOptions | undefined
  if (given === undefined) return {}
  if (given === null || typeof given !== 'object') throw new TypeError(`${where}: options.dispatch must be an object, got ${describe(given)}`)
  const dispatch = ownOptions(given)
  checkOptionKeys(`${where}: options.dispatch`, dispatch, DISPATCH_OPTIONS, [AS_RUNTIME_OPTION])
  return dispatch
}

/**
 * The `onEvent` of a dispatch of one call: every event goes to `own` (the dispatch options' own
 * onEvent, if any), and the partial result of each of the call's `tool_execution_update` events to
 * `onUpdate` (routed by position, not by the event's id: see routingUpdates).
 */
export function onEventWithUpdates(own: ((event: ToolExecutionEvent) => void) | undefined, onUpdate: UpdateListener): (event: ToolExecutionEvent) => void {
  return routingUpdates(own, [onUpdate])
}

/** The text blocks of a result's content, joined. */
export function textOfContent(content: unknown): string {
  if (!Array.isArray(content)) return ''
  return (content as unknown[])
    .filter(
      (block): block is TextContent =>
        block !== null && typeof block === 'object' && 'type' in block && block.type === 'text' && 'text' in block && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n')
}

/** The Error a failed result becomes: its message, `code` the error code, `result` the ToolResult. */
export function errorOf(result: ToolResult): ToolwireToolError {
  const text = textOfContent(result.content)
  // Given its name and fields here: the Error becomes a ToolwireToolError.
  const error = new Error(text !== '' ? text : result.error !== undefined ? result.error.message : `Tool "${result.tool}" failed (${result.status})`) as ToolwireToolError
  error.name = 'ToolwireToolError'
  error.code = result.error !== undefined ? result.error.code : undefined
  error.status = result.status
  error.result = result
  return error
}

/**
 * A failed result's content as a model reads it where the message has no error flag the
 * provider passes on: its first non-empty text after `Error: ` (encodeResults' one rule, the
 * engine's markedErrorText), or a marked text first when it has none.
 */
export function markedErrorContent(content: ContentBlock[]): ContentBlock[] {
  const at = content.findIndex((block) => block.type === 'text' && block.text !== '')
  if (at < 0) return [{ type: 'text', text: native_.markedErrorText('') }, ...content]
  return content.map((block, i) => (i === at && block.type === 'text' ? { ...block, text: native_.markedErrorText(block.text) } : block))
}

/**
 * The Error a failed result becomes for a library that hands the thrown error's text to the model
 * as the tool's output (the AI SDK's error-text, sent to OpenAI and Mistral without a flag): errorOf
 * with its message marked as encodeResults marks it, and that message its string form too (the
 * AI SDK 6 reads `error.message`, the AI SDK 7 `error.toString()`, which would otherwise be
 * `ToolwireToolError: Error: ...`).
 */
export function modelFacingErrorOf(result: ToolResult): ToolwireToolError {
  const error = errorOf(result)
  error.message = native_.markedErrorText(error.message)
  Object.defineProperty(error, 'toString', {
    value: function toString(this: Error) {
      return this.message
    },
    writable: true,
    configurable: true,
  })
  return error
}
