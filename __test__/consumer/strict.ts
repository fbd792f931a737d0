// A strict TypeScript consumer of the whole public API, as a user writes it: `tsc -p
// tsconfig.strict.json` compiles it (strict, node16/nodenext resolution through the package's
// exports map), and __test__/consumer.test.ts runs it, so each type is checked against what the
// runtime really returns. Every type ARCHITECTURE.md section 4 names is imported by name, and
// every event union is narrowed by its `type` with an exhaustiveness check.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import {
  StreamDecoder,
  ToolRuntime,
  ToolwireError,
  analyzeCommand,
  encodeResults,
  encodeToolCalls,
  normalizeSchema,
  normalizeToolCallId,
  repairHistory,
  replayRun,
  sanitizeResult,
  toErrorEnvelope,
  toInvocationRecord,
  toToolResultMessage,
  validateToolName,
  verifyRun,
} from 'toolwire'
import type {
  ActionPlan,
  AgentToolResult,
  ApprovalRequest,
  AssembledToolCall,
  AssembledTurn,
  CommandAnalysis,
  DecoderOptions,
  DecoderRepair,
  DispatchOptions,
  ErrorCode,
  ErrorEnvelope,
  ModelAnswer,
  NormalizedSchema,
  PlanEvent,
  PlanOptions,
  PlanOutcome,
  RapEvent,
  RapToolsetOptions,
  RepairKindName,
  RunEvent,
  RunOptions,
  RunOutcome,
  RuntimeOptions,
  SanitizeReport,
  SchemaReport,
  SchemaTarget,
  StreamEvent,
  StrictNormalizedSchema,
  ToolDefinition,
  ToolExecutionEvent,
  ToolInfo,
  ToolInvocationRecord,
  ToolResult,
  ToolResultMessage,
  ToolStatus,
  Wire,
} from 'toolwire'

/** Fails to compile when a union member is left unhandled. */
function unreachable(value: never): never {
  throw new Error(`unhandled: ${JSON.stringify(value)}`)
}

/** A line per decoder event: every member narrowed by `type`. */
export function describeStreamEvent(event: StreamEvent): string {
  switch (event.type) {
    case 'toolcall_start':
      return `start ${event.index} ${event.id} ${event.name}${event.kind === 'custom' ? ' custom' : ''}`
    case 'toolcall_delta':
      return `delta ${event.index} ${event.delta.length}${event.partial ? ` ${event.partial.path.join('.')}` : ''}`
    case 'toolcall_end': {
      const call: AssembledToolCall = event.toolCall
      return `end ${event.index} ${call.name} ${call.complete}${call.error ? ` ${call.error.code}` : ''}`
    }
    case 'text_delta':
      return `text ${event.delta}`
    case 'thinking_delta':
      return `thinking ${event.delta}`
    case 'done':
      return `done ${event.stopReason}`
    case 'error':
      return `error ${event.message}`
    case 'repair': {
      const kind: RepairKindName = event.kind
      return `repair ${kind}${event.callIndex === undefined ? '' : ` ${event.callIndex}`}`
    }
    default:
      return unreachable(event)
  }
}

/** A line per runtime-level event: tool events and the events of remote tools. */
export function describeToolEvent(event: ToolExecutionEvent | RapEvent): string {
  switch (event.type) {
    case 'tool_execution_start':
      return `start ${event.toolName} ${event.toolCallId}`
    case 'tool_execution_update':
      return `update ${event.toolName} ${JSON.stringify(event.partialResult)}`
    case 'tool_execution_end': {
      const status: ToolStatus = event.result.status
      return `end ${event.toolName} ${status} ${event.isError}`
    }
    case 'redaction_failed': {
      const code: 'REDACTION_FAILED' = event.code
      return `redaction ${event.toolName} ${code}`
    }
    case 'loop_warning':
      return `loop ${event.toolName} ${event.count}`
    case 'audit_failed':
      return `audit failed ${event.toolCallId} ${event.runId ?? ''} ${event.message}`
    case 'rap_subscription_event':
      return `rap event ${event.callId} ${event.groupId} ${event.message.text}`
    case 'rap_oauth':
      return `rap oauth ${event.message.auth_url}`
    case 'rap_user_choice':
      return `rap choice ${event.message.prompt} ${event.message.choices[event.message.default]}`
    case 'rap_view_update':
      return `rap view ${event.message.view_type}`
    default:
      return unreachable(event)
  }
}

