// The public types of toolwire. The engine's own binding types are in native.d.ts (generated).

import type {
  ToolStatus,
  ErrorCode,
  PlanStepErrorCode,
  RiskLevel,
  TextContent,
  ImageContent,
  ContentBlock,
  AgentToolResult,
  AgentToolUpdateCallback,
  ToolDefinition,
  RequiredGroup,
  ToolInfo,
  ModelToolCall,
  OpenAIChatToolCall,
  OpenAIResponsesFunctionCall,
  GeminiFunctionCallPart,
  DispatchCall,
  ToolCall,
  ToolError,
  ToolResult,
  ParameterNormalization,
  ToolExecutionEvent,
  SecretKind,
  SanitizeOptions,
  Limits,
  SanitizeReport,
  SanitizeInput,
  BeforeToolCallResult,
  AfterToolCallResult,
  RuntimeOptions,
  AuditOptions,
  AuditReplay,
  AuditVerification,
  PolicyRules,
  ToolPolicy,
  PolicyContext,
  PolicyDecision,
  ApprovalSecurity,
  ApprovalAsk,
  ApprovalDecision,
  ApprovalCallback,
  ApprovalSettings,
  ApprovalsOptions,
  ModelAnswer,
  WholeModelResponse,
  StreamedRequest,
  ModelRequests,
  ModelRequest,
  RunOptions,
  RunEvent,
  RunStopReason,
  RunStep,
  RunOutcome,
  ApprovalRequest,
  RapToolsetOptions,
  RapEventBase,
  RapSubscriptionEvent,
  RapOAuthEvent,
  RapUserChoiceEvent,
  RapViewUpdateEvent,
  RapEvent,
  DispatchOptions,
  DefinitionOptions,
  SchemaReport,
  SchemaTarget,
  SchemaRemoval,
  NormalizeSchemaOptions,
  NormalizedSchema,
  StrictNormalizedSchema,
  HistoryCall,
  HistoryTurn,
  HistoryRepairReport,
  ToolResultMessage,
  ToolInvocationRecord,
  ErrorEnvelope,
  Wire,
  DecoderOptions,
  StopReason,
  JsonPath,
  PartialChange,
  AssembledToolCall,
  ThinkingBlock,
  AssembledTurn,
  StreamEvent,
  DecodeErrorKindName,
  AnalyzeOptions,
  SegmentVerdict,
  CommandAnalysis,
  PlanStep,
  ActionPlan,
  ConfirmationRequest,
  PlanEvent,
  PlanOptions,
  PlanOutcome,
} from './types.js'
export type * from './types.js'

/** Reads a run directory back (synchronous): the directory `dir`, or run `runId` under the audit root `dir`. */
export declare function replayRun(dir: string, runId?: string): AuditReplay

/**
 * Checks a run directory's invariants (the directory `dir`, or run `runId` under the audit root `dir`): one final
 * result per call, consecutive attempts, results after their calls, argsHash, every record written whole.
 */
export declare function verifyRun(dir: string, runId?: string): AuditVerification

/**
 * The directory of run `runId` under the audit root `root`. Run ids map to directories one-to-one: lowercase letters,
 * digits, `-`, `_` and inner dots are kept, every other byte is percent-encoded (`team/a` is `team%2Fa`, `Run` is
 * `%52un`, `..` is `%2E%2E`), a lone surrogate is `~u` and its hex (`a\udc00b` is `a~uDC00b`, apart from
 * `a\ufffdb`, `a%EF%BF%BDb`); an id whose encoding passes 128 bytes is named by its start and SHA-256.
 */
export declare function auditRunDir(root: string, runId: string): string

