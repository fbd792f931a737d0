// The public types: their generic defaults and request bodies still say `any` where the
// hand-written declarations did (typed per wire in issue 21); each new `any` is linted.
/* oxlint-disable typescript/no-explicit-any */

import type { DecodeErrorKind } from './protocol.generated.js'
// The public types of toolwire, shared by the facade's modules (ts/) and emitted with them.
// The engine's own binding types are in native.d.ts (generated).


// The public types of toolwire. The engine's own binding types are in native.d.ts (generated).

/** How a call ended. */
export type ToolStatus = 'ok' | 'error' | 'timeout' | 'cancelled' | 'skipped' | 'blocked' | 'pending'

/** The machine-readable code of a failed call or a thrown ToolwireError. */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'INCOMPLETE_ARGUMENTS'
  | 'NOT_FOUND'
  | 'POLICY_DENIED'
  | 'APPROVAL_REQUIRED'
  | 'BLOCKED'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'EXECUTION_ERROR'
  | 'REDACTION_FAILED'
  | 'LIMIT_EXCEEDED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PLAN_INVALID'
  | 'INTERNAL_ERROR'

/**
 * Why a plan step did not end ok: its failed result's code, or one of the plan's own:
 * `REFERENCE_ERROR` (a reference or `foreach` list that does not resolve at run time),
 * `DEPENDENCY_SKIPPED` (a step it depends on did not succeed), `PLAN_FAILED` (not run: the plan
 * failed at another step).
 */
export type PlanStepErrorCode = ErrorCode | 'REFERENCE_ERROR' | 'DEPENDENCY_SKIPPED' | 'PLAN_FAILED'

export type RiskLevel = 'low' | 'medium' | 'high' | 'critical'

export interface TextContent {
  type: 'text'
  text: string
}

export interface ImageContent {
  type: 'image'
  /** Base64 data. */
  data: string
  mimeType: string
}

export type ContentBlock = TextContent | ImageContent

/** What a tool may return: content for the model and details for the UI and logs. */
export interface AgentToolResult<TDetails = unknown> {
  content: ContentBlock[]
  details?: TDetails
  /** `true` makes the result an error (code EXECUTION_ERROR). */
  isError?: boolean
}

export type AgentToolUpdateCallback<T = unknown> = (partialResult: T) => void

/**
 * A tool: a pi-agent-core `AgentTool` works unchanged. `execute` may return an AgentToolResult, a
 * string (one text block) or any JSON value (a JSON text block, and the value as `data`), or a
 * Promise of one. Every call gets an `AbortSignal` unless the tool declares `signal: false`.
 */
export interface ToolDefinition<TParams = any, TDetails = any> {
  /** `^[a-zA-Z0-9_-]{1,64}$` */
  name: string
  /** A name for people (pi-agent-core's `label`); models see `name` and `description` only. */
  label?: string
  description?: string
  /** The JSON Schema of the arguments (a TypeBox schema works); absent means any object. */
  parameters?: object
  /** The JSON Schema that `details` (or the returned value) must match. */
  outputSchema?: object
  /** This tool's deadline in milliseconds; wins over the dispatch and runtime deadlines. */
  timeoutMs?: number
  /** A batch holding a call of a `sequential` tool runs in source order, one call at a time. */
  executionMode?: 'parallel' | 'sequential'
  /** Calls whose keys are equal never overlap and run in source order (e.g. the file path). */
  concurrencyKey?: (params: TParams) => string | null | undefined
  /** Carried on the call's envelope (`ToolCall.riskLevel`) for hooks and approvals to read, and in `list()`. */
  riskLevel?: RiskLevel
  /** A free-form category, carried on the call's envelope (`ToolCall.category`) and in `list()`. */
  category?: string
  /** `{ from: to }`: other names the model may use for a parameter, e.g. `{ file_path: 'path' }`. */
  aliases?: Record<string, string>
  /**
   * Parameters of which one must be present, checked after renaming: a name, or names that stand
   * for one another, optionally ending in `{ allowEmpty: true }` (a blank string then counts).
   * E.g. `[['path', 'file_path'], ['newText', { allowEmpty: true }], 'query']`.
   */
  requiredGroups?: RequiredGroup[]
  /** Coerce scalar arguments to the schema's type (`"5"` to 5); defaults to the runtime's `coerce`. */
  coerce?: boolean
  /**
   * The fields of `details` (names or dotted paths; `*` for all) that may reach events, the UI
   * and audit records. Without it, strict redaction withholds details there.
   */
  redaction?: { allow: string[] }
  /** A line `MEDIA:<path>` in this tool's text becomes an image read from that path. */
  trustedMedia?: boolean
  /** Only a sender with `isOwner: true` may call it; a call with no sender is refused. */
  ownerOnly?: boolean
  /**
   * Every path argument must resolve inside the runtime's `workspaceRoot` (`..`, absolute paths
   * outside it, `file:` URLs and symlinks that escape it are refused with POLICY_DENIED, whose
   * `details` name the parameter as `param` (`files[0].path`) and `pointer` (`/files/0/path`)).
   * Paths are: the `pathParams`; the path-named properties the schema declares anywhere (through
   * `$ref`, `allOf`, `anyOf`, `oneOf`, nested objects and array items); and, whatever the schema,
   * the strings under every argument key at any depth named like a path: its last word (camelCase,
   * snake_case or kebab-case, any case) is `path`, `paths`, `file`, `files`, `filename`,
   * `filenames`, `dir`, `dirs`, `directory`, `folder` or `folders`, alone or glued onto another
   * word (`filepath`, `outdir`, `source_path`, `outputPath`, `log_file`, `workingDir`), or is
   * `pathname`, `pathnames`, `dirname`, `directories`, `cwd`, `pwd`, `src`, `source`, `sources`,
   * `dest`, `dst`, `destination`, `target`, `output`, `outputs`, `out`, `root`, `location`, `to` or
   * `from`, or the key is a file name (`fileName`, `dir_name`); except `profile`, `xpath`,
   * `jsonpath` and a path after `url`, `uri`, `http`, `api`, `route`, `json` or `x` (`urlPath`,
   * `json_path`), which are not paths. Any string that is a `file:` URL is a path too. A path of
   * 4096 bytes (PATH_MAX) or more is refused at once.
   */
  workspaceOnly?: boolean
  /**
   * More parameters holding paths, for `workspaceOnly` (their values must be strings or arrays of
   * strings). Nested ones are dotted, `*` standing for every item of an array or value of an
   * object: `options.output`, `files.*.location` (arrays on the way are entered anyway:
   * `files.location` is the same); a name holding a dot is written as a JSON pointer:
   * `/a.b/location` (RFC 6901 escapes; a `*` token is every item). `list()` shows them with
   * those the schema gives.
   */
  pathParams?: string[]
  /**
   * The parameter holding a shell command: the tool is exec-like and its commands are analyzed
   * for approvals. Its value is a command line (a string) or an argument array of strings run
   * without a shell (`["git", "status"]`), analyzed as the line of its elements each quoted
   * (`'git' 'status'`) and as the elements joined unquoted (what a tool joining them into a shell
   * line runs): both must be approved. Anything else is a miss naming why.
   */
  command?: string
  /** Overrides the runtime's `approvals.security` and `approvals.ask` for this tool. */
  approval?: ApprovalSettings
  /**
   * `false` opts out of the `AbortSignal` each call otherwise gets (it saves creating one per
   * call). A deadline or a cancellation then cannot reach the tool: the call still ends
   * `TIMEOUT` / `CANCELLED`, and its message says the tool may still be running.
   */
  signal?: boolean
  /**
   * Text may be returned as UTF-8 bytes (a Buffer or Uint8Array), directly or as a text block's
   * `text`: it is cut and scrubbed in Rust without becoming a JavaScript string.
   */
  execute(
    toolCallId: string,
    params: TParams,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback,
  ): AgentToolResult<TDetails> | string | unknown | Promise<AgentToolResult<TDetails> | string | unknown>
}

