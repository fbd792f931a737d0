// Remote tools over the Reactive Agent Protocol (RAP). The transport runs in Rust (NativeRap, on
// a tokio runtime of its own); this layer keeps what cannot cross the boundary: the promises of
// calls in flight (by ticket), their AbortSignals, the handle that keeps Node alive while
// anything is in flight, and the queues of subscription events waiting for a run.
//
// Every outcome and event crosses back through one callback, as one JSON text array of messages
// per crossing, each `[code, ...]` as toolwire_core::rap_message declares it (the tuple types in
// protocol.generated.ts; src/rap.rs lists them).

import binding = require('../native.js')
import type { NativeRap } from '../native.js'
import { featuresOf, requireFeature } from './binding.js'
import { ONCE, ToolwireError, native, messageOf, serializeFailure, describe, jsonText, own, ownOptions, OVER_LIMIT_MARK } from './common.js'
import {
  RapMessage,
  type RapCancelledMessage,
  type RapDoneMessage,
  type RapEngineMessage,
  type RapEventMessage,
  type RapLoadedMessage,
  type RapResultMessage,
  type RapTimeoutMessage,
} from './protocol.generated.js'
import type { RapTextItem, RapToolResult, RemoteToolDef } from './remote.js'
import { scrubSecrets } from './sanitize.js'
import type {
  AgentToolResult,
  AgentToolUpdateCallback,
  ContentBlock,
  HistoryCall,
  RapEvent,
  RapToolsetOptions,
  ToolDefinition,
  ToolResultMessage,
  Wire,
} from './types.js'

export type { RemoteToolDef } from './remote.js'

/** Tools given a dispatch context (`{ groupId, runId }`) as a fifth argument of execute. */
export const DISPATCH_CONTEXT = Symbol('toolwire.dispatchContext')
/** Marks a remote tool: unregistering it frees its name in the transport too. */
export const REMOTE = Symbol('toolwire.remoteTool')
/** The synthetic call a subscription event is delivered to the model as. Never a real tool. */
export const INJECTED_TOOL = 'receive_event__injected'
/** The built-in tool ending a subscription of the calling thread. */
export const CANCEL_TOOL = 'cancel_subscription'
/** Names a toolset may not expose: toolwire's own. */
export const RESERVED: ReadonlySet<string> = new Set([INJECTED_TOOL, CANCEL_TOOL])
const MAX_TICKET = 0xffffffff
/**
 * Subscription events a thread keeps while no run watches it, for the next run on it: at most
 * this many, of at most BACKLOG_CHARS of text in all; past either the oldest go (they reached
 * onEvent when they came).
 */
const BACKLOG_EVENTS = 256
const BACKLOG_CHARS = 1 << 20
/** Longer than any call lives; the interval only keeps the loop alive while it is ref'd. */
const HOLD_MS = 0x7fffffff
const noop = (): void => {}

/** What a tool given the dispatch context ({@link DISPATCH_CONTEXT}) gets as execute's fifth argument. */
export interface DispatchContext {
  /** the dispatch's thread (its `groupId`, else its run's) */
  groupId: string
  runId?: string
  userId?: string
  threadAncestors?: string[]
}

/**
 * A tool toolwire defines itself, given the dispatch context ({@link DISPATCH_CONTEXT}) as
 * execute's fifth argument: a remote tool ({@link remoteTool}, marked {@link REMOTE}) or
 * `cancel_subscription` ({@link cancelSubscriptionTool}).
 */
export interface ContextTool<TParams = unknown> extends Omit<ToolDefinition<TParams>, 'execute'> {
  execute(
    toolCallId: string,
    params: TParams,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback | undefined,
    context: DispatchContext,
  ): AgentToolResult<RemoteDetails> | Promise<AgentToolResult<RemoteDetails>>
  [DISPATCH_CONTEXT]: true
  [REMOTE]?: true
}

/** What {@link toolsetOptions} makes of `addRapToolset`'s options. */
export interface ToolsetSetup {
  /** the tools' own deadline */
  timeoutMs: number | undefined
  /** the callback server's options (`{ bind, publicUrl, maxCallbackBytes }`), JSON text */
  server: string
  /** the toolset's own (`{ prefix, retry, headers }`), JSON text */
  toolset: string
}

/** What a remote tool's value keeps in `details` of its `tool_result`. */
export interface RemoteDetails {
  display_as?: unknown[]
  subscription?: true
}

