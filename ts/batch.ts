// A batch: the driver's state of one dispatch (or of one call resumed by resolveApproval), and
// what is done per call with it: events, audit records, the tool's arguments and its signal.

import type { AuditLog, RunAudit } from './audit.js'
import { messageOf, ownOrClass, wellFormed } from './common.js'
import { freshId } from './ids.js'
import type { ReadCall } from './encode-calls.js'
import type { ToolTracing } from './otel.js'
import type { Registrable } from './options.js'
import type { DispatchContext } from './rap.js'
import type { DispatchOptions, ModelToolCall, ToolExecutionEvent, ToolResult } from './types.js'

/** A registered tool as the driver keeps it: its functions, and how to call them. */
export interface RegisteredTool {
  tool: Registrable
  /** Whether each call gets an AbortSignal (unless the tool says `signal: false`). */
  takesSignal: boolean
  /** `MEDIA:<path>` lines of its text are read as images. */
  trustedMedia: boolean
  /** The tool's own `description` (OpenTelemetry spans carry it). */
  description: unknown
  /** toolwire's own tools (remote ones, cancel_subscription) also get the dispatch context. */
  withContext: boolean
  /** A remote tool: unregistering it frees its name in the transport too. */
  remote: boolean
}

/** A tool call running: its signal's controller, and whether it has completed (or was aborted). */
export interface Running {
  controller: AbortController | undefined
  settled: boolean
}

/** The hooks and listener of a dispatch. */
export interface Hooks {
  beforeToolCall?: DispatchOptions['beforeToolCall']
  afterToolCall?: DispatchOptions['afterToolCall']
  onPersist?: DispatchOptions['onPersist']
  onEvent?: (event: ToolExecutionEvent) => void
  /** The partial results of the call at `slot`, for an adapter's own listeners (see {@link updatesBySlot}). */
  onUpdateAt?: SlotUpdates
}

/** Receives the partial result (as its `tool_execution_update` event shows it) of the call at `slot` of a dispatch. */
export type SlotUpdates = (slot: number, partialResult: unknown) => void

/**
 * The adapters' channel for routing partial results by the call's position in the dispatch: an
 * adapter's `onEvent` registered here (by {@link withSlotUpdates}) brings the dispatch a listener
 * told each update with the slot of its call. Events show an id with a secret replaced and one
 * with a lone surrogate repaired, each marked with a digest (see `shownIds`), so an event's
 * `toolCallId` cannot be matched to the adapter's call; its position always can. Internal: a
 * WeakMap keyed by the listener, so no option a caller can see or set carries it.
 */
const slotUpdates = new WeakMap<object, SlotUpdates>()

/** Registers `bySlot` as the slot listener of the dispatches given `onEvent`; returns `onEvent`. */
export function withSlotUpdates<T extends object>(onEvent: T, bySlot: SlotUpdates): T {
  slotUpdates.set(onEvent, bySlot)
  return onEvent
}

/** The slot listener registered with the `onEvent` a dispatch was given, if any (see {@link withSlotUpdates}). */
export function updatesBySlot(onEvent: unknown): SlotUpdates | undefined {
  return typeof onEvent === 'function' ? slotUpdates.get(onEvent) : undefined
}

/** The call's id and tool name as events, spans and the audit log carry them. */
export interface ShownIds {
  toolCallId: string
  toolName: string
}

