// One dispatch for the calls a framework starts together. pi-agent-core and the AI SDK call each
// tool's `execute` on its own, in the same tick; dispatching each alone paid the dispatch's fixed
// cost once per call and made those frameworks slower with toolwire than without. A CallBatcher
// collects the calls started within the same run of microtasks and hands them to one
// `runtime.dispatch`, each caller still getting its own result, updates and errors.

import { withSlotUpdates } from '../batch.js'
import type { ToolRuntime } from '../index.js'
import type { DispatchOptions, ModelToolCall, ToolExecutionEvent, ToolResult } from '../types.js'

/** The adapters' dispatch options: DispatchOptions without `signal` (each call brings its own). */
export type AdapterDispatchOptions = Omit<DispatchOptions, 'signal'>

/** Receives the partial results of one call's `tool_execution_update` events. */
export type UpdateListener = (partialResult: unknown) => void

/** A queued call's promise: settled with its dispatch. */
interface Waiting {
  resolve: (result: ToolResult) => void
  reject: (error: unknown) => void
}

/** The calls of one signal collected for one dispatch. */
interface Batch {
  signal: AbortSignal | undefined
  calls: ModelToolCall[]
  waiting: Waiting[]
  ids: Set<string>
  /** each call's `onUpdate`, by its position in `calls` */
  updates: (UpdateListener | undefined)[]
}

/**
 * A batch closes after this many microtask turns in a row bring no call. Calls a framework starts
 * in one loop arrive in the same turn, or a few turns apart when each passes through a few awaits
 * first; a turn costs a few tens of nanoseconds.
 */
const QUIET_TURNS = 4

/** A batch closes after at most this many turns, even while calls keep arriving. */
const MAX_SETTLE_TURNS = 64

/**
 * Collects calls into shared dispatches for one adapter (one runtime, one set of dispatch
 * options). `call(call, signal, onUpdate)` resolves with that call's ToolResult.
 *
 * - Calls with the same abort signal (or none) started within one run of microtasks share one
 *   dispatch, given that signal: aborting it cancels exactly the calls that were given it. Calls
 *   with another signal go in a dispatch of their own signal, so aborting one caller's signal
 *   never cancels another caller's call.
 * - A call whose id is already in the open batch starts a new one (the engine refuses a repeated
 *   id within one dispatch; separate dispatches run both, as they would have alone).
 * - `onUpdate` receives the partial results of that call's own `tool_execution_update` events,
 *   routed by the call's position in the dispatch, never by the event's `toolCallId` (which shows
 *   an id holding a secret or a lone surrogate changed); the dispatch options' `onEvent` still sees
 *   every event once.
 * - A dispatch refused as a whole for a caller's mistake (a TypeError before any call ran, e.g.
 *   one call's id not a string) is retried call by call, so the mistake costs only the call that
 *   made it.
 */
export class CallBatcher {
  #runtime: ToolRuntime
  #options: AdapterDispatchOptions
  /** the open batch of each signal (`undefined` for calls without one) */
  #open = new Map<AbortSignal | undefined, Batch>()
  /** batches closed early (a repeated id), dispatched with the open ones */
  #closed: Batch[] = []
  #scheduled = false
  /** calls taken since the batch opened, and as of the last microtask turn */
  #taken = 0
  #seen = 0
  /** microtask turns since the batch opened, and since a turn last brought a call */
  #turns = 0
  #quiet = 0

  /** `options` are the adapter's dispatch options (without `signal`), already checked. */
  constructor(runtime: ToolRuntime, options: AdapterDispatchOptions) {
    this.#runtime = runtime
    this.#options = options
  }