/** One required-parameter group: names that stand for one another, optionally with options. */
export type RequiredGroup = string | (string | { allowEmpty?: boolean })[]

/** What `list()` shows of a registered tool. */
export interface ToolInfo {
  name: string
  /** A stable hash of `parameters` (16 hex digits): changes exactly when the schema does. */
  schemaHash: string
  aliases?: Record<string, string>
  coerce?: boolean
  label?: string
  description?: string
  parameters: object
  outputSchema?: object
  timeoutMs?: number
  executionMode: 'parallel' | 'sequential'
  hasConcurrencyKey: boolean
  riskLevel?: RiskLevel
  category?: string
  ownerOnly?: boolean
  workspaceOnly?: boolean
  pathParams?: string[]
  command?: string
  /** The plugin that registered the tool. */
  plugin?: string
  /** `false` when the tool opted out of the `AbortSignal`. */
  signal?: false
}

/**
 * A call as the model sent it. `arguments` is JSON text (empty means `{}`) or an object.
 * Providers' flat shapes are read too: an Anthropic `tool_use` block's `input`, a Gemini
 * functionCall's or a LangChain tool call's `args` are the arguments (give one of the three: two
 * are a TypeError). A call without arguments holding a key dispatch does not read (`params`) is a
 * TypeError naming it, never run with `{}`. Hooks see the call with its arguments as `arguments`.
 */
export interface ModelToolCall {
  id: string
  name: string
  arguments?: string | object | null
  /** An Anthropic `tool_use` block's arguments (`{ type: 'tool_use', id, name, input }`): read as `arguments`. */
  input?: unknown
  /** A Gemini functionCall's or a LangChain tool call's arguments (`{ id, name, args }`): read as `arguments`. */
  args?: unknown
  /** The provider's block type (`tool_use`, `tool_call`, `function_call`), not read; an OpenAI Responses `function_call` item's id is its `call_id`. */
  type?: string
  /** An OpenAI Responses `function_call` item's call id: the call's id (its `id` is the item's `fc_...`). */
  call_id?: string
  /** `false` (a StreamDecoder's cut-off call): refused with INCOMPLETE_ARGUMENTS, never run. */
  complete?: boolean
  /** Plan marks stamped on the result (and the call envelope): the step, the attempt (from 1), the foreach loop, the confirmation. */
  stepId?: string
  attempt?: number
  loopId?: string
  confirmationId?: string
}

/** An OpenAI Chat tool call (`message.tool_calls[i]`), as dispatch reads it: `function.arguments` are its arguments. */
export interface OpenAIChatToolCall {
  id: string
  type?: 'function'
  function: { name: string; arguments: string }
}

/** An OpenAI Responses `function_call` output item, as dispatch reads it: its id is its `call_id` (what its output must name). */
export interface OpenAIResponsesFunctionCall {
  type: 'function_call'
  call_id: string
  /** The item's own id (`fc_...`), not the call's. */
  id?: string
  name: string
  arguments: string
}

/**
 * A Gemini part holding a call (`candidates[0].content.parts[i]`). Gemini often sends no
 * `functionCall.id`, which dispatch needs: decode with `new StreamDecoder('gemini')`, which
 * generates ids, or give each call an id (in its functionCall, or beside it: `{ id, functionCall }`).
 */
export type GeminiFunctionCallPart =
  | { functionCall: { id: string; name: string; args?: Record<string, unknown> }; thoughtSignature?: string }
  | { id: string; functionCall: { id?: string; name: string; args?: Record<string, unknown> }; thoughtSignature?: string }

/** What `dispatch` takes: a call, an assembled one, or a provider SDK's call as it hands it over. */
export type DispatchCall = ModelToolCall | AssembledToolCall | OpenAIChatToolCall | OpenAIResponsesFunctionCall | GeminiFunctionCallPart

/** The call as the executor hands it to hooks: the arguments as they will run, and more. */
export interface ToolCall {
  callId: string
  runId?: string
  stepId?: string
  loopId?: string
  confirmationId?: string
  tool: string
  attempt: number
  args: unknown
  /** SHA-256 of the canonical JSON of the arguments (keys sorted, no whitespace, numbers by value: 1, 1.0 and 1e0 hash alike), as 64 lowercase hex digits: the audit log's `argsHash`. */
  argsHash: string
  timeoutMs: number
  cancellable: boolean
  createdAt: number
  riskLevel?: RiskLevel
  category?: string
}

export interface ToolError {
  code: ErrorCode
  message: string
  retryable?: boolean
  /**
   * More about the error, by code: VALIDATION_ERROR the schema's findings (and `duplicateOf`, the
   * slot of an earlier call with the same id); APPROVAL_REQUIRED `approvalId` (for
   * `resolveApproval`); POLICY_DENIED for a path outside the workspace, the parameter (`param`, `pointer`).
   */
  details?: unknown
}