// The messages of a crossing (toolwire_core::rap_message, their tuple types generated): the
// answers under a ticket, and the events.

/** A toolset loaded: what {@link RapLink.load} resolves with. */
export interface LoadedToolset {
  /** the toolset's name */
  toolset: string
  tools: RemoteToolDef[]
}
/** What a ticket's promise resolves with. */
type Answer = RapLoadedMessage | RapResultMessage | RapTimeoutMessage | RapCancelledMessage | RapDoneMessage
/** What a call's ticket is answered with. */
type CallAnswer = RapResultMessage | RapTimeoutMessage | RapCancelledMessage

/**
 * What RapLink uses of the transport: NativeRap's methods (a stand-in in tests). Their results
 * are not read, but for `cancelSubscription`'s.
 */
export type RapTransport = {
  [K in keyof NativeRap]: K extends 'cancelSubscription' ? NativeRap[K] : (...args: Parameters<NativeRap[K]>) => void
}

/** The transport's class: `new Transport(serverOptionsJson, deliver)`, `deliver` given each crossing's JSON text. */
export type RapTransportClass = new (options: string, deliver: (messages: string) => void) => RapTransport

/** `value` with its secrets replaced (the same shape). */
export type Scrub = <T>(value: T) => T

/**
 * A subscription event queued for a run, as the model is given it (the call that opened the
 * subscription is unknown once its thread closed: null).
 */
export interface InjectedEvent {
  original_tool_name: string | null
  original_tool_call_id: string
  original_args: unknown
  text: string
}

/** A run's view of a thread's subscription events: see {@link RapLink.watch}. */
export interface SubscriptionWatch {
  size(): number
  take(): InjectedEvent[]
  close(): void
}

/** A call in flight (see RapLink's #calls). */
interface InFlight {
  key: string
  toolName: string
  args: unknown
  final: boolean
}

/** A ticket's promise waiting for its answer; `call`: the entry of #calls of the call it runs. */
interface Pending {
  resolve: (message: Answer) => void
  reject: (error: unknown) => void
  call: InFlight | undefined
}

/** Subscription events kept for the next run on a thread, and their text size. */
interface Backlog {
  events: InjectedEvent[]
  chars: number
}

/** The keys of the options of `addRapToolset(baseUrl, options)`. */
export const TOOLSET_OPTIONS: readonly string[] = ['timeoutMs', 'retry', 'bind', 'publicUrl', 'maxCallbackBytes', 'prefix', 'headers']

/** The callback server's options and the toolset's own, split and checked. */
export function toolsetOptions(options: RapToolsetOptions | undefined): ToolsetSetup {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`addRapToolset: options must be an object, got ${describe(options)}`)
  }
  // (its own keys only, each read once: see ownOptions; the engine names a key it does not know)
  const { timeoutMs, retry, bind, publicUrl, maxCallbackBytes, prefix, headers } = ownOptions(options)
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new ToolwireError('VALIDATION_ERROR', `addRapToolset: options.timeoutMs must be a positive number, got ${describe(timeoutMs)}`)
  }
  for (const [key, value] of [['bind', bind], ['publicUrl', publicUrl], ['prefix', prefix]] as const) {
    if (value !== undefined && typeof value !== 'string') {
      throw new ToolwireError('VALIDATION_ERROR', `addRapToolset: options.${key} must be a string, got ${describe(value)}`)
    }
  }
  if (retry !== undefined && (retry === null || typeof retry !== 'object' || Array.isArray(retry))) {
    throw new ToolwireError('VALIDATION_ERROR', `addRapToolset: options.retry must be an object { maxAttempts, baseDelayMs }, got ${describe(retry)}`)
  }
  if (headers !== undefined && (headers === null || typeof headers !== 'object' || Array.isArray(headers))) {
    throw new ToolwireError('VALIDATION_ERROR', `addRapToolset: options.headers must be an object of strings, got ${describe(headers)}`)
  }
  return {
    timeoutMs,
    server: jsonText('addRapToolset: options', { bind, publicUrl, maxCallbackBytes }),
    toolset: jsonText('addRapToolset: options', { prefix, retry, headers }),
  }
}

/**
 * A tool's value from a RAP `tool_result`: text and image blocks; `display_as` kept in details.
 * What the server sent is read by its own keys (see ownOptions), never a polluted prototype's.
 */
