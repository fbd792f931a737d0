// The agent loop: call the model with the history and the tool definitions, decode its streamed
// answer, run the calls through the runtime, append both to the history in the wire's own shape,
// and go again until a turn has no calls, maxSteps model calls were made, the signal aborts,
// every result of a batch asks to terminate, or a turn ended with an error (its calls not run).

import { ToolwireError, checkWire, describe, messageOf, checkOptionKeys, jsonText, own, ownOptions } from './common.js'
import { AnswerSize, answerDeadline, answerLimits, type AnswerLimits } from './answer-limits.js'
import { ABORTED, untilAnswered, callbackTimeout } from './callback.js'
import type { AnswerCapture, AnswerInfo } from './capture.js'
import { REQUEST_SHAPES } from './protocol.generated.js'
import type { InjectedEvent, SubscriptionWatch } from './rap.js'
import type {
  AssembledToolCall,
  AssembledTurn,
  DecoderOptions,
  DefinitionOptions,
  DispatchOptions,
  HistoryMessage,
  HistoryTurn,
  ModelRequest,
  RunEvent,
  RunOptions,
  RunOutcome,
  RunStep,
  RunStopReason,
  StreamEvent,
  ToolResult,
  Wire,
} from './types.js'

const DEFAULT_MAX_STEPS = 20

/**
 * Thrown inside a run when its signal aborted while a callback or the model's error body was
 * awaited: the run's catch reads the aborted signal as the stop reason, so it never leaves the
 * run (no ToolwireError: it has no code, and none of the public codes is this).
 */
class RunAborted extends Error {}

/** What a run uses of its runtime (a ToolRuntime). */
export interface RunRuntime {
  definitions(target: Wire, options?: DefinitionOptions): { tools: object[] }
  encodeToolCalls(turn: HistoryTurn, wire: Wire): object[]
  encodeResults(results: ToolResult[], wire: Wire): object[]
}

/** A wire's stream decoder (a StreamDecoder). */
export interface TurnDecoder {
  push(chunk: Uint8Array | ArrayBuffer | string): StreamEvent[]
  pushEvent(event: unknown): StreamEvent[]
  finish(): AssembledTurn
}

/** What a run records its events into: a recorder of its audit log (ts/audit.js). */
export interface RunRecorder {
  event(record: RunEvent): void
  /** Starts keeping a model answer of the run on `wire` (`audit.captureBodies`), else undefined. */
  captureAnswer(wire: Wire, answer: AnswerInfo): AnswerCapture | undefined
  /** why the run's log is not being written, else undefined */
  readonly failure: string | undefined
}

/** The audit log a run records into (ts/audit.js): `open` joins the run, `release` leaves it. */
export interface RunAuditLog {
  open(runId: string, info: { kind: 'run'; wire: Wire; maxSteps: number }): RunRecorder
  release(recorder: RunRecorder, update: { stopReason: RunStopReason }): void
}

/** What {@link runLoop} drives the runtime with (see there). */
export interface RunHooks {
  /** A decoder whose events are scrubbed of secrets (its turn is the model's own). */
  decoderOf: (wire: Wire, options: DecoderOptions) => TurnDecoder
  /** `value` with its secrets replaced, with the runtime's `sanitize` settings (`scrubSecrets`). */
  scrub: <T>(value: T, where: string) => T
  dispatch: (calls: AssembledToolCall[], options: DispatchOptions) => Promise<ToolResult[]>
  audit: RunAuditLog | undefined
  newRunId: () => string
  endRun: (runId: string) => void
  watchEvents?: (groupId: string) => SubscriptionWatch
  injectedMessages: (wire: Wire, events: InjectedEvent[]) => object[]
  closeThread?: (groupId: string) => Promise<void> | void
}

/**
 * The request body of one model call, in the wire's own shape as the engine declares it
 * (`REQUEST_SHAPES`, generated from each wire's provider: its history key, tool choice key and
 * stream flags). The body holds the very history and tools given: nothing is copied or crosses
 * the boundary, so a model call costs the same whatever the history's length.
 */
