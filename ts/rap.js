'use strict'
// Remote tools over the Reactive Agent Protocol (RAP). The transport runs in Rust (NativeRap, on
// a tokio runtime of its own); this layer keeps what cannot cross the boundary: the promises of
// calls in flight (by ticket), their AbortSignals, the handle that keeps Node alive while
// anything is in flight, and the queues of subscription events waiting for a run.
//
// Every outcome and event crosses back through one callback, as one JSON text array per
// crossing (see src/rap.rs for the messages).

const binding = require('../native.js')
const { featuresOf, requireFeature } = require('./binding.js')
const { ToolwireError, native, messageOf, serializeFailure, describe, jsonText, OVER_LIMIT_MARK } = require('./common.js')
const { scrubSecrets } = require('./sanitize.js')

/** Tools given a dispatch context (`{ groupId, runId }`) as a fifth argument of execute. */
const DISPATCH_CONTEXT = Symbol('toolwire.dispatchContext')
/** Marks a remote tool: unregistering it frees its name in the transport too. */
const REMOTE = Symbol('toolwire.remoteTool')
/** The synthetic call a subscription event is delivered to the model as. Never a real tool. */
const INJECTED_TOOL = 'receive_event__injected'
/** The built-in tool ending a subscription of the calling thread. */
const CANCEL_TOOL = 'cancel_subscription'
/** Names a toolset may not expose: toolwire's own. */
const RESERVED = new Set([INJECTED_TOOL, CANCEL_TOOL])
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
const noop = () => {}