  /** Queues one call; resolves with its ToolResult, rejects only with its own dispatch's error. */
  call(call: ModelToolCall, signal: AbortSignal | null | undefined, onUpdate: UpdateListener | undefined): Promise<ToolResult> {
    return new Promise<ToolResult>((resolve, reject) => {
      const key = signal === null ? undefined : signal
      let batch: Batch | undefined = this.#open.get(key)
      if (batch !== undefined && batch.ids.has(call.id)) {
        this.#closed.push(batch)
        batch = undefined
      }
      if (batch === undefined) {
        batch = { signal: key, calls: [], waiting: [], ids: new Set(), updates: [] }
        this.#open.set(key, batch)
      }
      batch.calls.push(call)
      batch.waiting.push({ resolve, reject })
      batch.ids.add(call.id)
      batch.updates.push(onUpdate)
      this.#taken++
      this.#schedule()
    })
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    this.#seen = 0
    this.#turns = 0
    this.#quiet = 0
    queueMicrotask(this.#settle)
  }

  /** Waits while calls keep arriving (bounded), then dispatches every batch. */
  #settle = (): void => {
    this.#quiet = this.#taken === this.#seen ? this.#quiet + 1 : 0
    this.#seen = this.#taken
    if (this.#quiet < QUIET_TURNS && ++this.#turns < MAX_SETTLE_TURNS) {
      queueMicrotask(this.#settle)
      return
    }
    const batches = [...this.#closed, ...this.#open.values()]
    this.#closed = []
    this.#open.clear()
    this.#scheduled = false
    this.#taken = 0
    for (const batch of batches) this.#dispatch(batch)
  }

  #dispatch(batch: Batch): void {
    this.#runtime.dispatch(batch.calls, this.#optionsFor(batch.signal, batch.updates)).then(
      (results: ToolResult[]) => {
        for (let i = 0; i < batch.waiting.length; i++) batch.waiting[i].resolve(results[i])
      },
      (error: unknown) => {
        if (batch.calls.length > 1 && refusedUnrun(error)) {
          batch.calls.forEach((call, i) => this.#dispatchAlone(call, i, batch, batch.waiting[i]))
        } else {
          for (const waiting of batch.waiting) waiting.reject(error)
        }
      },
    )
  }

  /** One call of a refused batch, on its own: its error is its own. */
  #dispatchAlone(call: ModelToolCall, slot: number, batch: Batch, waiting: Waiting): void {
    this.#runtime.dispatch([call], this.#optionsFor(batch.signal, [batch.updates[slot]])).then((results: ToolResult[]) => waiting.resolve(results[0]), waiting.reject)
  }

  #optionsFor(signal: AbortSignal | undefined, updates: (UpdateListener | undefined)[]): DispatchOptions {
    const options: DispatchOptions = { ...this.#options }
    if (signal !== undefined) options.signal = signal
    if (updates.some((onUpdate) => onUpdate !== undefined)) options.onEvent = routingUpdates(this.#options.onEvent, updates)
    return options
  }
}

/**
 * The `onEvent` of a dispatch of the calls whose `onUpdate` listeners are `updates` (by the call's
 * position in the dispatch): every event goes to `own` (the dispatch options' own onEvent, if
 * any), and the partial result of each `tool_execution_update` event to the `onUpdate` of its
 * call, which the dispatch finds by position (see `withSlotUpdates` in ts/batch.ts): an event's
 * `toolCallId` is the id as events show it (a secret replaced, a lone surrogate repaired, each
 * marked with a digest), which cannot be matched to the call's own id.
 */
export function routingUpdates(
  own: ((event: ToolExecutionEvent) => void) | undefined,
  updates: readonly (UpdateListener | undefined)[],
): (event: ToolExecutionEvent) => void {
  const onEvent = (event: ToolExecutionEvent): void => {
    if (own !== undefined) own(event)
  }
  return withSlotUpdates(onEvent, (slot, partialResult) => {
    const onUpdate = updates[slot]
    if (onUpdate !== undefined) onUpdate(partialResult)
  })
}

/**
 * Whether `error` refused a whole dispatch before any of its calls ran: dispatch throws a
 * TypeError only from its checks of the calls and options, before the engine sees them (a fault
 * after calls started rejects with INTERNAL_ERROR, and then no call is run again).
 */
function refusedUnrun(error: unknown): boolean {
  return error instanceof TypeError
}