export function requestBody<W extends Wire>(wire: W, messages: object[], tools: object[], toolChoice: unknown): ModelRequest<W> {
  checkWire('run', wire)
  const shape = REQUEST_SHAPES[wire]
  const body: Record<string, unknown> = { [shape.history]: messages }
  if (tools.length > 0) body.tools = tools
  if (toolChoice !== undefined) body[shape.toolChoice] = toolChoice
  if (shape.stream) body.stream = true
  if (shape.streamUsage) body.stream_options = { include_usage: true }
  // (the keys of wire `W`'s request, as its shape names them)
  return body as ModelRequest<W>
}

/** The items of a model's answer, read by {@link itemsOf}. */
type Body = ReadableStream<unknown> | AsyncIterable<unknown> | Iterable<unknown>

/** Whether `answer` is a fetch Response (it has `arrayBuffer()` and a `body`). */
export function isResponse(answer: unknown): answer is Response {
  return answer !== null && typeof answer === 'object' && typeof (answer as Partial<Response>).arrayBuffer === 'function' && 'body' in answer
}

/** Whether `value` has a method under `key`. */
export function hasMethod(value: object, key: PropertyKey): boolean {
  return typeof (value as Record<PropertyKey, unknown>)[key] === 'function'
}

/**
 * The items of a model's answer: a fetch Response's body, a ReadableStream or an (async)
 * iterable; a whole answer (text, bytes, an SDK's response object) is the one item.
 */
async function bodyOf(answer: unknown, signal: AbortSignal | undefined): Promise<Body> {
  if (isResponse(answer)) {
    if (answer.ok === false) {
      // (an abort while it is read rejects: the run's catch reads the aborted signal)
      const head = await quotedErrorBody(answer, signal)
      const type = contentTypeOf(answer)
      throw new ToolwireError(
        'EXECUTION_ERROR',
        `the model answered HTTP ${answer.status}${type === undefined ? '' : ` (content type ${JSON.stringify(type.slice(0, 100))})`}: ${head}`,
      )
    }
    if (answer.body === null) throw new ToolwireError('EXECUTION_ERROR', 'the model answered with an empty body')
    return answer.body
  }
  // A whole answer in one value: the body as text or bytes (a Uint8Array is iterable, by byte)
  if (typeof answer === 'string' || answer instanceof Uint8Array || answer instanceof ArrayBuffer) return [answer]
  if (answer !== null && typeof answer === 'object' && hasMethod(answer, Symbol.asyncIterator)) return answer as AsyncIterable<unknown>
  if (answer !== null && typeof answer === 'object' && hasMethod(answer, Symbol.iterator)) return answer as Iterable<unknown>
  // or an SDK's whole (non-streamed) response object, decoded as the whole response it is
  if (answer !== null && typeof answer === 'object') return [answer]
  throw new TypeError(
    `run: model(request) must resolve to a fetch Response, a ReadableStream, an (async) iterable of chunks or a whole response (an SDK's response object, or the body as text or bytes), got ${describe(answer)}`,
  )
}

/** Adds a turn's reported usage to the run's. */
function addUsage(total: RunOutcome['usage'], usage: AssembledTurn['usage'] | null): RunOutcome['usage'] {
  if (usage === undefined || usage === null) return total
  const sum = total ?? {}
  for (const key of ['inputTokens', 'outputTokens'] as const) {
    const count = own(usage, key)
    if (typeof count === 'number') sum[key] = (sum[key] ?? 0) + count
  }
  return sum
}

/** The keys of the options of `run(options)`. */
export const RUN_OPTIONS: readonly string[] = [
  'wire', 'model', 'messages', 'maxSteps', 'signal', 'runId', 'groupId', 'userId', 'threadAncestors', 'onEvent',
  'getSteeringMessages', 'getFollowUpMessages', 'toolChoice', 'audit', 'provider', 'agentId', 'sender', 'callbackTimeoutMs',
  'tools', 'answerTimeoutMs', 'maxAnswerBytes',
]

