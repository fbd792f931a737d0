// Generated from crates/toolwire-core/src/contract.rs by `npm run contract`: do not edit.

import type { ResultView } from './view.js'
import type { RapToolResult, RemoteToolDef } from './remote.js'
import type { ApprovalRequest, ErrorCode, PlanStepErrorCode, RapEvent, SanitizeReport, ToolCall, ToolResult } from './types.js'

/** Actions from the engine: `[code, ...]`, what the driver must do, in order. (toolwire_core::dispatch::protocol::ActionCode) */
export const Action = Object.freeze({
  START_EVENT: 0,
  BEFORE_HOOK: 1,
  CONCURRENCY_KEY: 2,
  RUN_TOOL: 3,
  ABORT: 4,
  AFTER_HOOK: 5,
  PERSIST_HOOK: 6,
  END: 7,
  BATCH_DONE: 8,
  TIMER: 9,
  END_AS_RETURNED: 10,
  REDACTION_FAILED: 11,
  TRIM: 12,
  LOOP_WARNING: 13,
  APPROVAL: 14,
  WARNING: 15,
} as const)

/** A plan run's actions: `[code, ...]`, what the plan driver must do, in order. (toolwire_core::plan::PlanActionCode) */
export const PlanAction = Object.freeze({
  DISPATCH: 0,
  WAIT: 1,
  STEP_EVENT: 2,
  FINISHED: 3,
  FAULT: 4,
} as const)

/** The RAP transport's messages: `[code, ...]`, a ticket's answer or an event, as many as are ready per crossing. (toolwire_core::rap_message::RapMessageCode) */
export const RapMessage = Object.freeze({
  LOADED: 0,
  RESULT: 1,
  FAILED: 2,
  TIMEOUT: 3,
  CANCELLED: 4,
  DONE: 5,
  EVENT: 6,
} as const)

/** Content described for the engine: each block `[code, ...]`, by index into the texts and buffers beside it. (toolwire_core::sanitize::blocks::BlockCode) */
export const DescribedBlock = Object.freeze({
  WHOLE: 0,
  ENDS: 1,
  BYTES: 2,
  IMAGE: 3,
} as const)

/** Completions to the engine: `[batch, slot, token, kind]`, what a tool or hook did. (toolwire_core::dispatch::protocol::CompletionCode) */
export const Completion = Object.freeze({
  BEFORE_ANSWERED: 0,
  BEFORE_FAILED: 1,
  KEY: 2,
  KEY_FAILED: 3,
  RETURNED: 4,
  RETURNED_NOTHING: 5,
  THREW: 6,
  UNSERIALIZABLE: 7,
  MISSING: 8,
  AFTER_ANSWERED: 9,
  AFTER_FAILED: 10,
  PERSIST_ANSWERED: 11,
  PERSIST_FAILED: 12,
  RETURNED_SANITIZED: 13,
  APPROVAL_ANSWERED: 14,
  APPROVAL_FAILED: 15,
  THREW_NOT_RETRYABLE: 16,
  TOO_DEEP: 17,
  BEFORE_PARAMS_NOT_FINITE: 18,
  OVER_LIMIT: 19,
  RETURNED_TEXT: 20,
} as const)

/** How a result as returned is rebuilt from the tool's value. (toolwire_core::output::OutputShape) */
export const OutputShape = Object.freeze({
  AGENT_RESULT: 0,
  TEXT: 1,
  JSON: 2,
  NOTHING: 3,
} as const)

/** How a call's arguments text is to be read: `[id, name, kind]`. (toolwire_core::dispatch::protocol::ArgumentKind) */
export const ArgumentKind = Object.freeze({
  TEXT: 0,
  OBJECT: 1,
  UNSERIALIZABLE: 2,
  INCOMPLETE: 3,
  NOT_FINITE: 4,
} as const)

/** The audit log file a record goes to. (toolwire_core::audit::LogFile) */
export const LogFile = Object.freeze({
  CALLS: 0,
  RESULTS: 1,
  EVENTS: 2,
} as const)