/** The result of one call: exactly one per call, whatever happened. */
export interface ToolResult {
  callId: string
  /** The run of the call: the dispatch's `runId`, or the one generated for a dispatch given none (its audit directory's run id). */
  runId?: string
  stepId?: string
  loopId?: string
  confirmationId?: string
  tool: string
  /** The arguments as run; `null` when they were not valid JSON. */
  args: unknown
  attempt: number
  status: ToolStatus
  /** `status === 'ok'`. */
  ok: boolean
  /** What the model reads; every error result carries a text block saying what went wrong. */
  content: ContentBlock[]
  /** What the tool returned as `details` (for the UI and logs; checked against `outputSchema`). */
  details?: unknown
  /** A tool that returned a JSON value (not an AgentToolResult or a string): the value; its text is in `content`. */
  data?: unknown
  /** Why the call failed; absent when `ok`. */
  error?: ToolError
  /** Milliseconds since the Unix epoch. */
  startedAt: number
  endedAt: number
  /** How long the tool ran, in milliseconds rounded to whole microseconds (0 for calls that never ran). */
  durationMs: number
  /** What parameter normalization changed in the model's arguments, when it changed anything. */
  normalization?: ParameterNormalization
  /** What sanitization changed (text cut, secrets scrubbed, images fitted); absent when nothing. */
  sanitization?: SanitizeReport
  /** The paths the tool reports it changed (returned as `{ content, effects }`). */
  effects?: { created?: string[]; modified?: string[]; deleted?: string[]; renamed?: { from: string; to: string }[] }
  /** The tool asked the agent loop to stop (returned as `{ content, terminate: true }`). */
  terminate?: boolean
  /**
   * Set when the audit log this result belongs to could not be written (its directory could not
   * be opened, or a write failed): why. An `audit_failed` event says so too.
   */
  auditFailed?: string
}

/** Parameters renamed (by an alias or a case match) and values coerced before validation. */
export interface ParameterNormalization {
  renamed: { from: string; to: string; by: 'alias' | 'case'; path: string }[]
  /** `from: 'text-blocks'` for `[{type:'text', text}]` given for a string. */
  coerced: { path: string; from: string; to: string }[]
}

/**
 * Events carry results as the UI and audit records may see them: secrets scrubbed (arguments
 * too), image data replaced by `{ type: 'image', mimeType, bytes, width?, height?, omitted: true }`,
 * text cut at `eventTextChars`, details reduced to the tool's redaction allowlist (or left out).
 */
export type ToolExecutionEvent =
  | { type: 'tool_execution_start'; toolCallId: string; toolName: string; args: unknown }
  | { type: 'tool_execution_update'; toolCallId: string; toolName: string; partialResult: unknown }
  | { type: 'tool_execution_end'; toolCallId: string; toolName: string; result: ToolResult; isError: boolean }
  | { type: 'redaction_failed'; toolCallId: string; toolName: string; code: 'REDACTION_FAILED' }
  /**
   * The dispatch's audit log could not be written: once per dispatch, with the first call whose
   * record did not reach it (every such result carries `auditFailed`).
   */
  | { type: 'audit_failed'; toolCallId: string; toolName: string; runId: string | null; message: string }
  /** The run made this call (same tool, same canonical arguments) `count` times. */
  | { type: 'loop_warning'; toolCallId: string; toolName: string; count: number }

/** Secret kinds scrubbed by default; custom patterns add their own kinds. */
export type SecretKind =
  | 'openai-key' | 'anthropic-key' | 'aws-access-key' | 'github-token' | 'slack-token'
  | 'google-api-key' | 'jwt' | 'private-key' | 'bearer-token' | 'url-password' | 'credential-header'
  | 'stripe-key' | 'gitlab-token' | 'npm-token' | 'huggingface-token' | 'sendgrid-key' | 'shopify-token'
  | 'twilio-key' | 'digitalocean-token' | 'doppler-token' | 'pypi-token' | 'vendor-token'
  | 'aws-secret-key' | 'azure-key' | 'credential-parameter'

/** How results are bounded and cleaned (runtime option, overridable per dispatch). */
export interface SanitizeOptions {
  /** Text one result keeps (UTF-16 code units; characters for bytes): a whole number of at least 100. Default 32768. */
  maxResultChars?: number
  /** Text the results of one dispatch keep together, the largest cut first. Default 131072; null: no limit. */
  maxBatchChars?: number | null
  /** Remove ANSI escape sequences. Default false. */
  stripAnsi?: boolean
  /** Text of a result an event carries. Default 8000. */
  eventTextChars?: number
  /** The share of a cut text's budget kept from its start. Default 0.5. */
  headRatio?: number
  secrets?: { enabled?: boolean; patterns?: { kind: string; pattern: string }[] }
  images?: { maxWidth?: number; maxHeight?: number; maxBytes?: number; maxPixels?: number }
}

/** Input limits: crossing one ends the call with LIMIT_EXCEEDED, naming the limit and the size. */
export interface Limits {
  /** Default 128 characters. */
  maxIdChars?: number
  /** Default 1048576 bytes of JSON text. */
  maxArgumentsBytes?: number
}

/** What sanitization did to a result. */
export interface SanitizeReport {
  truncated: { block: number; unit: 'characters' | 'bytes'; cut: number; budget: number; scope: 'result' | 'batch' }[]
  scrubbed: Partial<Record<SecretKind | string, number>>
  images: {
    block: number
    action: 'kept' | 'resized' | 'omitted'
    mimeType: string | null
    declaredMimeType?: string
    width: number | null
    height: number | null
    bytes: number
    original?: { width: number; height: number; bytes: number }
    quality?: number
    reason?: string
  }[]
  /** ANSI escape sequences removed. */
  ansi?: number
}

/** A result's content with text as strings or UTF-8 bytes, for `sanitizeResult`. */
export interface SanitizeInput {
  content: ({ type: 'text'; text: string | Uint8Array } | ImageContent)[]
  details?: unknown
}


export type BeforeToolCallResult = { block: true; reason?: string } | { params: unknown } | undefined | void

export interface AfterToolCallResult {
  content?: ContentBlock[]
  details?: unknown
  isError?: boolean
}