/** The checked options of `run`, and `given`: their own keys, each read once (see ownOptions), for the rest. */
function checkOptions<W extends Wire>(raw: RunOptions<W>) {
  if (raw === null || typeof raw !== 'object') throw new TypeError(`run: options must be an object, got ${describe(raw)}`)
  const options = ownOptions(raw)
  checkOptionKeys('run: options', options, RUN_OPTIONS)
  const { wire, model, messages = [], maxSteps = DEFAULT_MAX_STEPS, signal, onEvent } = options
  checkWire('run', wire)
  if (typeof model !== 'function') throw new TypeError(`run: options.model must be a function, got ${describe(model)}`)
  if (!Array.isArray(messages)) throw new TypeError(`run: options.messages must be an array, got ${describe(messages)}`)
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new ToolwireError('VALIDATION_ERROR', `run: options.maxSteps must be a whole number of at least 1, got ${describe(maxSteps)}`)
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`run: options.signal must be an AbortSignal, got ${describe(signal)}`)
  }
  // Sent in every request body as JSON: a value without a JSON form is refused before the run.
  if (options.toolChoice !== undefined) jsonText('run: options.toolChoice', options.toolChoice)
  for (const key of ['onEvent', 'getSteeringMessages', 'getFollowUpMessages'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'function') {
      throw new TypeError(`run: options.${key} must be a function, got ${describe(options[key])}`)
    }
  }
  const callbackTimeoutMs = callbackTimeout('run', options.callbackTimeoutMs)
  const limits = answerLimits(options.answerTimeoutMs, options.maxAnswerBytes)
  return { wire, model, messages, maxSteps, signal, onEvent, callbackTimeoutMs, limits, given: options }
}

/**
 * Messages a callback returns, checked: an array (or nothing). Raced with the signal (the run
 * stops 'aborted') and the run's callback deadline (a ToolwireError TIMEOUT naming it).
 */