function valueOf(sent: RapToolResult): AgentToolResult<RemoteDetails> {
  const result = ownOptions(sent)
  let content: ContentBlock[]
  if (Array.isArray(result.content)) {
    content = result.content.map((item) =>
      own(item, 'type') === 'image'
        ? { type: 'image', data: own(item, 'data') as string, mimeType: own(item, 'mediaType') as string }
        : { type: 'text', text: own(item, 'text') as string },
    )
  } else {
    content = [{ type: 'text', text: typeof result.text === 'string' ? result.text : '' }]
  }
  const details: RemoteDetails = {}
  if (result.display_as !== undefined) details.display_as = result.display_as
  if (result.subscription === true) details.subscription = true
  return Object.keys(details).length === 0 ? { content } : { content, details }
}

/** The text a `tool_result` reports an error with (its text, else its first text item), by its own keys. */
function errorText(sent: RapToolResult): string {
  const result = ownOptions(sent)
  if (typeof result.text === 'string') return result.text
  const item = Array.isArray(result.content) ? result.content.find((i): i is RapTextItem => own(i, 'type') === 'text') : undefined
  return item === undefined ? 'Error: the remote tool failed' : (own(item, 'text') as string)
}

/** The text size of a queued subscription event. */
function charsOf(event: InjectedEvent): number {
  return typeof event.text === 'string' ? event.text.length : 0
}

/** Removes the queued events of call `callId`, in place; returns the text size removed. */
function dropEventsOf(queue: InjectedEvent[], callId: string): number {
  let kept = 0
  let dropped = 0
  for (const event of queue) {
    if (event.original_tool_call_id === callId) dropped += charsOf(event)
    else queue[kept++] = event
  }
  queue.length = kept
  return dropped
}

function keyOf(groupId: string, callId: string): string {
  return `${groupId.length}:${groupId}${callId}`
}

/**
 * The RAP side of one ToolRuntime. The native transport starts with the first toolset; until
 * then nothing runs and nothing holds the process.
 */
export class RapLink {
  /** the transport's class: NativeRap, or a stand-in in tests */
  #Transport: RapTransportClass
  #native: RapTransport | null = null
  /** the callback server's options the transport was started with (JSON text) */
  #server: string | null = null
  /** whether a toolset ever loaded (then the transport and its options stay) */
  #loaded = false
  /** ticket -> { resolve, reject, call? }: `call` is the call's entry of #calls */
  #pending = new Map<number, Pending>()
  #nextTicket = 1
  /** an interval while anything is in flight, so Node waits for it (and this link stays reachable) */
  #hold: ReturnType<typeof setInterval> | null = null
  /** `(event) => void`: where RAP events go (the runtime-level onEvent) */
  #emit: (event: RapEvent) => void
  /** `(value) => value`: the value with its secrets replaced (one call per crossing's events) */
  #scrub: Scrub
  /** groupId -> Set of queues of runs watching that thread */
  #watchers = new Map<string, Set<InjectedEvent[]>>()
  /** groupId -> { events, chars }: subscription events no run has taken yet (no run watching) */
  #backlogs = new Map<string, Backlog>()
  /**
   * keyOf(groupId, callId) -> { key, toolName, args, final }: calls in flight (an event may
   * overtake its result). `final`: the call's final subscription event came first, so its result
   * opens no subscription.
   */
  #calls = new Map<string, InFlight>()
  /** keyOf(groupId, callId) -> { toolName, args }: open subscriptions */
  #subscriptions = new Map<string, { toolName: string; args: unknown }>()

  /** the binding's optional parts (`features()`): a build without `rap` refuses to load toolsets */
  #features: readonly string[]

  /** `Transport`: the transport's class, constructed as `new Transport(serverOptionsJson, deliver)`. */
  /**
   * `emit`: where RAP events go; `scrub(value)`: the value with its secrets replaced (the
   * runtime's `sanitize` kinds), applied to every event's message before anything reads it;
   * `features`: the binding's optional parts (a stand-in list in tests).
   */
  constructor(
    emit: (event: RapEvent) => void,
    Transport: RapTransportClass = binding.NativeRap,
    scrub: Scrub = (value) => scrubSecrets(value, 'a RAP event'),
    features: readonly string[] = featuresOf(binding),
  ) {
    this.#emit = emit
    this.#Transport = Transport
    this.#scrub = scrub
    this.#features = features
  }