/** The callback server's options and the toolset's own, split and checked. */
function toolsetOptions(options) {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`addRapToolset: options must be an object, got ${describe(options)}`)
  }
  const { timeoutMs, retry, bind, publicUrl, maxCallbackBytes, prefix, headers } = options
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new ToolwireError('VALIDATION_ERROR', `addRapToolset: options.timeoutMs must be a positive number, got ${describe(timeoutMs)}`)
  }
  for (const [key, value] of [['bind', bind], ['publicUrl', publicUrl], ['prefix', prefix]]) {
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

/** A tool's value from a RAP `tool_result`: text and image blocks; `display_as` kept in details. */
function valueOf(result) {
  let content
  if (Array.isArray(result.content)) {
    content = result.content.map((item) =>
      item.type === 'image' ? { type: 'image', data: item.data, mimeType: item.mediaType } : { type: 'text', text: item.text },
    )
  } else {
    content = [{ type: 'text', text: typeof result.text === 'string' ? result.text : '' }]
  }
  const details = {}
  if (result.display_as !== undefined) details.display_as = result.display_as
  if (result.subscription === true) details.subscription = true
  return Object.keys(details).length === 0 ? { content } : { content, details }
}

/** The text a `tool_result` reports an error with (its text, else its first text item). */
function errorText(result) {
  if (typeof result.text === 'string') return result.text
  const item = Array.isArray(result.content) ? result.content.find((i) => i.type === 'text') : undefined
  return item === undefined ? 'Error: the remote tool failed' : item.text
}

/** The text size of a queued subscription event. */
function charsOf(event) {
  return typeof event.text === 'string' ? event.text.length : 0
}

/** Removes the queued events of call `callId`, in place; returns the text size removed. */
function dropEventsOf(queue, callId) {
  let kept = 0
  let dropped = 0
  for (const event of queue) {
    if (event.original_tool_call_id === callId) dropped += charsOf(event)
    else queue[kept++] = event
  }
  queue.length = kept
  return dropped
}

function keyOf(groupId, callId) {
  return `${groupId.length}:${groupId}${callId}`
}

/**
 * The RAP side of one ToolRuntime. The native transport starts with the first toolset; until
 * then nothing runs and nothing holds the process.
 */
class RapLink {
  /** the transport's class: NativeRap, or a stand-in in tests */
  #Transport
  #native = null
  /** the callback server's options the transport was started with (JSON text) */
  #server = null
  /** whether a toolset ever loaded (then the transport and its options stay) */
  #loaded = false
  /** ticket -> { resolve, reject, call? }: `call` is the call's entry of #calls */
  #pending = new Map()
  #nextTicket = 1
  /** an interval while anything is in flight, so Node waits for it (and this link stays reachable) */
  #hold = null
  /** `(event) => void`: where RAP events go (the runtime-level onEvent) */
  #emit
  /** `(value) => value`: the value with its secrets replaced (one call per crossing's events) */
  #scrub
  /** groupId -> Set of queues of runs watching that thread */
  #watchers = new Map()
  /** groupId -> { events, chars }: subscription events no run has taken yet (no run watching) */
  #backlogs = new Map()
  /**
   * keyOf(groupId, callId) -> { key, toolName, args, final }: calls in flight (an event may
   * overtake its result). `final`: the call's final subscription event came first, so its result
   * opens no subscription.
   */
  #calls = new Map()
  /** keyOf(groupId, callId) -> { toolName, args }: open subscriptions */
  #subscriptions = new Map()

  /** the binding's optional parts (`features()`): a build without `rap` refuses to load toolsets */
  #features

  /** `Transport`: the transport's class, constructed as `new Transport(serverOptionsJson, deliver)`. */
  /**
   * `emit`: where RAP events go; `scrub(value)`: the value with its secrets replaced (the
   * runtime's `sanitize` kinds), applied to every event's message before anything reads it;
   * `features`: the binding's optional parts (a stand-in list in tests).
   */
  constructor(emit, Transport = binding.NativeRap, scrub = (value) => scrubSecrets(value, 'a RAP event'), features = featuresOf(binding)) {
    this.#emit = emit
    this.#Transport = Transport
    this.#scrub = scrub
    this.#features = features
  }

  /** Starts the transport with these callback server options, or checks they are the ones in use. */
  #start(server) {
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
    this.#native = native(() => new Transport(server, (messages) => {
      const runtime = link.deref()
      if (runtime !== undefined) runtime.#receive(messages)
    }))
    this.#server = server
  }

  /** Fetches and validates a toolset; resolves with `{ toolset, tools: [{ name, description, parameters }] }`. */
  load(baseUrl, options) {
    requireFeature(this.#features, 'rap', 'addRapToolset')
    this.#start(options.server)
    return this.#request((ticket) => this.#native.load(ticket, baseUrl, options.toolset)).then(
      (loaded) => {
        this.#loaded = true
        return loaded
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
  unload(tool) {
    if (this.#native !== null) this.#native.unload(tool)
  }

  /** Forgets one remote tool (unregistered): its name can be loaded again. */
  unloadTool(tool) {
    if (this.#native !== null) this.#native.unloadTool(tool)
  }

  /**
   * Runs remote tool `tool` for call `callId` in the dispatch's `{ groupId, userId?,
   * threadAncestors? }`: resolves with the tool's value, rejects with the error the model sees. An
   * abort of `signal` (timeout or cancel) sends a cancel.
   */
  call(tool, callId, args, signal, { groupId, userId, threadAncestors }) {
    let argsText
    try {
      argsText = JSON.stringify(args === undefined ? {} : args)
    } catch (error) {
      return Promise.reject(new Error(`the arguments cannot be sent: ${serializeFailure(error, args)}`))
    }
    const head = JSON.stringify({ tool, id: callId, callId, groupId, userId, threadAncestors })
    let onAbort
    const ticket = this.#ticket()
    const key = keyOf(groupId, callId)
    const inFlight = { key, toolName: tool, args, final: false }
    const outcome = this.#request(() => this.#native.invoke(ticket, head, argsText), ticket, inFlight)
    this.#calls.set(key, inFlight)
    if (signal !== undefined) {
      onAbort = () => this.#native.abort(ticket)
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    }
    const ended = () => {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort)
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
  #settle(tool, message) {
    switch (message.kind) {
      case 'result':
        if (message.error) {
          const error = new Error(errorText(message.result))
          // a result the callback server refused over maxCallbackBytes or the depth limit
          if (message.code === 'LIMIT_EXCEEDED') error[OVER_LIMIT_MARK] = true
          throw error
        }
        return valueOf(message.result)
      case 'timeout':
        throw new Error(`Remote tool "${tool}" sent no result by its deadline`)
      default:
        throw new Error(`Remote tool "${tool}" was cancelled`)
    }
  }

  /** `POST /close_thread` to every server; the thread's subscriptions are forgotten. */
  closeThread(groupId) {
    for (const [key] of this.#subscriptionsOf(groupId)) this.#subscriptions.delete(key)
    this.#backlogs.delete(groupId)
    // Runs still on it hear nothing more of its subscriptions.
    for (const queue of this.#watchers.get(groupId) ?? []) queue.length = 0
    if (this.#native === null) return Promise.resolve()
    return this.#request((ticket) => this.#native.closeThread(ticket, groupId)).then(noop)
  }

  /**
   * POSTs `{ id, selected }` to the `response_url` of pending user choice `id` of thread
   * `groupId` (without one: the only pending choice with that id; several are refused).
   */
  answerUserChoice(id, selected, groupId) {
    if (this.#native === null) return Promise.reject(new ToolwireError('NOT_FOUND', `no pending user choice ${JSON.stringify(id)}`))
    return this.#request((ticket) => this.#native.answerUserChoice(ticket, id, selected, groupId)).then(noop)
  }

  /** Ends subscription `callId` of thread `groupId`: later events are refused, a cancel is sent. */
  cancelSubscription(groupId, callId) {
    const key = keyOf(groupId, callId)
    const open = this.#native !== null && native(() => this.#native.cancelSubscription(groupId, callId))
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
  openSubscriptions(groupId) {
    return [...this.#subscriptionsOf(groupId)].map(([, callId]) => callId).sort()
  }

  /** The open subscriptions of thread `groupId`, as [key, callId]. */
  *#subscriptionsOf(groupId) {
    const prefix = keyOf(groupId, '')
    for (const key of [...this.#subscriptions.keys()]) if (key.startsWith(prefix)) yield [key, key.slice(prefix.length)]
  }

  /**
   * A run's view of thread `groupId`: `take()` returns the subscription events that arrived
   * since (starting with those the thread kept while no run watched it), as
   * `{ original_tool_name, original_tool_call_id, original_args, text }`; `size()` how many wait;
   * `close()` stops watching, and events not taken go back to the thread for the next run.
   */
  watch(groupId) {
    const backlog = this.#backlogs.get(groupId)
    this.#backlogs.delete(groupId)
    const queue = backlog === undefined ? [] : backlog.events
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
  #keep(groupId, event) {
    let backlog = this.#backlogs.get(groupId)
    if (backlog === undefined) this.#backlogs.set(groupId, (backlog = { events: [], chars: 0 }))
    backlog.events.push(event)
    backlog.chars += charsOf(event)
    this.#trimBacklog(groupId, backlog)
  }

  /** Drops a backlog's oldest events past its bounds, and the backlog once empty. */
  #trimBacklog(groupId, backlog) {
    while (backlog.events.length > BACKLOG_EVENTS || (backlog.chars > BACKLOG_CHARS && backlog.events.length > 1)) {
      backlog.chars -= charsOf(backlog.events.shift())
    }
    if (backlog.events.length === 0) this.#backlogs.delete(groupId)
  }

  #ticket() {
    const ticket = this.#nextTicket
    this.#nextTicket = ticket === MAX_TICKET ? 1 : ticket + 1
    return ticket
  }

  /**
   * Starts native work under a ticket; the promise settles with its message. `call`: the entry
   * of #calls of the call the ticket runs, if it runs one.
   */
  #request(start, ticket = this.#ticket(), call = undefined) {
    return new Promise((resolve, reject) => {
      native(() => start(ticket))
      this.#pending.set(ticket, { resolve, reject, call })
      if (this.#pending.size === 1) this.#holdOpen(true)
    })
  }

  #holdOpen(on) {
    if (on) {
      // The interval's callback keeps this link reachable while it waits for the transport.
      if (this.#hold === null) this.#hold = setInterval(() => this.#pending, HOLD_MS)
    } else if (this.#hold !== null) {
      clearInterval(this.#hold)
      this.#hold = null
    }
  }

  /** The one receiver of everything the transport reports; never throws back into Rust. */
  #receive(text) {
    let messages
    try {
      messages = JSON.parse(text)
    } catch (error) {
      process.emitWarning(`toolwire: unreadable RAP messages: ${messageOf(error)}`, 'ToolwireWarning')
      return
    }
    let events
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
        if (message.kind === 'event') {
          const event = events[nextEvent++]
          if (event !== undefined) this.#event(event)
        } else this.#answer(message)
      } catch (error) {
        process.emitWarning(`toolwire: RAP message ${message.kind} failed: ${messageOf(error)}`, 'ToolwireWarning')
      }
    }
  }

  #answer(message) {
    const pending = this.#pending.get(message.ticket)
    if (pending === undefined) return
    this.#pending.delete(message.ticket)
    if (this.#pending.size === 0) this.#holdOpen(false)
    if (message.kind === 'failed') {
      const error = new ToolwireError(message.code, message.message)
      if (message.status !== undefined) error.status = message.status
      // A 4xx is the server's final word: retrying the same call cannot help.
      if (message.status !== undefined && message.status < 500) error.retryable = false
      pending.reject(error)
    } else {
      // Recorded here, in order with the events of the same crossing: a final event after this
      // result ends the subscription, one before it (see #event) keeps it from opening.
      const { call } = pending
      const subscribes = message.kind === 'result' && !message.error && message.result?.subscription === true
      if (call !== undefined && subscribes && !call.final) this.#subscriptions.set(call.key, { toolName: call.toolName, args: call.args })
      pending.resolve(message)
    }
  }

  /**
   * The events of one crossing, in order, scrubbed of secrets in one call: what a tool server
   * sends reaches onEvent and (subscription events) the model, so it is scrubbed as a tool's
   * result is. The ids stay as they are: they key the subscriptions.
   */
  #scrubbedEvents(messages) {
    const raw = messages.filter((message) => message.kind === 'event').map((message) => message.event)
    if (raw.length === 0) return []
    const scrubbed = this.#scrub(raw.map(({ type, callId, groupId, ...sent }) => sent))
    return raw.map(({ type, callId, groupId }, i) => ({ type, callId, groupId, ...scrubbed[i] }))
  }

  #event(event) {
    if (event.type === 'rap_subscription_event') {
      const key = keyOf(event.groupId, event.callId)
      const subscription = this.#subscriptions.get(key) ?? this.#calls.get(key)
      // Kept for a later run only while its call or subscription is known (not after its thread
      // closed).
      const known = subscription !== undefined
      if (event.message.final === true) {
        this.#subscriptions.delete(key)
        const inFlight = this.#calls.get(key)
        if (inFlight !== undefined) inFlight.final = true
      }
      const injected = {
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
function remoteTool(link, def, timeoutMs) {
  const tool = {
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
function cancelSubscriptionTool(link) {
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
function injectedMessages(runtime, wire, events, newId) {
  const messages = []
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
        [{ role: 'toolResult', toolCallId: id, toolName: INJECTED_TOOL, content: [{ type: 'text', text: event.text }], isError: false }],
        wire,
      ),
    )
  }
  return messages
}

module.exports = {
  RapLink,
  DISPATCH_CONTEXT,
  REMOTE,
  INJECTED_TOOL,
  CANCEL_TOOL,
  RESERVED,
  toolsetOptions,
  remoteTool,
  cancelSubscriptionTool,
  injectedMessages,
}