export interface RuntimeOptions {
  /** The most tools running at once, across all dispatches. Default 16. */
  concurrency?: number
  /** The default deadline of each stage of a call, in milliseconds. Default 120000. */
  timeoutMs?: number
  /** Coerce scalar arguments to the schema's type for tools that do not say (default false). */
  coerce?: boolean
  sanitize?: SanitizeOptions
  limits?: Limits
  /** Details of tools without a redaction allowlist: withheld from events (strict, the default) or not. */
  redaction?: 'strict' | 'permissive'
  /** Which tools may be called, by whom, through which provider. Absent: every tool. */
  policy?: ToolPolicy
  /**
   * The directory `workspaceOnly` tools must keep their paths in; relative paths resolve against it.
   * A relative root is resolved against `process.cwd()` when the runtime is constructed.
   */
  workspaceRoot?: string
  /**
   * The same call repeated within one run (one `runId`): a `loop_warning` event at `warnAt`
   * (default 5), `blocked` with BLOCKED from `blockAt` (default 10). `false` turns it off.
   */
  loopDetection?: false | { warnAt?: number; blockAt?: number }
  /** Who approves calls that need approval. Absent: nothing is ever asked. */
  approvals?: ApprovalsOptions
  /**
   * Receives the events of every dispatch, of calls resumed by `resolveApproval`, and the events
   * of remote tools (`rap_subscription_event`, `rap_oauth`, `rap_user_choice`, `rap_view_update`).
   * Declared as a method so a listener typed for `ToolExecutionEvent` alone still fits.
   */
  onEvent?(event: ToolExecutionEvent | RapEvent): void
  /** Writes an audit log of every dispatch, run and plan under `dir`, one directory per run id. */
  audit?: AuditOptions
}

export interface AuditOptions {
  dir: string
  /** Buffered records are written at least this often. Default 1000. */
  flushIntervalMs?: number
}

/** A run directory read back; a final line cut by a crash is counted, never thrown. */
export interface AuditReplay {
  /** run.json: the run id, kind, settings snapshot, times, and how it ended. */
  run: any
  calls: any[]
  results: any[]
  events: any[]
  partialLines: number
  malformed: { file: string; line: number; callId?: string; message: string }[]
}

export interface AuditVerification {
  ok: boolean
  /**
   * Each breach, naming its call: `malformed_line`, `duplicate_seq`, `duplicate_call`, `missing_result`,
   * `duplicate_result`, `result_before_call`, `orphan_result`, `attempt_gap`, `attempt_order`,
   * `args_hash_mismatch`, `incomplete_record` (a record written with parts cut or left out, saying why:
   * its `auditIncomplete` field), `lost_record` (a record that could not be written at all: an
   * `audit_record_lost` event), `unreadable_run`.
   */
  problems: { callId: string | null; kind: string; message: string }[]
}

/** Allow and deny lists: names, `group:<name>` and `*` globs; names are case-insensitive, `bash` is `exec`. */
export interface PolicyRules {
  allow?: string[]
  deny?: string[]
}

/**
 * The tool policy. Every configured layer must allow a tool, in this order: profile, provider
 * profile, global allow/deny, provider, agent, agent-by-provider, sender. Deny wins over allow;
 * an empty allow list allows all (unlike the `tools` option of dispatch, run, executePlan,
 * definitions and the adapters, where `[]` is no tool).
 */
export interface ToolPolicy extends PolicyRules {
  /** `minimal`, `coding`, `messaging`, `full`, or one of `profiles`. */
  profile?: string
  /** Added to the profile. */
  alsoAllow?: string[]
  byProvider?: Record<string, PolicyRules & { profile?: string }>
  agents?: Record<string, PolicyRules & { byProvider?: Record<string, PolicyRules> }>
  senders?: Record<string, PolicyRules>
  /** User groups, used as `group:<name>`. */
  groups?: Record<string, string[]>
  profiles?: Record<string, PolicyRules>
}

/** Who calls and through which provider: what the policy judges. */
export interface PolicyContext {
  provider?: string
  agentId?: string
  sender?: { id?: string; isOwner?: boolean }
}

/** What `explainPolicy` answers: the layer and rule that decided (null when none listed the tool). */
export interface PolicyDecision {
  allowed: boolean
  layer: 'profile' | 'providerProfile' | 'global' | 'provider' | 'agent' | 'agentProvider' | 'sender' | 'ownerOnly' | null
  rule: string | null
}

/** `deny`: never run; `allowlist`: run what is allowlisted; `full`: run everything. */
export type ApprovalSecurity = 'deny' | 'allowlist' | 'full'

/** When to ask: never, when the allowlist misses, or for every call. */
export type ApprovalAsk = 'off' | 'on-miss' | 'always'

export type ApprovalDecision = 'allow-once' | 'allow-always' | 'deny'

/**
 * `approvals.onApproval`: answers a request with an ApprovalDecision, directly or as a promise
 * (`async (r) => { log(r); return 'allow-once' }`, `() => 'deny'`).
 *
 * Written as two forms rather than `(r) => ApprovalDecision | Promise<ApprovalDecision>`: for
 * that union TypeScript (5.x and 7) widens a literal returned alone from an async function to
 * `string` (microsoft/TypeScript#30185). The first form is what a function is typed by; its
 * second member only gives a thenable reading of `ApprovalDecision`, so a literal is kept both
 * in an async and in a plain function, and no plain function matches it. The second form, whose
 * overloads TypeScript does not type a function by, takes plain functions.
 */
export type ApprovalCallback =
  | ((request: ApprovalRequest) => Promise<ApprovalDecision> | (ApprovalDecision & { then: Promise<ApprovalDecision>['then'] }))
  | { <_Plain>(request: ApprovalRequest): ApprovalDecision; (request: ApprovalRequest): ApprovalDecision }

export interface ApprovalSettings {
  security?: ApprovalSecurity
  ask?: ApprovalAsk
}

export interface ApprovalsOptions extends ApprovalSettings {
  /** Applied when `onApproval` does not answer within `timeoutMs`. Default `deny`. */
  askFallback?: ApprovalSecurity
  /** How long `onApproval` may take. Default 120000. */
  timeoutMs?: number
  /** Where `allow-always` answers are kept (JSON, written atomically) and read from at start. */
  file?: string
  /**
   * Asked for each call that needs approval. Without it, such calls end `pending` with
   * APPROVAL_REQUIRED and `details.approvalId`, for `resolveApproval`.
   */
  onApproval?: ApprovalCallback
  /** Tools that never need approval under `allowlist` (non exec-like tools). */
  allowTools?: string[]
  /** For exec-like tools: the programs commands may run without asking (see `analyzeCommand`). */
  allowlist?: string[]
  safeBins?: string[]
  trustedDirs?: string[]
  env?: { PATH?: string }
}

/**
 * What `model(request)` may resolve to: a fetch Response, a ReadableStream or an (async) iterable
 * of body bytes, strings or SDK chunk objects (an SDK's stream, `stream: true`), or a whole
 * (non-streamed) answer: the body as text or bytes, or the SDK's response object
 * (`chat.completion`, a Responses `response`, an Anthropic `message`, a Gemini
 * `GenerateContentResponse`), decoded as the whole response it is.
 */
export type ModelAnswer =
  | Response
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string | object>
  | Iterable<Uint8Array | string | object>
  | string
  | Uint8Array
  | WholeModelResponse