async function messagesFrom(
  where: string,
  get: RunOptions['getSteeringMessages'],
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<object[]> {
  if (get === undefined) return []
  const got = await untilAnswered(`run: ${where}`, get, { signal, timeoutMs })
  // The run's catch reads the aborted signal as the stop reason.
  if (got === ABORTED) throw new RunAborted(`run: the signal aborted while ${where} was awaited`)
  if (got === undefined || got === null) return []
  if (!Array.isArray(got)) throw new TypeError(`run: ${where} must return an array of messages, got ${describe(got)}`)
  return got
}

/** The run's own events the audit log keeps (the tools' are recorded by their dispatch). */
const AUDITED: ReadonlySet<string> = new Set(['turn_start', 'turn_end', 'done'])

/**
 * The events scrubbed of secrets where they are made: the decoder's (a scrubbing decoder, see
 * `scrubbingDecoder`: its deltas scrubbed as the text they add to) and the engine's events of a
 * call. Every other event (the run's own, the driver's `audit_failed`, any added later) is
 * scrubbed as it is emitted.
 */
const SCRUBBED_AT_SOURCE: ReadonlySet<string> = new Set([
  'toolcall_start', 'toolcall_delta', 'toolcall_end', 'text_delta', 'thinking_delta', 'error', 'turn_end',
  'tool_execution_start', 'tool_execution_update', 'tool_execution_end', 'redaction_failed', 'loop_warning',
])

/**
 * Runs the agent loop on `runtime` (see ToolRuntime.run). `hooks`: `decoderOf(wire, options)` makes
 * a StreamDecoder, `dispatch(calls, options)` runs a batch into the run's audit log, `audit` is that
 * log (or undefined), `newRunId()` names a run, `endRun(runId)` forgets its loop counts,
 * `watchEvents(groupId)` queues the thread's subscription events, `injectedMessages(wire,
 * events)` turns them into history and `closeThread(groupId)` closes the run's own thread when
 * it ends (see rap.ts). Resolves
 * with `{ runId, messages, steps, stopReason, usage, error? }`; only misuse of the options
 * rejects.
 */
export async function runLoop<W extends Wire>(runtime: RunRuntime, hooks: RunHooks, raw: RunOptions<W>): Promise<RunOutcome<W>> {
  const { decoderOf, dispatch, audit, newRunId, endRun } = hooks
  const { wire, model, maxSteps, signal, onEvent, callbackTimeoutMs, limits, messages: given, given: options } = checkOptions(raw)
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    throw new TypeError(`run: options.runId must be a non-empty string, got ${describe(options.runId)}`)
  }
  // A `tools` option naming a tool that is not registered is the caller's error, thrown before the run starts.
  if (options.tools !== undefined) runtime.definitions(wire, { tools: options.tools })
  const runId = options.runId ?? newRunId()
  if (options.groupId !== undefined && (typeof options.groupId !== 'string' || options.groupId === '')) {
    throw new TypeError(`run: options.groupId must be a non-empty string, got ${describe(options.groupId)}`)
  }
  // The thread remote tools run in; its subscription events reach the model before each call.
  const groupId = options.groupId ?? runId
  const events = hooks.watchEvents?.(groupId)
  const recorder = audit?.open(runId, { kind: 'run', wire, maxSteps })
  const context = { provider: options.provider, agentId: options.agentId, sender: options.sender }
  // Every value the run hands out is scrubbed of secrets with the runtime's settings, as the
  // audit log's copy is: events, steps, the error. The history (`messages`) is the exception:
  // the model gets its own calls back exactly (see the README's agent loop).
  const emit = (given: RunEvent): void => {
    const event = SCRUBBED_AT_SOURCE.has(given.type) ? given : hooks.scrub(given, 'run: an event')
    if (recorder !== undefined && AUDITED.has(event.type)) recorder.event(event)
    if (onEvent === undefined) return
    try {
      onEvent(event)
    } catch (error) {
      process.emitWarning(`toolwire: run onEvent listener threw on ${event.type}: ${messageOf(error)}`, 'ToolwireWarning')
    }
  }
  const messages: object[] = given.slice()
  const steps: RunStep[] = []
  let usage: RunOutcome['usage']
  let stopReason: RunStopReason
  let failure: string | undefined
  let modelCalls = 0
  let lengthCutsInARow = 0
  try {
    for (;;) {
      if (signal?.aborted) {
        stopReason = 'aborted'
        break
      }
      // Steering is taken only when a model call follows: messages taken at the end would be
      // consumed and never sent.
      if (modelCalls >= maxSteps) {
        stopReason = 'maxSteps'
        break
      }
      messages.push(...(await messagesFrom('getSteeringMessages()', options.getSteeringMessages, signal, callbackTimeoutMs)))
      if (events !== undefined && events.size() > 0) messages.push(...hooks.injectedMessages(wire, events.take()))
      modelCalls += 1
      emit({ type: 'turn_start', runId, step: modelCalls })
      // `tools`: the request offers only these, and each dispatch runs only these.
      const tools = runtime.definitions(wire, { ...context, tools: options.tools }).tools
      const request = requestBody(wire, messages.slice(), tools, options.toolChoice)
      const capture = recorder === undefined ? undefined : (answered: AnswerInfo) => recorder.captureAnswer(wire, answered)
      const turn = await answerOf(wire, request, { model, decoderOf, signal, limits, emit, capture })
      if (turn === ABORTED) {
        stopReason = 'aborted'
        break
      }
      usage = addUsage(usage, turn.usage)
      if (signal?.aborted) {
        stopReason = 'aborted'
        break
      }
      if (turn.toolCalls.length === 0) {
        lengthCutsInARow = 0
        if (turn.text !== '') messages.push(textMessage(wire, turn.text))
        steps.push(hooks.scrub(stepOf(turn, [], []), 'run: a step'))
        if (turn.stopReason === 'error') {
          stopReason = 'error'
          failure = turnFailure(turn)
          break
        }
        const followUps = await messagesFrom('getFollowUpMessages()', options.getFollowUpMessages, signal, callbackTimeoutMs)
        if (followUps.length > 0) {
          messages.push(...followUps)
          continue
        }
        // Subscription events are waiting: the model hears them before the run ends.
        if (events !== undefined && events.size() > 0) continue
        stopReason = 'stop'
        break
      }
      // A turn that did not end as the model meant runs none of its calls, even those the
      // wire sealed before the end (their arguments whole): cut for length, the calls may not
      // be what the model meant; broken by an error (the stream truncated, an event of it lost,
      // the provider's error event, a refusal), the turn is not the model's whole answer. Side
      // effects wait for a turn that ended. Each call gets INCOMPLETE_ARGUMENTS (asking to be
      // re-issued), so the history stays whole; a length cut goes on (the model sends its calls
      // again), an error ends the run with `error` naming what broke, as an error turn without
      // calls does.
      const failed = turn.stopReason === 'error'
      const truncated = failed || turn.stopReason === 'length'
      const calls = truncated ? turn.toolCalls.map((call) => ({ ...call, complete: false })) : turn.toolCalls
      messages.push(...runtime.encodeToolCalls(turn, wire))
      const results = await dispatch(calls, { ...context, tools: options.tools, runId, groupId, userId: options.userId, threadAncestors: options.threadAncestors, signal, onEvent: emit })
      messages.push(...runtime.encodeResults(results, wire))
      steps.push(hooks.scrub(stepOf(turn, turn.toolCalls, results), 'run: a step'))
      if (signal?.aborted) {
        stopReason = 'aborted'
        break
      }
      if (failed) {
        stopReason = 'error'
        failure = `${turnFailure(turn)} (its tool calls were not run)`
        break
      }
      // Cut for length inside its calls twice in a row: the model's output limit is too small for
      // what it means to send, and asking again would only pay for the same cut up to maxSteps.
      lengthCutsInARow = truncated ? lengthCutsInARow + 1 : 0
      if (lengthCutsInARow === 2) {
        stopReason = 'error'
        failure = `run: the model's turn was cut at its output token limit inside its tool calls twice in a row (their calls were not run): raise the limit (max_tokens; models.anthropic's maxTokens) or ask for smaller arguments`
        break
      }
      if (results.every((result) => own(result, 'terminate') === true)) {
        stopReason = 'terminated'
        break
      }
    }
  } catch (error) {
    if (signal?.aborted) {
      stopReason = 'aborted'
    } else {
      stopReason = 'error'
      failure = messageOf(error)
    }
  } finally {
    endRun(runId)
    events?.close()
    // A thread the run made its own (no groupId given) ends with it: its tokens, choices and
    // subscriptions are freed and the servers told. Best effort, not waited for.
    if (options.groupId === undefined && hooks.closeThread !== undefined) {
      try {
        Promise.resolve(hooks.closeThread(groupId)).catch((error) => {
          process.emitWarning(`toolwire: closing thread ${JSON.stringify(groupId)} failed: ${messageOf(error)}`, 'ToolwireWarning')
        })
      } catch (error) {
        process.emitWarning(`toolwire: closing thread ${JSON.stringify(groupId)} failed: ${messageOf(error)}`, 'ToolwireWarning')
      }
    }
  }
  // (a provider's error text may quote the request, its key included)
  if (failure !== undefined) failure = hooks.scrub(failure, 'run: its error')
  emit(failure === undefined ? { type: 'done', runId, stopReason } : { type: 'done', runId, stopReason, error: failure })
  if (recorder !== undefined) audit?.release(recorder, { stopReason })
  // `runId` is the caller's (or generated): kept exact, as it names the run's audit directory
  // (the caller's items and those the engine encoded in the wire's own shape: the wire's history)
  const outcome: RunOutcome<W> = { runId, messages: messages as HistoryMessage<W>[], steps, stopReason, usage }
  if (failure !== undefined) outcome.error = failure
  // the run's log failed, whenever (a dispatch's results and audit_failed say so where it was one of theirs)
  if (recorder?.failure !== undefined) outcome.auditFailed = hooks.scrub(recorder.failure, 'run: auditFailed')
  return outcome
}

