'use strict'
// What the adapters share: running one call through a runtime on behalf of another library, and
// turning a failed result into the Error those libraries expect a failing tool to throw.

const native_ = require('../../native.js')
const { describe, checkOptionKeys, DISPATCH_OPTIONS, AS_RUNTIME_OPTION } = require('../common.js')
const { routingUpdates } = require('./batch.js')

/** Throws a TypeError naming `where` unless `runtime` is a ToolRuntime. */
function checkRuntime(runtime, where) {
  if (runtime === null || typeof runtime !== 'object' || typeof runtime.dispatch !== 'function' || typeof runtime.list !== 'function' || typeof runtime.register !== 'function') {
    throw new TypeError(`${where}: runtime must be a ToolRuntime, got ${describe(runtime)}`)
  }
}

/** The runtime's registered tools, or those named in `names` (each must be registered). */
function toolsOf(runtime, names, where) {
  checkRuntime(runtime, where)
  const all = runtime.list()
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
function offeredTools(runtime, names) {
  if (names === undefined) return undefined
  const registered = new Set(runtime.list().map((tool) => tool.name))
  return names.filter((name) => registered.has(name))
}

/** The adapter options' `dispatch` (DispatchOptions without `signal`), checked. */
function dispatchOptionsOf(options, where) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${where}: options must be an object, got ${describe(options)}`)
  const given = options.dispatch
  if (given === undefined) return {}
  if (given === null || typeof given !== 'object') throw new TypeError(`${where}: options.dispatch must be an object, got ${describe(given)}`)
  checkOptionKeys(`${where}: options.dispatch`, given, DISPATCH_OPTIONS, [AS_RUNTIME_OPTION])
  return given
}

/**
 * Runs one call through `runtime.dispatch` and resolves with its ToolResult. `signal` cancels it;
 * `onUpdate`, when given, receives the partial results the call's `tool_execution_update` events
 * carry. The dispatch options' own `onEvent` still sees every event.
 */
function callTool(runtime, call, signal, onUpdate, dispatchOptions) {
  const options = { ...dispatchOptions }
  if (signal !== undefined && signal !== null) options.signal = signal
  if (onUpdate !== undefined) options.onEvent = onEventWithUpdates(dispatchOptions.onEvent, call.id, onUpdate)
  return runtime.dispatch([call], options).then((results) => results[0])
}

/**
 * An `onEvent` that passes every event to `own` (the dispatch options' own onEvent, if any) and
 * then the partial result of each `tool_execution_update` event of the call `callId` to `onUpdate`.
 */
function onEventWithUpdates(own, callId, onUpdate) {
  return routingUpdates(own, new Map([[callId, onUpdate]]))
}

/** The text blocks of a result's content, joined. */
function textOfContent(content) {
  if (!Array.isArray(content)) return ''
  return content
    .filter((block) => block !== null && typeof block === 'object' && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n')
}

/** The Error a failed result becomes: its message, `code` the error code, `result` the ToolResult. */
function errorOf(result) {
  const text = textOfContent(result.content)
  const error = new Error(text !== '' ? text : result.error !== undefined ? result.error.message : `Tool "${result.tool}" failed (${result.status})`)
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
function markedErrorContent(content) {
  const at = content.findIndex((block) => block.type === 'text' && block.text !== '')
  if (at < 0) return [{ type: 'text', text: native_.markedErrorText('') }, ...content]
  return content.map((block, i) => (i === at ? { ...block, text: native_.markedErrorText(block.text) } : block))
}

/**
 * The Error a failed result becomes for a library that hands the thrown message to the model as
 * the tool's output (the AI SDK's error-text, sent to OpenAI and Mistral without a flag): errorOf
 * with its message marked as encodeResults marks it.
 */
function modelFacingErrorOf(result) {
  const error = errorOf(result)
  error.message = native_.markedErrorText(error.message)
  return error
}

let counter = 0

/** A call id for a call that came without one. */
function freshCallId(prefix) {
  counter = (counter + 1) % 0x100000000
  return `${prefix}_${Date.now().toString(36)}_${counter.toString(36)}`
}

/** Loads an adapter's peer package, saying which to install when it is missing. */
function peer(name, adapter) {
  try {
    return require(name)
  } catch (error) {
    throw missingPeer(name, adapter, error) ?? error
  }
}

/**
 * The Error saying which package to install when `error` is the failure to load the peer package
 * `name` (from require or import), else undefined.
 */
function missingPeer(name, adapter, error) {
  const code = error && error.code
  if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String(error.message).includes(`'${packageOf(name)}`)) {
    const wrapped = new Error(`toolwire/${adapter} needs the package "${packageOf(name)}": install it next to toolwire`)
    wrapped.code = 'MODULE_NOT_FOUND'
    wrapped.cause = error
    return wrapped
  }
  return undefined
}

function packageOf(name) {
  return name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')
}

module.exports = { checkRuntime, toolsOf, offeredTools, dispatchOptionsOf, callTool, onEventWithUpdates, textOfContent, errorOf, markedErrorContent, modelFacingErrorOf, freshCallId, peer, missingPeer }