  /** Starts the transport with these callback server options, or checks they are the ones in use. */
  #start(server: string): void {
    if (this.#native !== null) {
      if (server !== this.#server && server !== '{}') {
        throw new ToolwireError(
          'VALIDATION_ERROR',
          `addRapToolset: bind, publicUrl and maxCallbackBytes are fixed by the first toolset that loaded (${this.#server}), got ${server}`,
        )
      }
      return
    }
    // The transport holds its callback for as long as it lives: through a WeakRef, so a runtime
    // dropped by its owner (with nothing in flight) can be collected, and its transport with it.
    const link = new WeakRef(this)
    const Transport = this.#Transport
    this.#native = native(() => new Transport(server, (messages: string) => {
      const runtime = link.deref()
      if (runtime !== undefined) runtime.#receive(messages)
    }))
    this.#server = server
  }

  /** Fetches and validates a toolset; resolves with `{ toolset, tools: [{ name, description, parameters }] }`. */
  load(baseUrl: string, options: ToolsetSetup): Promise<LoadedToolset> {
    requireFeature(this.#features, 'rap', 'addRapToolset')
    this.#start(options.server)
    // (#start started the transport)
    const transport = this.#native as RapTransport
    return this.#request<RapLoadedMessage>((ticket) => transport.load(ticket, baseUrl, options.toolset)).then(
      ([, , toolset, tools]) => {
        this.#loaded = true
        return { toolset, tools }
      },
      (error) => {
        // Until a toolset loads, the callback server's options are not fixed: a failed first
        // load lets the next one choose them (nothing else can be using this transport yet).
        if (!this.#loaded && this.#pending.size === 0) {
          this.#native = null
          this.#server = null
        }
        throw error
      },
    )
  }

  /** Forgets the toolset exposing `tool` (a load the runtime could not complete). */
  unload(tool: string): void {
    if (this.#native !== null) this.#native.unload(tool)
  }

  /** Forgets one remote tool (unregistered): its name can be loaded again. */
  unloadTool(tool: string): void {
    if (this.#native !== null) this.#native.unloadTool(tool)
  }

  /**
   * Runs remote tool `tool` for call `callId` in the dispatch's `{ groupId, userId?,
   * threadAncestors? }`: resolves with the tool's value, rejects with the error the model sees. An
   * abort of `signal` (timeout or cancel) sends a cancel.
   */
  call(
    tool: string,
    callId: string,
    args: unknown,
    signal: AbortSignal | undefined,
    { groupId, userId, threadAncestors }: DispatchContext,
  ): Promise<AgentToolResult<RemoteDetails>> {
    let argsText: string
    try {
      argsText = JSON.stringify(args === undefined ? {} : args)
    } catch (error) {
      return Promise.reject(new Error(`the arguments cannot be sent: ${serializeFailure(error, args)}`))
    }
    const head = JSON.stringify({ tool, id: callId, callId, groupId, userId, threadAncestors })
    let onAbort: (() => void) | undefined
    const ticket = this.#ticket()
    const key = keyOf(groupId, callId)
    const inFlight: InFlight = { key, toolName: tool, args, final: false }
    // (a remote tool exists only once its toolset loaded, and the transport then stays)
    const transport = this.#native as RapTransport
    const outcome = this.#request<CallAnswer>(() => transport.invoke(ticket, head, argsText), ticket, inFlight)
    this.#calls.set(key, inFlight)
    if (signal !== undefined) {
      onAbort = () => transport.abort(ticket)
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, ONCE)
    }
    const ended = (): void => {
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
      this.#calls.delete(key)
    }
    return outcome.then(
      (message) => {
        ended()
        return this.#settle(tool, message)
      },
      (error) => {
        ended()
        throw error
      },
    )
  }

  /** A call's value from its message (its subscription, if any, was recorded by #answer). */
  #settle(tool: string, message: CallAnswer): AgentToolResult<RemoteDetails> {
    switch (message[0]) {
      case RapMessage.RESULT: {
        const [, , error, result, refused] = message
        if (error) {
          const thrown: Error & { [OVER_LIMIT_MARK]?: true } = new Error(errorText(result))
          // a result the callback server refused over maxCallbackBytes or the depth limit
          if (refused === 'LIMIT_EXCEEDED') thrown[OVER_LIMIT_MARK] = true
          throw thrown
        }
        return valueOf(result)
      }
      case RapMessage.TIMEOUT:
        throw new Error(`Remote tool "${tool}" sent no result by its deadline`)
      default:
        throw new Error(`Remote tool "${tool}" was cancelled`)
    }
  }

  /** `POST /close_thread` to every server; the thread's subscriptions are forgotten. */
  closeThread(groupId: string): Promise<void> {
    for (const [key] of this.#subscriptionsOf(groupId)) this.#subscriptions.delete(key)
    this.#backlogs.delete(groupId)
    // Runs still on it hear nothing more of its subscriptions.
    for (const queue of this.#watchers.get(groupId) ?? []) queue.length = 0
    const transport = this.#native
    if (transport === null) return Promise.resolve()
    return this.#request<RapDoneMessage>((ticket) => transport.closeThread(ticket, groupId)).then(noop)
  }

  /**
   * POSTs `{ id, selected }` to the `response_url` of pending user choice `id` of thread
   * `groupId` (without one: the only pending choice with that id; several are refused).
   */
  answerUserChoice(id: string, selected: number, groupId?: string): Promise<void> {
    const transport = this.#native
    if (transport === null) return Promise.reject(new ToolwireError('NOT_FOUND', `no pending user choice ${JSON.stringify(id)}`))
    return this.#request<RapDoneMessage>((ticket) => transport.answerUserChoice(ticket, id, selected, groupId)).then(noop)
  }

  /** Ends subscription `callId` of thread `groupId`: later events are refused, a cancel is sent. */
  cancelSubscription(groupId: string, callId: string): boolean {
    const key = keyOf(groupId, callId)
    const transport = this.#native
    const open = transport !== null && native(() => transport.cancelSubscription(groupId, callId))
    this.#subscriptions.delete(key)
    for (const queue of this.#watchers.get(groupId) ?? []) dropEventsOf(queue, callId)
    const backlog = this.#backlogs.get(groupId)
    if (backlog !== undefined) {
      backlog.chars -= dropEventsOf(backlog.events, callId)
      this.#trimBacklog(groupId, backlog)
    }
    return open
  }

  /**
   * The ids of the calls of thread `groupId` whose subscription is open as this link knows it
   * (opened by their result, not yet ended by a final event, a cancel or closeThread), sorted.
   */
  openSubscriptions(groupId: string): string[] {
    return [...this.#subscriptionsOf(groupId)].map(([, callId]) => callId).sort()
  }

  /** The open subscriptions of thread `groupId`, as [key, callId]. */
  *#subscriptionsOf(groupId: string): Generator<[key: string, callId: string]> {
    const prefix = keyOf(groupId, '')
    for (const key of [...this.#subscriptions.keys()]) if (key.startsWith(prefix)) yield [key, key.slice(prefix.length)]
  }

  /**
   * A run's view of thread `groupId`: `take()` returns the subscription events that arrived
   * since (starting with those the thread kept while no run watched it), as
   * `{ original_tool_name, original_tool_call_id, original_args, text }`; `size()` how many wait;
   * `close()` stops watching, and events not taken go back to the thread for the next run.
   */
  watch(groupId: string): SubscriptionWatch {
    const backlog = this.#backlogs.get(groupId)
    this.#backlogs.delete(groupId)
    const queue: InjectedEvent[] = backlog === undefined ? [] : backlog.events
    /** the events this watcher alone was given (the thread's backlog) */
    const kept = new Set(queue)
    let set = this.#watchers.get(groupId)
    if (set === undefined) this.#watchers.set(groupId, (set = new Set()))
    set.add(queue)
    return {
      size: () => queue.length,
      take: () => queue.splice(0, queue.length),
      close: () => {
        if (!set.delete(queue)) return
        if (set.size > 0) {
          // The others heard every later event; what only this one had goes to one of them.
          const [next] = set
          next.unshift(...queue.filter((event) => kept.has(event)))
          return
        }
        if (this.#watchers.get(groupId) === set) this.#watchers.delete(groupId)
        // Nobody else heard them: they wait for the next run on this thread.
        for (const event of queue) this.#keep(groupId, event)
      },
    }
  }

  /** Keeps an event for the next run on `groupId` (no run watches it now). */
  #keep(groupId: string, event: InjectedEvent): void {
    let backlog = this.#backlogs.get(groupId)
    if (backlog === undefined) this.#backlogs.set(groupId, (backlog = { events: [], chars: 0 }))
    backlog.events.push(event)
    backlog.chars += charsOf(event)
    this.#trimBacklog(groupId, backlog)
  }

  /** Drops a backlog's oldest events past its bounds, and the backlog once empty. */
  #trimBacklog(groupId: string, backlog: Backlog): void {
    while (backlog.events.length > BACKLOG_EVENTS || (backlog.chars > BACKLOG_CHARS && backlog.events.length > 1)) {
      // (the loop's test: there is one)
      backlog.chars -= charsOf(backlog.events.shift() as InjectedEvent)
    }
    if (backlog.events.length === 0) this.#backlogs.delete(groupId)
  }

  #ticket(): number {
    const ticket = this.#nextTicket
    this.#nextTicket = ticket === MAX_TICKET ? 1 : ticket + 1
    return ticket
  }

  /**
   * Starts native work under a ticket; the promise settles with its message. `call`: the entry
   * of #calls of the call the ticket runs, if it runs one.
   */
  #request<A extends Answer>(start: (ticket: number) => void, ticket: number = this.#ticket(), call: InFlight | undefined = undefined): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      native(() => start(ticket))
      // (the transport answers a ticket with what its method says: `A`)
      this.#pending.set(ticket, { resolve: resolve as (message: Answer) => void, reject, call })
      if (this.#pending.size === 1) this.#holdOpen(true)
    })
  }

  #holdOpen(on: boolean): void {
    if (on) {
      // The interval's callback keeps this link reachable while it waits for the transport.
      if (this.#hold === null) this.#hold = setInterval(() => this.#pending, HOLD_MS)
    } else if (this.#hold !== null) {
      clearInterval(this.#hold)
      this.#hold = null
    }
  }

  /** The one receiver of everything the transport reports; never throws back into Rust. */
  #receive(text: string): void {
    let messages: RapEngineMessage[]
    try {
      messages = JSON.parse(text)
    } catch (error) {
      process.emitWarning(`toolwire: unreadable RAP messages: ${messageOf(error)}`, 'ToolwireWarning')
      return
    }
    let events: RapEvent[]
    try {
      events = this.#scrubbedEvents(messages)
    } catch (error) {
      // Never delivered unscrubbed: the crossing's events go, its outcomes still land.
      process.emitWarning(`toolwire: RAP events could not be scrubbed of secrets and were dropped: ${messageOf(error)}`, 'ToolwireWarning')
      events = []
    }
    let nextEvent = 0
    for (const message of messages) {
      try {
        if (message[0] === RapMessage.EVENT) {
          const event = events[nextEvent++]
          if (event !== undefined) this.#event(event)
        } else this.#answer(message)
      } catch (error) {
        process.emitWarning(`toolwire: RAP message of code ${message[0]} failed: ${messageOf(error)}`, 'ToolwireWarning')
      }
    }
  }

  #answer(message: Exclude<RapEngineMessage, RapEventMessage>): void {
    const ticket = message[1]
    const pending = this.#pending.get(ticket)
    if (pending === undefined) return
    this.#pending.delete(ticket)
    if (this.#pending.size === 0) this.#holdOpen(false)
    if (message[0] === RapMessage.FAILED) {
      const [, , code, text, status] = message
      const error: ToolwireError & { status?: number; retryable?: boolean } = new ToolwireError(code, text)
      if (status !== undefined) error.status = status
      // A 4xx is the server's final word: retrying the same call cannot help.
      if (status !== undefined && status < 500) error.retryable = false
      pending.reject(error)
    } else {
      // Recorded here, in order with the events of the same crossing: a final event after this
      // result ends the subscription, one before it (see #event) keeps it from opening.
      const { call } = pending
      const subscribes = message[0] === RapMessage.RESULT && !message[2] && message[3] !== null && typeof message[3] === 'object' && own(message[3], 'subscription') === true
      if (call !== undefined && subscribes && !call.final) this.#subscriptions.set(call.key, { toolName: call.toolName, args: call.args })
      pending.resolve(message)
    }
  }

  /**
   * The events of one crossing, in order, scrubbed of secrets in one call: what a tool server
   * sends reaches onEvent and (subscription events) the model, so it is scrubbed as a tool's
   * result is. The ids stay as they are: they key the subscriptions.
   */
  #scrubbedEvents(messages: RapEngineMessage[]): RapEvent[] {
    const raw = messages.filter((message): message is RapEventMessage => message[0] === RapMessage.EVENT).map(([, event]) => event)
    if (raw.length === 0) return []
    const scrubbed = this.#scrub(raw.map(({ type, callId, groupId, ...sent }) => sent))
    // (each the event it was, its secrets replaced)
    return raw.map(({ type, callId, groupId }, i) => ({ type, callId, groupId, ...scrubbed[i] }) as RapEvent)
  }

  #event(event: RapEvent): void {
    if (event.type === 'rap_subscription_event') {
      const key = keyOf(event.groupId, event.callId)
      const subscription = this.#subscriptions.get(key) ?? this.#calls.get(key)
      // Kept for a later run only while its call or subscription is known (not after its thread
      // closed).
      const known = subscription !== undefined
      if (own(event.message, 'final') === true) {
        this.#subscriptions.delete(key)
        const inFlight = this.#calls.get(key)
        if (inFlight !== undefined) inFlight.final = true
      }
      const injected: InjectedEvent = {
        original_tool_name: subscription?.toolName ?? null,
        original_tool_call_id: event.callId,
        original_args: subscription?.args ?? null,
        text: event.message.text,
      }
      const watchers = this.#watchers.get(event.groupId)
      if (watchers !== undefined) for (const queue of watchers) queue.push(injected)
      else if (known) this.#keep(event.groupId, injected)
    }
    this.#emit(event)
  }
}

