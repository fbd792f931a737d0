// ToolRuntime: registers tools and runs model tool calls, validated, in parallel under a
// concurrency cap and deadlines, with hooks and events, one result per call. Its checks of what
// a user hands over are here; the engine decides, and the driver (driver.ts) performs.

import nodePath from 'node:path'

import { AuditLog, auditOption } from './audit.js'
import { updatesBySlot, type Batch, type RegisteredTool, type Running } from './batch.js'
import type * as Native from '../native.js'
import { loadBinding } from './binding.js'
import { freshId } from './ids.js'
import { AS_DISPATCH_OPTION, AS_RUNTIME_OPTION, DISPATCH_OPTIONS, RUNTIME_OPTIONS, ToolwireError, checkOptionKeys, describe, jsonText, messageOf, native, own, ownOptions, registerAll } from './common.js'
import { monotonicNow, wallNow } from './clock.js'
import { scrubbingDecoder } from './decoder.js'
import { Driver } from './driver.js'
import { encodeCalls, type ReadCall } from './encode-calls.js'
import { encodeResults, encodeToolCalls } from './history.js'
import { DEFINITION_OPTIONS, type Declaration, type Registrable, approvalsOption, bothListeners, contextOf, declarationOf, finiteOption, optionalFunction } from './options.js'
import { tracing } from './otel.js'
import type { AnyTypedTool, TypedTool } from './typed.js'
import { executePlan, type PlanHooks } from './plan.js'
import { MAX_BATCH_ID, type EngineAction } from './protocol.generated.js'
import { type InjectedEvent, CANCEL_TOOL, DISPATCH_CONTEXT, REMOTE, RESERVED, RapLink, cancelSubscriptionTool, injectedMessages, remoteTool, toolsetOptions } from './rap.js'
import { runLoop, type RunHooks } from './run.js'
import { maxCharsOf, scrubSecrets } from './sanitize.js'
import type {
  ActionPlan,
  ApprovalCallback,
  ApprovalDecision,
  DecoderOptions,
  DefinitionOptions,
  DispatchCall,
  DispatchOptions,
  ErrorCode,
  HistoryCall,
  HistoryTurn,
  PlanOptions,
  PlanOutcome,
  PolicyContext,
  PolicyDecision,
  RapEvent,
  RapToolsetOptions,
  RunOptions,
  RunOutcome,
  RuntimeOptions,
  SchemaReport,
  SchemaTarget,
  ToolDefinition,
  ToolExecutionEvent,
  ToolInfo,
  ToolResult,
  ToolResultMessage,
  Wire,
} from './types.js'

const { NativeRuntime }: typeof Native = loadBinding()

/** The thread and run of a call waiting for resolveApproval. */
interface ApprovalThread {
  groupId: string | undefined
  userId: string | undefined
  threadAncestors: string[] | undefined
  runId: string | undefined
}

/** What run.json records of the runtime's settings. */
interface Snapshot {
  policy: unknown
  workspaceRoot: unknown
  loopDetection: unknown
  approvals: unknown
}

/**
 * Registers tools and runs model tool calls: validated, in parallel under a concurrency cap and
 * deadlines, with hooks and events, one result per call.
 */
export class ToolRuntime {
  #native: Native.NativeRuntime
  /** registration id -> the tool and how to call it */
  #tools = new Map<number, RegisteredTool>()
  /** name -> registration id */
  #ids = new Map<string, number>()
  #driver: Driver
  /** the runtime's `sanitize` option, for the driver's own share of the work */
  #sanitize: RuntimeOptions['sanitize']
  /** the runtime-level `onEvent`: every dispatch's events */
  #onEvent: ((event: ToolExecutionEvent | RapEvent) => void) | undefined
  /** `approvals.onApproval`, when given */
  #onApproval: ApprovalCallback | undefined
  /** the runtime's `audit` log, when given */
  #audit: AuditLog | undefined
  /** what run.json records of the runtime's settings */
  #snapshot: Snapshot
  /** remote tools (RAP): the transport, started by the first toolset */
  #rap = new RapLink(
    (event) => this.#rapEvent(event),
    undefined,
    (value) => scrubSecrets(value, 'a RAP event', this.#sanitize),
  )
  /**
   * approvalId -> the thread and run of a call waiting for resolveApproval, so a remote tool
   * approved later runs in its dispatch's thread and the final result joins its dispatch's run
   */
  #approvalThreads = new Map<string, ApprovalThread>()