/** A line per agent-loop event. */
export function describeRunEvent(event: RunEvent): string {
  switch (event.type) {
    case 'turn_start':
      return `turn ${event.step} of ${event.runId}`
    case 'turn_end':
      return `turn end ${event.stopReason}`
    case 'done':
      return `run done ${event.stopReason}${event.error ? ` ${event.error}` : ''}`
    case 'toolcall_start':
    case 'toolcall_delta':
    case 'toolcall_end':
    case 'text_delta':
    case 'thinking_delta':
    case 'error':
    case 'repair':
      return describeStreamEvent(event)
    case 'tool_execution_start':
    case 'tool_execution_update':
    case 'tool_execution_end':
    case 'redaction_failed':
    case 'loop_warning':
    case 'audit_failed':
      return describeToolEvent(event)
    default:
      return unreachable(event)
  }
}

/** A line per plan event (tool events are forwarded to the plan's listener too). */
export function describePlanEvent(event: PlanEvent | ToolExecutionEvent): string {
  switch (event.type) {
    case 'tool_execution_start':
    case 'tool_execution_update':
    case 'tool_execution_end':
    case 'redaction_failed':
    case 'loop_warning':
    case 'audit_failed':
      return describeToolEvent(event)
    case 'run.started':
    case 'run.confirmationRequested':
    case 'run.confirmed':
    case 'run.cancelled':
    case 'run.finished':
      return `${event.type} ${event.runId}${event.status ? ` ${event.status}` : ''}`
    case 'step.scheduled':
    case 'step.started':
    case 'step.progress':
    case 'step.finished':
    case 'step.failed':
    case 'step.skipped':
    case 'step.cancelled':
      return `${event.type} ${event.stepId ?? ''} ${event.level}`
    default:
      return unreachable(event)
  }
}

/** Narrowing a result by status and a wire by name. */
export function summarize(result: ToolResult): string {
  if (result.ok) return `${result.tool}: ${result.content.map((block) => (block.type === 'text' ? block.text : block.mimeType)).join(' ')}`
  const code: ErrorCode | undefined = result.error?.code
  return `${result.tool}: ${result.status} ${code ?? ''}`
}

const sse = (events: object[]) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + 'data: [DONE]\n\n'

/** A streamed Chat Completions answer: one tool call, or text. */
function chatAnswer(call: { id: string; name: string; args: string } | null, text = ''): ModelAnswer {
  const events: object[] = []
  if (text) events.push({ choices: [{ index: 0, delta: { content: text } }] })
  if (call) {
    events.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] } }] })
    events.push({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: call.args } }] } }] })
  }
  events.push({ choices: [{ index: 0, delta: {}, finish_reason: call ? 'tool_calls' : 'stop' }] })
  return new Response(sse(events), { headers: { 'content-type': 'text/event-stream' } })
}

export interface Summary {
  info: ToolInfo[]
  definitions: { tools: number; reports: SchemaReport[] }
  results: string[]
  statuses: ToolStatus[]
  events: string[]
  message: ToolResultMessage
  record: ToolInvocationRecord
  envelope: ErrorEnvelope | null
  encoded: number[]
  history: number
  repaired: string[]
  turn: AssembledTurn
  streamEvents: string[]
  repairs: DecoderRepair[]
  strictArgs: unknown
  schemaRemoved: string[]
  schemaWarnings: string[]
  ids: string[]
  nameCheck: boolean
  analysis: CommandAnalysis
  sanitized: { text: string; report: SanitizeReport }
  run: { stopReason: RunOutcome['stopReason']; steps: number; events: string[] }
  plan: { status: PlanOutcome['status']; steps: string[]; events: string[] }
  audit: { ok: boolean; calls: number }
  approvals: string[]
  policy: boolean
  errors: string[]
  rap?: { names: string[]; result: string; choice: string }
}