/** The ToolDefinition of a remote tool: its execute delegates to the transport. */
export function remoteTool(link: RapLink, def: RemoteToolDef, timeoutMs: number | undefined): ContextTool {
  const tool: ContextTool = {
    name: def.name,
    description: def.description,
    parameters: def.parameters,
    // The UI may show what the server asked to display.
    redaction: { allow: ['display_as', 'subscription'] },
    execute: (toolCallId, args, signal, onUpdate, context) => link.call(def.name, toolCallId, args, signal, context),
    [DISPATCH_CONTEXT]: true,
    [REMOTE]: true,
  }
  if (timeoutMs !== undefined) tool.timeoutMs = timeoutMs
  return tool
}

/** The built-in `cancel_subscription`: ends a subscription of the calling thread only. */
export function cancelSubscriptionTool(link: RapLink): ContextTool<{ tool_call_id: string }> {
  return {
    name: CANCEL_TOOL,
    description:
      'Cancels a subscription started by an earlier remote tool call of this conversation: no more events from it will arrive.',
    parameters: {
      type: 'object',
      properties: { tool_call_id: { type: 'string', description: 'The id of the tool call that started the subscription.' } },
      required: ['tool_call_id'],
      additionalProperties: false,
    },
    execute: (toolCallId, args, signal, onUpdate, context) => {
      const id = args.tool_call_id
      if (!link.cancelSubscription(context.groupId, id)) {
        throw new Error(`No open subscription started by tool call ${JSON.stringify(id)} in this conversation.`)
      }
      return { content: [{ type: 'text', text: `Subscription of tool call ${JSON.stringify(id)} cancelled.` }] }
    },
    [DISPATCH_CONTEXT]: true,
  }
}