/** What a decoder error is about: an `error` event's `kind`, an AssembledTurn's `errorKinds`. (toolwire_core::wire::decode_error::DecodeErrorKind) */
export const DecodeErrorKind = Object.freeze({
  NOT_THE_WIRE: "not-the-wire",
  TOOL_CALLS_LOST: "tool-calls-lost",
  SPLICED_STREAM: "spliced-stream",
  STREAM_TRUNCATED: "stream-truncated",
  PROVIDER_ERROR: "provider-error",
  CONTENT_FILTER: "content-filter",
  RESPONSE_FAILED: "response-failed",
  PROMPT_BLOCKED: "prompt-blocked",
  ABNORMAL_FINISH: "abnormal-finish",
  FRAGMENT_AFTER_FINISH: "fragment-after-finish",
  SEVERAL_RESPONSES: "several-responses",
  SEVERAL_CHOICES: "several-choices",
  ARGUMENTS_FOR_UNKNOWN_ITEM: "arguments-for-unknown-item",
  MISSING_BLOCK_INDEX: "missing-block-index",
  BLOCK_INDEX_REUSED: "block-index-reused",
  NAMELESS_FUNCTION_CALL: "nameless-function-call",
  BAD_PARTIAL_ARGUMENTS: "bad-partial-arguments",
  OVERSIZED_EVENT: "oversized-event",
  UNREADABLE_EVENT: "unreadable-event",
  INPUT_AFTER_FINISH: "input-after-finish",
} as const)

/** What a decoder repaired of a provider quirk: a `repair` event's `kind`, the `kind` of each of an AssembledTurn's `repairs`. (toolwire_core::wire::repair::RepairKind) */
export const RepairKind = Object.freeze({
  WHOLE_RESPONSE: "whole-response",
  FILTER_ONLY_CHUNK: "filter-only-chunk",
  TRAILING_EMPTY_FRAGMENT: "trailing-empty-fragment",
  MISSING_INDEX: "missing-index",
  EMPTY_STRING_FIELDS: "empty-string-fields",
  INDEX_OFFSET: "index-offset",
  INDEX_REUSED: "index-reused",
  UNSTABLE_ID: "unstable-id",
  NAME_REPEATED: "name-repeated",
  NAME_SPLIT: "name-split",
  NAME_AFTER_ARGUMENTS: "name-after-arguments",
  ARGUMENTS_RESENT: "arguments-resent",
  CUMULATIVE_ARGUMENTS: "cumulative-arguments",
  MISSING_ID: "missing-id",
  DUPLICATE_CALL_ID: "duplicate-call-id",
  REPEATED_START: "repeated-start",
  REPEATED_EVENT: "repeated-event",
  FINISH_STOP_WITH_CALLS: "finish-stop-with-calls",
  ITEM_ID_ROTATION: "item-id-rotation",
  NO_ARGUMENT_DELTAS: "no-argument-deltas",
  ARGUMENTS_CORRECTED: "arguments-corrected",
  DUPLICATE_MESSAGE_START: "duplicate-message-start",
  TOOL_USE_IN_MESSAGE_START: "tool-use-in-message-start",
  EMPTY_TOOL_INPUT: "empty-tool-input",
  WHOLE_INPUT_IN_BLOCK_START: "whole-input-in-block-start",
  BLOCK_NOT_CLOSED: "block-not-closed",
  PARTIAL_ARGS_STREAMING: "partial-args-streaming",
  MISSING_TERMINAL_FUNCTION_CALL: "missing-terminal-function-call",
} as const)

/** The codes a thrown ToolwireError and a failed result carry (toolwire_core::ErrorCode). */
export const ERROR_CODES = Object.freeze([
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'INCOMPLETE_ARGUMENTS',
  'NOT_FOUND',
  'POLICY_DENIED',
  'APPROVAL_REQUIRED',
  'BLOCKED',
  'TIMEOUT',
  'CANCELLED',
  'EXECUTION_ERROR',
  'REDACTION_FAILED',
  'LIMIT_EXCEEDED',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PLAN_INVALID',
  'INTERNAL_ERROR',
] as const)