/** Exercises every public API; `rapBaseUrl` is a running RAP tool server (see rap-server.ts). */
export async function exerciseEverything(rapBaseUrl?: string): Promise<Summary> {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-consumer-'))
  try {
    const events: string[] = []
    const runtimeOptions: RuntimeOptions = {
      concurrency: 4,
      timeoutMs: 5_000,
      redaction: 'permissive',
      sanitize: { maxResultChars: 1_000 },
      policy: { deny: ['forbidden'] },
      audit: { dir: join(dir, 'audit') },
      approvals: {
        // Everything runs; the one tool that asks for approval is asked about.
        security: 'full',
        ask: 'off',
        onApproval: (request: ApprovalRequest) => (request.toolName === 'guarded' ? 'allow-once' : 'deny'),
      },
      onEvent: (event) => events.push(describeToolEvent(event)),
    }
    const runtime = new ToolRuntime(runtimeOptions)

    // Tools: typed parameters, a pi-style result, a plain string, progress updates.
    const add: ToolDefinition<{ a: number; b: number }, { sum: number }> = {
      name: 'add',
      label: 'Add',
      description: 'Adds two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      riskLevel: 'low',
      category: 'math',
      aliases: { first: 'a' },
      redaction: { allow: ['sum'] },
      execute: async (_id, { a, b }, _signal, onUpdate): Promise<AgentToolResult<{ sum: number }>> => {
        onUpdate?.({ progress: 0.5 })
        return { content: [{ type: 'text', text: String(a + b) }], details: { sum: a + b } }
      },
    }
    runtime.register(add)
    runtime.register({ name: 'shout', executionMode: 'sequential', execute: (_id: string, p: { word?: string }) => (p.word ?? '').toUpperCase() })
    runtime.register({ name: 'forbidden', execute: () => 'never' })
    runtime.register({ name: 'guarded', approval: { security: 'allowlist', ask: 'always' }, execute: () => 'approved' })
    runtime.registerPlugin('extras', [{ name: 'list_files', parameters: { type: 'object', properties: { dir: { type: 'string' } } }, execute: () => ({ files: ['a.txt', 'b.txt'] }) }])
    const info = runtime.list()
    const policy = runtime.explainPolicy('forbidden').allowed

    const target: SchemaTarget = 'gemini'
    const { tools, reports } = runtime.definitions(target)

    // Dispatch with every kind of option.
    const controller = new AbortController()
    const dispatchOptions: DispatchOptions = {
      signal: controller.signal,
      timeoutMs: 2_000,
      runId: 'consumer-run',
      provider: 'openai',
      sanitize: { stripAnsi: true },
      beforeToolCall: ({ call }) => (call.tool === 'shout' ? { params: { word: 'hey' } } : undefined),
      afterToolCall: ({ result }) => (result.tool === 'list_files' ? { details: { listed: true } } : undefined),
      onPersist: () => undefined,
      onEvent: (event) => events.push(`dispatch ${describeToolEvent(event)}`),
    }
    const results = await runtime.dispatch(
      [
        { id: 'call_1', name: 'add', arguments: '{"first":2,"b":3}' },
        { id: 'call_2', name: 'shout', arguments: { word: 'hi' } },
        { id: 'call_3', name: 'forbidden', arguments: {} },
        { id: 'call_4', name: 'missing', arguments: {} },
        { id: 'call_5', name: 'add', arguments: '{"a":' },
        { id: 'call_6', name: 'list_files', arguments: {} },
        { id: 'call_7', name: 'guarded', arguments: {} },
      ],
      dispatchOptions,
    )

    const wire: Wire = 'anthropic'
    const message = toToolResultMessage(results[0])
    const record = toInvocationRecord(results[0])
    const envelope = toErrorEnvelope(results[2])
    const encoded = [runtime.encodeResults(results, wire).length, encodeResults([message], 'openai-chat').length]
    const historyCall = { id: 'call_1', name: 'add', arguments: '{"a":2,"b":3}' }
    const history = runtime.encodeToolCalls([historyCall], wire).length + encodeToolCalls({ text: '', toolCalls: [historyCall] }, 'gemini').length
    const { report: repairReport } = repairHistory(
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'orphan', type: 'function', function: { name: 'add', arguments: '{}' } }] }],
      'openai-chat',
    )

    // Decoding a stream, event by event.
    const decoderOptions: DecoderOptions = { partial: 'object', cumulativeArguments: 'auto' }
    const decoder = new StreamDecoder('openai-chat', decoderOptions)
    const body = await (chatAnswer({ id: 'call_x', name: 'add', args: '{"a":1,"b":2}' }, 'thinking aloud') as Response).text()
    const streamEvents = [...decoder.push(body.slice(0, 50)), ...decoder.push(new TextEncoder().encode(body.slice(50)))].map(describeStreamEvent)
    const turn: AssembledTurn = decoder.finish()
    streamEvents.push(...turn.events.map(describeStreamEvent))
    const replayed = new StreamDecoder('gemini')
    replayed.pushEvent({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'add', args: { a: 1, b: 1 } } }] }, finishReason: 'STOP' }] })
    const replayedTurn = replayed.finish()
    turn.serverToolCalls.push(...replayedTurn.toolCalls)
    // (a Gemini call without an id: the decoder generated one and says so)
    const repairs: DecoderRepair[] = replayedTurn.repairs

    // Schemas, ids and names.
    const strict: StrictNormalizedSchema = normalizeSchema({ type: 'object', properties: { n: { type: 'integer' } } }, 'openai-strict')
    const strictArgs = strict.denormalize({ n: null })
    const gemini: NormalizedSchema = normalizeSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^a' } }, additionalProperties: false }, 'gemini')
    const ids = [normalizeToolCallId('call.with:odd/chars', 'strict9'), normalizeToolCallId('toolu_01', 'anthropic')]
    const nameCheck = validateToolName('add', 'openai').ok && !validateToolName('bad name', 'openai').ok

    // Commands and sanitization.
    const analysis = analyzeCommand('ls -la | head -5', { allowlist: ['ls'] })
    const secret = 'key sk-proj-' + 'a'.repeat(40)
    const sanitized = sanitizeResult({ content: [{ type: 'text', text: `\u001b[31mred\u001b[0m ${secret}` }] }, { stripAnsi: true })
    const firstBlock = sanitized.result.content[0]

    // The agent loop, against a scripted model.
    const answers: ModelAnswer[] = [chatAnswer({ id: 'call_r1', name: 'add', args: '{"a":20,"b":22}' }), chatAnswer(null, 'The sum is 42.')]
    const runEvents: string[] = []
    // The request is typed per wire: on openai-chat, `messages`, `tools?`, `stream: true`, ...
    const runOptions: RunOptions<'openai-chat'> = {
      wire: 'openai-chat',
      model: (request) => {
        const next = answers.shift()
        if (next === undefined || !request.stream || request.messages.length === 0 || (request.tools ?? []).length === 0) throw new Error('unexpected model call')
        return next
      },
      messages: [{ role: 'user', content: 'What is 20 + 22?' }],
      maxSteps: 4,
      runId: 'consumer-loop',
      onEvent: (event) => runEvents.push(describeRunEvent(event)),
    }
    const outcome: RunOutcome = await runtime.run(runOptions)

    // A plan.
    const plan: ActionPlan = {
      vars: { word: 'plan' },
      steps: [
        { id: 'sum', tool: 'add', args: { a: 1, b: 2 } },
        { id: 'loud', tool: 'shout', args: { word: '$vars.word' }, dependsOn: ['sum'] },
        { id: 'each', tool: 'shout', foreach: ['x', 'y'], args: { word: '{item}' }, dependsOn: ['loud'] },
      ],
      confirmationsRequired: ['loud'],
    }
    const planEvents: string[] = []
    const planOptions: PlanOptions = {
      maxConcurrency: 2,
      confirm: (request) => request.steps.every((step) => step.tool === 'shout'),
      onEvent: (event) => planEvents.push(describePlanEvent(event)),
    }
    const planned: PlanOutcome = await runtime.executePlan(plan, planOptions)

    // The audit log, read back.
    const runDir = join(dir, 'audit', 'consumer-run')
    const replay = replayRun(runDir)
    const verification = verifyRun(runDir)

    // Without onApproval a call that needs approval ends pending, resolved later by its id.
    const asking = new ToolRuntime({ approvals: { security: 'allowlist', ask: 'always' } })
    asking.register({ name: 'deploy', execute: () => 'deployed' })
    const [pending] = await asking.dispatch([{ id: 'call_d', name: 'deploy', arguments: {} }])
    const approvalId = (pending.details as { approvalId: string }).approvalId
    const resolved = await asking.resolveApproval(approvalId, 'allow-once')

    // Misuse throws a ToolwireError with a code.
    const errors: string[] = []
    try {
      runtime.register({ name: 'add', execute: () => 'again' })
    } catch (error) {
      if (error instanceof ToolwireError) errors.push(error.code)
    }
    errors.push(String(runtime.unregister('shout')), String(runtime.unregister('shout')))

    let rap: Summary['rap']
    if (rapBaseUrl) {
      const rapOptions: RapToolsetOptions = { prefix: 'r_', timeoutMs: 2_000, retry: { maxAttempts: 1 } }
      const names = await runtime.addRapToolset(rapBaseUrl, rapOptions)
      const [remote] = await runtime.dispatch([{ id: 'call_rap', name: 'r_echo', arguments: { word: 'remote' } }], { groupId: 'consumer-thread' })
      await runtime.closeThread('consumer-thread')
      let choice = 'answered'
      try {
        await runtime.answerUserChoice('no-such-choice', 0)
      } catch (error) {
        choice = error instanceof ToolwireError ? error.code : 'not a ToolwireError'
      }
      rap = { names, result: summarize(remote), choice }
    }

    return {
      info,
      definitions: { tools: tools.length, reports },
      results: results.map(summarize),
      statuses: results.map((result) => result.status),
      events,
      message,
      record,
      envelope,
      encoded,
      history,
      repaired: repairReport.synthesized,
      turn,
      streamEvents,
      repairs,
      strictArgs,
      schemaRemoved: gemini.removed.map((removal) => `${removal.path} ${removal.keyword}`),
      schemaWarnings: gemini.warnings,
      ids,
      nameCheck,
      analysis,
      sanitized: { text: firstBlock.type === 'text' ? firstBlock.text : '', report: sanitized.report },
      run: { stopReason: outcome.stopReason, steps: outcome.steps.length, events: runEvents },
      plan: { status: planned.status, steps: Object.entries(planned.steps).map(([id, step]) => `${id} ${step.status} ${step.results.length}`), events: planEvents },
      audit: { ok: verification.ok, calls: replay.calls.length },
      approvals: [...results.filter((result) => result.tool === 'guarded'), pending, resolved].map(summarize),
      policy,
      errors,
      rap,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