/** A provider's whole (non-streamed) response object, as its SDK returns it. */
export type WholeModelResponse = object

/** The parts of a request body every wire but Gemini has. */
export interface StreamedRequest {
  /** The definitions of the tools offered (left out when none is). */
  tools?: any[]
  /** RunOptions' `toolChoice`, when given. */
  tool_choice?: any
  stream: true
}

/**
 * The request body `run()` hands `model` for each wire, typed so it spreads into the provider
 * SDK's streaming call (`openai.chat.completions.create({ ...request, model, stream: true })`
 * picks the streaming overload). Messages are the history in the wire's own shape.
 */
export interface ModelRequests {
  'openai-chat': StreamedRequest & { messages: any[]; stream_options: { include_usage: true } }
  'openai-responses': StreamedRequest & { input: any[] }
  anthropic: StreamedRequest & { messages: any[] }
  mistral: StreamedRequest & { messages: any[] }
  gemini: { contents: any[]; tools?: any[]; toolConfig?: any }
}

/** The request body of a model call on wire `W` (for `Wire` itself, the union of every wire's). */
export type ModelRequest<W extends Wire = Wire> = W extends Wire ? ModelRequests[W] : never

export interface RunOptions<W extends Wire = Wire> extends PolicyContext {
  wire: W
  /**
   * Only these registered tools: each request offers only them and each dispatch runs only them
   * (a call to another ends NOT_FOUND, as with dispatch's `tools`). `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all);
   * leave it out for every registered tool.
   */
  tools?: string[]
  /**
   * Given the request body for the wire (`messages`/`input`/`contents`, `tools`,
   * `tool_choice`/`toolConfig`, `stream`, typed per wire: {@link ModelRequests}) and the run's
   * signal; returns the model's answer ({@link ModelAnswer}).
   */
  model: (request: ModelRequest<W>, options: { signal?: AbortSignal }) => Promise<ModelAnswer> | ModelAnswer
  /** The history so far, in the wire's own message shape. */
  messages?: object[]
  /** The most model calls. Default 20. */
  maxSteps?: number
  /** Aborting stops the run ('aborted'), also while the model, steering or follow-up callbacks are awaited. */
  signal?: AbortSignal
  /** How long getSteeringMessages and getFollowUpMessages may take to answer, in ms (default 120000): past it the run stops with an error naming the callback. */
  callbackTimeoutMs?: number
  /** Names the run: its calls' `runId`, one run for loop detection. Default: generated. */
  runId?: string
  /**
   * The thread remote (RAP) tools run in: their invocations' `group_id`. Default: the run's id.
   * Subscription events of this thread reach the model before each model call.
   */
  groupId?: string
  /** Sent as the `user_id` of remote (RAP) invocations. */
  userId?: string
  /** Sent as the `thread_ancestors` of remote (RAP) invocations: thread ids from the root down. */
  threadAncestors?: string[]
  onEvent?: (event: RunEvent) => void
  /** Messages (wire shape) injected before the next model call. */
  getSteeringMessages?: () => object[] | undefined | Promise<object[] | undefined>
  /** Messages (wire shape) that keep the run going when it would otherwise stop. */
  getFollowUpMessages?: () => object[] | undefined | Promise<object[] | undefined>
  /** Passed as the wire's `tool_choice` (Gemini: `toolConfig`). */
  toolChoice?: unknown
  /** An audit log of its own for this run (else the runtime's). */
  audit?: AuditOptions
}

/** A run's events: each turn's start, the decoder's events (its `done` as `turn_end`), the tools' events, and one final `done`. */
export type RunEvent =
  | { type: 'turn_start'; runId: string; step: number }
  | Exclude<StreamEvent, { type: 'done' }>
  | { type: 'turn_end'; stopReason: StopReason }
  | ToolExecutionEvent
  | { type: 'done'; runId: string; stopReason: RunStopReason; error?: string }

export type RunStopReason = 'stop' | 'maxSteps' | 'aborted' | 'terminated' | 'error'

export interface RunStep {
  text: string
  /** The decoder's stop reason of this turn. */
  stopReason: StopReason
  calls: AssembledToolCall[]
  results: ToolResult[]
  /**
   * What the decoder reported about this turn without ending it (a second response after the
   * first, a fragment after the end, choices other than the first of an `n` > 1 response).
   */
  errors?: string[]
  /** The kind of each of `errors`, in order (see `DecodeErrorKind`). */
  errorKinds?: DecodeErrorKindName[]
}

export interface RunOutcome {
  runId: string
  /**
   * The whole history in the wire's own shape (items of `messages`, `input` or `contents`, as
   * {@link ModelRequests} types them), so `outcome.messages.at(-1)?.content` reads the last one.
   */
  messages: any[]
  steps: RunStep[]
  stopReason: RunStopReason
  usage?: { inputTokens?: number; outputTokens?: number }
  /** Why the run ended with `error`. */
  error?: string
  /**
   * Set when the run's audit log could not be written at some point (even after the last
   * dispatch resolved, or when the run was closed): why. `verifyRun` reports what is missing.
   */
  auditFailed?: string
}

/** What `onApproval` is asked. */
export interface ApprovalRequest {
  approvalId: string
  toolCallId: string
  toolName: string
  args: unknown
  /** Exec-like tools: the command and its analysis (an argument array as the line of its quoted elements). */
  command?: string
  analysis?: CommandAnalysis
  /** Why approval is needed. */
  reason: string
  security: ApprovalSecurity
  ask: ApprovalAsk
}

/** Options of `addRapToolset`. */
export interface RapToolsetOptions {
  /** The tools' own deadline; without it the dispatch's (or runtime's) `timeoutMs` applies. */
  timeoutMs?: number
  /** Retry of invocations answered 5xx or unreachable (4xx never). Default 3 attempts, 100 ms. */
  retry?: { maxAttempts?: number; baseDelayMs?: number }
  /** The callback server's address (default `127.0.0.1:0`); fixed by the first toolset that loads. */
  bind?: string
  /** The base URL tools are given for callbacks instead of the server's address (behind a proxy); fixed by the first toolset that loads. */
  publicUrl?: string
  /** Largest callback body accepted (413 above). Default 16 MiB; fixed by the first toolset that loads. */
  maxCallbackBytes?: number
  /** Prepended to every tool name; without it the names are the toolset's own. */
  prefix?: string
  /**
   * Extra headers sent with the manifest fetch, every invocation and the `cancel_tool_call` and
   * `close_thread` notifications. Only ever to `baseUrl`'s origin: a toolset whose endpoint is on
   * another origin is refused when headers are given.
   */
  headers?: Record<string, string>
}

