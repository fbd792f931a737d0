// The driver: performs the engine's actions in order. The engine decides what runs, when, with
// which arguments, and what comes back; the driver keeps only what cannot cross the boundary
// (the tools' and hooks' functions, AbortControllers, the one timer). Every crossing carries
// JSON text for many calls at once: completions are collected per microtask and sent as one
// batch, with the clock JavaScript sees (`performance.now()`, `Date.now()`).

import { types } from 'node:util'
import type * as Native from '../native.js'
import {
  abortRunning,
  auditFailedLater,
  auditFailure,
  emit,
  emitUpdate,
  executeTool,
  ownArgs,
  recordArgs,
  shownIds,
  type Batch,
  type RegisteredTool,
  type Running,
} from './batch.js'
import { ONCE, ToolwireError, engineError, messageOf, ownOrClass, native, own, ownOptions, plainObject, nonFiniteNumber, safeString, serializeFailure, stringifyChecked, stringifyKeeping, carriedAsIs } from './common.js'
import {
  KEEPING_ALL,
  PARTIAL_REPLACER,
  answerJson,
  beforeAnswerJson,
  blockOf,
  bytesAsText,
  messageJson,
  notRetryable,
  soleText,
  thrown,
  unserializable,
  type CompletionKind,
  type CompletionOf,
} from './completion.js'
import type { EncodedCalls, ReadCall } from './encode-calls.js'
import { MAX_TIMER_MS, monotonicNow, wallNow } from './clock.js'
import { Numbers } from './numbers.js'
import { endOpenToolSpans, endToolSpan, startToolSpan, withToolSpan } from './otel.js'
import {
  Action,
  Completion,
  JOINED_SEPARATOR,
  MAX_BATCH_ID,
  type AfterHookAction,
  type ApprovalAction,
  type BeforeHookAction,
  type ConcurrencyKeyAction,
  type EngineAction,
  type PersistHookAction,
  type RunToolAction,
} from './protocol.generated.js'
import { callRecord, resultAsReturned, trimResult, viewOf } from './results.js'
import { LANE_INLINE, LANE_POOL, describeContent, heavyContent, sanitizeLane } from './sanitize.js'
import type { ApprovalRequest, ShownToolResult, ToolResult } from './types.js'

/** What schedules the flush of completions: a settled promise's reaction is a microtask no fake
 * timer library replaces (sinon's default install fakes `queueMicrotask`). */
const SETTLED = Promise.resolve()

/** Whether a value is a native promise (read without running any code of the value's). */
const isPromise = types.isPromise

/** The `onUpdate` of a dispatch without an event listener. */
const ignoreUpdate = (): void => {}

/** An action that waits for its completion: its `[code, batch, slot, token]` head. */
type AwaitedAction = BeforeHookAction | ConcurrencyKeyAction | RunToolAction | AfterHookAction | PersistHookAction | ApprovalAction

/** What the driver asks of the runtime that owns it. */
export interface DriverHost {
  /** The tool registered under `id`. */
  registered(id: number): RegisteredTool | undefined
  /** The tool registered under `name`. */
  registeredNamed(name: string): RegisteredTool | undefined
  /** Asks `approvals.onApproval` (the engine asks only when there is one). */
  askApproval(request: ApprovalRequest): unknown
  /** A call ended `pending`: keep its thread for `resolveApproval`. */
  rememberThread(batch: Batch, result: ToolResult): void
}

/** What the driver's one timer holds: the driver itself while a deadline is pending, else weakly. */
interface TimerTarget {
  armed: Driver | null
  idle: WeakRef<Driver>
  /** Which timer is the driver's: one that fires after another was set in its place is not */
  generation: number
}

/** A Node timer: it can stop and start keeping the process alive. */
interface Refable {
  ref(): unknown
  unref(): unknown
}

/** Concurrency-key completions computed while performing actions, sent right after them. */
interface Keys {
  /** COMPLETION_HEAD_LEN numbers each: batch, slot, token, kind, payload length */
  heads: number[]
  payloads: string[]
}