/** The largest batch id a driver may choose (batch ids cross as 32-bit numbers). */
export const MAX_BATCH_ID = 4294967295

/** The numbers of one completion's head: batch, slot, token, kind, and its payload's length. */
export const COMPLETION_HEAD_LEN = 5

/** The clock readings of one completion: performance.now() when its tool started and when it settled (NaN for anything but a tool). */
export const COMPLETION_READINGS_LEN = 2

/** What joins texts crossing as one string, each with its length beside it (toolwire_core::joined). */
export const JOINED_SEPARATOR = "\u0000"

/** How deep a value handed to the engine may nest (deeper ones are refused). */
export const MAX_VALUE_DEPTH = 64

/** The most of a value a message quotes. */
export const MAX_QUOTED_BYTES = 1024

/** How far past a cut secrets are searched for, in characters. */
export const SECRET_WINDOW = 4096

/** The per-result budget of characters when none is given. */
export const DEFAULT_MAX_RESULT_CHARS = 32768

/** The text of a tool that returned nothing. */
export const NO_OUTPUT = "(no output)"

/** The keys of a result that encodeResults reads; the driver sends only these. */
export const ENCODED_RESULT_KEYS = Object.freeze(["callId","toolCallId","tool","toolName","isError","ok","status","content","error"] as const)

/** The most retries a plan step may ask for. */
export const PLAN_MAX_RETRIES = 100

/** The retries a plan step may take when `maxRetries` is not given. */
export const PLAN_DEFAULT_MAX_RETRIES = 5

/** How many plan steps run at once when `maxConcurrency` is not given. */
export const PLAN_DEFAULT_MAX_CONCURRENCY = 4

/** The provider wire APIs, in the engine's order. */
export const WIRES = Object.freeze(["openai-chat","openai-responses","anthropic","gemini","mistral"] as const)
/** The provider wire APIs a StreamDecoder reads. */
export type Wire = (typeof WIRES)[number]

/** Each wire's request body (toolwire_core::provider::RequestShape): the keys of the history and of the tool choice, whether it asks for a stream, and whether for the stream's usage. */
export const REQUEST_SHAPES = Object.freeze({
  'openai-chat': Object.freeze({ history: 'messages', toolChoice: 'tool_choice', stream: true, streamUsage: true } as const),
  'openai-responses': Object.freeze({ history: 'input', toolChoice: 'tool_choice', stream: true, streamUsage: false } as const),
  anthropic: Object.freeze({ history: 'messages', toolChoice: 'tool_choice', stream: true, streamUsage: false } as const),
  gemini: Object.freeze({ history: 'contents', toolChoice: 'toolConfig', stream: false, streamUsage: false } as const),
  mistral: Object.freeze({ history: 'messages', toolChoice: 'tool_choice', stream: true, streamUsage: false } as const),
} as const)
/** The schema dialects normalizeSchema speaks, in the engine's order. `p0` changes nothing and reports what is not portable. */
export const SCHEMA_TARGETS = Object.freeze(["openai","openai-strict","anthropic","gemini","xai","mistral","llamacpp","p0"] as const)
/** A schema dialect normalizeSchema speaks. */
export type SchemaTarget = (typeof SCHEMA_TARGETS)[number]


/** Emit `tool_execution_start`. `args` is left out when they are the call's own; `id` and `name` are the ones events show when the engine scrubbed them (else null when `repeats` follows); `repeats`: the slot of the earlier call of the batch with this id. */
export type StartEventAction = [code: typeof Action.START_EVENT, batch: number, slot: number, args?: unknown, id?: string | null, name?: string | null, repeats?: number]

/** Run `beforeToolCall` with the validated arguments and the call's envelope. */
export type BeforeHookAction = [code: typeof Action.BEFORE_HOOK, batch: number, slot: number, token: number, args: unknown, call: ToolCall]

/** Compute the tool's `concurrencyKey(args)`, synchronously. */
export type ConcurrencyKeyAction = [code: typeof Action.CONCURRENCY_KEY, batch: number, slot: number, token: number, args: unknown]