/**
 * The history items delivering queued subscription events to the model: per event a synthetic
 * assistant call of `receive_event__injected` and its result, in the wire's own shapes.
 */
export function injectedMessages(runtime: HistoryEncoders, wire: Wire, events: InjectedEvent[], newId: () => string): object[] {
  const messages: object[] = []
  for (const event of events) {
    const id = newId()
    const args = {
      original_tool_name: event.original_tool_name,
      original_tool_call_id: event.original_tool_call_id,
      original_args: event.original_args,
    }
    messages.push(...runtime.encodeToolCalls([{ id, name: INJECTED_TOOL, arguments: JSON.stringify(args) }], wire))
    messages.push(
      ...runtime.encodeResults(
        // (an encoder reads neither `details` nor `timestamp`: they never reach a wire)
        [{ role: 'toolResult', toolCallId: id, toolName: INJECTED_TOOL, content: [{ type: 'text', text: event.text }], isError: false } as ToolResultMessage],
        wire,
      ),
    )
  }
  return messages
}

/** What {@link injectedMessages} uses of the runtime: its history encoders (a ToolRuntime's). */
export interface HistoryEncoders {
  encodeToolCalls(turn: HistoryCall[], wire: Wire): object[]
  encodeResults(results: ToolResultMessage[], wire: Wire): object[]
}