/** What {@link answerOf} needs besides the request: the run's model, decoder, signal, limits and event sink. */
interface AnswerContext<W extends Wire> {
  model: RunOptions<W>['model']
  decoderOf: RunHooks['decoderOf']
  signal: AbortSignal | undefined
  limits: AnswerLimits
  emit: (event: RunEvent) => void
  capture: ((answer: AnswerInfo) => AnswerCapture | undefined) | undefined
}

/**
 * Asks the model with `request` and decodes its answer into a turn, under the answer's limits:
 * the model call and its body's reading stop when the run's signal aborts (ABORTED) or when
 * `answerTimeoutMs` pass (a ToolwireError TIMEOUT naming it); a body past `maxAnswerBytes` stops
 * being read (a ToolwireError LIMIT_EXCEEDED naming it). The model gets the answer's signal, so
 * a fetch is cancelled at either.
 */
async function answerOf<W extends Wire>(wire: W, request: ModelRequest<W>, context: AnswerContext<W>): Promise<AssembledTurn | typeof ABORTED> {
  const { model, decoderOf, signal, limits, emit, capture } = context
  const deadline = answerDeadline(signal, limits.timeoutMs)
  let called: Promise<unknown> | undefined
  try {
    const answer = await untilAnswered('run: the model', () => (called = Promise.resolve(model(request, { signal: deadline.signal }))), { signal: deadline.signal })
    if (answer === ABORTED) {
      // A model that ignores its signal may still answer: its body is given up when it does.
      called?.then(discardAnswer, () => {})
      const expired = deadline.expired()
      if (expired !== undefined) throw expired
      return ABORTED
    }
    const turn = await decodeTurn((decoderOptions) => decoderOf(wire, decoderOptions), answer, deadline.signal, emit, limits.maxBytes, capture)
    // (an answer whose end arrived before the deadline, its connection left open, is whole)
    const expired = deadline.expired()
    if (expired !== undefined && turn.stopReason === 'error') throw expired
    return signal?.aborted ? ABORTED : turn
  } finally {
    deadline.clear()
  }
}