/** Run the tool registered as `tool`; `args` is left out when they are the call's own. Calls of one batch started in one answer with the same `timeoutMs` (their running deadline, from now) end by the same deadline: they share one AbortSignal. */
export type RunToolAction = [code: typeof Action.RUN_TOOL, batch: number, slot: number, token: number, tool: number, timeoutMs: number, args?: unknown]

/** Abort the running tool's signal; its late outcome is ignored. */
export type AbortAction = [code: typeof Action.ABORT, batch: number, slot: number, reason: 'timeout' | 'cancelled']

/** Run `afterToolCall` with the result so far. */
export type AfterHookAction = [code: typeof Action.AFTER_HOOK, batch: number, slot: number, token: number, result: ToolResult]

/** Run `onPersist` with the result so far. */
export type PersistHookAction = [code: typeof Action.PERSIST_HOOK, batch: number, slot: number, token: number, result: ToolResult]

/** The call ended with `result`: emit `tool_execution_end` and keep it. `view`: what events show instead, where it differs (null when `repeats` follows without one); `repeats`: as for the start event. */
export type EndAction = [code: typeof Action.END, batch: number, slot: number, result: ToolResult, view?: ResultView | null, repeats?: number]

/** Every call of the batch has ended. */
export type BatchDoneAction = [code: typeof Action.BATCH_DONE, batch: number]

/** Arm the one timer to call `tick` after `delayMs` milliseconds; -1 disarms it. */
export type TimerAction = [code: typeof Action.TIMER, delayMs: number]

/** The call ended successfully with the tool's value as returned, in `shape`: the driver builds the result from the value it holds. `text`: the value's JSON text for the JSON shape (else null when a view follows). */
export type EndAsReturnedAction = [code: typeof Action.END_AS_RETURNED, batch: number, slot: number, startedAt: number, endedAt: number, durationMs: number, shape: (typeof OutputShape)[keyof typeof OutputShape], text?: string | null, view?: ResultView]

/** Details were withheld from events (strict redaction, no allowlist): emit `redaction_failed`. */
export type RedactionFailedAction = [code: typeof Action.REDACTION_FAILED, batch: number, slot: number]

/** The batch's text is over `maxBatchChars`: these text blocks of the call's result are cut further. */
export type TrimAction = [code: typeof Action.TRIM, batch: number, slot: number, blocks: [index: number, text: string][], truncations: SanitizeReport['truncated']]

/** The run made this call (same tool, same arguments) `count` times: emit `loop_warning`. */
export type LoopWarningAction = [code: typeof Action.LOOP_WARNING, batch: number, slot: number, count: number]

/** Ask the runtime's `onApproval(request)`. */
export type ApprovalAction = [code: typeof Action.APPROVAL, batch: number, slot: number, token: number, request: ApprovalRequest]

/** Tell the developer something that does not change the call's result (`process.emitWarning`). */
export type WarningAction = [code: typeof Action.WARNING, batch: number, slot: number, message: string]

/** An action of the engine: a JSON array whose first element is its code (toolwire_core::dispatch::layout). */
export type EngineAction =
  | StartEventAction
  | BeforeHookAction
  | ConcurrencyKeyAction
  | RunToolAction
  | AbortAction
  | AfterHookAction
  | PersistHookAction
  | EndAction
  | BatchDoneAction
  | TimerAction
  | EndAsReturnedAction
  | RedactionFailedAction
  | TrimAction
  | LoopWarningAction
  | ApprovalAction
  | WarningAction

/** Run one call through the dispatcher; feed its result to `completed` with the same `callId` (`<runId>:<stepId>[:<index>]`, the same for all its attempts). `args` has its references resolved; `attempt` counts from 1; `loopId` and `index` mark a `foreach` step's iteration. */
export type PlanDispatchAction = [code: typeof PlanAction.DISPATCH, stepId: string, callId: string, tool: string, args: unknown, attempt: number, loopId: string | null, index: number | null, timeoutMs: number | null, preview: boolean, confirmationRequired: boolean]

/** Sleep `delayMs` before a retry, then call `retryDue` with the step and index; `attempt` is the one that will run. */
export type PlanWaitAction = [code: typeof PlanAction.WAIT, stepId: string, index: number | null, attempt: number, delayMs: number]