/** What every RAP event carries: the call whose callback URL received it, and its thread. */
export interface RapEventBase {
  /** The id of the call whose callback URL received the message. */
  callId: string
  /** That call's thread (`groupId`). */
  groupId: string
}

/** An event of a subscription a remote tool call opened (during `run()`, also delivered to the model). */
export interface RapSubscriptionEvent extends RapEventBase {
  type: 'rap_subscription_event'
  message: { group_id: string; tool_call_id: string; text: string; associative: boolean; final?: boolean }
  /**
   * On the final event of a subscription ended because a callback on its URL was refused: why.
   * `LIMIT_EXCEEDED` for a body over `maxCallbackBytes` or nested too deep (the limit named),
   * `EXECUTION_ERROR` for one the tool server got wrong.
   */
  error?: { code: 'LIMIT_EXCEEDED' | 'EXECUTION_ERROR'; message: string }
}

/** A remote tool needs the user to authorize at `auth_url`. */
export interface RapOAuthEvent extends RapEventBase {
  type: 'rap_oauth'
  message: { group_id: string; id: string; call_id?: string; auth_url: string }
}

/** A remote tool asks the user to pick one of `choices`: answer with `runtime.answerUserChoice(message.id, index, groupId)`. */
export interface RapUserChoiceEvent extends RapEventBase {
  type: 'rap_user_choice'
  message: { group_id: string; id: string; call_id?: string; prompt: string; choices: string[]; default: number; response_url: string }
}

/** A view (e.g. a diff) changed; passed through for the UI. */
export interface RapViewUpdateEvent extends RapEventBase {
  type: 'rap_view_update'
  message: { group_id: string; view_type: string; content: unknown }
}

/** The events of remote tools, delivered to the runtime-level `onEvent`. */
export type RapEvent = RapSubscriptionEvent | RapOAuthEvent | RapUserChoiceEvent | RapViewUpdateEvent

export interface DispatchOptions extends PolicyContext {
  /** Aborting cancels: running tools get their signal aborted, the rest never run. */
  signal?: AbortSignal
  /** Overrides the runtime deadline for this dispatch (a tool's own timeoutMs still wins). */
  timeoutMs?: number
  /** Stamped on every result; calls with one runId form one run for loop detection. */
  runId?: string
  /**
   * The thread remote (RAP) tools run in: their invocations' `group_id`. Default: `runId`; a
   * dispatch with neither gets a thread of its own.
   */
  groupId?: string
  /** Sent as the `user_id` of remote (RAP) invocations. */
  userId?: string
  /** Sent as the `thread_ancestors` of remote (RAP) invocations: thread ids from the root down. */
  threadAncestors?: string[]
  /** Overrides the tool's and the runtime's approval settings for these calls. */
  approval?: ApprovalSettings
  /**
   * The registered tools this dispatch may run (default: all). A call to any other tool ends
   * NOT_FOUND and never runs, its text suggesting and listing only these; a name that is not
   * registered is a thrown VALIDATION_ERROR naming it. `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all): every call ends NOT_FOUND.
   */
  tools?: string[]
  /** An audit log of its own for this dispatch (else the runtime's). */
  audit?: AuditOptions
  /** Override the runtime's sanitization for this dispatch (keys merge over the runtime's). */
  sanitize?: SanitizeOptions
  limits?: Limits
  redaction?: 'strict' | 'permissive'
  onEvent?: (event: ToolExecutionEvent) => void
  /** May block the call or replace its arguments (validated again). A throw blocks the call. */
  beforeToolCall?: (context: {
    toolCall: ModelToolCall
    args: unknown
    call: ToolCall
  }) => BeforeToolCallResult | Promise<BeforeToolCallResult>
  /** May replace content, details and isError (no deep merge). A throw withholds the output. */
  afterToolCall?: (context: {
    toolCall: ModelToolCall
    args: unknown
    result: ToolResult
    isError: boolean
  }) => AfterToolCallResult | undefined | void | Promise<AfterToolCallResult | undefined | void>
  /** May return a replacement (its content, details and data are kept); runs for every result but cancelled ones. */
  onPersist?: (result: ToolResult) => Partial<ToolResult> | undefined | void | Promise<Partial<ToolResult> | undefined | void>
}

/** The policy context, when given, leaves out the tools it may not call. */
export interface DefinitionOptions extends PolicyContext {
  /** Gemini: send full JSON Schema as `parametersJsonSchema`. */
  jsonSchema?: boolean
  /** `openai-chat` / `openai-responses`: the strict form (`strict: true`). */
  strict?: boolean
  /** Only these registered tools (a name not registered is a VALIDATION_ERROR naming it); `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all): no definitions. */
  tools?: string[]
}

/** What normalization did to one tool's schema for a target. */
export interface SchemaReport {
  tool: string
  schemaHash: string
  removed: SchemaRemoval[]
  warnings: string[]
}

/** The provider schema dialects. `p0` changes nothing and reports what is not portable. */
export type SchemaTarget = 'openai' | 'openai-strict' | 'anthropic' | 'gemini' | 'xai' | 'mistral' | 'llamacpp' | 'p0'

/** A keyword dropped; `path` is a JSON pointer into the input schema. */
export interface SchemaRemoval {
  path: string
  keyword: string
}

export interface NormalizeSchemaOptions {
  /** Gemini: keep full JSON Schema (for `parametersJsonSchema`). */
  jsonSchema?: boolean
  /** Deepest nesting of schemas accepted (default 64). */
  maxDepth?: number
  /** Largest schema accepted, in bytes of JSON text (default 1 MiB). */
  maxBytes?: number
}

export interface NormalizedSchema {
  schema: object
  removed: SchemaRemoval[]
  /** What changed meaning, each naming the place. */
  warnings: string[]
}

export interface StrictNormalizedSchema extends NormalizedSchema {
  /** Strips the nulls the strict form forced (only those the original schema did not allow). */
  denormalize<T = unknown>(args: T): T
}

/** A call for history: a ModelToolCall or an AssembledToolCall. */
export interface HistoryCall {
  id: string
  name: string
  arguments?: string | object | null
  kind?: 'custom'
  providerMetadata?: Record<string, unknown>
}

/** The turn that carried the calls: an AssembledTurn works. */
export interface HistoryTurn {
  text?: string
  thinking?: ThinkingBlock[]
  toolCalls: HistoryCall[]
}

export interface HistoryRepairReport {
  /** Each call id rewritten, once per call. */
  renamed: { from: string; to: string }[]
  /** Calls given a synthetic `No result provided` error result. */
  synthesized: string[]
  /** Results with no call before them, removed. */
  removed: string[]
}