/** Gives up an answer nobody will read (a body cancelled, an iterator returned); never throws. */
function discardAnswer(answer: unknown): void {
  try {
    if (isResponse(answer)) answer.body?.cancel().catch(() => {})
    else if (answer !== null && typeof answer === 'object' && (hasMethod(answer, 'getReader') || hasMethod(answer, Symbol.asyncIterator) || hasMethod(answer, Symbol.iterator))) {
      itemsOf(answer as Body).stop()
    }
  } catch {}
}

/** What broke a turn that ended with an error: the decoder's errors, else its stop reason. */
function turnFailure(turn: AssembledTurn): string {
  if (turn.errors.length > 0) return turn.errors.join('; ')
  const raw = turn.rawStopReason
  return typeof raw === 'string' ? `the model's turn ended with stop reason ${JSON.stringify(raw)}` : 'the model stream ended with an error'
}

/** The assistant message of a turn without calls (its text), for history. */
function textMessage(wire: Wire, text: string): object {
  switch (wire) {
    case 'openai-responses':
      return { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }
    case 'anthropic':
      return { role: 'assistant', content: [{ type: 'text', text }] }
    case 'gemini':
      return { role: 'model', parts: [{ text }] }
    default:
      return { role: 'assistant', content: text }
  }
}

/** The content type of a fetch Response (undefined for other answers or when absent). */
function contentTypeOf(answer: unknown): string | undefined {
  try {
    const type: unknown = (answer as Partial<Response> | null | undefined)?.headers?.get?.('content-type')
    return typeof type === 'string' ? type : undefined
  } catch {
    return undefined
  }
}

