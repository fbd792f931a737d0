// OpenTelemetry: one span per tool call, following the GenAI semantic conventions for tool
// execution (span `execute_tool {gen_ai.tool.name}`, kind INTERNAL, `gen_ai.operation.name =
// 'execute_tool'`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type = 'function'`,
// `gen_ai.tool.description` when the tool has one; when the call failed, `error.type` = the
// result's error code and status ERROR with its message).
//
// `@opentelemetry/api` is an optional peer: it is required lazily, once, on the first dispatch.
// Absent, or present with no tracer provider registered, `tracing()` returns undefined and the
// runtime does nothing more for OpenTelemetry than that one check per dispatch.
//
// A span starts with the call's `tool_execution_start` moment and ends with its final result:
// every call of a dispatch gets one, including calls that end before their tool runs (unknown
// tool, invalid arguments, blocked by policy, cancelled): to the agent each is a tool call that
// ended with an error, and its `error.type` says why. The tool's `execute` runs in the span's
// context, so the spans the tool creates are its children; the span itself is a child of the
// context active when `dispatch` was called (a user's agent span, say).
//
// Arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) are opt-in in
// the conventions, as they may hold sensitive data: they are not recorded.

import type * as OtelApi from '@opentelemetry/api'
import type { Attributes, Context, Span, Tracer, TracerProvider } from '@opentelemetry/api'

import type { ErrorCode, ToolResult } from './types.js'

/**
 * `undefined`: not tried yet; `null`: not installed (or unusable). Loaded whenever a
 * {@link ToolTracing} exists (only {@link tracing} makes one), which the functions given one rely
 * on (`api!`).
 */
let api: typeof OtelApi | null | undefined
/** The API's no-op provider: what the global provider delegates to while none is registered. */
let noopProvider: TracerProvider
/** The provider the cached tracer came from, and that tracer. */
let tracerProvider: TracerProvider | undefined
let tracer: Tracer
let version: string

/**
 * The tracing state of one dispatch ({@link tracing}): the tracer, the spans' parent context, and
 * by slot each call's span and the context it is active in.
 */
export interface ToolTracing {
  tracer: Tracer
  parent: Context
  spans: (Span | undefined)[]
  contexts: (Context | undefined)[]
}

function load(): void {
  try {
    api = require('@opentelemetry/api') as typeof OtelApi
    noopProvider = new api.ProxyTracerProvider().getDelegate()
    version = (require('../package.json') as { version: string }).version
  } catch {
    api = null
  }
}

/** Whether `provider` is a no-op one: nothing registered, so every span would be dropped. */
function isNoop(provider: TracerProvider | undefined | null): boolean {
  // another copy of the API has its own no-op instance: its class name tells it too
  return provider === noopProvider || provider === undefined || provider === null || provider.constructor?.name === 'NoopTracerProvider'
}

/**
 * The tracing state of one dispatch of `size` calls, or undefined when there is nothing to trace
 * to (no API, no provider). Captures the active context: the spans' parent.
 */
export function tracing(size: number): ToolTracing | undefined {
  if (api === null) return undefined
  if (api === undefined) {
    load()
    if (api == null) return undefined // (load() set it: the module, or null)
  }
  let provider: TracerProvider & { getDelegate?: () => TracerProvider }
  try {
    provider = api.trace.getTracerProvider()
    if (typeof provider.getDelegate === 'function') provider = provider.getDelegate()
    if (isNoop(provider)) return undefined
    if (provider !== tracerProvider) {
      tracer = provider.getTracer('toolwire', version)
      tracerProvider = provider
    }
    return { tracer, parent: api.context.active(), spans: new Array(size), contexts: new Array(size) }
  } catch {
    return undefined
  }
}

/** Starts the span of the call in `slot` (at its `tool_execution_start` moment). */
export function startToolSpan(otel: ToolTracing, slot: number, call: { id?: unknown; name?: unknown }, description: unknown, runId: unknown): void {
  if (otel.spans[slot] !== undefined) return
  const name = typeof call.name === 'string' ? call.name : ''
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.type': 'function',
  }
  if (typeof call.id === 'string' && call.id !== '') attributes['gen_ai.tool.call.id'] = call.id
  if (typeof description === 'string' && description !== '') attributes['gen_ai.tool.description'] = description
  if (typeof runId === 'string') attributes['toolwire.run.id'] = runId
  try {
    const span = otel.tracer.startSpan(`execute_tool ${name}`, { kind: api!.SpanKind.INTERNAL, attributes }, otel.parent)
    otel.spans[slot] = span
    otel.contexts[slot] = api!.trace.setSpan(otel.parent, span)
  } catch {
    // a faulty SDK never fails a call
  }
}

/** Calls `fn(...args)` with the span of the call in `slot` active (as the tool's `execute` runs). */
export function withToolSpan<A extends unknown[], R>(otel: ToolTracing, slot: number, fn: (...args: A) => R, ...args: A): R {
  const context = otel.contexts[slot]
  if (context === undefined) return fn(...args)
  return api!.context.with(context, fn, undefined, ...args)
}

/** Ends the span of the call in `slot` with its final result. */
export function endToolSpan(otel: ToolTracing, slot: number, result: Pick<ToolResult, 'ok' | 'status' | 'error'> | undefined | null): void {
  const span = otel.spans[slot]
  if (span === undefined) return
  otel.spans[slot] = undefined
  otel.contexts[slot] = undefined
  try {
    if (result !== undefined && result !== null) {
      if (typeof result.status === 'string') span.setAttribute('toolwire.result.status', result.status)
      // a call waiting for approval has not failed: it ends `pending`, and runs (in a span of its
      // own) once resolved
      if (result.ok === false && result.status !== 'pending') {
        const error = result.error
        span.setAttribute('error.type', typeof error?.code === 'string' ? error.code : '_OTHER')
        span.setStatus({ code: api!.SpanStatusCode.ERROR, message: typeof error?.message === 'string' ? error.message : undefined })
      }
    }
    span.end()
  } catch {
    // as above
  }
}

/** Ends the spans still open (an internal fault failed the dispatch before its results). */
export function endOpenToolSpans(otel: ToolTracing, code: ErrorCode, message: string): void {
  for (let slot = 0; slot < otel.spans.length; slot++) {
    if (otel.spans[slot] !== undefined) endToolSpan(otel, slot, { ok: false, status: 'error', error: { code, message } })
  }
}