export interface ToolResultMessage {
  role: 'toolResult'
  toolCallId: string
  toolName: string
  content: ContentBlock[]
  details: unknown
  isError: boolean
  timestamp: number
}

export interface ToolInvocationRecord {
  toolCallId: string
  name: string
  args: unknown
  result: unknown
  error: string | null
  startedAtMs: number
  endedAtMs: number
}

export type ErrorEnvelope =
  | { status: 'error'; tool: string; error: string }
  | { status: 'blocked'; tool: string; reason: string }
  | { status: 'pending'; tool: string; message: string }

/** The provider wire APIs a StreamDecoder reads. */
export type Wire = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'mistral'

export interface DecoderOptions {
  /**
   * What `toolcall_delta` reports besides the raw fragment: `'none'`; `'delta'` (default) adds
   * `partial` (what changed, from an incremental parser: linear in the arguments' length);
   * `'object'` also adds `object`, the partial arguments kept up to date in place.
   */
  partial?: 'none' | 'delta' | 'object'
  /**
   * Providers that resend the cumulative arguments in every chunk (DeepSeek, Qianfan): `'auto'`
   * (default) detects it per call and never misfires on short repeats; `true` / `false` force it.
   */
  cumulativeArguments?: 'auto' | boolean
  /** Decode HTML entities in arguments (Grok sends `&quot;` and friends). Named and numeric. */
  decodeHtmlEntities?: boolean
  /**
   * The body's content type, when known (the response's `content-type` header; `run()` passes
   * it). A body in which the wire finds nothing of its own (an HTML login page, plain text)
   * ends with an error naming this type and the body's first bytes. A constructor option:
   * `new StreamDecoder(wire, { contentType: response.headers.get('content-type') ?? undefined })`
   * (`push` takes only the bytes).
   */
  contentType?: string
}

/** The normalized reason a turn ended; the provider's own value is in `rawStopReason`. */
export type StopReason = 'stop' | 'toolUse' | 'length' | 'error' | 'aborted'

/** A path into the arguments: object keys and array indexes. */
export type JsonPath = (string | number)[]

/** What a fragment changed: a string that grew, or a value that is now whole. */
export type PartialChange = { path: JsonPath; append: string } | { path: JsonPath; value: unknown }

/** A tool call as assembled from the stream. */
export interface AssembledToolCall {
  /** Position among the turn's tool calls (0, 1, ...), whatever index the provider used. */
  index: number
  /** The provider's id; generated (`call_...`) when the provider sent none or a duplicate. */
  id: string
  name: string
  /** The exact JSON text assembled (free text for `kind: 'custom'`). */
  arguments: string
  /**
   * True only when the stream signalled the call's end and its arguments are one JSON object.
   * `ToolRuntime.dispatch` refuses a call with `complete: false`.
   */
  complete: boolean
  /** A Responses custom tool call: `arguments` is free text. */
  kind?: 'custom'
  /** `INCOMPLETE_ARGUMENTS` (cut off) or `INVALID_JSON` (ended, but not a JSON object). */
  error?: { code: ErrorCode; message: string }
  /** What the provider needs back: `itemId`, `thoughtSignature`, `caller`, `type`. */
  providerMetadata?: Record<string, unknown>
}

/** One thinking (reasoning) block, with the signature the provider needs back. */
export interface ThinkingBlock {
  text: string
  signature?: string
  /** Opaque data of a redacted thinking block. */
  redacted?: string
  /** The provider's id of the block (a Responses reasoning item's `rs_` id), sent back with it. */
  id?: string
}

export interface AssembledTurn {
  /** The calls the client must run, in order. */
  toolCalls: AssembledToolCall[]
  /** Calls the provider ran itself (Anthropic server tools, Responses built-in tools). */
  serverToolCalls: AssembledToolCall[]
  text: string
  thinking: ThinkingBlock[]
  stopReason: StopReason
  rawStopReason: string | null
  usage?: { inputTokens?: number; outputTokens?: number; raw?: unknown }
  errors: string[]
  /** Each error's kind, in the order of `errors`: a stable name to tell errors apart by (their messages are prose and may change). */
  errorKinds: DecodeErrorKindName[]
  /** The events that `finish()` itself caused (cut-off calls ending, an error, `done`). */
  events: StreamEvent[]
}

export type StreamEvent =
  | { type: 'toolcall_start'; index: number; id: string; name: string; kind?: 'custom' }
  | {
      type: 'toolcall_delta'
      index: number
      /** The raw fragment; `''` on the further changes of one fragment. */
      delta: string
      partial?: PartialChange
      /** With `partial: 'object'`: the partial arguments as they stand. */
      object?: unknown
    }
  | { type: 'toolcall_end'; index: number; toolCall: AssembledToolCall }
  | { type: 'text_delta'; delta: string }
  | { type: 'thinking_delta'; delta: string }
  | { type: 'done'; stopReason: StopReason }
  | { type: 'error'; kind: DecodeErrorKindName; message: string }

/** What a decoder error is about (the values of `DecodeErrorKind`, generated from the engine). */
export type DecodeErrorKindName = (typeof DecodeErrorKind)[keyof typeof DecodeErrorKind]

// Shell command analysis

/** What `analyzeCommand` approves and where it looks for programs. */
export interface AnalyzeOptions {
  /**
   * The directory the command runs in: relative program paths (`./x`), relative PATH entries
   * (`.`, an empty entry, `bin`) and `git -C` resolve against it, as the shell resolves them. A
   * relative value is resolved against `process.cwd()`. Default `process.cwd()`.
   */
  cwd?: string
  /**
   * Allowed programs: a bare name (`'git'`) matches a program whose real file is in a trusted
   * dir, by the real file's name (or the name of a symlink to it that lies, with every further
   * link, in trusted dirs, as `/usr/bin/python3` -> `python3.11`), never by the name it was typed
   * as; an entry with `/` is a glob (`*` within a path segment, `**` across, `?` one character)
   * matched against the program's real path, symlinks resolved. Wrappers are never approved.
   */
  allowlist?: string[]
  /**
   * Stream filters approved with only their profile's arguments, never a file, matched by the
   * name of the program's real file in a trusted dir. Default `cut uniq head tail tr wc`.
   */
  safeBins?: string[]
  /** Directories whose programs bare allowlist names and safe bins may match. Default `/bin /usr/bin /usr/local/bin /sbin /usr/sbin /usr/local/sbin /usr/games /usr/local/games`. */
  trustedDirs?: string[]
  /** Only `PATH` is read: given `env` without `PATH`, nothing is found. Default `process.env`. */
  env?: { PATH?: string; [name: string]: string | undefined }
}