/** The driver's state of one dispatch. */
export interface Batch {
  /** The calls as dispatch reads them: their own keys, each read once (see readCall). */
  calls: ReadCall[]
  /** The calls as the hooks are given them (`toolCall`): see EncodedCalls. */
  toolCalls: ModelToolCall[]
  hooks: Hooks
  signal: AbortSignal | undefined
  runId: string | undefined
  /** The thread remote tools run in: given, else the run's, else one of this dispatch's own. */
  groupId: string | undefined
  /** Sent with remote calls: the user, and the thread's ancestors from the root down. */
  userId: string | undefined
  threadAncestors: string[] | undefined
  results: (ToolResult | undefined)[]
  /** Per slot: the arguments the tool received (the call's own, parsed for it). */
  args: unknown[]
  /** Per slot: the JSON text of the call's own arguments (the model's, or an object's as the
   * engine read it); undefined for arguments that are not JSON (refused unrun). */
  argumentTexts: (string | undefined)[]
  /** Per slot: the arguments as events and the result show them, parsed from that text apart
   * from the tool's (see {@link recordArgs}). */
  recorded: unknown[]
  /** Per slot: the tool's value as the engine was handed it (a copy for an object), until its result is built. */
  values: unknown[]
  /** Per slot: the call's tool while it runs. */
  running: (Running | undefined)[]
  resolve: (results: ToolResult[]) => void
  reject: (error: unknown) => void
  onAbort: (() => void) | undefined
  maxChars: number
  audit: RunAudit | undefined
  auditLog: AuditLog | undefined
  otel: ToolTracing | undefined
  /** The call was recorded before (a resumed approval joining its run): not again. */
  callRecorded?: boolean
  /** Per slot: the ids events show when the engine scrubbed secrets from them. */
  shownIds?: ShownIds[]
  /** The batch's one `audit_failed` event was emitted. */
  auditFailedSent?: boolean
}

/** Calls the tool's `execute` (in its span's context when traced: see the driver's `run`). */
export function executeTool(
  registered: RegisteredTool,
  call: ReadCall,
  args: unknown,
  signal: AbortSignal | undefined,
  onUpdate: (partialResult: unknown) => void,
  batch: Batch,
): unknown {
  // (its own execute, or its class's: see ownOrClass)
  const method = ownOrClass(registered.tool, 'execute')
  if (!registered.withContext) {
    const execute = method as (id: string, args: unknown, signal: AbortSignal | undefined, onUpdate: (partialResult: unknown) => void) => unknown
    return execute.call(registered.tool, call.id, args, signal, onUpdate)
  }
  const context: DispatchContext = {
    groupId: groupOf(batch),
    runId: batch.runId,
    userId: batch.userId,
    threadAncestors: batch.threadAncestors,
  }
  const execute = method as (id: string, args: unknown, signal: AbortSignal | undefined, onUpdate: (partialResult: unknown) => void, context: DispatchContext) => unknown
  return execute.call(registered.tool, call.id, args, signal, onUpdate, context)
}

/**
 * The call's own arguments as an object: its JSON text parsed for the tool, or the object passed.
 * Arguments of one level (what most tools take) get their record copy (see {@link recordArgs})
 * from the same parse, before anyone holds either: copying one level costs a fraction of parsing
 * the text again.
 */
export function ownArgs(batch: Batch, slot: number): unknown {
  let args = batch.args[slot]
  if (args === undefined) {
    const given = batch.calls[slot]!.arguments
    if (typeof given !== 'string') return (batch.args[slot] = given)
    // (a raw lone surrogate reached the engine as U+FFFD: the tool gets the same)
    args = batch.args[slot] = JSON.parse(wellFormed(given))
    if (batch.recorded[slot] === undefined) batch.recorded[slot] = oneLevelCopy(args)
  }
  return args
}

/**
 * The call's own arguments as its events and its result show them (`null` for arguments that are
 * not JSON): a copy apart from the object the tool gets, so that neither the tool (changing its
 * arguments, writing a credential into them) nor an event listener (masking a field for its log)
 * changes what the other sees, and a result never holds the tool's object.
 */
export function recordArgs(batch: Batch, slot: number): unknown {
  let args = batch.recorded[slot]
  if (args === undefined) {
    // the model's text: parsed for the tool and copied at once (see ownArgs), unless it is deeper
    if (batch.args[slot] === undefined && typeof batch.calls[slot]!.arguments === 'string') {
      try {
        ownArgs(batch, slot)
      } catch {
        // (not JSON: the record is null)
      }
      args = batch.recorded[slot]
      if (args !== undefined) return args
    }
    const text = batch.argumentTexts[slot]
    try {
      args = text === undefined ? null : JSON.parse(wellFormed(text))
    } catch {
      args = null
    }
    batch.recorded[slot] = args
  }
  return args
}