/** Something happened to a step: emit it as `step.<kind>`. */
export type PlanStepEventAction = [code: typeof PlanAction.STEP_EVENT, kind: 'scheduled' | 'started' | 'finished' | 'failed' | 'skipped' | 'cancelled', stepId: string, tool: string, loopId: string | null, confirmationRequired: boolean, problem: { code: PlanStepErrorCode; message: string } | null]

/** The plan is over: each step's status, its results as indexes into the results fed back, and its problem. */
export type PlanFinishedAction = [code: typeof PlanAction.FINISHED, runId: string, status: 'ok' | 'failed' | 'cancelled', steps: Record<string, { status: 'ok' | 'failed' | 'skipped' | 'cancelled'; results: number[]; error?: { code: PlanStepErrorCode; message: string } }>]

/** The binding could not serialize an action: fail the plan with `message`. */
export type PlanFaultAction = [code: typeof PlanAction.FAULT, message: string]

/** An action of a plan run: a JSON array whose first element is its code (toolwire_core::plan::layout). */
export type PlanEngineAction =
  | PlanDispatchAction
  | PlanWaitAction
  | PlanStepEventAction
  | PlanFinishedAction
  | PlanFaultAction

/** The toolset loaded: its name and its tools (their names as registered, the toolset's prefix included). */
export type RapLoadedMessage = [code: typeof RapMessage.LOADED, ticket: number, toolset: string, tools: RemoteToolDef[]]

/** The call's `tool_result` as received; `error` when its text starts with `Error:`; `refused`: why, when it stands for a callback the server refused. */
export type RapResultMessage = [code: typeof RapMessage.RESULT, ticket: number, error: boolean, result: RapToolResult, refused?: 'LIMIT_EXCEEDED' | 'EXECUTION_ERROR']

/** The load, call or request failed; `status`: the HTTP status that rejected an invocation or a manifest. */
export type RapFailedMessage = [code: typeof RapMessage.FAILED, ticket: number, errorCode: ErrorCode, message: string, status?: number]

/** The call sent no result by its deadline (a cancel was sent). */
export type RapTimeoutMessage = [code: typeof RapMessage.TIMEOUT, ticket: number]

/** The call was aborted before its result came (a cancel was sent). */
export type RapCancelledMessage = [code: typeof RapMessage.CANCELLED, ticket: number]

/** The `closeThread` or `answerUserChoice` finished. */
export type RapDoneMessage = [code: typeof RapMessage.DONE, ticket: number]

/** A RAP event, as the runtime's `onEvent` gets it once scrubbed of secrets. */
export type RapEventMessage = [code: typeof RapMessage.EVENT, event: RapEvent]

/** A message of the RAP transport: a JSON array whose first element is its code (toolwire_core::rap_message::layout). */
export type RapEngineMessage =
  | RapLoadedMessage
  | RapResultMessage
  | RapFailedMessage
  | RapTimeoutMessage
  | RapCancelledMessage
  | RapDoneMessage
  | RapEventMessage

/** A whole string: `texts[text]`. */
export type DescribedWholeBlock = [code: typeof DescribedBlock.WHOLE, text: number]

/** A string much longer than the budget, by its two ends: `texts[head]` and `texts[tail]`, and its whole length in UTF-16 code units. */
export type DescribedEndsBlock = [code: typeof DescribedBlock.ENDS, head: number, tail: number, length: number]

/** UTF-8 text that never became a JavaScript string: `buffers[buffer]`. */
export type DescribedBytesBlock = [code: typeof DescribedBlock.BYTES, buffer: number]

/** A base64 image: its data `texts[data]`, its declared MIME type. */
export type DescribedImageBlock = [code: typeof DescribedBlock.IMAGE, data: number, mimeType: string]

/** A block of content described for the engine: a JSON array whose first element is its code (toolwire_core::sanitize::layout). */
export type BlockDescription =
  | DescribedWholeBlock
  | DescribedEndsBlock
  | DescribedBytesBlock
  | DescribedImageBlock