/** The verdict on one simple command of the line. */
export interface SegmentVerdict {
  /** Its words after quote removal. */
  argv: string[]
  /** The program as typed (`argv[0]`); `null` for a leading `NAME=value`. */
  executable: string | null
  /** The program's real path, when it was found. */
  resolvedPath: string | null
  /** Whether this segment may run. */
  approved: boolean
  /** Why it was refused, or which rule approved it (`allowlisted by \`git\``, `safe bin \`head\``). */
  reason: string | null
  /** Whether the program runs other commands or program text (never approved). */
  wrapper: boolean
}

/** The verdict on a whole command line. */
export interface CommandAnalysis {
  /** Whether every segment is approved and nothing was refused at the command level. */
  approved: boolean
  /** The first refusal, when not approved. */
  reason?: string
  /** One verdict per segment of `;`, `&&`, `||` and `|`; empty when the line could not be read. */
  segments: SegmentVerdict[]
}

/** One step of an {@link ActionPlan}: a tool call, run once its dependencies are done. */
export interface PlanStep {
  /** Unique in the plan: `[A-Za-z0-9_.-]{1,128}`. */
  id: string
  /** The tool to call. */
  tool: string
  /**
   * The arguments. String values may be references: `$steps.<id>.x` (the step's data; the
   * explicit `$steps.<id>.data.x` is the same value, `$steps.<id>.$content` its content blocks),
   * `$vars.<name>`, and in a `foreach` step `{item}`, `{item.path}`, `{index}` (whole, or
   * embedded in text).
   */
  args?: Record<string, unknown>
  /** Steps that must end first (references add their steps implicitly). */
  dependsOn?: string[]
  /** Runs the call once per item: a literal list, or a reference to one. */
  foreach?: unknown[] | string
  /** Retries of a failed call (`max` is clamped to `PlanOptions.maxRetries`); the wait doubles. */
  retry?: { max?: number; backoffMs?: number }
  /** After the retries: `fail` (default) fails the plan, `continue` runs dependents with the
   *  reference resolving to `null`, `skip` skips the step's dependents. */
  onError?: 'fail' | 'continue' | 'skip'
  /** The var name the step's data is visible under (`$vars.<name>`) to its dependents. */
  captureAs?: string
  /** Shown to the confirmer as a preview step. */
  preview?: boolean
  /** The deadline of each call, in milliseconds. */
  timeoutMs?: number
}

/** A list of tool calls run as a dependency graph. */
export interface ActionPlan {
  /** The run id (default: `plan_<time36>_<random>`). */
  runId?: string
  /** Values for `$vars.<name>` references. */
  vars?: Record<string, unknown>
  steps: PlanStep[]
  /** `true`: confirm the whole plan before it runs; a list: confirm those steps. */
  confirmationsRequired?: boolean | string[]
}

/** What `options.confirm` is asked before the plan runs. */
export interface ConfirmationRequest {
  runId: string
  /** Stamped on every call of the confirmed steps when confirmed. */
  confirmationId: string
  /** The steps to confirm, arguments as written (references unresolved). */
  steps: { id: string; tool: string; args: unknown; preview: boolean }[]
}

/** An event of a plan run (tool `tool_execution_*` events are forwarded as they are too). */
export interface PlanEvent {
  type:
    | 'run.started'
    | 'run.confirmationRequested'
    | 'run.confirmed'
    | 'run.cancelled'
    | 'run.finished'
    | 'step.scheduled'
    | 'step.started'
    | 'step.progress'
    | 'step.finished'
    | 'step.failed'
    | 'step.skipped'
    | 'step.cancelled'
  runId: string
  /** Milliseconds since the epoch. */
  timestamp: number
  /** `warn` for failed, skipped and cancelled; `error` for a failed run. */
  level: 'info' | 'warn' | 'error'
  /** A sentence saying what happened. */
  message: string
  /** Every `step.*` event. */
  stepId?: string
  /** `step.*`: the step's latest call (for `step.started`, its first). */
  callId?: string
  tool?: string
  /** `step.started`, `step.progress` and the end events once a call was made. */
  attempt?: number
  /** Every `step.*` event of a `foreach` step, `step.scheduled` included. */
  loopId?: string
  /** The iteration of a `foreach` step. */
  index?: number
  /** Every `step.*` event of a confirmed step, and the `run.confirm*` and `run.cancelled` events. */
  confirmationId?: string
  /** `run.confirmationRequested`: the steps to confirm (secrets scrubbed in the audit log). */
  steps?: ConfirmationRequest['steps']
  /** `step.progress`: the tool's partial result. */
  partialResult?: unknown
  /** `step.failed`, `step.skipped`, `step.cancelled`: why. */
  error?: { code: PlanStepErrorCode; message: string }
  /** `run.finished`: how the plan ended. */
  status?: PlanOutcome['status']
  /** `run.cancelled`: why. */
  reason?: string
}

/** Options of `ToolRuntime.executePlan`. */
export interface PlanOptions {
  /** Only these registered tools may run (passed to each step's dispatch; another ends NOT_FOUND); `[]` is no tool (not all: unlike a policy allow list, where an empty list allows all). */
  tools?: string[]
  /** The most calls in flight at once (default 4). */
  maxConcurrency?: number
  /** Every step's `retry.max` is clamped to this (default 5, at most 100). */
  maxRetries?: number
  /** Aborting cancels the plan: in-flight calls are aborted, the outcome is `cancelled`. */
  signal?: AbortSignal
  onEvent?: (event: PlanEvent | ToolExecutionEvent) => void
  /** Asked before a plan with `confirmationsRequired` runs; only `true` confirms. Raced with `signal` and `callbackTimeoutMs`: no answer in time cancels the plan. */
  confirm?: (request: ConfirmationRequest) => boolean | Promise<boolean>
  /** How long `confirm` may take to answer, in ms (default 120000, as an approval). */
  callbackTimeoutMs?: number
  provider?: string
  agentId?: string
  sender?: { id?: string; isOwner?: boolean }
  /** An audit log of its own for this plan (else the runtime's). */
  audit?: AuditOptions
}

/** How a plan ended. */
export interface PlanOutcome {
  runId: string
  status: 'ok' | 'failed' | 'cancelled'
  /** Every step, in plan order. */
  steps: Record<string, { status: 'ok' | 'failed' | 'skipped' | 'cancelled'; results: ToolResult[]; error?: { code: PlanStepErrorCode; message: string } }>
  /** Every result, in the order calls completed. */
  results: ToolResult[]
  /** Set when the plan's audit log could not be written at some point: why (see RunOutcome). */
  auditFailed?: string
}