/**
 * Decodes one model answer: raw bytes and strings are pushed as the body, plain objects as SDK
 * chunks. `newDecoder(options)` makes the decoder, told the answer's content type (named by the
 * error of a body that is not the wire, such as an HTML login page). The decoder's events are
 * forwarded, its `done` as `turn_end`. An abort stops reading at once, even while the body
 * stalls; what arrived is decoded. `capture`, when given, starts keeping the answer (see
 * capture.ts): each item is kept as it is pushed.
 */
async function decodeTurn(
  newDecoder: (options: DecoderOptions) => TurnDecoder,
  answer: unknown,
  signal: AbortSignal | undefined,
  emit: (event: RunEvent) => void,
  maxBytes: number,
  capture?: (answer: AnswerInfo) => AnswerCapture | undefined,
): Promise<AssembledTurn> {
  const forward = (events: StreamEvent[]): void => {
    for (const event of events) emit(event.type === 'done' ? { ...event, type: 'turn_end' } : event)
  }
  const body = await bodyOf(answer, signal)
  const contentType = contentTypeOf(answer)
  const decoder = newDecoder(contentType === undefined ? {} : { contentType })
  const kept = capture?.({ ...(contentType === undefined ? {} : { contentType }), ...(isResponse(answer) ? { status: answer.status } : {}) })
  const items = itemsOf(body)
  const size = new AnswerSize(maxBytes)
  let ended = false
  let overLimit: ToolwireError | undefined
  // Set once the decoder saw the wire's end: what still comes (a usage chunk, [DONE]) gets
  // ANSWER_TAIL_MS, so a connection left open never holds a whole answer.
  let whole = false
  try {
    // A body that stalls must not hold the run past an abort: each read races the signal.
    for (let count = 1; !signal?.aborted; count++) {
      // Items that resolve on microtasks alone (empty chunks without end) would starve the
      // timers the abort and the deadline come by: a macrotask turn every so many items.
      if (count % YIELD_EVERY_ITEMS === 0) await new Promise((resolve) => setImmediate(resolve))
      let next: { done?: boolean; value?: unknown } | typeof ABORTED
      try {
        next = await untilAnswered("run: the model's body", () => items.next(), { signal, timeoutMs: whole ? ANSWER_TAIL_MS : undefined })
      } catch (error) {
        if (whole && error instanceof ToolwireError && error.code === 'TIMEOUT') break
        throw error
      }
      if (next === ABORTED) break
      if (next.done) {
        ended = true
        break
      }
      const item = next.value
      let events: StreamEvent[]
      if (typeof item === 'string' || item instanceof Uint8Array || item instanceof ArrayBuffer) {
        overLimit = size.exceededBy(item)
        if (overLimit !== undefined) break
        kept?.add(item)
        events = decoder.push(item)
      } else {
        // (an SDK's chunk object goes to the decoder as its JSON text, counted like a body's)
        const text = item !== null && typeof item === 'object' ? jsonText('StreamDecoder.pushEvent: event', item) : undefined
        overLimit = text === undefined ? undefined : size.exceededBy(text)
        if (overLimit !== undefined) break
        kept?.add(item)
        events = decoder.pushEvent(text ?? (item as object))
      }
      forward(events)
      if (!whole) whole = events.some((event) => event.type === 'done')
    }
  } finally {
    // Stopped early (an abort, a limit, a decoder error): the body is given up, never awaited.
    if (!ended) items.stop()
    kept?.close(ended)
  }
  const turn = decoder.finish()
  forward(turn.events)
  if (overLimit !== undefined) throw overLimit
  return turn
}

/** How often reading a model's body yields to the event loop's timers, in items (see decodeTurn). */
const YIELD_EVERY_ITEMS = 64

/** How long the rest of an answer may take once the decoder saw its end, in ms (see decodeTurn). */
const ANSWER_TAIL_MS = 2_000

/** How much of a model's error body is read: its first 64 KiB (the error quotes 300 characters). */
const ERROR_BODY_BYTES = 64 << 10