export declare class ToolRuntime {
  constructor(options?: RuntimeOptions)
  /** Registers a tool; throws a ToolwireError for a duplicate or invalid name, a schema that does not compile, a missing execute. */
  register(tool: ToolDefinition): void
  /**
   * Registers a plugin's tools, all or none (they form `group:plugins`). Throws a ToolwireError
   * CONFLICT for an id equal to a registered tool's name, naming every duplicate tool name.
   */
  registerPlugin(id: string, tools: ToolDefinition[]): void
  /** Whether the policy lets `toolName` be called in `context`, and the layer and rule that decided. */
  explainPolicy(toolName: string, context?: PolicyContext): PolicyDecision
  /**
   * Runs or refuses a call left `pending` (APPROVAL_REQUIRED): its final result. Its events go to
   * the runtime-level `onEvent`. `allow-always` is remembered as for `onApproval`.
   */
  resolveApproval(approvalId: string, decision: ApprovalDecision): Promise<ToolResult>
  /**
   * The agent loop: the model is called with the history and the tool definitions, its streamed
   * answer decoded, the calls run and both appended to the history, until a turn has no calls,
   * `maxSteps` model calls were made, the signal aborts, or every result of a batch asks to
   * terminate. Rejects only for misuse; a failing model ends the run with `stopReason: 'error'`.
   */
  run<W extends Wire>(options: RunOptions<W>): Promise<RunOutcome>
  /**
   * Loads a remote toolset (the Reactive Agent Protocol): fetches
   * `{baseUrl}/.well-known/rap-toolset`, validates it whole and registers its tools, which then
   * behave like any other tool (policy, validation, timeouts, events, sanitization, audit).
   * Resolves with the registered names. Rejects with a ToolwireError naming the offending value:
   * VALIDATION_ERROR for an invalid toolset or option, CONFLICT (naming the tool) for a name
   * already registered, in which case nothing of the toolset is registered and earlier tools
   * stay. The first toolset also registers the built-in `cancel_subscription` tool.
   */
  addRapToolset(baseUrl: string, options?: RapToolsetOptions): Promise<string[]>
  /** `POST /close_thread { thread_id }` to every toolset's server (best effort); the thread's subscriptions and pending choices are forgotten. */
  closeThread(groupId: string): Promise<void>
  /**
   * Answers a `rap_user_choice` event: POSTs `{ id, selected }` to its `response_url`. Ids are
   * unique only within a thread: pass the event's `groupId`; without it, an id pending in several
   * threads is refused with VALIDATION_ERROR naming them. Rejects with NOT_FOUND when no such
   * choice is pending, VALIDATION_ERROR for an index outside its choices.
   */
  answerUserChoice(id: string, selected: number, groupId?: string): Promise<void>
  executePlan(plan: ActionPlan, options?: PlanOptions): Promise<PlanOutcome>
  /** Unregisters a tool; its calls in flight finish, its queued calls end NOT_FOUND. */
  unregister(name: string): boolean
  list(): ToolInfo[]
  /** Results in the order of `calls`, one per call; rejects only for misuse or an internal fault. */
  dispatch(calls: DispatchCall[], options?: DispatchOptions): Promise<ToolResult[]>
  /**
   * The registered tools in the target's definition format, each schema normalized for it:
   * Chat Completions `{type:'function', function:{...}}` (`strict: true` for `openai-strict`),
   * Responses' flat function tools, Anthropic `{name, description, input_schema}`, Gemini
   * `[{ functionDeclarations }]`. Throws naming the tool when a name breaks the target's rule.
   */
  definitions(target: Wire | SchemaTarget, options?: DefinitionOptions): { tools: object[]; reports: SchemaReport[] }
  /** The tool-result messages the wire expects. */
  encodeResults(results: (ToolResult | ToolResultMessage)[], wire: Wire): object[]
  /** The assistant message (Responses: items) that carried the calls, for history. */
  encodeToolCalls(turn: HistoryCall[] | HistoryTurn, wire: Wire): object[]
}

/** The schema in the target's dialect; validation of arguments always uses the original. */
export declare function normalizeSchema(
  schema: object | boolean,
  target: 'openai-strict',
  options?: NormalizeSchemaOptions,
): StrictNormalizedSchema

export declare function normalizeSchema(
  schema: object | boolean,
  target: SchemaTarget,
  options?: NormalizeSchemaOptions,
): NormalizedSchema

/** Whether `name` is a valid tool name for the target, and why not. */
export declare function validateToolName(name: string, target: Wire | SchemaTarget): { ok: boolean; reason?: string }

/** An id valid for the target; ids already valid are kept unchanged, distinct ids stay distinct. */
export declare function normalizeToolCallId(id: string, target: Wire | 'strict' | 'strict9'): string

/** Repairs a history in the wire's own message format. Pure; applying it twice changes nothing. */
export declare function repairHistory(messages: object[], wire: Wire): { messages: object[]; report: HistoryRepairReport }

/** The tool-result messages the wire expects. */
export declare function encodeResults(results: (ToolResult | ToolResultMessage)[], wire: Wire): object[]

/** The assistant message (Responses: items) that carried the calls, for history. */
export declare function encodeToolCalls(turn: HistoryCall[] | HistoryTurn, wire: Wire): object[]

/** Thrown for misuse (`VALIDATION_ERROR`, `CONFLICT`) or an internal fault (`INTERNAL_ERROR`). */
export declare class ToolwireError extends Error {
  constructor(code: ErrorCode, message: string)
  readonly code: ErrorCode
}

export { toToolResultMessage, toInvocationRecord, toErrorEnvelope } from './projections.js'

/** The kinds of decoder error by name (`DecodeErrorKind.STREAM_TRUNCATED === 'stream-truncated'`), and the engine's error codes. */
export { DecodeErrorKind, ERROR_CODES } from './protocol.generated.js'

export { StreamDecoder } from './decoder.js'

/**
 * Decides whether a shell command line for an exec-like tool may run without asking, reading it
 * literally: anything the shell would expand, substitute or redirect is refused, and each
 * segment's program must be allowlisted or a safe bin. Throws a TypeError when `command` is not
 * a string, a ToolwireError (`VALIDATION_ERROR`) naming a bad option.
 */
export declare function analyzeCommand(command: string, options?: AnalyzeOptions): CommandAnalysis

/**
 * Sanitizes a result now, synchronously: its work is proportional to what is kept. The caller's
 * objects and buffers are never modified.
 */
export declare function sanitizeResult(
  result: SanitizeInput,
  options?: SanitizeOptions,
): { result: { content: (TextContent | ImageContent)[]; details?: unknown }; report: SanitizeReport }