/** Performs the engine's actions for the batches of one runtime. */
export class Driver {
  #native: Native.NativeRuntime
  #host: DriverHost
  /** batch id -> batch state */
  #batches = new Map<number, Batch>()
  #nextBatch = 1
  /** heads of the completions waiting for the next flush, COMPLETION_HEAD_LEN numbers each:
   * batch, slot, token, kind, payload length (UTF-16 units) */
  #queue = new Numbers()
  /** their clock readings, COMPLETION_READINGS_LEN each: when a tool started and settled */
  #readings = new Numbers((length) => new Float64Array(length))
  /** the numbers of any other crossing (argument lengths, concurrency-key heads) */
  #scratch = new Numbers()
  /** the readings of the concurrency-key completions (none: NaN) */
  #scratchReadings = new Numbers((length) => new Float64Array(length))
  /** their payloads (JSON text), in the same order */
  #payloads: string[] = []
  #flushScheduled = false
  /** The one timer (see {@link Driver.#arm}), or null */
  #timer: ReturnType<typeof setTimeout> | null = null
  /** The `setTimeout` that set it: a timer of fake timers since uninstalled never fires */
  #timerSetBy: typeof setTimeout | null = null
  /** When it fires, on `performance.now()`'s clock */
  #timerDue = 0
  /** What the timer holds (see {@link Driver.#arm}) */
  #timerTarget: TimerTarget = { armed: null, idle: new WeakRef(this), generation: 0 }
  /** The signals of the calls started by the answer being performed (see {@link Driver.#signalFor}) */
  #signalGroups: Map<Batch, Map<number, AbortController>> | null = null

  constructor(nativeRuntime: Native.NativeRuntime, host: DriverHost) {
    this.#native = nativeRuntime
    this.#host = host
  }

  /** A fresh batch id (ids cross as u32, wrapping round). */
  nextBatchId(): number {
    const id = this.#nextBatch
    this.#nextBatch = id === MAX_BATCH_ID ? 1 : id + 1
    return id
  }

  /**
   * Opens batch `id` in the engine with its calls (`encoded`: see encode-calls.ts) and
   * `engineOptions` (JSON text), and performs what it answers. A refusal of the engine throws,
   * the batch closed.
   */
  open(id: number, batch: Batch, encoded: EncodedCalls, engineOptions: string): void {
    this.#batches.set(id, batch)
    batch.audit?.watch(() => auditFailedLater(batch))
    const signal = batch.signal
    if (signal !== undefined && !signal.aborted) {
      batch.onAbort = () => this.#drive(() => this.#native.cancel(id, monotonicNow(), wallNow()))
      signal.addEventListener('abort', batch.onAbort, ONCE)
    }
    let actions: string
    try {
      const lengths = this.#scratch
      for (const length of encoded.lengths) lengths.push(length)
      actions = native(() => this.#native.open(id, encoded.meta, encoded.texts, lengths.take(), engineOptions, monotonicNow(), wallNow()))
    } catch (error) {
      this.#closeBatch(id, batch)
      throw error
    }
    this.#drive(() => actions)
  }

  /** Resumes a call that waited for approval as batch `id`: performs the engine's `actions` for it. */
  resume(id: number, batch: Batch, actions: EngineAction[]): void {
    this.#batches.set(id, batch)
    batch.audit?.watch(() => auditFailedLater(batch))
    this.#drive(() => JSON.stringify(actions))
  }

  /** Runs the engine step `step` and performs the actions it returns; a fault fails every batch. */
  #drive(step: () => string): void {
    let text: string
    try {
      text = native(step)
    } catch (error) {
      this.#fail(error)
      return
    }
    let keys: Keys
    try {
      keys = this.#perform(JSON.parse(text) as EngineAction[])
    } catch (error) {
      // Only a bug of ours gets here (user code is always wrapped): fail, never hang.
      this.#fail(new ToolwireError('INTERNAL_ERROR', `toolwire internal error (a bug; please report it): ${messageOf(error)}`))
      return
    }
    if (keys.payloads.length > 0) {
      const heads = this.#scratch
      const readings = this.#scratchReadings
      for (const head of keys.heads) heads.push(head)
      for (let i = 0; i < keys.payloads.length; i++) {
        readings.push(Number.NaN)
        readings.push(Number.NaN)
      }
      this.#drive(() => this.#native.complete(heads.take(), readings.take(), keys.payloads.join(JOINED_SEPARATOR), monotonicNow(), wallNow()))
    }
  }