/** How many characters of a model's error body an error quotes. */
const QUOTED_BODY_CHARS = 300

/**
 * The start of a failed answer's body as an error quotes it: its first 300 characters as JSON,
 * saying how much more there was (only the first 64 KiB are read, the rest is cancelled); a body
 * that cannot be read is quoted empty. Raced with `signal`: a body that stalls cannot hold the
 * caller past an abort (it rejects with the signal's reason). `scrub` replaces what may not be
 * quoted (a key the request sent) in the text read, before it is cut, so no part of it is quoted.
 */
export async function quotedErrorBody(answer: Response, signal: AbortSignal | undefined, scrub?: (text: string) => string): Promise<string> {
  let text = ''
  let more = false
  try {
    const got = await untilAnswered("the model's error body", () => errorBodyHead(answer), { signal })
    if (got === ABORTED) throw signal?.reason
    ;({ text, more } = got)
  } catch (error) {
    if (signal?.aborted) throw error
  }
  if (scrub !== undefined) text = scrub(text)
  const size = more ? `over ${ERROR_BODY_BYTES} bytes, not read further` : `${text.length} characters`
  return JSON.stringify(text.slice(0, QUOTED_BODY_CHARS)) + (more || text.length > QUOTED_BODY_CHARS ? `… (${size})` : '')
}

/**
 * The first ERROR_BODY_BYTES of a failed answer's body as text, and whether there was more: the
 * rest is never read (the body is cancelled), so a huge or endless error body costs that much only.
 */
async function errorBodyHead(answer: Response): Promise<{ text: string; more: boolean }> {
  const body = answer.body
  if (body === null || typeof body?.getReader !== 'function') return { text: await answer.text(), more: false }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  let more = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const bytes = value instanceof Uint8Array ? value : new TextEncoder().encode(String(value))
      chunks.push(bytes)
      size += bytes.byteLength
      if (size > ERROR_BODY_BYTES) {
        more = true
        break
      }
    }
  } finally {
    reader.cancel().catch(() => {})
  }
  const all = Buffer.concat(chunks)
  return { text: new TextDecoder().decode(more ? all.subarray(0, ERROR_BODY_BYTES) : all), more }
}

/**
 * One reader over a model's body: `next()` resolves with `{ done, value }`; `stop()` gives the
 * body up without waiting (a ReadableStream is cancelled, an iterator returned), so a stalled
 * body is released on abort.
 */
function itemsOf(body: Body): Items {
  if (hasMethod(body, 'getReader')) {
    const reader = (body as ReadableStream<unknown>).getReader()
    return {
      next: () => reader.read(),
      stop: () => reader.cancel().catch(() => {}),
    }
  }
  const iterator = hasMethod(body, Symbol.asyncIterator) ? (body as AsyncIterable<unknown>)[Symbol.asyncIterator]() : (body as Iterable<unknown>)[Symbol.iterator]()
  return {
    next: () => Promise.resolve(iterator.next()),
    stop: () => {
      if (typeof iterator.return !== 'function') return
      try {
        Promise.resolve(iterator.return()).catch(() => {})
      } catch {}
    },
  }
}

/**
 * A run's step for a decoded turn: its text, stop reason, calls and results, and the errors the
 * decoder reported: what broke the turn, or what it reported without ending it (a second
 * response after the first, a fragment after the end, choices other than the first), so none is
 * lost in silence; and the provider quirks it repaired, when any.
 */
function stepOf(turn: AssembledTurn, calls: AssembledToolCall[], results: ToolResult[]): RunStep {
  const step: RunStep = { text: turn.text, stopReason: turn.stopReason, calls, results }
  if (turn.errors.length > 0) {
    step.errors = turn.errors
    step.errorKinds = turn.errorKinds
  }
  if (turn.repairs.length > 0) step.repairs = turn.repairs
  return step
}

/** A reader over a model's body (see {@link itemsOf}). */
interface Items {
  next(): Promise<{ done?: boolean; value?: unknown }>
  stop(): void
}