  constructor(options: RuntimeOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`ToolRuntime: options must be an object, got ${describe(options)}`)
    }
    // Its own keys only, each read once (a polluted Object.prototype sets no option: see ownOptions).
    const given = ownOptions(options)
    checkOptionKeys('ToolRuntime: options', given, RUNTIME_OPTIONS, [AS_DISPATCH_OPTION])
    const concurrency = finiteOption('ToolRuntime: options.concurrency', given.concurrency)
    const timeoutMs = finiteOption('ToolRuntime: options.timeoutMs', given.timeoutMs)
    if (given.onEvent !== undefined && typeof given.onEvent !== 'function') {
      throw new TypeError(`ToolRuntime: options.onEvent must be a function, got ${describe(given.onEvent)}`)
    }
    const { coerce, sanitize, limits, redaction, policy, loopDetection } = given
    // A relative workspaceRoot is resolved against process.cwd() now, as analyzeCommand's `cwd` is.
    const workspaceRoot = typeof given.workspaceRoot === 'string' && given.workspaceRoot !== '' ? nodePath.resolve(given.workspaceRoot) : given.workspaceRoot
    const approvals = approvalsOption(given.approvals)
    const text = jsonText('ToolRuntime: options', {
      approvals: approvals.engine,
      concurrency,
      timeoutMs,
      coerce,
      sanitize,
      limits,
      redaction,
      policy,
      workspaceRoot,
      loopDetection,
    })
    this.#native = native(() => new NativeRuntime(text))
    this.#sanitize = sanitize
    this.#onEvent = given.onEvent
    this.#onApproval = approvals.onApproval
    this.#snapshot = { policy: policy ?? null, workspaceRoot: workspaceRoot ?? null, loopDetection: loopDetection ?? null, approvals: approvals.engine ?? null }
    const audit = auditOption('ToolRuntime: options.audit', given.audit)
    this.#audit = audit === undefined ? undefined : new AuditLog(audit, this.#snapshot, sanitize)
    this.#driver = new Driver(this.#native, {
      registered: (id) => this.#tools.get(id),
      registeredNamed: (name) => {
        const id = this.#ids.get(name)
        return id === undefined ? undefined : this.#tools.get(id)
      },
      askApproval: (request) => this.#onApproval!(request),
      rememberThread: (batch, result) => this.#rememberThread(batch, result),
    })
  }

  /** The audit log an `audit` option names (a run's or a dispatch's own), else the runtime's. */
  #auditLog(where: string, audit: unknown): AuditLog | undefined {
    const own = auditOption(where, audit)
    return own === undefined ? this.#audit : new AuditLog(own, this.#snapshot, this.#sanitize)
  }

  /**
   * Registers a tool (a pi-agent-core AgentTool works unchanged); throws a ToolwireError for a
   * duplicate or invalid name, a schema that does not compile, a missing execute. Typed as
   * {@link defineTool} types a tool: `execute`'s `params` are what `parameters` describes.
   */
  register<const S = undefined, const O = undefined>(tool: TypedTool<S, O>): void
  register(tool: AnyTypedTool): void
  register(tool: unknown): void {
    this.#register(tool as Registrable)
  }

  /** `register`, for toolwire's own tools too (remote ones take the dispatch context). */
  #register(tool: Registrable): void {
    const declaration = declarationOf(tool, 'register')
    const id = native(() => this.#native.register(JSON.stringify(declaration)))
    this.#keep(id, tool, declaration)
  }

  /**
   * Registers a plugin's tools, all or none (they form `group:plugins`). Refused: an id equal to
   * a registered tool's name or another plugin's id (CONFLICT), and tool names already registered
   * or given twice (all named).
   */
  registerPlugin(id: string, tools: ToolDefinition[]): void {
    if (typeof id !== 'string') throw new TypeError(`registerPlugin: id must be a string, got ${describe(id)}`)
    if (!Array.isArray(tools)) throw new TypeError(`registerPlugin: tools must be an array, got ${describe(tools)}`)
    const declarations = tools.map((tool) => declarationOf(tool, `registerPlugin("${id}")`))
    const ids: number[] = native(() => this.#native.registerPlugin(id, JSON.stringify(declarations)))
    ids.forEach((registration, i) => this.#keep(registration, tools[i]!, declarations[i]!))
  }

  /**
   * Whether the policy lets `toolName` be called in `context` (`{ provider, agentId, sender:
   * { id, isOwner } }`), with the layer and rule that decided: `{ allowed, layer, rule }`.
   */
  explainPolicy(toolName: string, context?: PolicyContext): PolicyDecision {
    if (typeof toolName !== 'string') throw new TypeError(`explainPolicy: toolName must be a string, got ${describe(toolName)}`)
    const text = context === undefined ? '' : jsonText('explainPolicy: context', context)
    const decision = JSON.parse(native(() => this.#native.explainPolicy(toolName, text))) as PolicyDecision
    return { allowed: decision.allowed, layer: (own(decision, 'layer') as PolicyDecision['layer'] | undefined) ?? null, rule: (own(decision, 'rule') as PolicyDecision['rule'] | undefined) ?? null }
  }

  /** Keeps a registered tool: its functions, and how to call them as its `declaration` (its own keys, read once) says. */
  #keep(id: number, tool: Registrable, declaration: Declaration): void {
    // Every call gets an AbortSignal unless the tool opts out with `signal: false`. (Guessing from
    // `execute.length` missed `(id, args = {}, signal) => ...`, whose length is 1.)
    this.#tools.set(id, {
      tool,
      takesSignal: declaration.signal !== false,
      trustedMedia: declaration.trustedMedia === true,
      description: declaration.description,
      // toolwire's own tools (remote ones, cancel_subscription) also get the dispatch context
      withContext: own(tool, DISPATCH_CONTEXT) === true,
      remote: own(tool, REMOTE) === true,
    })
    this.#ids.set(declaration.name, id)
  }

  /**
   * Loads a remote toolset (the Reactive Agent Protocol): fetches
   * `{baseUrl}/.well-known/rap-toolset`, validates it whole and registers its tools, which then
   * behave like any other tool (policy, validation, timeouts, events, sanitization, audit).
   * Resolves with the registered names. Rejects with a ToolwireError naming the offending value:
   * VALIDATION_ERROR for an invalid toolset or option, CONFLICT (naming the tool) for a name
   * already registered, in which case nothing of the toolset is registered and earlier tools
   * stay. The first toolset also registers the built-in `cancel_subscription` tool, and the first
   * that loads fixes the callback server's `bind` and `publicUrl` (a load that fails fixes nothing).
   */
  async addRapToolset(baseUrl: string, options?: RapToolsetOptions): Promise<string[]> {
    if (typeof baseUrl !== 'string') throw new TypeError(`addRapToolset: baseUrl must be a string, got ${describe(baseUrl)}`)
    const checked = toolsetOptions(options)
    const { toolset, tools } = await this.#rap.load(baseUrl, checked)
    const definitions = tools.map((def) => remoteTool(this.#rap, def, checked.timeoutMs))
    const refuse = (code: ErrorCode, why: string): never => {
      // By every name: a rollback of the runtime's side may already have freed some of them.
      for (const { name } of tools) this.#rap.unload(name)
      throw new ToolwireError(code, `addRapToolset: toolset ${JSON.stringify(toolset)} refused: ${why}`)
    }
    for (const { name } of definitions) {
      if (RESERVED.has(name)) refuse('CONFLICT', `tool ${JSON.stringify(name)} is a name toolwire reserves`)
      if (this.#ids.has(name)) refuse('CONFLICT', `tool ${JSON.stringify(name)} is already registered`)
    }
    let done: string[] = []
    try {
      done = registerAll<Registrable>({ register: (tool) => this.#register(tool), unregister: (name) => this.unregister(name) }, definitions)
    } catch (error) {
      refuse((error as { code?: ErrorCode } | null)?.code ?? 'VALIDATION_ERROR', messageOf(error))
    }
    if (!this.#ids.has(CANCEL_TOOL)) this.#register(cancelSubscriptionTool(this.#rap))
    return done
  }

  /**
   * Closes a thread of remote tools: `POST /close_thread { thread_id }` to every toolset's server
   * (best effort); its subscriptions and pending choices are forgotten.
   */
  closeThread(groupId: string): Promise<void> {
    if (typeof groupId !== 'string') return Promise.reject(new TypeError(`closeThread: groupId must be a string, got ${describe(groupId)}`))
    return this.#rap.closeThread(groupId)
  }

  /**
   * Answers a `rap_user_choice` event: POSTs `{ id, selected }` to its `response_url`. Ids are
   * unique only within a thread: `groupId` (the event's) names the thread; without it, an id
   * pending in several threads is refused (VALIDATION_ERROR naming them). Rejects with NOT_FOUND
   * for no such pending choice, VALIDATION_ERROR for an index outside its choices.
   */
  answerUserChoice(id: string, selected: number, groupId?: string): Promise<void> {
    if (typeof id !== 'string') return Promise.reject(new TypeError(`answerUserChoice: id must be a string, got ${describe(id)}`))
    if (groupId !== undefined && typeof groupId !== 'string') {
      return Promise.reject(new TypeError(`answerUserChoice: groupId must be a string, got ${describe(groupId)}`))
    }
    if (!Number.isInteger(selected) || selected < 0 || selected > MAX_BATCH_ID) {
      return Promise.reject(new ToolwireError('VALIDATION_ERROR', `answerUserChoice: selected must be a whole number from 0, got ${describe(selected)}`))
    }
    return this.#rap.answerUserChoice(id, selected, groupId)
  }

  /** A RAP event (subscription event, oauth, user choice, view update) for the runtime-level onEvent. */
  #rapEvent(event: RapEvent): void {
    if (this.#onEvent === undefined) return
    try {
      this.#onEvent(event)
    } catch (error) {
      process.emitWarning(`toolwire: onEvent listener threw on ${event.type}: ${messageOf(error)}`, 'ToolwireWarning')
    }
  }

  /**
   * Unregisters a tool; its calls in flight finish, its queued calls end NOT_FOUND. A remote tool's
   * name is freed in the transport too, so a toolset exposing it can be loaded again.
   */
  unregister(name: string): boolean {
    if (typeof name !== 'string') return false
    const removed = native(() => this.#native.unregister(name))
    if (removed) {
      const id = this.#ids.get(name)!
      if (this.#tools.get(id)?.remote === true) this.#rap.unloadTool(name)
      this.#tools.delete(id)
      this.#ids.delete(name)
    }
    return removed
  }

  /** The registered tools, in registration order. */
  list(): ToolInfo[] {
    return JSON.parse(native(() => this.#native.list())) as ToolInfo[]
  }

  /**
   * The registered tools in the target's definition format, each schema normalized for it:
   * Chat Completions `{type:'function', function:{...}}` (`strict: true` for `openai-strict`),
   * Responses' flat function tools, Anthropic `{name, description, input_schema}`, Gemini
   * `[{ functionDeclarations }]`. Throws naming the tool when a name breaks the target's rule.
   */
  definitions(target: Wire | SchemaTarget, options?: DefinitionOptions): { tools: object[]; reports: SchemaReport[] } {
    if (typeof target !== 'string') throw new TypeError(`definitions: target must be a string, got ${describe(target)}`)
    if (options !== undefined && (options === null || typeof options !== 'object')) {
      throw new TypeError(`definitions: options must be an object, got ${describe(options)}`)
    }
    if (options === undefined) return JSON.parse(native(() => this.#native.definitions(target, '', ''))) as { tools: object[]; reports: SchemaReport[] }
    // (its own keys only, each read once: see ownOptions)
    const given = ownOptions(options)
    checkOptionKeys('definitions: options', given, DEFINITION_OPTIONS)
    const { provider: _provider, agentId: _agentId, sender: _sender, ...format } = given
    const context = contextOf(given)
    const text = jsonText('definitions: options', format)
    const contextText = context === undefined ? '' : jsonText('definitions: options', context)
    return JSON.parse(native(() => this.#native.definitions(target, text, contextText))) as { tools: object[]; reports: SchemaReport[] }
  }

  /** The tool-result messages the wire expects. */
  encodeResults(results: (ToolResult | ToolResultMessage)[], wire: Wire): object[] {
    return encodeResults(results, wire)
  }

  /** The assistant message (Responses: items) that carried the calls, for history. */
  encodeToolCalls(turn: HistoryCall[] | HistoryTurn, wire: Wire): object[] {
    return encodeToolCalls(turn, wire)
  }

  /**
   * Runs a batch of calls. Resolves with one result per call, in the order of `calls`, for
   * anything a model or a tool can cause; rejects only for misuse (a TypeError) or an internal
   * fault (a ToolwireError with code INTERNAL_ERROR).
   */
  dispatch(calls: DispatchCall[], options: DispatchOptions = {}): Promise<ToolResult[]> {
    return new Promise((resolve, reject) => {
      if (options === null || typeof options !== 'object') {
        throw new TypeError(`dispatch: options must be an object, got ${describe(options)}`)
      }
      // (its own keys only, each read once: see ownOptions)
      const given = ownOptions(options)
      checkOptionKeys('dispatch: options', given, DISPATCH_OPTIONS, [AS_RUNTIME_OPTION])
      this.#dispatch(calls, given, this.#auditLog('dispatch: options.audit', given.audit), resolve, reject)
    })
  }

  /**
   * `dispatch`, recording into `auditLog` (a run's, when the run dispatches). `options`: a
   * snapshot of the options' own keys ({@link ownOptions}), never an object a key may be
   * inherited from.
   */
  #dispatch(calls: DispatchCall[], options: DispatchOptions, auditLog: AuditLog | undefined, resolve: (results: ToolResult[]) => void, reject: (error: unknown) => void): void {
    const encoded = encodeCalls(calls)
    const hooks = {
      beforeToolCall: optionalFunction(options, 'beforeToolCall'),
      afterToolCall: optionalFunction(options, 'afterToolCall'),
      onPersist: optionalFunction(options, 'onPersist'),
      onEvent: bothListeners(optionalFunction(options, 'onEvent'), this.#onEvent),
      // (an adapter's listeners of its calls' partial results, by position: see updatesBySlot)
      onUpdateAt: updatesBySlot(options.onEvent),
    }
    const signal: unknown = options.signal
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new TypeError(`dispatch: options.signal must be an AbortSignal, got ${describe(signal)}`)
    }
    if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
      throw new TypeError(`dispatch: options.runId must be a non-empty string, got ${describe(options.runId)}`)
    }
    if (options.groupId !== undefined && (typeof options.groupId !== 'string' || options.groupId === '')) {
      throw new TypeError(`dispatch: options.groupId must be a non-empty string, got ${describe(options.groupId)}`)
    }
    if (options.userId !== undefined && typeof options.userId !== 'string') {
      throw new TypeError(`dispatch: options.userId must be a string, got ${describe(options.userId)}`)
    }
    const ancestors: unknown = options.threadAncestors
    if (ancestors !== undefined && !(Array.isArray(ancestors) && ancestors.every((id) => typeof id === 'string'))) {
      throw new TypeError(`dispatch: options.threadAncestors must be an array of strings, got ${describe(ancestors)}`)
    }
    // OpenTelemetry (when installed and a provider is registered): spans start at the start events
    const otel = tracing(calls.length)
    const engineOptions: EngineOptions = {
      timeoutMs: finiteOption('dispatch: options.timeoutMs', options.timeoutMs),
      runId: options.runId,
      beforeToolCall: hooks.beforeToolCall !== undefined,
      afterToolCall: hooks.afterToolCall !== undefined,
      onPersist: hooks.onPersist !== undefined,
      onEvent: hooks.onEvent !== undefined || auditLog !== undefined || otel !== undefined,
      aborted: signal !== undefined && signal.aborted,
      sanitize: options.sanitize,
      limits: options.limits,
      redaction: options.redaction,
      context: contextOf(options),
      approval: options.approval,
      tools: options.tools,
    }
    const id = this.#driver.nextBatchId()
    // A dispatch without a runId gets one of its own, carried by its results (and naming its audit directory).
    const runId = options.runId ?? freshId('dispatch')
    const batch: Batch = {
      calls: encoded.calls,
      toolCalls: encoded.toolCalls,
      hooks,
      signal,
      runId,
      groupId: options.groupId ?? options.runId,
      userId: options.userId,
      threadAncestors: options.threadAncestors,
      results: new Array<ToolResult | undefined>(calls.length),
      args: new Array<unknown>(calls.length),
      argumentTexts: encoded.argumentTexts,
      recorded: new Array<unknown>(calls.length),
      values: new Array<unknown>(calls.length),
      running: new Array<Running | undefined>(calls.length),
      resolve,
      reject,
      onAbort: undefined,
      maxChars: maxCharsOf(options.sanitize, this.#sanitize),
      audit: auditLog?.open(runId, { kind: 'dispatch' }),
      auditLog,
      otel,
    }
    this.#driver.open(id, batch, encoded, engineOptionsText(engineOptions))
  }

  /**
   * Runs (`allow-once`, `allow-always`) or refuses (`deny`) a call that ended `pending` with
   * APPROVAL_REQUIRED; resolves with its final result. Its events go to the runtime-level
   * `onEvent`. `allow-always` is remembered as for `onApproval`. An unknown or already resolved
   * approval id rejects with NOT_FOUND.
   */
  resolveApproval(approvalId: string, decision: ApprovalDecision | boolean): Promise<ToolResult> {
    return new Promise((resolve, reject) => {
      if (typeof approvalId !== 'string') {
        throw new TypeError(`resolveApproval: approvalId must be a string, got ${describe(approvalId)}`)
      }
      // (as onApproval's answer: true allows once, false denies)
      const decided: unknown = typeof decision === 'boolean' ? (decision ? 'allow-once' : 'deny') : decision
      if (typeof decided !== 'string') {
        throw new TypeError(`resolveApproval: decision must be a string or a boolean, got ${describe(decision)}`)
      }
      const id = this.#driver.nextBatchId()
      const auditLog = this.#audit
      const otel = tracing(1)
      const events = this.#onEvent !== undefined || auditLog !== undefined || otel !== undefined
      const thread = this.#approvalThreads.get(approvalId)
      let resumed: string
      try {
        resumed = native(() => this.#native.resumeApproval(id, approvalId, decided, events, monotonicNow(), wallNow()))
      } catch (error) {
        // Unknown to the engine: it waits no more. (A bad decision leaves it waiting.)
        if ((error as { code?: unknown } | null)?.code === 'NOT_FOUND') this.#approvalThreads.delete(approvalId)
        throw error
      }
      this.#approvalThreads.delete(approvalId)
      const [call, actions] = JSON.parse(resumed) as [ReadCall & { runId?: string | null }, EngineAction[]]
      // The final result joins the run the pending one was recorded in (its dispatch's runId, or
      // the one generated for it); a run unknown here is a run of its own, the call recorded again.
      const runId = call.runId ?? thread?.runId
      const joined = runId !== undefined && runId !== null
      const batch: Batch = {
        // (what the engine sent, read by its own keys as a call given to dispatch is)
        calls: [ownOptions(call)],
        toolCalls: [call],
        hooks: { onEvent: this.#onEvent },
        signal: undefined,
        runId: runId ?? undefined,
        groupId: thread?.groupId ?? call.runId ?? undefined,
        userId: thread?.userId,
        threadAncestors: thread?.threadAncestors,
        results: new Array<ToolResult | undefined>(1),
        args: [call.arguments],
        argumentTexts: [JSON.stringify(call.arguments)],
        recorded: [undefined],
        values: new Array<unknown>(1),
        running: [undefined],
        resolve: (results) => resolve(results[0]!),
        reject,
        onAbort: undefined,
        maxChars: maxCharsOf(undefined, this.#sanitize),
        audit: auditLog?.open(joined ? runId : freshId('dispatch'), { kind: 'dispatch' }),
        auditLog,
        callRecorded: joined,
        otel,
      }
      this.#driver.resume(id, batch, actions)
    })
  }

  /** Keeps the thread of a call left waiting for resolveApproval (see #approvalThreads). */
  #rememberThread(batch: Batch, result: ToolResult): void {
    const details = own(result, 'details')
    const approvalId = details !== null && typeof details === 'object' ? own(details, 'approvalId') : undefined
    if (typeof approvalId !== 'string') return
    const { groupId, userId, threadAncestors, runId } = batch
    this.#approvalThreads.set(approvalId, { groupId, userId, threadAncestors, runId })
  }

  /**
   * The agent loop: the model is called with the history and the tool definitions, its streamed
   * answer decoded, the calls run and both appended to the history, until a turn has no calls,
   * `maxSteps` model calls were made, the signal aborts, or every result of a batch asks to
   * terminate. Rejects only for misuse; a failing model ends the run with `stopReason: 'error'`,
   * and so does a turn whose stream broke (truncated, an error event): none of its calls is run,
   * as none of a turn cut for length is.
   */
  run<W extends Wire>(options: RunOptions<W>): Promise<RunOutcome<W>> {
    return new Promise((resolve) => {
      // (its own keys only, each read once: see ownOptions; runLoop names what is not an object)
      const given = ownOptions(options)
      const auditLog = this.#auditLog('run: options.audit', given === null || typeof given !== 'object' ? undefined : given.audit)
      resolve(runLoop(this, this.#runHooks(auditLog), given))
    })
  }

  /**
   * Runs an action plan: its steps as a dependency graph, with references between steps,
   * `foreach`, retries, `onError` and confirmation. Resolves with the PlanOutcome.
   */
  executePlan(plan: ActionPlan, options?: PlanOptions): Promise<PlanOutcome> {
    return new Promise((resolve) => {
      // (its own keys only, each read once: see ownOptions; executePlan names what is not an object)
      const given = ownOptions(options)
      const auditLog = this.#auditLog('executePlan: options.audit', given === null || typeof given !== 'object' ? undefined : given.audit)
      resolve(executePlan(this, this.#runHooks(auditLog), plan, given) as Promise<PlanOutcome>)
    })
  }

  /** What run() and executePlan() drive the runtime with: dispatches into their audit log. */
  #runHooks(auditLog: AuditLog | undefined): RunHooks & PlanHooks {
    return {
      decoderOf: (wire: Wire, options: DecoderOptions) => scrubbingDecoder(wire, options, this.#sanitize),
      scrub: <T>(value: T, where: string): T => scrubSecrets(value, where, this.#sanitize),
      endRun: (runId: string) => this.#native.endRun(runId),
      newRunId: () => freshId('run'),
      audit: auditLog,
      dispatch: (calls: DispatchCall[], options: DispatchOptions) =>
        new Promise<ToolResult[]>((done, failed) => this.#dispatch(calls, ownOptions(options), auditLog, done, failed)),
      watchEvents: (groupId: string) => this.#rap.watch(groupId),
      closeThread: (groupId: string) => this.#rap.closeThread(groupId),
      injectedMessages: (wire: Wire, events: InjectedEvent[]) => injectedMessages(this, wire, events, () => freshId('call_rap_event')),
    }
  }
}

/** What the engine reads of a dispatch's options (see `parse_batch_options` in the core). */
interface EngineOptions {
  timeoutMs: number | undefined
  runId: string | undefined
  beforeToolCall: boolean
  afterToolCall: boolean
  onPersist: boolean
  onEvent: boolean
  aborted: boolean
  sanitize: unknown
  limits: unknown
  redaction: unknown
  context: unknown
  approval: unknown
  tools: unknown
}

/**
 * The engine's options as JSON text; `{}` (the engine's defaults) without serializing when
 * nothing is set, as in most dispatches: every one of them pays for this.
 */
function engineOptionsText(options: EngineOptions): string {
  // (its own keys: `for in` would visit keys a polluted Object.prototype holds)
  for (const key of Object.keys(options) as (keyof EngineOptions)[]) {
    const value = options[key]
    if (value !== undefined && value !== false) return jsonText('dispatch: options', options)
  }
  return '{}'
}