  /** Performs actions in order; returns the concurrency-key completions computed on the way. */
  #perform(actions: EngineAction[]): Keys {
    const keys: Keys = { heads: [], payloads: [] }
    this.#signalGroups = null
    try {
      this.#performAll(actions, keys)
    } finally {
      // (the groups hold their batches: none is kept past the answer)
      this.#signalGroups = null
    }
    return keys
  }

  /** {@link Driver.#perform}'s loop. */
  #performAll(actions: EngineAction[], keys: Keys): void {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!
      if (action[0] === Action.TIMER) {
        this.#arm(action[1])
        continue
      }
      const batch = this.#batches.get(action[1])
      if (batch === undefined) continue
      if (action[0] === Action.BATCH_DONE) {
        this.#closeBatch(action[1], batch)
        batch.resolve(batch.results as ToolResult[])
        continue
      }
      const slot = action[2]
      const call = batch.calls[slot]!
      switch (action[0]) {
        case Action.START_EVENT: {
          const args = action.length > 3 ? action[3] : recordArgs(batch, slot)
          if (action[4] !== undefined && action[4] !== null) (batch.shownIds ??= [])[slot] = { toolCallId: action[4], toolName: action[5] as string }
          const shown = shownIds(batch, slot, call)
          // action[6]: the engine marks a call repeating an earlier call's id (refused unrun):
          // the audit log, which matches results to calls by id, records only the first
          if (batch.audit !== undefined && !batch.callRecorded && action[6] === undefined) batch.audit.call(callRecord(batch, call, args, shown.toolCallId))
          if (batch.otel !== undefined) {
            const description = this.#host.registeredNamed(call.name)?.description
            startToolSpan(batch.otel, slot, { id: shown.toolCallId, name: shown.toolName }, description, batch.runId)
          }
          emit(batch, { type: 'tool_execution_start', ...shown, args })
          break
        }
        case Action.BEFORE_HOOK: {
          const [, , , , args, toolCall] = action
          this.#hook(action, Completion.BEFORE_ANSWERED, Completion.BEFORE_FAILED, () => batch.hooks.beforeToolCall!({ toolCall: batch.toolCalls[slot]!, args, call: toolCall }))
          break
        }
        case Action.CONCURRENCY_KEY: {
          const [kind, payload] = this.#concurrencyKey(call, action[4])
          keys.heads.push(action[1], action[2], action[3], kind, payload.length)
          keys.payloads.push(payload)
          break
        }
        case Action.RUN_TOOL:
          this.#run(batch, call, action)
          break
        case Action.ABORT:
          abortRunning(batch, slot, action[3])
          break
        case Action.AFTER_HOOK: {
          const result = action[4]
          this.#hook(action, Completion.AFTER_ANSWERED, Completion.AFTER_FAILED, () =>
            batch.hooks.afterToolCall!({ toolCall: batch.toolCalls[slot]!, args: result.args, result, isError: !result.ok }),
          )
          break
        }
        case Action.PERSIST_HOOK: {
          const result = action[4]
          this.#hook(action, Completion.PERSIST_ANSWERED, Completion.PERSIST_FAILED, () => batch.hooks.onPersist!(result))
          break
        }
        case Action.END:
        case Action.END_AS_RETURNED: {
          const result = action[0] === Action.END ? action[3] : resultAsReturned(batch, call, action)
          // the run id exactly as given, as the call's id below (the engine's, on a result it
          // built, holds U+FFFD for a lone surrogate: a refused call's result named another run)
          if (batch.runId !== undefined ? result.runId !== batch.runId : own(result, 'runId') === undefined) result.runId = batch.runId
          // the id exactly as sent (the engine's holds U+FFFD for a lone surrogate): the model
          // gets each result under the id it wrote
          if (result.callId !== call.id) result.callId = call.id
          batch.results[slot] = result
          if (result.status === 'pending') this.#host.rememberThread(batch, result)
          batch.values[slot] = undefined
          if (batch.hooks.onEvent !== undefined || batch.audit !== undefined) {
            const view = action[0] === Action.END ? action[4] : action[8]
            // (without a view the content is text alone: the engine sends one for any image)
            const viewed = view === undefined || view === null ? (result as ShownToolResult) : viewOf(result, view)
            const ids = batch.shownIds?.[slot]
            const shown = ids === undefined ? viewed : { ...viewed, callId: ids.toolCallId, tool: ids.toolName }
            // a repeated id's refusal (marked by the engine, action[5]) is in its events only
            const repeats = action[0] === Action.END ? action[5] : undefined
            if (batch.audit !== undefined && repeats === undefined) batch.audit.result(shown)
            emit(batch, { type: 'tool_execution_end', ...shownIds(batch, slot, call), result: shown, isError: !result.ok })
          }
          auditFailure(batch, slot, call, result)
          if (batch.otel !== undefined) endToolSpan(batch.otel, slot, result)
          break
        }
        case Action.REDACTION_FAILED:
          emit(batch, { type: 'redaction_failed', ...shownIds(batch, slot, call), code: 'REDACTION_FAILED' })
          break
        case Action.TRIM:
          trimResult(batch.results[slot], action[3], action[4])
          break
        case Action.LOOP_WARNING:
          emit(batch, { type: 'loop_warning', ...shownIds(batch, slot, call), count: action[3] })
          break
        case Action.APPROVAL: {
          const request = action[4]
          this.#hook(action, Completion.APPROVAL_ANSWERED, Completion.APPROVAL_FAILED, () => this.#host.askApproval(request))
          break
        }
        case Action.WARNING:
          process.emitWarning(`toolwire: call "${call.id}" of tool "${call.name}": ${action[3]}`, 'ToolwireWarning')
          break
      }
    }
  }

  /** The key `concurrencyKey(args)` computed, or why it failed. */
  #concurrencyKey(call: ReadCall, args: unknown): CompletionOf {
    const registered = this.#host.registeredNamed(call.name)
    try {
      // (the engine asks only of a tool whose own or class's concurrencyKey was a function when registered)
      const key = registered === undefined ? undefined : (ownOrClass(registered.tool, 'concurrencyKey') as (args: unknown) => unknown).call(registered.tool, args)
      return [Completion.KEY, key === undefined || key === null ? 'null' : JSON.stringify(safeString(key))]
    } catch (error) {
      return [Completion.KEY_FAILED, messageJson(error)]
    }
  }

  /** Runs the tool of `action`; its value (or throw) becomes the call's one completion. */
  #run(batch: Batch, call: ReadCall, action: RunToolAction): void {
    const [, batchId, slot, token, toolId, timeoutMs] = action
    const registered = this.#host.registered(toolId)
    if (registered === undefined) {
      this.#complete(batchId, slot, token, Completion.MISSING, 'null')
      return
    }
    let args: unknown
    if (action.length > 6) {
      args = batch.args[slot] = action[6]
      // (what the result and events show: a copy of their own)
      batch.recorded[slot] = JSON.parse(JSON.stringify(args))
    } else {
      try {
        args = ownArgs(batch, slot)
      } catch (error) {
        this.#complete(batchId, slot, token, Completion.THREW, messageJson(error))
        return
      }
    }
    const controller = registered.takesSignal ? this.#signalFor(batch, timeoutMs) : undefined
    const running: Running = { controller, settled: false }
    batch.running[slot] = running
    // When the tool started, and when its value (or throw) was seen: the result's times
    let startedAt = Number.NaN
    let settledAt = Number.NaN
    const settle = (kind: CompletionKind, payload: string): void => {
      if (running.settled) return
      running.settled = true
      batch.running[slot] = undefined
      this.#complete(batchId, slot, token, kind, payload, startedAt, settledAt)
    }
    const onUpdate =
      batch.hooks.onEvent === undefined
        ? ignoreUpdate
        : (partialResult: unknown) => {
            if (!running.settled) {
              const view = this.#updateView(batchId, call.name, partialResult)
              emitUpdate(batch, slot, { type: 'tool_execution_update', ...shownIds(batch, slot, call), partialResult: view })
            }
          }
    let returned: Promise<unknown>
    // A value that is no promise (or a throw) is known when execute returns: its reaction runs
    // only once JavaScript is free, after the tools started next have done their synchronous part.
    let given: unknown
    let givenAt = Number.NaN
    let threwAt = Number.NaN
    try {
      const signal = controller === undefined ? undefined : controller.signal
      startedAt = performance.now()
      given =
        batch.otel === undefined
          ? executeTool(registered, call, args, signal, onUpdate, batch)
          : withToolSpan(batch.otel, slot, executeTool, registered, call, args, signal, onUpdate, batch)
      if (!isPromise(given)) givenAt = performance.now()
      returned = Promise.resolve(given)
    } catch (error) {
      threwAt = performance.now()
      returned = Promise.reject(error)
    }
    returned.then(
      (value) => {
        // (a thenable given resolves later, to another value)
        settledAt = value === given && !Number.isNaN(givenAt) ? givenAt : performance.now()
        // Whatever the value holds (getters or toJSON that throw, cycles, BigInt, a Proxy), the
        // call gets exactly one completion.
        let lane: number
        try {
          lane = sanitizeLane(value, registered.trustedMedia, batch.maxChars)
        } catch (error) {
          return settle(...unserializable(error, value))
        }
        if (lane !== LANE_INLINE) return this.#sanitizeOutput(lane, batch, batchId, call, value, settle)
        // A returned Error (not thrown) is a failure as a thrown one is, never `{}` read as a success.
        let returnedError: boolean
        try {
          returnedError = value instanceof Error && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
        } catch (error) {
          return settle(...unserializable(error, value))
        }
        if (returnedError) return settle(notRetryable(value) ? Completion.THREW_NOT_RETRYABLE : Completion.THREW, messageJson(value))
        batch.values[slot] = value
        if (value === undefined) return settle(Completion.RETURNED_NOTHING, 'null')
        const text = soleText(value)
        if (text !== undefined) {
          // the result is built from the text the engine checked, never from the tool's object,
          // which the tool may change (or reuse for its next call) after returning it
          batch.values[slot] = { content: [{ type: 'text', text }] }
          return settle(Completion.RETURNED_TEXT, text)
        }
        let json: string | undefined
        try {
          // A plain value (most are) is serialized without the replacer's per-key calls.
          const asIs = carriedAsIs(value)
          json = asIs ? JSON.stringify(value) : stringifyKeeping(value, KEEPING_ALL)
          // A result may be rebuilt from the value held (see resultAsReturned): hold what the
          // engine read, its JSON text parsed again, for anything but a string. So the result,
          // its events, the audit log and encodeResults carry the value as the engine checked
          // it: as JSON carries it (a Date as text, null for NaN or Infinity), and never the
          // tool's own object, which the tool may change after returning it (or reuse for its
          // next call), nor a getter or Proxy read again to another value.
          if (json !== undefined && typeof value !== 'string') batch.values[slot] = JSON.parse(json)
        } catch (error) {
          return settle(...unserializable(error, value))
        }
        if (json === undefined) return settle(Completion.UNSERIALIZABLE, JSON.stringify(`a ${typeof value} has no JSON form`))
        settle(Completion.RETURNED, json)
      },
      (error: unknown) => {
        settledAt = Number.isNaN(threwAt) ? performance.now() : threwAt
        settle(...thrown(error))
      },
    )
  }

  /**
   * The controller of a call's AbortSignal. Calls of one batch that the same answer starts with
   * the same running deadline share one: they are aborted together (the deadline passes for all
   * of them in one tick, a cancellation aborts every running call of the batch), and creating an
   * AbortSignal costs more than the rest of a small call (about 4 µs on Node 20). So a call that
   * already returned can see its signal abort with the calls it started with.
   */
  #signalFor(batch: Batch, timeoutMs: number): AbortController {
    const groups = (this.#signalGroups ??= new Map())
    let byDeadline = groups.get(batch)
    if (byDeadline === undefined) groups.set(batch, (byDeadline = new Map()))
    let controller = byDeadline.get(timeoutMs)
    if (controller === undefined) byDeadline.set(timeoutMs, (controller = new AbortController()))
    return controller
  }

  /**
   * Sanitizes a big value before the call completes, in the lane `sanitizeLane` chose: long
   * strings and bytes right away from their ends, images and media files on the libuv pool. The
   * engine's answer is the completion itself, so the value is not parsed again here.
   */
  #sanitizeOutput(lane: number, batch: Batch, batchId: number, call: ReadCall, value: unknown, settle: (kind: CompletionKind, payload: string) => void): void {
    let task: Promise<unknown>
    try {
      // (the lane says the value is text, bytes or an object with content)
      const { content, rest } = heavyContent(value as Parameters<typeof heavyContent>[0])
      const { blocks, texts, buffers } = describeContent(content, batch.maxChars, `Tool "${call.name}" returned invalid content`)
      // The value's other keys (details, data, ...) are the tool's own: what stops them is named
      // at their path in the value, as for a value sanitized inline.
      let restText: string | undefined
      try {
        restText = rest === undefined ? undefined : stringifyChecked(rest, KEEPING_ALL)
      } catch (error) {
        return settle(...unserializable(error, rest))
      }
      const description = `{"blocks":${JSON.stringify(blocks)}${restText === undefined ? '' : `,"rest":${restText}`}}`
      if (lane === LANE_POOL) {
        const sanitizer: Native.NativeSanitizer = native(() => this.#native.outputSanitizer(batchId, call.name))
        task = sanitizer.run(description, texts, buffers).then((completion) => settle(Completion.RETURNED_SANITIZED, completion))
      } else {
        const completion = native(() => this.#native.sanitizeOutput(batchId, call.name, description, texts, buffers))
        return settle(Completion.RETURNED_SANITIZED, completion)
      }
    } catch (error) {
      task = Promise.reject(error)
    }
    // A value too deep for the engine (LIMIT_EXCEEDED) is no throw of the tool's. (The pool's
    // rejection carries the engine's code natively, as every error of the engine does.)
    task.catch((error: unknown) => {
      const tooDeep = (engineError(error) as { code?: unknown } | null)?.code === 'LIMIT_EXCEEDED'
      settle(tooDeep ? Completion.TOO_DEEP : Completion.THREW, tooDeep ? 'null' : messageJson(error))
    })
  }

  /** A partial result as its update event carries it (secrets scrubbed, details redacted). */
  #updateView(batchId: number, toolName: string, partialResult: unknown): unknown {
    try {
      const json = stringifyChecked(partialResult === undefined ? null : partialResult, PARTIAL_REPLACER)
      if (json === undefined) throw new TypeError(`a ${typeof partialResult} has no JSON form`)
      return JSON.parse(native(() => this.#native.updateView(batchId, toolName, json)))
    } catch (error) {
      return { content: [{ type: 'text', text: `[partial result omitted: ${serializeFailure(error, partialResult, bytesAsText)}]` }] }
    }
  }

  /** Runs a hook (or `onApproval`); its answer, or why it failed, is the call's completion. */
  #hook(action: AwaitedAction, answered: CompletionKind, failed: CompletionKind, invoke: () => unknown): void {
    const [, batchId, slot, token] = action
    let answer: Promise<unknown>
    try {
      answer = Promise.resolve(invoke())
    } catch (error) {
      answer = Promise.reject(error)
    }
    answer.then(
      (value) => {
        let json: string
        let bad: unknown
        // beforeToolCall: whether it blocks is decided here, by JavaScript's truthiness (blockOf)
        let block: unknown
        let given: unknown
        try {
          // A plain answer is read once, by its own keys (`{ block, reason, params }`,
          // `{ content, details, isError }`): what is checked is what the engine reads, and a
          // key inherited from a polluted Object.prototype is not the answer's (see ownOptions).
          // Any other value is serialized as it is, to be named when JSON would lose it.
          given = plainObject(value) ? ownOptions(value) : value
          if (answered === Completion.BEFORE_ANSWERED) block = blockOf(given)
        } catch (error) {
          return this.#complete(batchId, slot, token, failed, messageJson(error))
        }
        try {
          if (answered !== Completion.BEFORE_ANSWERED) json = answerJson(given)
          else {
            json = beforeAnswerJson(given, block)
            // beforeToolCall's new arguments are arguments: a number JSON cannot carry in them is
            // refused at its path, as in arguments given to dispatch (see nonFiniteNumber)
            const params = block || given === null || typeof given !== 'object' ? undefined : own(given, 'params')
            if (params !== undefined) bad = nonFiniteNumber(params, JSON.stringify(params) ?? '')
          }
        } catch (error) {
          return this.#complete(batchId, slot, token, failed, JSON.stringify(`its answer cannot be serialized: ${serializeFailure(error, value)}`))
        }
        if (bad !== undefined) return this.#complete(batchId, slot, token, Completion.BEFORE_PARAMS_NOT_FINITE, JSON.stringify(bad))
        this.#complete(batchId, slot, token, answered, json)
      },
      (error: unknown) => this.#complete(batchId, slot, token, failed, messageJson(error)),
    )
  }

  /**
   * Queues a completion; all completions of one microtask checkpoint cross in one call: their
   * heads as numbers, their payloads (JSON text) joined, each read on its own by its length so
   * that one the engine cannot read fails its call only.
   */
  #complete(batchId: number, slot: number, token: number, kind: CompletionKind, payload: string, startedAt = Number.NaN, settledAt = Number.NaN): void {
    const queue = this.#queue
    queue.push(batchId)
    queue.push(slot)
    queue.push(token)
    queue.push(kind)
    queue.push(payload.length)
    // a tool's: when it started and settled (its result's times, whenever the crossing comes)
    this.#readings.push(startedAt)
    this.#readings.push(Number.isNaN(startedAt) ? Number.NaN : Number.isNaN(settledAt) ? performance.now() : settledAt)
    this.#payloads.push(payload)
    if (!this.#flushScheduled) {
      this.#flushScheduled = true
      void SETTLED.then(this.#flush)
    }
  }

  #flush = (): void => {
    this.#flushScheduled = false
    const payloads = this.#payloads
    this.#payloads = []
    this.#drive(() => this.#native.complete(this.#queue.take(), this.#readings.take(), payloads.join(JOINED_SEPARATOR), monotonicNow(), wallNow()))
  }

  /**
   * The one timer: the engine says when its next deadline is (`delayMs`), or that none is
   * pending (-1). Setting and clearing a Node timer costs as much as a tenth of a small dispatch,
   * and most dispatches set one and clear it, so a timer that fires no later than asked is kept
   * (firing early, it ticks the engine, which arms again), and one no longer needed is left to
   * fire unref'd: it keeps neither the process nor, through a WeakRef, the runtime alive. While
   * a deadline is pending the timer holds the driver strongly: a dispatch whose tools hang may be
   * reachable from nothing else, and its deadline must still end it.
   */
  #arm(delayMs: number): void {
    const timer = this.#timer
    if (delayMs < 0) {
      this.#timerTarget.armed = null
      if (timer === null) return
      // a DOM environment's timers (jsdom, happy-dom) are numbers, which cannot be unref'd: clear it
      if (typeof (timer as Partial<Refable>).unref === 'function') (timer as Refable).unref()
      else this.#disarm()
      return
    }
    this.#timerTarget.armed = this
    // Node fires a timer at once when its delay is over 2^31 - 1 ms: wait that long at most, the
    // engine re-arms on the tick.
    const wait = Math.min(delayMs, MAX_TIMER_MS)
    const due = performance.now() + wait
    if (timer !== null) {
      // A timer kept from fake timers since uninstalled (or installed since) is of another clock:
      // it may never fire. It is left to its clock, and replaced.
      if (this.#timerSetBy !== setTimeout) {
        this.#timer = null
      } else if (this.#timerDue <= due) {
        // (a DOM timer, a number, is never left set unref'd: it needs no ref())
        ;(timer as Partial<Refable>).ref?.()
        return
      } else {
        clearTimeout(timer)
      }
    }
    this.#timerDue = due
    this.#timerSetBy = setTimeout
    this.#timer = setTimeout(Driver.#fire, wait, this.#timerTarget, ++this.#timerTarget.generation)
  }

  /** Timer `generation` fired: the engine expires what is due (if the driver is still in use). */
  static #fire(target: TimerTarget, generation: number): void {
    const driver = target.armed ?? target.idle.deref()
    if (driver === undefined) return
    // (a replaced timer firing late only ticks: the driver's own timer stays set)
    if (generation === target.generation) driver.#timer = null
    driver.#drive(() => driver.#native.tick(monotonicNow(), wallNow()))
  }

  /** Stops the timer for good (after an internal fault: nothing is pending). */
  #disarm(): void {
    if (this.#timer !== null && this.#timerSetBy === setTimeout) clearTimeout(this.#timer)
    this.#timer = null
    this.#timerTarget.armed = null
  }

  #closeBatch(id: number, batch: Batch): void {
    this.#batches.delete(id)
    if (batch.otel !== undefined) endOpenToolSpans(batch.otel, 'INTERNAL_ERROR', 'The dispatch failed before this call ended.')
    if (batch.onAbort !== undefined) batch.signal!.removeEventListener('abort', batch.onAbort)
    if (batch.audit !== undefined) {
      batch.auditLog!.release(batch.audit, {})
      batch.audit = undefined
    }
  }

  /** An internal fault: every open dispatch rejects with it, and their tools are aborted. */
  #fail(error: unknown): void {
    for (const [id, batch] of this.#batches) {
      for (let slot = 0; slot < batch.running.length; slot++) abortRunning(batch, slot, 'cancelled')
      this.#closeBatch(id, batch)
      batch.reject(error)
    }
    this.#disarm()
  }
}