/** A copy of `args` when copying one level copies all of it (a primitive is its own), else undefined. */
function oneLevelCopy(args: unknown): unknown {
  if (args === null || typeof args !== 'object') return args
  if (Array.isArray(args)) return undefined
  const keys = Object.keys(args)
  for (let i = 0; i < keys.length; i++) {
    const value = (args as Record<string, unknown>)[keys[i]!]
    if (value !== null && typeof value === 'object') return undefined
  }
  // (a JSON.parse result: own data properties only; spreading defines `__proto__` as one too)
  return { ...args }
}

/** Aborts a running tool's signal; whatever it returns later is ignored. */
export function abortRunning(batch: Batch, slot: number, reason: string): void {
  const running = batch.running[slot]
  if (running === undefined) return
  running.settled = true
  batch.running[slot] = undefined
  if (running.controller === undefined) return
  const why =
    reason === 'timeout'
      ? new DOMException('The tool call timed out', 'TimeoutError')
      : batch.signal !== undefined && batch.signal.reason !== undefined
        ? batch.signal.reason
        : new DOMException('The tool call was cancelled', 'AbortError')
  running.controller.abort(why)
}

/**
 * The call's id and tool name as events, spans and the audit log carry them: with their secrets
 * replaced when the engine found any (a model can write anything there). Results keep the exact
 * id, which the wires need to pair a result with its call.
 */
export function shownIds(batch: Batch, slot: number, call: ReadCall): ShownIds {
  return batch.shownIds?.[slot] ?? { toolCallId: call.id, toolName: call.name }
}

/**
 * A result whose record did not reach the audit log (it could not be opened, or a write failed)
 * says why in `auditFailed`, and the batch emits one `audit_failed` event: never silent.
 */
export function auditFailure(batch: Batch, slot: number, call: ReadCall, result: ToolResult): void {
  const failure: string | undefined = batch.audit?.failure
  if (failure === undefined) return
  result.auditFailed = failure
  if (batch.auditFailedSent) return
  batch.auditFailedSent = true
  emit(batch, { type: 'audit_failed', ...shownIds(batch, slot, call), runId: batch.runId ?? null, message: failure })
}

/**
 * The batch's audit log failed after some of its calls ended (a flush on the timer, or the one
 * closing the batch, before its results are handed back): the results so far carry it too, and
 * the batch's one `audit_failed` event is emitted if it was not yet.
 */
export function auditFailedLater(batch: Batch): void {
  for (let slot = 0; slot < batch.results.length; slot++) {
    const result = batch.results[slot]
    if (result !== undefined) auditFailure(batch, slot, batch.calls[slot]!, result)
  }
}

/**
 * Delivers a `tool_execution_update` event of the call at `slot`: to `onEvent`, then to the
 * adapter's listener of that slot, if any; a listener that throws is reported, never allowed to
 * break dispatch.
 */
export function emitUpdate(batch: Batch, slot: number, event: ToolExecutionEvent & { type: 'tool_execution_update' }): void {
  emit(batch, event)
  const onUpdateAt = batch.hooks.onUpdateAt
  if (onUpdateAt === undefined) return
  try {
    onUpdateAt(slot, event.partialResult)
  } catch (error) {
    process.emitWarning(`toolwire: onEvent listener threw on ${event.type}: ${messageOf(error)}`, 'ToolwireWarning')
  }
}

/** Delivers an event; a listener that throws is reported, never allowed to break dispatch. */
export function emit(batch: Batch, event: ToolExecutionEvent): void {
  if (batch.audit !== undefined) batch.audit.event(event)
  const onEvent = batch.hooks.onEvent
  if (onEvent === undefined) return
  try {
    onEvent(event)
  } catch (error) {
    process.emitWarning(`toolwire: onEvent listener threw on ${event.type}: ${messageOf(error)}`, 'ToolwireWarning')
  }
}

/** The thread of a batch's remote calls; a dispatch with neither groupId nor runId gets its own. */
export function groupOf(batch: Batch): string {
  if (batch.groupId === undefined) batch.groupId = freshId('dispatch')
  return batch.groupId
}
